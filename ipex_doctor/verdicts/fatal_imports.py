"""Imports that a fatal signal ended: what the signal and the place say about the cause.

A signal that kills the interpreter while it imports torch, torchvision or IPEX has causes of
its own, told apart by the signal and by where the interpreter was (``FatalSignal``: the
package whose code ran or whose native library was loading, the library loaded last, what the
import printed), never by the machine the doctor runs on:

- SIGILL: an instruction this CPU, as the process sees it, does not have (a library built or
  dispatching for a newer CPU, a VM or emulator whose CPUID promises more than it runs);
- SIGSEGV, SIGBUS, SIGABRT and the rest: native code that does not fit the process it was
  loaded into (``PLACES`` says which cause each place points to).

The places are data: ``PLACES`` is read in order and the first that matches names the likely
cause and the remedy. ``rules`` judges the two knowledge-base entries with them
(``import-illegal-instruction``, ``import-crashed``) and ``cpu-no-avx2``, which owns a SIGILL
on a CPU without AVX2.
"""

from __future__ import annotations

import fnmatch
import re
import signal
from collections.abc import Mapping
from dataclasses import dataclass

from ipex_doctor.model.environment import Environment, Host, ImportOutcome
from ipex_doctor.probe import fatal_signal

ILLEGAL_INSTRUCTION = "SIGILL"

ISA_LEVELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("AVX", ("avx",)),
    ("AVX2", ("avx2", "fma")),
    ("AVX-512", ("avx512f", "avx512bw", "avx512vl", "avx512dq")),
    ("AVX512-VNNI", ("avx512_vnni",)),
    ("AVX512-BF16", ("avx512_bf16",)),
    ("AMX", ("amx_tile", "amx_bf16", "amx_int8")),
)
"""The instruction-set levels x86 builds of torch, IPEX and their BLAS libraries target, each
with the flags it needs (as /proc/cpuinfo names them), oldest first."""
_BASE_LEVELS = ("AVX", "AVX2")
"""The levels IPEX and most builds for "a modern x86" assume (x86-64-v3)."""

_GPU_RUNTIME = (
    "libze_*", "libsycl*", "libur_*", "libumf*", "libigc*", "libigdrcl*", "libOpenCL*",
    "libpti*", "libmkl_sycl*", "libintel-ext-pt-gpu*", "libtorch_xpu*", "libc10_xpu*",
)  # fmt: skip
_BLAS = ("libscipy_openblas*", "libopenblas*", "_multiarray_umath*", "_umath_linalg*")


@dataclass(frozen=True)
class Place:
    """A likely cause of a fatal signal, by where the interpreter was when it struck.

    Every condition given must hold: the signal is one of ``signals`` (empty: any), the
    package matches one of ``packages`` or the native library one of ``libraries`` (globs over
    the import name and the file name; both empty: anywhere), what the import printed matches
    ``printed`` (a regex), and each variable of ``variables`` is set. ``cause`` and ``remedy``
    are templates: ``{package}``, ``{library}``, ``{lacking}`` (the levels this CPU lacks),
    ``{needed}`` (the one a build most likely needs), ``{coretype}`` and the variables' names
    are filled in."""

    signals: tuple[str, ...]
    cause: str
    remedy: str
    packages: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()
    printed: str = ""
    variables: tuple[str, ...] = ()


