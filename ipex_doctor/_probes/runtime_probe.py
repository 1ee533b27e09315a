"""Runtime probe: runs *inside the examined interpreter*, never in the doctor's process.

    python runtime_probe.py RESULT_FILE

Imports torch, torchvision and IPEX one at a time and reports build facts and devices. It uses
only the standard library until it imports torch and must run on any Python >= 3.8.

Protocol: one JSON object per line, appended to RESULT_FILE and flushed at once.
``{"event": "begin", "stage": S}`` is written before each stage that may kill the process
(IPEX calls ``os._exit`` on a torch mismatch in some releases; a driver may segfault), and
``{"event": "end", "stage": S, ...}`` after it. A ``begin`` without its ``end`` tells the doctor
where the process died. Output printed during an import is both captured (for the record) and
passed through unbuffered (so it survives an ``os._exit``).
"""

import importlib
import importlib.util
import io
import json
import os
import re
import sys
import time
import traceback
import warnings
from typing import Any, Callable, Dict, List, Optional, TextIO

OUTPUT_LIMIT = 8000
_RESULT: Optional[TextIO] = None
_MISSING_LIB = re.compile(r"(lib[\w.+-]+?\.so(?:\.[\w.]+)?): cannot open shared object file")


def emit(record: Dict[str, Any]) -> None:
    """Append one JSON record to the result file and flush it to the kernel."""
    assert _RESULT is not None
    _RESULT.write(json.dumps(record, default=repr) + "\n")
    _RESULT.flush()


class _Tee(io.TextIOBase):
    """Writes to a capture buffer and to the real stream, so a hard exit loses nothing."""

    def __init__(self, real: TextIO, capture: io.StringIO) -> None:
        self._real, self._capture = real, capture

    def write(self, text: str) -> int:
        self._capture.write(text)
        try:
            self._real.write(text)
            self._real.flush()
        except (OSError, ValueError):
            pass
        return len(text)

    def flush(self) -> None:
        try:
            self._real.flush()
        except (OSError, ValueError):
            pass


def _trim(text: str) -> str:
    text = text.strip()
    if len(text) > OUTPUT_LIMIT:
        return "[...]\n" + text[-OUTPUT_LIMIT:]
    return text


def _missing_library(text: Optional[str]) -> Optional[str]:
    match = _MISSING_LIB.search(text or "")
    return match.group(1) if match else None


def _explain_extension(module: str) -> Optional[str]:
    """Load a package's ``_C`` extension with ctypes to name the library it cannot find."""
    try:
        import ctypes
        import glob

        spec = importlib.util.find_spec(module)
        locations = list(spec.submodule_search_locations or []) if spec else []
        for location in locations:
            for candidate in sorted(glob.glob(os.path.join(location, "_C*.so"))):
                try:
                    ctypes.CDLL(candidate)
                except OSError as exc:
                    return str(exc)
    except Exception:  # noqa: BLE001 - best effort, the import error stands on its own
        return None
    return None


def guarded_import(module: str) -> Any:
    """Import ``module``, recording time, output, warnings and any failure; return it or None."""
    stage = "import " + module
    emit({"event": "begin", "stage": stage})
    capture = io.StringIO()
    outcome: Dict[str, Any] = {"module": module, "ok": False}
    started = time.perf_counter()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Tee(saved[0], capture), _Tee(saved[1], capture)
    loaded = None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                loaded = importlib.import_module(module)
                outcome["ok"] = True
                outcome["version"] = str(getattr(loaded, "__version__", "") or "") or None
            except SystemExit as exc:
                outcome["error_type"] = "SystemExit"
                outcome["error"] = "the import called exit(%r)" % (exc.code,)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - the probe reports every failure
                outcome["error_type"] = type(exc).__name__
                outcome["error"] = str(exc)
                outcome["traceback"] = _trim("".join(traceback.format_exc()))
            for warning in caught:
                capture.write("%s: %s\n" % (warning.category.__name__, warning.message))
    finally:
        sys.stdout, sys.stderr = saved
    outcome["seconds"] = round(time.perf_counter() - started, 3)
    outcome["output"] = _trim(capture.getvalue())
    if not outcome["ok"]:
        text = (outcome.get("error") or "") + "\n" + outcome["output"]
        missing = _missing_library(text)
        if missing is None and module != "torch":
            detail = _explain_extension(module)
            if detail:
                outcome["extension_error"] = detail
                missing = _missing_library(detail)
        outcome["missing_library"] = missing
    emit({"event": "end", "stage": stage, "import": outcome})
    return loaded


