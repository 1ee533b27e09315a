"""Ask the oneAPI runtime what it sees, through its real libraries; print one JSON line.

Standard library only (ctypes), so it runs in any examined interpreter and a user can run it by
hand: ``python unified_runtime.py``. Linux only (the runtime wheels on PyPI ship ``.so`` files);
elsewhere it says so. Run in its own, time-bounded interpreter: loading a runtime starts its
adapters, which load GPU drivers that may crash or hang the caller.

What it does, in order:

1. ``libsycl.so.N`` in the environment's ``lib`` directory (where the ``intel-sycl-rt`` wheel
   puts it) and in every ``LD_LIBRARY_PATH`` directory are listed; the environment's newest is
   loaded by path, as torch would load it: the dynamic linker then resolves its ``libur_loader``
   the way it would for torch (``LD_LIBRARY_PATH`` first, then the library's own run path), and
   a mismatch fails here with the linker's words (``version `LIBUR_LOADER_0.12' not found``).
2. The Unified Runtime loader: the one libsycl brought in, else the first ``libur_loader.so.0``
   on ``LD_LIBRARY_PATH`` then the environment's ``lib``. ``urLoaderInit``, ``urAdapterGet``, each
   adapter's backend and library, its platforms (name, version) and their devices (name, type,
   driver version): what ``sycl-ls`` prints. ``urPlatformGet`` took an array of adapters up to
   the 2025.2 runtime and one adapter from 2025.3, under the same symbol version (0.12): the
   array form is asked first, in a way the newer loader refuses before reading it (a count with
   no output buffer), then the single form.
3. The OpenCL ICD files (``OCL_ICD_VENDORS`` or ``/etc/OpenCL/vendors``, and the environment's
   ``etc/OpenCL/vendors``) and the library each names, whether it exists, and
   ``OCL_ICD_FILENAMES``: the OpenCL adapter sees a platform only through them.

Which files were really mapped comes from ``/proc/self/maps``, not from a guess. Level Zero is
asked first, in the same interpreter (``level_zero.py`` beside this file: one start for both),
so the report can say why the Level Zero adapter found nothing.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import sys
from typing import Any

SUCCESS = 0
RESULTS = {
    0: "UR_RESULT_SUCCESS",
    1: "UR_RESULT_ERROR_INVALID_OPERATION",
    3: "UR_RESULT_ERROR_INVALID_VALUE",
    4: "UR_RESULT_ERROR_INVALID_CONTEXT",
    20: "UR_RESULT_ERROR_DEVICE_LOST",
    37: "UR_RESULT_ERROR_INVALID_NULL_POINTER",
    38: "UR_RESULT_ERROR_INVALID_SIZE",
    40: "UR_RESULT_ERROR_OUT_OF_RESOURCES",
    49: "UR_RESULT_ERROR_INVALID_NULL_HANDLE",
    66: "UR_RESULT_ERROR_ADAPTER_SPECIFIC",
    67: "UR_RESULT_ERROR_LAYER_NOT_PRESENT",
    0x7FFFFFFE: "UR_RESULT_ERROR_UNKNOWN",
}
BACKENDS = {0: "unknown", 1: "level_zero", 2: "opencl", 3: "cuda", 4: "hip", 5: "native_cpu"}
DEVICE_TYPES = {1: "default", 2: "all", 3: "gpu", 4: "cpu", 5: "fpga", 6: "mca", 7: "vpu"}
ADAPTER_INFO_BACKEND = 0
PLATFORM_INFO_NAME, PLATFORM_INFO_VERSION, PLATFORM_INFO_BACKEND = 1, 3, 6
DEVICE_TYPE_ALL = 2
DEVICE_INFO_TYPE, DEVICE_INFO_NAME, DEVICE_INFO_DRIVER_VERSION = 0, 66, 68
MAX_ENTRIES = 64
LOADER = "libur_loader.so.0"
SYCL = re.compile(r"^libsycl\.so\.(\d+)$")


def environment_prefix() -> str:
    """The examined environment's prefix: ``sys.prefix``, or the one named as the first
    argument (the doctor runs this script without ``site``, which is what sets ``sys.prefix`` to
    a virtual environment's, and names the prefix its handshake read)."""
    return sys.argv[1] if len(sys.argv) > 1 else sys.prefix


def result(code: int) -> str:
    code &= 0xFFFFFFFF
    return RESULTS.get(code, "UR result %d" % code)


def search_dirs() -> list[tuple[str, str]]:
    """(directory, where it comes from), in the order the dynamic linker tries them for a
    library whose run path is the environment's lib (LD_LIBRARY_PATH first)."""
    entries = os.environ.get("LD_LIBRARY_PATH", "").split(":")
    dirs = [(os.path.abspath(entry), "LD_LIBRARY_PATH") for entry in entries if entry]
    dirs.append((os.path.join(environment_prefix(), "lib"), "environment"))
    seen: set[str] = set()
    unique: list[tuple[str, str]] = []
    for directory, source in dirs:
        if directory not in seen:
            seen.add(directory)
            unique.append((directory, source))
    return unique


def mapped(fragment: str) -> list[str]:
    """The real paths of the mapped files whose name contains ``fragment``."""
    found: list[str] = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line.rstrip("\n").split(" ", 5)[-1].strip()
                if fragment in os.path.basename(path) and path not in found:
                    found.append(path)
    except OSError:
        pass
    return found


def sycl_libraries(dirs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for directory, source in dirs:
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            match = SYCL.match(name)
            if match:
                found.append(
                    {
                        "path": os.path.join(directory, name),
                        "major": int(match.group(1)),
                        "source": source,
                    }
                )
    return found


def load_sycl(libraries: list[dict[str, Any]]) -> tuple[str | None, str | None]:
    """Load the environment's newest libsycl; its error, or None."""
    own = [lib for lib in libraries if lib["source"] == "environment"]
    if not own:
        return None, None
    chosen = max(own, key=lambda lib: lib["major"])
    try:
        ctypes.CDLL(chosen["path"], mode=os.RTLD_LAZY | os.RTLD_GLOBAL)
    except OSError as error:
        return chosen["path"], str(error)
    return chosen["path"], None


def text_info(function: Any, handle: ctypes.c_void_p, prop: int) -> str | None:
    size = ctypes.c_size_t(0)
    if function(handle, prop, 0, None, ctypes.byref(size)) != SUCCESS or not size.value:
        return None
    buffer = ctypes.create_string_buffer(min(size.value, 4096))
    if function(handle, prop, len(buffer), buffer, None) != SUCCESS:
        return None
    return buffer.value.decode("utf-8", "replace")


def u32_info(function: Any, handle: ctypes.c_void_p, prop: int) -> int | None:
    value = ctypes.c_uint32(0)
    if function(handle, prop, ctypes.sizeof(value), ctypes.byref(value), None) != SUCCESS:
        return None
    return value.value


def platforms_of(ur: Any, adapter: int) -> tuple[str, list[int], str | None]:
    """The adapter's platforms and how they were asked (see the module); or an error."""
    count = ctypes.c_uint32(0)
    array = (ctypes.c_void_p * 1)(adapter)
    code = ur.urPlatformGet(array, 1, 0, None, ctypes.byref(count))
    form = "adapter array"
    if code != SUCCESS:
        count = ctypes.c_uint32(0)
        code = ur.urPlatformGet(ctypes.c_void_p(adapter), 0, None, ctypes.byref(count))
        form = "single adapter"
    if code != SUCCESS:
        return form, [], result(code)
    wanted = min(count.value, MAX_ENTRIES)
    handles = (ctypes.c_void_p * max(wanted, 1))()
    if wanted:
        if form == "adapter array":
            code = ur.urPlatformGet(array, 1, wanted, handles, None)
        else:
            code = ur.urPlatformGet(ctypes.c_void_p(adapter), wanted, handles, None)
        if code != SUCCESS:
            return form, [], result(code)
    return form, [h for h in handles[:wanted] if h], None


def devices_of(ur: Any, platform: int) -> tuple[list[dict[str, Any]], str | None]:
    count = ctypes.c_uint32(0)
    code = ur.urDeviceGet(ctypes.c_void_p(platform), DEVICE_TYPE_ALL, 0, None, ctypes.byref(count))
    if code != SUCCESS:
        return [], result(code)
    wanted = min(count.value, MAX_ENTRIES)
    if not wanted:
        return [], None
    handles = (ctypes.c_void_p * wanted)()
    code = ur.urDeviceGet(ctypes.c_void_p(platform), DEVICE_TYPE_ALL, wanted, handles, None)
    if code != SUCCESS:
        return [], result(code)
    devices: list[dict[str, Any]] = []
    for handle in handles:
        device = ctypes.c_void_p(handle)
        kind = u32_info(ur.urDeviceGetInfo, device, DEVICE_INFO_TYPE)
        devices.append(
            {
                "name": text_info(ur.urDeviceGetInfo, device, DEVICE_INFO_NAME),
                "type": DEVICE_TYPES.get(-1 if kind is None else kind, str(kind)),
                "driver_version": text_info(ur.urDeviceGetInfo, device, DEVICE_INFO_DRIVER_VERSION),
            }
        )
    return devices, None


def ask_loader(path: str) -> dict[str, Any]:
    facts: dict[str, Any] = {"loader": path, "load_error": None, "init": None, "adapters": []}
    try:
        ur = ctypes.CDLL(path, mode=os.RTLD_LAZY | os.RTLD_GLOBAL)
    except OSError as error:
        facts["load_error"] = str(error)
        return facts
    code = ur.urLoaderInit(ctypes.c_uint32(0), None)
    facts["init"] = result(code)
    if code != SUCCESS:
        return facts
    count = ctypes.c_uint32(0)
    code = ur.urAdapterGet(0, None, ctypes.byref(count))
    if code != SUCCESS:
        facts["adapter_error"] = result(code)
        return facts
    wanted = min(count.value, MAX_ENTRIES)
    handles = (ctypes.c_void_p * max(wanted, 1))()
    if wanted:
        ur.urAdapterGet(wanted, handles, None)
    for handle in handles[:wanted]:
        if not handle:
            continue
        backend = u32_info(ur.urAdapterGetInfo, ctypes.c_void_p(handle), ADAPTER_INFO_BACKEND)
        form, platforms, failure = platforms_of(ur, handle)
        adapter: dict[str, Any] = {
            "backend": BACKENDS.get(-1 if backend is None else backend, str(backend)),
            "platform_get": form,
            "platforms": [],
            "error": failure,
        }
        for platform in platforms:
            handle_p = ctypes.c_void_p(platform)
            devices, device_error = devices_of(ur, platform)
            adapter["platforms"].append(
                {
                    "name": text_info(ur.urPlatformGetInfo, handle_p, PLATFORM_INFO_NAME),
                    "version": text_info(ur.urPlatformGetInfo, handle_p, PLATFORM_INFO_VERSION),
                    "devices": devices,
                    "error": device_error,
                }
            )
        facts["adapters"].append(adapter)
    facts["adapter_libraries"] = mapped("libur_adapter_")
    return facts


def icd_files() -> list[dict[str, Any]]:
    vendors = os.environ.get("OCL_ICD_VENDORS") or "/etc/OpenCL/vendors"
    places: list[tuple[str, str]] = [(vendors, "system")]
    places.append((os.path.join(environment_prefix(), "etc", "OpenCL", "vendors"), "environment"))
    files: list[dict[str, Any]] = []
    for directory, source in places:
        try:
            names = sorted(n for n in os.listdir(directory) if n.endswith(".icd"))
        except OSError:
            continue
        for name in names:
            path = os.path.join(directory, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    target = handle.read(4096).strip()
            except OSError:
                target = ""
            copy = (
                os.path.join(environment_prefix(), "lib", os.path.basename(target))
                if target
                else ""
            )
            files.append(
                {
                    "file": path,
                    "source": source,
                    "names": target,
                    "exists": os.path.isfile(target),
                    "environment_copy": copy if copy and os.path.isfile(copy) else None,
                }
            )
    return files


def level_zero_facts() -> dict[str, Any]:
    """``level_zero.py`` beside this file, loaded by path: the doctor runs probes with ``-I``,
    which keeps a script's own directory off ``sys.path``."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "level_zero.py")
    spec = importlib.util.spec_from_file_location("level_zero", path)
    if spec is None or spec.loader is None or not os.path.isfile(path):
        return {"ran": False, "error": "level_zero.py is not beside this script"}
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {**module.facts(), "ran": True}


def main() -> None:
    zero = level_zero_facts()
    if not sys.platform.startswith("linux"):
        error = "the runtime probe reads Linux libraries only"
        print(json.dumps({"level_zero": zero, "runtime": {"ran": False, "error": error}}))
        return
    dirs = search_dirs()
    libraries = sycl_libraries(dirs)
    sycl_path, sycl_error = load_sycl(libraries)
    brought = mapped("libur_loader.so")
    facts: dict[str, Any] = {
        "ran": True,
        "search": [{"dir": d, "source": s} for d, s in dirs],
        "sycl": libraries,
        "sycl_loaded": sycl_path,
        "sycl_error": sycl_error,
        "loader_candidates": [
            {"path": os.path.join(d, LOADER), "source": s}
            for d, s in dirs
            if os.path.exists(os.path.join(d, LOADER))
        ],
        "icd_files": icd_files(),
        "ocl_icd_filenames": os.environ.get("OCL_ICD_FILENAMES"),
    }
    loader = brought[0] if brought else None
    if loader is None and facts["loader_candidates"]:
        loader = facts["loader_candidates"][0]["path"]
    if loader is not None:
        facts.update(ask_loader(loader))
        facts["loader_mapped"] = mapped("libur_loader.so")
    print(json.dumps({"level_zero": zero, "runtime": facts}))


if __name__ == "__main__":
    main()
