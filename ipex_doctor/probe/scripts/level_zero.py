"""Ask the Level Zero loader what it sees; print one JSON line. Standard library only.

Loads ``libze_loader.so.1`` (``ze_loader.dll`` on Windows) with ctypes, calls ``zeInit(0)``,
then ``zeDriverGet`` and ``zeDeviceGet`` on each driver. Run in its own interpreter: a broken
GPU driver may crash or hang the caller.
"""

import ctypes
import ctypes.util
import json
import sys

RESULTS = {
    0x0: "ZE_RESULT_SUCCESS",
    0x70000001: "ZE_RESULT_ERROR_DEVICE_LOST",
    0x70000002: "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY",
    0x70000003: "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
    0x78000001: "ZE_RESULT_ERROR_UNINITIALIZED",
    0x78000002: "ZE_RESULT_ERROR_UNSUPPORTED_VERSION",
    0x78000003: "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE",
    0x78000004: "ZE_RESULT_ERROR_INVALID_ARGUMENT",
    0x7FFFFFFE: "ZE_RESULT_ERROR_UNKNOWN",
}
LOADERS = (
    ("ze_loader.dll",) if sys.platform == "win32" else ("libze_loader.so.1", "libze_loader.so")
)
GPU_RUNTIMES = ("ze_intel_gpu", "ze_intel_gpu64", "igdrcl")


def facts() -> dict[str, object]:
    """What the loader answers (see the module)."""
    facts: dict[str, object] = {"loader": None, "ze_init": None}
    drivers = devices = 0
    library = None
    for name in LOADERS:
        try:
            library = ctypes.CDLL(name)
        except OSError:
            continue
        facts["loader"] = name
        break
    facts["gpu_runtime"] = [n for n in GPU_RUNTIMES if ctypes.util.find_library(n)]
    if library is not None:
        code = library.zeInit(ctypes.c_uint32(0)) & 0xFFFFFFFF
        facts["ze_init"] = RESULTS.get(code, hex(code))
        if code == 0:
            count = ctypes.c_uint32(0)
            library.zeDriverGet(ctypes.byref(count), None)
            drivers = count.value
            handles = (ctypes.c_void_p * count.value)()
            library.zeDriverGet(ctypes.byref(count), handles)
            for handle in handles:
                found = ctypes.c_uint32(0)
                library.zeDeviceGet(ctypes.c_void_p(handle), ctypes.byref(found), None)
                devices += found.value
    return {**facts, "drivers": drivers, "devices": devices}


def main() -> None:
    print(json.dumps(facts()))


if __name__ == "__main__":
    main()
