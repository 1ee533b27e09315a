"""A check that closes its stdout and stderr, then returns a result."""

import os


def run(device):
    os.close(1)
    os.close(2)
    print("nobody will see this")
    return {"reproduced": False, "evidence": "returned after closing stdout and stderr"}
