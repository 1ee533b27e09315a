"""The worker: runs *inside the examined interpreter*, never in the doctor's process.

    python worker.py RESULT_FD [--no-probe] [--prepare DEVICE]... [--refuse MODULE=WHY]...

It imports torch, torchvision and IPEX once, reports build facts and devices (the runtime
probe; ``--no-probe`` only imports, for a replacement worker), then serves tasks read from
stdin, one JSON object per line, until stdin closes: each task names a check script, a device
and an id; the worker runs the script's ``run(device)``, resets torch's global state and checks
that the device still works. It uses only the standard library until it imports torch and must
run on any Python >= 3.8.

Protocol: one JSON object per line on the inherited file descriptor RESULT_FD, flushed at once.
``{"event": "begin", "stage": S}`` is written before each stage that may kill the process
(IPEX calls ``os._exit`` on a torch mismatch in some releases; a driver or a check may
segfault), and ``{"event": "end", "stage": S, ...}`` after it. A ``begin`` without its ``end``
tells the doctor where the process died. Output printed meanwhile is both captured (for the
record) and passed through unbuffered (so it survives an ``os._exit``). While an import runs,
``{"event": "loading", "library": PATH}`` is written before each native library is loaded (an
extension module or a ``ctypes`` load), and ``faulthandler`` writes the Python stack to stderr
when a fatal signal ends the process, so the doctor can say where a SIGILL or SIGSEGV struck.
"""

import contextlib
import faulthandler
import importlib
import importlib.util
import inspect
import io
import json
import os
import re
import resource
import sys
import sysconfig
import threading
import time
import traceback
import warnings
from typing import Any, Callable, Dict, List, Optional, TextIO, Tuple

OUTPUT_LIMIT = 8000
_RESULT: Optional[TextIO] = None
_IMPORTING: List[Optional[int]] = [None]
"""The thread running a guarded import (``None``: none is): only its native library loads are
reported. NOTE: the thread that prepares a device beside the imports loads libraries of its
own; they are not the import's, and two threads writing records at once could interleave."""
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


