"""A check that segfaults (fault injection for the runner)."""

import ctypes


def run(device):
    ctypes.string_at(0)
