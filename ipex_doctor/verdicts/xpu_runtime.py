"""The oneAPI runtime below torch: what loaded (the ``runtime`` rung's words) and which versions
disagree (``xpu-runtime-versions``), from the facts ``probe.gpu`` collected.

A disagreement is one finding, naming both versions and the file each comes from, with a remedy
that works:

* a library needs a symbol version the library the linker would load does not define
  (``libsycl.so.8`` of intel-sycl-rt 2025.3.1 needs ``LIBUR_LOADER_0.12``; the
  ``libur_loader.so.0`` of intel-cmplr-lib-ur 2025.0.4 defines up to 0.10), or needs a library
  found nowhere: the runtime cannot load, so it fails where an XPU build expects it and warns
  elsewhere;
* a runtime wheel or torch pins another runtime wheel to a version other than the installed one
  (what ``pip check`` would say of these alone): a warning, or the cause of the above;
* a runtime library comes from an ``LD_LIBRARY_PATH`` directory instead of the copy beside the
  library that needs it (a sourced oneAPI, an old toolkit), and two ``libsycl`` majors are on the
  search path.

The remedy installs the pinned versions into the examined interpreter (the finding's command,
``PYTHON -m pip install 'name==version'``, which ``fix`` can apply) or names the
``LD_LIBRARY_PATH`` entry to drop; a newer ``libstdc++`` than the system's is a manual step.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ipex_doctor.knowledge import remedies
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import Evidence, Finding, Status
from ipex_doctor.model.remedy import PipAction
from ipex_doctor.verdicts.registry import spec

_SPEC = spec("xpu-runtime-versions")


def _owner(runtime: Mapping[str, Any], path: str | None) -> str:
    owner = (runtime.get("owners") or {}).get(path or "")
    return f" ({owner})" if owner else ""


def _name(path: str) -> str:
    return os.path.basename(path)


def library_problems(runtime: Mapping[str, Any]) -> list[str]:
    """Each missing symbol version or library, as one sentence naming both files."""
    said: list[str] = []
    for check in runtime.get("libraries") or ():
        library = str(check["library"])
        for problem in check.get("problems") or ():
            who = f"{_name(library)}{_owner(runtime, library)}"
            if problem.get("found") is None:
                said.append(f"{who} needs {problem['needs']}, which is in no directory searched")
                continue
            found = str(problem["found"])
            newest = problem.get("newest_there")
            gives = f" (it defines up to {newest})" if newest else ""
            via = f", found through {problem['via']}" if problem.get("via") else ""
            said.append(
                f"{who} needs {', '.join(problem['missing'])} of {problem['needs']}; "
                f"{found}{_owner(runtime, found)}{via} does not define it{gives}"
            )
    return said


def shadowing(runtime: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(sentence, LD_LIBRARY_PATH directory) for each runtime library loaded from an
    ``LD_LIBRARY_PATH`` directory while the requesting library has its own copy beside it."""
    found: list[tuple[str, str]] = []
    for check in runtime.get("libraries") or ():
        library = str(check["library"])
        for name, where in (check.get("resolved") or {}).items():
            own = where.get("copy_beside")
            if where.get("via") != "LD_LIBRARY_PATH" or not own:
                continue
            if os.path.normpath(str(where["path"])) != os.path.normpath(str(own)):
                directory = os.path.dirname(str(where["path"]))
                found.append(
                    (
                        f"{name} for {_name(library)} comes from LD_LIBRARY_PATH entry "
                        f"{directory}{_owner(runtime, str(where['path']))}, not from "
                        f"{own}{_owner(runtime, own)} beside it",
                        directory,
                    )
                )
    return found


def sycl_majors(runtime: Mapping[str, Any]) -> list[str]:
    """The ``libsycl`` files on the search path when they are of more than one major."""
    libraries = list(runtime.get("sycl") or ())
    majors = {lib.get("major") for lib in libraries}
    if len(majors) < 2:
        return []
    return [f"{lib['path']} ({lib['source']})" for lib in libraries]


