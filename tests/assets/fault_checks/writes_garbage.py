"""A check that writes garbage into the worker's result channel, then returns a result."""

import os
import sys


def run(device):
    channel = int(sys.argv[1])
    os.write(channel, b"\x00\xffnot a record\n{broken json\n[1, 2, 3]\n")
    return {"reproduced": False, "evidence": "returned after writing garbage to the result channel"}