@contextlib.contextmanager
def captured(capture: io.StringIO) -> Any:
    """Tee stdout, stderr and warnings into ``capture`` while the block runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Tee(saved[0], capture), _Tee(saved[1], capture)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                yield
            finally:
                for warning in caught:
                    capture.write("%s: %s\n" % (warning.category.__name__, warning.message))
    finally:
        sys.stdout, sys.stderr = saved


def _report_native_loads(event: str, args: Any) -> None:
    """Audit hook: during a guarded import, report each native library before it is loaded.

    CPython raises ``import`` with the file name for an extension module it is about to load
    (``None`` for a Python one) and ``ctypes.dlopen`` for a ``ctypes`` load; the record is
    flushed at once, so it reaches the doctor even when the library's initialisation kills
    the process."""
    if _IMPORTING[0] != threading.get_ident():
        return
    library = None
    if event == "import" and len(args) > 1 and isinstance(args[1], str):
        library = args[1]
    elif event == "ctypes.dlopen" and args and isinstance(args[0], str):
        library = args[0]
    if library is not None:
        try:
            emit({"event": "loading", "library": library})
        except (OSError, ValueError):
            pass  # NOTE: an exception raised here would fail the import it reports on


def guarded_import(module: str) -> Any:
    """Import ``module``, recording time, output, warnings and any failure; return it or None."""
    stage = "import " + module
    emit(
        {
            "event": "begin",
            "stage": stage,
            "sys_path": [p for p in sys.path if p],
            # NOTE: where frames only carry out a call (the standard library of the base
            # installation, not a venv's platstdlib, which holds site-packages; this worker)
            "carriers": [sysconfig.get_path("stdlib"), os.path.dirname(os.path.abspath(__file__))],
        }
    )
    capture = io.StringIO()
    outcome: Dict[str, Any] = {"module": module, "ok": False}
    started = time.perf_counter()
    loaded = None
    with captured(capture):
        _IMPORTING[0] = threading.get_ident()
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
        finally:
            _IMPORTING[0] = None
    outcome["seconds"] = round(time.perf_counter() - started, 3)
    outcome["output"] = _trim(capture.getvalue())
    if not outcome["ok"]:
        text = (outcome.get("error") or "") + "\n" + outcome["output"]
        missing = _missing_library(text)
        # NOTE: only a failure that looks like loading or linking goes on to load the native
        # extension with ctypes; IPEX's mismatch exit (an AttributeError) explains itself.
        linking = outcome.get("error_type") in ("ImportError", "OSError", "RuntimeError")
        if missing is None and module != "torch" and linking:
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
        # NOTE: the test behind ipex.optimize(dtype=bfloat16)'s "BF16 weight prepack needs the
        # cpu support ..." assertion, as oneDNN sees the CPU (a ONEDNN_MAX_CPU_ISA cap included)
        "onednn_has_bf16_support",
    ):
        fn = getattr(native, name, None)
        if callable(fn):
            facts[name.lstrip("_")] = _safe(fn)
    return facts


def _first_present(devices: List[Dict[str, Any]], candidates: List[str]) -> Optional[str]:
    """The first of ``candidates`` (``cuda:0``...) whose kind the probe found available; its
    index taken modulo the count, as a local rank picks its device."""
    counts = {group["type"]: group["count"] for group in devices if group["available"]}
    for candidate in candidates:
        kind, _, index = candidate.partition(":")
        if counts.get(kind):
            return "%s:%d" % (kind, int(index or 0) % counts[kind])
    return None


def _prepare(torch: Any, device: str, outcome: Dict[str, Any]) -> None:
    """Initialise ``device`` as a first check would: its context, a matrix product (the BLAS
    library's handle) and a convolution (the DNN library's). Runs in a thread beside the
    imports of torchvision and IPEX, which hold the GIL for Python work while the driver's
    initialisation does not; a failure is only recorded, since the checks meet it again."""
    started = time.perf_counter()
    try:
        ones = torch.ones(1, 1, 8, 8, device=device)
        (ones[0, 0] @ ones[0, 0]).sum().item()
        torch.nn.functional.conv2d(ones, ones[:, :, :3, :3]).sum().item()
    except Exception as exc:  # noqa: BLE001
        outcome["error"] = "%s: %s" % (type(exc).__name__, exc)
    outcome["seconds"] = round(time.perf_counter() - started, 3)


def probe(torch: Any, prepare: List[str]) -> None:
    """The runtime probe's stages after ``import torch``: facts, devices, torchvision, IPEX;
    the first device of ``prepare`` present is initialised beside the imports."""
    emit({"event": "begin", "stage": "torch facts"})
    emit({"event": "end", "stage": "torch facts", "torch": torch_facts(torch)})
    emit({"event": "begin", "stage": "devices"})
    devices = [_devices_of(torch, "xpu"), _devices_of(torch, "cuda")]
    emit({"event": "end", "stage": "devices", "devices": devices})
    device = _first_present(devices, prepare)
    prepared: Dict[str, Any] = {"device": device}
    helper = None
    if device is not None:
        helper = threading.Thread(target=_prepare, args=(torch, device, prepared), daemon=True)
        helper.start()
    _import_the_rest(torch, devices)
    if helper is not None:
        # NOTE: a device that hangs in its initialisation is caught here by the doctor's
        # start-up timeout, with this stage named as the unfinished one.
        emit({"event": "begin", "stage": "prepare %s" % device})
        helper.join()
        emit({"event": "end", "stage": "prepare %s" % device, "prepared": prepared})


def _import_the_rest(torch: Any, devices: List[Dict[str, Any]]) -> None:
    """The probe's imports after torch (torchvision, IPEX) and IPEX's facts."""
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


def _import_quietly(module: str) -> None:
    """Import ``module`` if installed, for a replacement worker (the probe already reported)."""
    try:
        if importlib.util.find_spec(module) is None:
            return
    except ImportError:
        return  # NOTE: refused (see _Refused): the probe reported why
    with captured(io.StringIO()):
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001 - the probe reported it; checks will see it too
            pass


_DEFAULTS: Dict[str, Any] = {}


def _remember_defaults(torch: Any) -> None:
    _DEFAULTS.update(
        dtype=torch.get_default_dtype(),
        threads=torch.get_num_threads(),
        deterministic=torch.are_deterministic_algorithms_enabled(),
    )


def reset_state(torch: Any) -> None:
    """Undo what a check may have changed in torch's global state."""
    torch.set_grad_enabled(True)
    if "dtype" in _DEFAULTS:
        torch.set_default_dtype(_DEFAULTS["dtype"])
        torch.set_num_threads(_DEFAULTS["threads"])
        torch.use_deterministic_algorithms(_DEFAULTS["deterministic"])
    clear = getattr(torch, "clear_autocast_cache", None)
    if callable(clear):
        clear()
    dynamo = sys.modules.get("torch._dynamo")
    if dynamo is not None and _dynamo_compiled(dynamo):
        _safe(dynamo.reset)
    torch.manual_seed(0)


