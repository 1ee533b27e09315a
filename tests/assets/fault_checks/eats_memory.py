"""A check that allocates without end, bounded by an address-space limit it sets itself."""

import resource


def run(device):
    limit = 2 * 1024**3
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    hoard = []
    while True:
        hoard.append(bytearray(64 * 1024**2))