PLACES: tuple[Place, ...] = (
    Place(
        ("SIGILL",),
        packages=("numpy", "scipy"),
        libraries=_BLAS,
        cause="numpy's OpenBLAS chose kernels for a newer CPU than the one this process runs "
        "on (it picks them from CPUID, which a VM or an emulator may answer for another CPU)",
        remedy="Set OPENBLAS_CORETYPE={coretype} for this interpreter: OpenBLAS then runs its "
        "kernels for this CPU.",
    ),
    Place(
        ("SIGILL",),
        packages=("intel_extension_for_pytorch",),
        cause="IPEX's CPU library runs instructions this CPU lacks, and no IPEX build exists "
        "for an older CPU",
        remedy="Run on a CPU (or a VM) that exposes {needed}; or, on this one, use torch "
        "without IPEX (pip uninstall intel-extension-for-pytorch).",
    ),
    Place(
        ("SIGILL",),
        packages=("torch", "functorch"),
        cause="torch's own library runs instructions this CPU lacks: PyPI's torch wheels pick "
        "their kernels at run time, a build made for a newer CPU (a source build with "
        "-march=native, another distribution's build) does not",
        remedy="Install PyPI's torch wheel (or a build for this CPU) in this environment, or "
        "run where the CPU exposes {needed}.",
    ),
    Place(
        ("SIGILL",),
        cause="{package} runs instructions this CPU lacks: a build for a newer CPU, or a VM "
        "that hides CPU flags the build assumed",
        remedy="Run on a CPU (or a VM) that exposes {needed}, or install a build of {package} "
        "for this CPU where one exists.",
    ),
    Place(
        (),
        libraries=_GPU_RUNTIME,
        cause="the Intel GPU runtime crashed in {library}: a Level Zero loader, GPU driver or "
        "oneAPI library that does not match the others (a sourced oneAPI environment or an "
        "LD_LIBRARY_PATH that shadows the runtime wheels, a driver older than the runtime)",
        remedy="Import from a shell without a sourced oneAPI (no setvars.sh, no "
        "LD_LIBRARY_PATH into /opt/intel), and read the xpu-rung findings of 'ipex-doctor "
        "env', which compare the driver, Level Zero and the runtime.",
    ),
    Place(
        (),
        variables=("LD_PRELOAD",),
        cause="a preloaded library (LD_PRELOAD={LD_PRELOAD}) replaces functions the imported "
        "native libraries rely on",
        remedy="Import without LD_PRELOAD; preload only what torch or IPEX documents for this "
        "release (its own libiomp5, a tcmalloc or jemalloc built for this system).",
    ),
    Place(
        ("SIGABRT",),
        printed=r"OMP: Error #15",
        cause="two OpenMP runtimes were loaded into one process (libiomp5 from one package, "
        "another from another) and the second refused to start",
        remedy="Keep one OpenMP runtime: install torch, IPEX and numpy from matching wheels and "
        "drop an LD_LIBRARY_PATH or LD_PRELOAD that brings in another libiomp5 or libgomp "
        "(KMP_DUPLICATE_LIB_OK=TRUE only hides the clash).",
    ),
    Place(
        ("SIGABRT",),
        printed=r"[Tt]ried to register an operator|registered (twice|more than once)",
        cause="two libraries registered the same operators: two torch builds in one process, or "
        "{package} built for another torch",
        remedy="Install the {package} built for the installed torch, from the index torch came "
        "from, in an environment that has one torch.",
    ),
    Place(
        ("SIGSEGV", "SIGABRT"),
        packages=("torchvision", "torchaudio", "intel_extension_for_pytorch", "torch_*"),
        cause="{package}'s native code crashed in torch's process: an extension built for "
        "another torch release, build or index than the one installed",
        remedy="Install the {package} release built for the installed torch, from the index "
        "torch came from (torchvision-broken and torch-ipex-mismatch name the line).",
    ),
    Place(
        ("SIGKILL", "SIGTERM"),
        cause="the process was killed from outside while it imported {package}: the kernel's "
        "out-of-memory killer, a memory or time limit of the session or container, or "
        "another program",
        remedy="Free memory or raise the limit that killed it (the kernel log names an "
        "out-of-memory kill: dmesg, journalctl -k), then examine it again.",
    ),
    Place(
        ("SIGBUS",),
        cause="a file mapped into the process could not be read: {library} was changed or "
        "truncated while loaded (an install running at the same time, a disk that filled "
        "during an install), or it sits on a network file system that dropped it",
        remedy="Reinstall {package} (pip install --force-reinstall --no-deps) while nothing "
        "else installs into this environment, and check the free space of its disk and of "
        "/dev/shm.",
    ),
    Place(
        ("SIGABRT",),
        cause="{package} aborted during its initialisation: a check in its native code failed "
        "(the lines it printed before the abort name which)",
        remedy="Read the lines printed before the abort (in the evidence); reinstall {package} "
        "matching torch in a fresh virtual environment if they name a library or a version.",
    ),
    Place(
        (),
        cause="native code in {package} crashed while it was imported: two copies or versions "
        "of a library meeting in one process (OpenMP's libgomp and libiomp5, a libstdc++ from "
        "conda or the system, an extension built for another torch) or a damaged install",
        remedy="Reinstall {package} from one index in a fresh virtual environment, and check "
        "what LD_LIBRARY_PATH puts in front of the environment's own libraries.",
    ),
)
"""Where a fatal signal struck, and what that says; the first place that matches wins."""


