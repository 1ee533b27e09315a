"""A check that prints 20 MB, then returns a result."""

import sys


def run(device):
    line = "x" * 1023 + "\n"
    for _ in range(20 * 1024):
        sys.stdout.write(line)
    return {"reproduced": False, "evidence": "returned after printing 20 MB"}