def disagreeing_pins(runtime: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [c for c in runtime.get("requirements") or () if not c.get("ok")]


def remedy(
    env: Environment, runtime: Mapping[str, Any], shadows: Sequence[str]
) -> tuple[str, tuple[PipAction, ...]]:
    """What makes the versions agree (see the module): the words, and the pip install of the
    pinned versions into the examined interpreter."""
    steps: list[str] = []
    actions: tuple[PipAction, ...] = ()
    pins = sorted({str(c["requires"]) for c in disagreeing_pins(runtime)})
    if pins:
        actions = (remedies.install(env, *pins),)
        steps.append(f"install the versions the runtime wheels pin ({', '.join(pins)})")
    steps += [
        f"drop {directory} from LD_LIBRARY_PATH (it is searched before the wheels' own "
        "copies): start from a shell that did not source oneAPI or set it"
        for directory in dict.fromkeys(shadows)
    ]
    if not steps and library_problems(runtime):
        steps.append(
            "install the runtime wheels as one matching set (the versions torch's XPU build "
            "requires), or a newer libstdc++ where the system's is older than libsycl needs"
        )
    return "; then ".join(steps), actions


def runtime_findings(env: Environment, expects_xpu: bool) -> list[Finding]:
    """``xpu-runtime-versions``: pass when the runtime's versions agree, skip when there is no
    runtime (or it could not be asked), warn or fail on a disagreement (see the module)."""
    runtime = env.host.gpu.get("runtime") or {}
    if not runtime.get("ran"):
        why = runtime.get("error") or "not asked"
        return [_SPEC.finding(Status.SKIP, Evidence(f"the runtime was not asked: {why}", {}))]
    libraries = library_problems(runtime)
    pins = disagreeing_pins(runtime)
    shadows = shadowing(runtime)
    majors = sycl_majors(runtime)
    present = bool(runtime.get("sycl") or runtime.get("loader_candidates"))
    data: dict[str, Any] = {
        "libraries": libraries,
        "pins": [f"{c['by']} requires {c['requires']}, installed: {c['installed']}" for c in pins],
        "shadowed": [s for s, _ in shadows],
        "sycl_majors": majors,
    }
    if not (libraries or pins or shadows or majors):
        if not present and not runtime.get("requirements"):
            return [_SPEC.finding(Status.SKIP, Evidence("no oneAPI runtime here", data))]
        checked = len(runtime.get("requirements") or ())
        summary = f"the runtime's libraries define every symbol version they need; {checked} pin(s) between runtime wheels hold"
        return [_SPEC.finding(Status.PASS, Evidence(summary, data))]
    sentences = libraries + data["pins"] + data["shadowed"]
    if majors:
        sentences.append("libsycl of more than one major on the search path: " + ", ".join(majors))
    breaks = bool(libraries)
    status = Status.FAIL if breaks and expects_xpu else Status.WARN
    effect = ("the runtime cannot load" if breaks else "the installed runtime wheels disagree") + (
        "" if expects_xpu else " (nothing here expects an Intel GPU yet)"
    )
    fix, actions = remedy(env, runtime, [d for _, d in shadows])
    return [
        _SPEC.finding(
            status,
            Evidence(f"{effect}: " + "; ".join(sentences), data),
            remediation=fix,
            actions=actions,
        )
    ]


def rung_summary(
    runtime: Mapping[str, Any], level_zero: Mapping[str, Any]
) -> tuple[bool | None, str]:
    """Whether the runtime loads and what it sees (the ``runtime`` rung's words), from the
    probe's facts: the UR loader and its wheel, each adapter's platforms and devices, and why
    an adapter found nothing."""
    if not runtime.get("ran"):
        return None, ""
    if runtime.get("sycl_error"):
        return (
            False,
            f"{_name(str(runtime.get('sycl_loaded')))} does not load: {runtime['sycl_error']}",
        )
    loader = runtime.get("loader")
    if not loader:
        return (
            None,
            "no oneAPI runtime (no libsycl, no libur_loader) in this environment or on LD_LIBRARY_PATH",
        )
    if runtime.get("load_error"):
        return False, f"the UR loader {loader} does not load: {runtime['load_error']}"
    if runtime.get("init") != "UR_RESULT_SUCCESS":
        return False, f"urLoaderInit returned {runtime.get('init')} ({loader})"
    parts = [f"UR loader {loader}{_owner(runtime, str(loader))}, urLoaderInit ok"]
    backends = set()
    for adapter in runtime.get("adapters") or ():
        backends.add(adapter.get("backend"))
        platforms = adapter.get("platforms") or []
        if not platforms:
            parts.append(
                f"{adapter.get('backend')} adapter: no platform{_why_none(adapter, runtime, level_zero)}"
            )
            continue
        for platform in platforms:
            devices = (
                ", ".join(
                    f"{d.get('name')} ({d.get('type')}, driver {d.get('driver_version')})"
                    for d in platform.get("devices") or ()
                )
                or "no device"
            )
            parts.append(f"{adapter.get('backend')}: {platform.get('name')}: {devices}")
    for library in runtime.get("adapter_libraries") or ():
        if "level_zero" in os.path.basename(str(library)) and "level_zero" not in backends:
            parts.append(
                f"level_zero adapter loaded but offers nothing{_level_zero_why(level_zero)}"
            )
            break
    return True, "; ".join(parts)


def _level_zero_why(level_zero: Mapping[str, Any]) -> str:
    if not level_zero.get("loader"):
        return ": no Level Zero loader (libze_loader.so.1)"
    if level_zero.get("ze_init") != "ZE_RESULT_SUCCESS":
        return f": zeInit returned {level_zero.get('ze_init')} (no Intel GPU driver)"
    return ""


def _why_none(
    adapter: Mapping[str, Any], runtime: Mapping[str, Any], level_zero: Mapping[str, Any]
) -> str:
    if adapter.get("error"):
        return f" ({adapter['error']})"
    if adapter.get("backend") == "level_zero":
        return _level_zero_why(level_zero)
    if adapter.get("backend") != "opencl":
        return ""
    if runtime.get("ocl_icd_filenames"):
        return f" (OCL_ICD_FILENAMES={runtime['ocl_icd_filenames']} loads no platform)"
    icds = list(runtime.get("icd_files") or ())
    if not icds:
        return ": no OpenCL ICD file (/etc/OpenCL/vendors or the environment's etc/OpenCL/vendors)"
    broken = [i for i in icds if not i.get("exists")]
    if broken and len(broken) == len(icds):
        first = broken[0]
        copy = first.get("environment_copy")
        hint = f"; OCL_ICD_FILENAMES={copy} uses the wheel's own copy" if copy else ""
        return f": the ICD file {first['file']} names {first['names']}, which does not exist{hint}"
    return ""
