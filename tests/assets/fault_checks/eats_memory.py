"""A check that allocates without end, bounded by an address-space limit it sets itself.

The limit is 1 GiB above what the process already maps (a CUDA build of torch maps several GiB
of address space before any allocation), and it is lifted again when the check ends, so the
worker that ran it stays usable: what is tested is the MemoryError, not a crippled worker.
"""

import resource


def _mapped_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def run(device):
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _mapped_bytes() + 1024**3
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    hoard = []
    try:
        while True:
            hoard.append(bytearray(64 * 1024**2))
    finally:
        hoard.clear()
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
