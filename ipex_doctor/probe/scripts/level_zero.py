"""Ask the Level Zero loader what it sees; print one JSON line. Standard library only.

Loads ``libze_loader.so.1`` (``ze_loader.dll`` on Windows) with ctypes, calls ``zeInit(0)``,
then ``zeDriverGet`` and ``zeDeviceGet`` on each driver. Run in its own interpreter: a broken
GPU driver may crash or hang the caller.
"""

import ctypes
import json
import os
import re
import subprocess
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
    facts["gpu_runtime"] = gpu_runtimes()
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


def gpu_runtimes() -> list[str]:
    """The names of ``GPU_RUNTIMES`` the dynamic linker can find: in its cache (``ldconfig -p``,
    matched as ``ctypes.util.find_library`` matches it) or, as ``lib<name>.so*``, in a
    directory of ``LD_LIBRARY_PATH`` (searched before the cache, as the linker does).

    NOTE: by hand rather than ``ctypes.util.find_library``, which runs ``ldconfig -p`` for each
    name and, for a name it does not list (every one on a machine without Intel's GPU runtime),
    gcc (with collect2 and ld) and ld again: 15 processes, most of this probe's time. The linker
    options those find (``LIBRARY_PATH``, unversioned ``.so`` files) are where a program is
    linked from, not where the Level Zero loader's ``dlopen`` looks.
    """
    if sys.platform == "win32":
        import ctypes.util  # NOTE: searches PATH there, no process

        return [name for name in GPU_RUNTIMES if ctypes.util.find_library(name)]
    found = set()
    for directory in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep):
        try:
            files = os.listdir(directory) if directory else []
        except OSError:
            continue
        for name in GPU_RUNTIMES:
            if any(f == f"lib{name}.so" or f.startswith(f"lib{name}.so.") for f in files):
                found.add(name)
    missing = [name for name in GPU_RUNTIMES if name not in found]
    if missing:
        x86_64 = os.uname().machine == "x86_64" and sys.maxsize > 2**32
        abi = "libc6,x86-64" if x86_64 else "libc6"  # NOTE: find_library's, for its words
        try:
            listed = subprocess.run(
                ["/sbin/ldconfig", "-p"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                env={"LC_ALL": "C", "LANG": "C"},
                timeout=10,
            ).stdout.decode("utf-8", "replace")
        except (OSError, subprocess.SubprocessError):
            listed = ""
        for name in missing:
            if re.search(rf"\s+lib{re.escape(name)}\.[^\s]+\s+\({re.escape(abi)}", listed):
                found.add(name)
    return [name for name in GPU_RUNTIMES if name in found]


def main() -> None:
    print(json.dumps(facts()))


if __name__ == "__main__":
    main()