def _dynamo_compiled(dynamo: Any) -> bool:
    """Whether TorchDynamo compiled anything since its last reset (its frame counters), so
    that a reset has something to undo. torchvision imports dynamo, and a first reset of an
    unused one imports Inductor: seconds spent after every worker's first check for nothing.
    A dynamo that does not keep the counters is reset."""
    counters = getattr(getattr(dynamo, "utils", None), "counters", None)
    if not isinstance(counters, dict):
        return True
    return any(sum(counter.values()) for counter in counters.values() if hasattr(counter, "values"))


def device_health(torch: Any, device: str) -> Optional[str]:
    """None when ``device`` still computes correctly, else what went wrong."""
    try:
        kind = device.split(":")[0]
        backend = getattr(torch, kind, None)
        value = (torch.arange(4, device=device, dtype=torch.float32) * 2).sum().item()
        if kind != "cpu" and backend is not None and hasattr(backend, "synchronize"):
            backend.synchronize()
        if value != 12.0:
            return "a test computation returned %r instead of 12.0" % (value,)
    except Exception as exc:  # noqa: BLE001
        return "%s: %s" % (type(exc).__name__, exc)
    return None


def _load_check(task_id: str, path: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        "ipex_doctor_check_" + task_id.replace("-", "_"), path
    )
    if spec is None or spec.loader is None:
        raise ImportError("cannot load check script %s" % path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not callable(getattr(module, "run", None)):
        raise TypeError("check script %s defines no run(device) function" % path)
    return module


_CPU_SAMPLE: Dict[str, Any] = {}
"""The last look at the CPUs this process may run on (``_cpu_times``), and what it decided."""
_MIN_SAMPLE_S = 1.0
"""A look over less time than this says too little: the previous decision stands."""


def _cpu_times() -> Optional[Tuple[float, float, float]]:
    """(wall seconds, CPU seconds the CPUs this process may run on were busy, CPU seconds of
    this process) now; ``None`` where /proc/stat cannot be read (not Linux)."""
    try:
        allowed = {"cpu%d" % n for n in os.sched_getaffinity(0)}
        ticks = os.sysconf("SC_CLK_TCK")
        busy = 0
        with open("/proc/stat", encoding="ascii") as handle:
            for line in handle:
                fields = line.split()
                if not fields or not fields[0].startswith("cpu"):
                    break
                if fields[0] in allowed:
                    values = [int(v) for v in fields[1:9]]
                    busy += sum(values) - values[3] - values[4]  # less idle and iowait
    except (OSError, ValueError, AttributeError):
        return None
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return time.monotonic(), busy / ticks, usage.ru_utime + usage.ru_stime


def threads_for(cores: int, others_busy: float, default: int) -> int:
    """The threads for CPU work when other processes keep ``others_busy`` of this process's
    ``cores`` busy: the idle cores, a core counted idle when less than 0.7 of it is taken;
    at least 1, at most ``default`` (torch's own choice, or the user's OMP_NUM_THREADS)."""
    return max(1, min(default, int(cores - others_busy + 0.3)))


def fit_threads(torch: Any) -> Optional[Dict[str, Any]]:
    """Run CPU work on the cores other processes leave idle, and say so.

    With every core asked for while another process keeps some busy, torch's OpenMP threads
    spin at each barrier waiting for a sibling that is not running: a ResNet-50 step on a
    2-core machine beside one busy process took 1-8 s with 2 threads and 0.23-0.44 s with 1.
    So torch's threads become the cores left idle over the last second or more (never more
    than torch's own default, never fewer than 1); the next task decides afresh, and
    ``reset_state`` gives the default back. ``None`` where the CPUs cannot be read."""
    now = _cpu_times()
    before = _CPU_SAMPLE.get("times")
    if now is None or before is None:
        _CPU_SAMPLE["times"] = now
        return None
    default = int(_DEFAULTS.get("threads") or torch.get_num_threads())
    if now[0] - before[0] >= _MIN_SAMPLE_S or "decision" not in _CPU_SAMPLE:
        wall = max(now[0] - before[0], 1e-3)
        others = max(0.0, (now[1] - before[1]) - (now[2] - before[2])) / wall
        cores = len(os.sched_getaffinity(0))
        fitted = threads_for(cores, others, default)
        _CPU_SAMPLE["decision"] = {"used": fitted, "default": default, "cores": cores,
                                   "others_busy_cores": round(others, 2)}  # fmt: skip
        _CPU_SAMPLE["times"] = now
    decision: Dict[str, Any] = dict(_CPU_SAMPLE["decision"])
    if decision["used"] < default:
        torch.set_num_threads(decision["used"])
    return decision


def run_task(torch: Any, task: Dict[str, Any]) -> None:
    """Run one check on one device and report its result, output and the device's health."""
    key = "%s@%s" % (task["id"], task["device"])
    emit({"event": "begin", "stage": "check " + key, "task": key})
    capture = io.StringIO()
    record: Dict[str, Any] = {"event": "end", "stage": "check " + key, "task": key, "ok": False}
    threads = fit_threads(torch) if task["device"].split(":")[0] == "cpu" else None
    if threads is not None:
        record["threads"] = threads
    started = time.perf_counter()
    with captured(capture):
        try:
            run = _load_check(task["id"], task["path"]).run
            kwargs = dict(task.get("args") or {})
            parameters = inspect.signature(run).parameters
            if "progress" in parameters:
                kwargs["progress"] = lambda phase, done, total: emit(
                    {"event": "progress", "task": key, "phase": phase, "done": done, "total": total}
                )
            if "threads" in parameters:
                kwargs["threads"] = threads
            result = run(task["device"], **kwargs)
            if not isinstance(result, dict):
                raise TypeError("run() returned %s, not a dict" % type(result).__name__)
            record["result"] = json.loads(json.dumps(result, default=repr))
            record["ok"] = True
        except SystemExit as exc:
            record["error_type"] = "SystemExit"
            record["error"] = "the check called exit(%r)" % (exc.code,)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - a failing check is a finding
            record["error_type"] = type(exc).__name__
            record["error"] = str(exc)
            record["traceback"] = _trim(traceback.format_exc())
    record["seconds"] = round(time.perf_counter() - started, 3)
    record["output"] = _trim(capture.getvalue())
    reset_state(torch)
    record["device_error"] = device_health(torch, task["device"])
    emit(record)


def serve(torch: Any) -> None:
    """Run tasks from stdin until it closes."""
    _remember_defaults(torch)
    if "times" not in _CPU_SAMPLE:
        _CPU_SAMPLE["times"] = _cpu_times()
    emit({"event": "ready"})
    for line in sys.stdin:
        if not line.strip():
            continue
        run_task(torch, json.loads(line))


class _Refused:
    """A meta-path finder that refuses modules whose import killed an earlier interpreter.

    A module that dies on import (SIGILL: IPEX on a CPU without AVX2) would kill every worker
    that imports it, and every check script that does; refused, it raises ImportError with
    the reason, which the checks already treat as "not installed or broken here"."""

    def __init__(self, modules: Dict[str, str]) -> None:
        self.modules = modules

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        top = name.split(".")[0]
        if top in self.modules:
            raise ImportError(
                "%s is not imported in this worker: %s" % (top, self.modules[top]), name=name
            )
        return None


def _refuse(argv: List[str]) -> None:
    """Install the ``--refuse MODULE=REASON`` arguments as a ``_Refused`` finder."""
    refused = {}
    for index, arg in enumerate(argv):
        if arg == "--refuse" and index + 1 < len(argv):
            module, _, reason = argv[index + 1].partition("=")
            refused[module] = reason
    if refused:
        sys.meta_path.insert(0, _Refused(refused))


def main(argv: List[str]) -> int:
    """Probe (unless --no-probe), then serve tasks; an import failure is data, never an exit.

    ``--import MODULE`` only imports MODULE, as a fresh ``import MODULE`` would, and exits: the
    doctor asks for that when an earlier import in the worker failed and could have changed
    what a later one does (a half-imported torchvision changes IPEX's error).
    """
    global _RESULT
    _RESULT = os.fdopen(int(argv[1]), "w", encoding="utf-8")
    # NOTE: a fatal signal (SIGILL on a CPU without the instructions a library uses, SIGSEGV,
    # SIGBUS, SIGABRT) ends the process before any record can say where it was: faulthandler
    # writes the Python stack of every thread to stderr first, and the doctor reads it there.
    faulthandler.enable(file=sys.stderr, all_threads=True)
    sys.addaudithook(_report_native_loads)
    _CPU_SAMPLE["times"] = _cpu_times()  # NOTE: the imports' seconds are the first look
    do_probe = "--no-probe" not in argv[2:]
    _refuse(argv[2:])
    emit({"event": "hello", "python": sys.version.split()[0], "pid": os.getpid()})
    if "--import" in argv[2:]:
        guarded_import(argv[argv.index("--import") + 1])
        emit({"event": "done"})
        return 0
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
    if do_probe:
        torch = guarded_import("torch")
        if torch is None:
            emit({"event": "done"})
            return 0
        options = argv[2:]
        probe(torch, [options[i + 1] for i, o in enumerate(options[:-1]) if o == "--prepare"])
    else:
        # NOTE: a replacement worker: the probe already judged the imports.
        torch = importlib.import_module("torch")
        for module in ("torchvision", "intel_extension_for_pytorch"):
            _import_quietly(module)
    emit({"event": "done"})
    serve(torch)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