def _safe(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001
        return "unavailable: %s: %s" % (type(exc).__name__, exc)


def torch_facts(torch: Any) -> Dict[str, Any]:
    """Build facts of torch that only an import can tell."""
    version = getattr(torch, "version", None)
    facts = {
        "version": str(torch.__version__),
        "git_version": getattr(version, "git_version", None),
        "cuda": getattr(version, "cuda", None),
        "hip": getattr(version, "hip", None),
        "xpu": getattr(version, "xpu", None),
        "debug": getattr(version, "debug", None),
        "file": getattr(torch, "__file__", None),
    }
    xpu = getattr(torch, "xpu", None)
    is_compiled = getattr(xpu, "_is_compiled", None)
    facts["xpu_compiled"] = bool(_safe(is_compiled)) if callable(is_compiled) else False
    if hasattr(torch, "compiled_with_cxx11_abi"):
        facts["cxx11_abi"] = _safe(torch.compiled_with_cxx11_abi)
    cpu_backend = getattr(getattr(torch, "backends", None), "cpu", None)
    if cpu_backend is not None and hasattr(cpu_backend, "get_cpu_capability"):
        facts["cpu_capability"] = _safe(cpu_backend.get_cpu_capability)
    mkldnn = getattr(getattr(torch, "backends", None), "mkldnn", None)
    if mkldnn is not None:
        facts["mkldnn_available"] = _safe(mkldnn.is_available)
    config = _safe(lambda: torch.__config__.show())
    if isinstance(config, str):
        onednn = re.search(r"oneDNN v([\w.]+)", config)
        facts["onednn_version"] = onednn.group(1) if onednn else None
    facts["num_threads"] = _safe(torch.get_num_threads)
    return facts


def _props(props: Any) -> Dict[str, Any]:
    """Plain public attributes of a device-properties object."""
    out: Dict[str, Any] = {}
    for name in dir(props):
        if name.startswith("_"):
            continue
        value = getattr(props, name, None)
        if isinstance(value, (bool, int, float, str)) or value is None:
            out[name] = value
        elif isinstance(value, (list, tuple)) and all(isinstance(v, (int, str)) for v in value):
            out[name] = list(value)
    return out


def _devices_of(torch: Any, kind: str) -> Dict[str, Any]:
    """Availability and properties of ``kind`` (``xpu``/``cuda``) devices, with warnings."""
    backend = getattr(torch, kind, None)
    record: Dict[str, Any] = {
        "type": kind,
        "available": False,
        "count": 0,
        "devices": [],
        "messages": [],
    }
    if backend is None:
        record["messages"].append("torch has no torch.%s module" % kind)
        return record
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            record["available"] = bool(backend.is_available())
            record["count"] = int(backend.device_count()) if record["available"] else 0
            for index in range(record["count"]):
                device = {"type": kind, "index": index}
                device.update(_props(backend.get_device_properties(index)))
                record["devices"].append(device)
        except Exception as exc:  # noqa: BLE001
            record["messages"].append("%s: %s" % (type(exc).__name__, exc))
    record["messages"].extend(str(w.message) for w in caught)
    return record


def ipex_facts(ipex: Any) -> Dict[str, Any]:
    """Build facts of IPEX: version, build type, ISA levels, XPU support."""
    facts: Dict[str, Any] = {"version": str(getattr(ipex, "__version__", ""))}
    for name in ("__build_type__", "__ipex_gitrev__", "__torch_gitrev__"):
        if hasattr(ipex, name):
            facts[name.strip("_")] = getattr(ipex, name)
    native = getattr(ipex, "_C", None)
    for name in (
        "_get_current_isa_level",
        "_get_highest_cpu_support_isa_level",
        "_get_highest_binary_support_isa_level",
        "_has_xpu",
    ):
        fn = getattr(native, name, None)
        if callable(fn):
            facts[name.lstrip("_")] = _safe(fn)
    return facts


def main(argv: List[str]) -> int:
    """Run every stage; the process exits 0 even when an import fails (that is a finding)."""
    global _RESULT
    _RESULT = open(argv[1], "a", encoding="utf-8")
    emit({"event": "hello", "python": sys.version.split()[0], "pid": os.getpid()})
    if importlib.util.find_spec("torch") is None:
        emit(
            {
                "event": "end",
                "stage": "import torch",
                "import": {
                    "module": "torch",
                    "ok": False,
                    "error_type": "ModuleNotFoundError",
                    "error": "No module named 'torch'",
                    "output": "",
                    "seconds": 0.0,
                },
            }
        )
        emit({"event": "done"})
        return 0
    torch = guarded_import("torch")
    if torch is None:
        emit({"event": "done"})
        return 0
    emit({"event": "begin", "stage": "torch facts"})
    emit({"event": "end", "stage": "torch facts", "torch": torch_facts(torch)})
    emit({"event": "begin", "stage": "devices"})
    devices = [_devices_of(torch, "xpu"), _devices_of(torch, "cuda")]
    emit({"event": "end", "stage": "devices", "devices": devices})
    for module in ("torchvision", "intel_extension_for_pytorch"):
        if importlib.util.find_spec(module) is None:
            continue
        loaded = guarded_import(module)
        if loaded is not None and module == "intel_extension_for_pytorch":
            emit({"event": "begin", "stage": "ipex facts"})
            emit({"event": "end", "stage": "ipex facts", "ipex": ipex_facts(loaded)})
            if not devices[0]["available"]:
                # NOTE: before PyTorch 2.5, torch.xpu was provided by IPEX itself, so the
                # devices only become visible after the IPEX import.
                emit({"event": "begin", "stage": "devices after ipex"})
                emit(
                    {
                        "event": "end",
                        "stage": "devices after ipex",
                        "devices": [_devices_of(torch, "xpu")],
                    }
                )
    emit({"event": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
