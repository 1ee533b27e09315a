"""A check that never returns (fault injection for the runner)."""

import time


def run(device):
    while True:
        time.sleep(1)
