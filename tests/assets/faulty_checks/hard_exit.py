"""A check that calls os._exit(3) (fault injection for the runner)."""

import os


def run(device):
    print("about to leave", flush=True)
    os._exit(3)