def killed(env: Environment, *, sigill: bool) -> list[ImportOutcome]:
    """The imports of the runtime probe that a signal ended: SIGILL's (``sigill``) or the
    others'."""
    return [
        outcome
        for outcome in env.runtime.imports
        if not outcome.ok
        and outcome.fatal is not None
        and (outcome.fatal.signal == ILLEGAL_INSTRUCTION) is sigill
    ]


def lacking(host: Host) -> list[str]:
    """The ISA levels (``ISA_LEVELS``) this CPU, as the examined process sees it, lacks."""
    return [name for name, flags in ISA_LEVELS if not all(host.has_flag(f) for f in flags)]


def lacking_text(host: Host) -> str:
    """``AVX or AVX2 (nor the newer AVX-512, AMX)``: the missing levels that builds for a
    "modern x86" assume, named first; the newer ones after them."""
    missing = lacking(host)
    if not missing:
        return "no instruction set newer than AMX (none this doctor knows of)"
    base = [m for m in missing if m in _BASE_LEVELS] or missing[:1]
    newer = [m for m in missing if m not in base]
    return " or ".join(base) + (f" (nor the newer {', '.join(newer)})" if newer else "")


def needed(host: Host) -> str:
    """The level a build for a newer CPU most likely needs: the newest of the missing base
    levels (AVX2 where AVX is missing too), else the oldest missing one."""
    missing = lacking(host)
    base = [m for m in missing if m in _BASE_LEVELS]
    return base[-1] if base else (missing[0] if missing else "AMX")


def openblas_coretype(host: Host) -> str:
    """The ``OPENBLAS_CORETYPE`` whose kernels this CPU runs: the newest its flags allow."""
    if all(host.has_flag(f) for f in ("avx512f", "avx512bw", "avx512vl", "avx512dq")):
        return "SKYLAKEX"
    if host.has_flag("avx2"):
        return "HASWELL"
    if host.has_flag("avx"):
        return "SANDYBRIDGE"
    return "NEHALEM" if host.has_flag("sse4_2") else "CORE2"


def _library_name(library: str | None) -> str:
    return "" if not library else library.replace("\\", "/").rsplit("/", 1)[-1]


def _matches(place: Place, outcome: ImportOutcome, env_vars: Mapping[str, str]) -> bool:
    fatal = outcome.fatal
    if fatal is None or (place.signals and fatal.signal not in place.signals):
        return False
    if place.packages or place.libraries:
        package, library = fatal.package or "", _library_name(fatal.library)
        in_package = any(fnmatch.fnmatchcase(package, g) for g in place.packages)
        in_library = bool(library) and any(fnmatch.fnmatchcase(library, g) for g in place.libraries)
        if not (in_package or in_library):
            return False
    if place.printed and not re.search(place.printed, f"{outcome.output}\n{outcome.error}"):
        return False
    return all(env_vars.get(name) for name in place.variables)


@dataclass(frozen=True)
class Cause:
    """What a fatal signal during an import most likely means, and what to do."""

    place: Place
    cause: str
    remedy: str


def cause_of(outcome: ImportOutcome, env: Environment) -> Cause:
    """The first of ``PLACES`` that matches ``outcome`` (which a signal ended), filled in."""
    fatal = outcome.fatal
    assert fatal is not None  # NOTE: callers pass the imports ``killed`` returns
    # NOTE: the last place has no condition, so one always matches
    place = next(p for p in PLACES if _matches(p, outcome, env.env_vars))
    values = {
        "package": fatal.package or fatal.module or outcome.module,
        "library": _library_name(fatal.library) or "a native library",
        "lacking": lacking_text(env.host),
        "needed": needed(env.host),
        "coretype": openblas_coretype(env.host),
        **{name: env.env_vars.get(name, "") for name in place.variables},
    }
    return Cause(place, place.cause.format(**values), place.remedy.format(**values))


def death(outcome: ImportOutcome) -> str:
    """``importing torch was killed by SIGILL (Illegal instruction) in numpy (...)``: how the
    interpreter ended, from the import's ``FatalSignal``."""
    fatal = outcome.fatal
    if fatal is None:
        return f"importing {outcome.module} failed: {outcome.error}"
    try:
        meaning = signal.strsignal(signal.Signals[fatal.signal]) or ""
    except (KeyError, ValueError):
        meaning = ""
    text = f"importing {outcome.module} was killed by {fatal.signal}"
    text += f" ({meaning})" if meaning else ""
    where = fatal_signal.describe(fatal)
    return f"{text} {where}" if where else text
