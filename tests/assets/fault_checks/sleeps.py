"""A check that sleeps for a minute (to be interrupted).

When ``IPEX_DOCTOR_TEST_MARKER`` names a file, the check writes it first, so a test knows the
worker is inside this check (and not still importing torch) before it sends a signal.
"""

import os
import time


def run(device):
    marker = os.environ.get("IPEX_DOCTOR_TEST_MARKER")
    if marker:
        with open(marker, "w") as handle:
            handle.write(str(os.getpid()))
    time.sleep(60)
    return {"reproduced": False, "evidence": "slept"}
