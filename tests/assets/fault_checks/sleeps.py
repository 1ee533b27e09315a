"""A check that sleeps for a minute (to be interrupted)."""

import time


def run(device):
    time.sleep(60)
    return {"reproduced": False, "evidence": "slept"}
