"""A check that runs for 8 s, reporting progress every 0.2 s (a slow but live run)."""

import time


def run(device, progress=None):
    for step in range(40):
        time.sleep(0.2)
        if progress:
            progress("stepping", step + 1, 40)
    return {"reproduced": False, "evidence": "progressed for 8 s"}
