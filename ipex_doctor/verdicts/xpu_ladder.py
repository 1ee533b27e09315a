"""Why ``torch.xpu.is_available()`` says False, rung by rung, from the hardware up.

One finding per rung: hardware (an Intel GPU on the PCI bus), kernel driver (i915 or xe bound,
the one the family needs), device nodes (``/dev/dri/renderD*`` there and open to this user),
Level Zero (loader found, ``zeInit`` succeeds, devices listed), runtime (a sourced oneAPI
toolkit shadowing the runtime wheels), selection (variables that hide devices; WSL) and torch
(an XPU build that sees devices). The first broken rung is the cause.

Where nothing expects an Intel GPU (no XPU build of torch or IPEX), every rung is information:
no Intel GPU on a CPU or CUDA machine is not a problem, and the ladder never warns or fails
there. Where an XPU build expects one, the first broken rung fails and names itself the cause;
the rungs above it are not reached.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ipex_doctor.model.environment import IPEX, Environment
from ipex_doctor.model.findings import Evidence, Finding, Status
from ipex_doctor.verdicts.registry import spec
from ipex_doctor.verdicts.xpu_runtime import rung_summary, runtime_findings

SELECTORS = ("ZE_AFFINITY_MASK", "ONEAPI_DEVICE_SELECTOR", "ZE_FLAT_DEVICE_HIERARCHY")


@dataclass(frozen=True)
class Rung:
    """What one rung found: whether it holds, what was seen, and what to do when it does not."""

    holds: bool | None
    """``None``: the rung does not apply here (nothing to judge)."""
    seen: str
    fix: str = ""


def expects_xpu(env: Environment) -> bool:
    """Whether the environment is built to run on an Intel GPU (an XPU torch or IPEX)."""
    torch = env.runtime.torch
    ipex = env.package(IPEX)
    torch_package = env.package("torch")
    return bool(
        torch.get("xpu_compiled")
        or (torch_package is not None and "+xpu" in torch_package.version)
        or (ipex is not None and "xpu" in ipex.version)
    )


def _intel(gpu: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [d for d in gpu.get("display_devices") or () if d.get("vendor") == "0x8086"]


def hardware(env: Environment, gpu: Mapping[str, Any]) -> Rung:
    displays = list(gpu.get("display_devices") or ())
    mine = _intel(gpu)
    if mine:
        listed = "; ".join(f"{d['slot']} {d.get('family')} ({d['device']})" for d in mine)
        return Rung(True, f"Intel GPU on the PCI bus: {listed}")
    others = ", ".join(f"{d.get('vendor')}:{d.get('device')}" for d in displays)
    where = " (WSL: the GPU is behind /dev/dxg, not on a PCI bus)" if gpu.get("wsl") else ""
    return Rung(
        False,
        "no Intel GPU on the PCI bus"
        + (f"; display devices: {others}" if others else "; no display device at all")
        + where,
        "Run on a machine (or VM, with the GPU passed through) that has an Intel GPU.",
    )


def driver(env: Environment, gpu: Mapping[str, Any]) -> Rung:
    if not _intel(gpu):
        return Rung(None, "no Intel GPU on the PCI bus to drive")
    problems, seen = [], []
    for device in _intel(gpu):
        bound, needs = device.get("driver"), list(device.get("drivers") or ("i915", "xe"))
        seen.append(f"{device['slot']}: {bound or 'no driver'}")
        if bound not in needs:
            need = " or ".join(needs)
            problems.append(
                f"{device['slot']} ({device.get('family')}, {device['device']}) has "
                f"{bound or 'no kernel driver bound'}; it needs {need}"
            )
    if problems:
        ids = ",".join(str(d["device"]).removeprefix("0x") for d in _intel(gpu))
        return Rung(
            False,
            "; ".join(problems),
            "Install Intel's GPU driver for this kernel (https://dgpu-docs.intel.com/driver/"
            "installation.html); a kernel that knows the device but does not probe it needs "
            f"the boot parameter i915.force_probe={ids} (or xe.force_probe={ids} for xe).",
        )
    return Rung(True, "kernel driver: " + ", ".join(seen))


def device_nodes(env: Environment, gpu: Mapping[str, Any]) -> Rung:
    nodes = list(env.host.render_nodes)
    if not nodes:
        inside = gpu.get("container")
        return Rung(
            False,
            "no /dev/dri/renderD* node"
            + (" inside this container: the GPU was not passed in" if inside else ""),
            "Start the container with --device /dev/dri (and the render group: --group-add render)."
            if inside
            else "Load the GPU driver (it creates /dev/dri/renderD*).",
        )
    closed = [n for n in nodes if not (n.get("readable") and n.get("writable"))]
    if closed:
        groups = sorted({str(n.get("group")) for n in closed})
        return Rung(
            False,
            f"{', '.join(str(n['path']) for n in closed)} cannot be opened by this user "
            f"(owned by group {', '.join(groups)}, mode {closed[0].get('mode')})",
            f"sudo usermod -aG {groups[0]} $USER, then log in again.",
        )
    return Rung(True, f"{len(nodes)} render node(s), open to this user")


def level_zero(env: Environment, gpu: Mapping[str, Any]) -> Rung:
    facts = gpu.get("level_zero") or {}
    if not facts.get("ran"):
        return Rung(None, f"not asked: {facts.get('error', 'no Level Zero probe')}")
    if not facts.get("loader"):
        return Rung(
            False,
            "the Level Zero loader (libze_loader.so.1) is not installed",
            "Install the Level Zero loader and Intel's GPU runtime (Ubuntu: libze1 and "
            "libze-intel-gpu1; https://dgpu-docs.intel.com/driver/installation.html).",
        )
    runtime = ", ".join(facts.get("gpu_runtime") or ()) or "none found"
    if facts.get("ze_init") != "ZE_RESULT_SUCCESS":
        return Rung(
            False,
            f"the loader is there but zeInit returned {facts.get('ze_init')} (no usable Level "
            f"Zero GPU driver; GPU runtime libraries: {runtime})",
            "Install Intel's GPU compute runtime (libze-intel-gpu1 / intel-level-zero-gpu) "
            "that matches the kernel driver.",
        )
    if not facts.get("devices"):
        return Rung(False, f"zeInit succeeded but {facts.get('drivers')} driver(s) list no device",
                    "Check the selection variables below and the driver's dmesg output.")  # fmt: skip
    return Rung(
        True, f"zeInit ok: {facts.get('drivers')} driver(s), {facts.get('devices')} device(s)"
    )


def runtime(env: Environment, gpu: Mapping[str, Any]) -> Rung:
    wheels = [p for p in env.packages if p.name in RUNTIME_WHEELS]
    sourced = [v for v in ("SETVARS_COMPLETED", "ONEAPI_ROOT", "CMPLR_ROOT") if env.env_vars.get(v)]
    listed = ", ".join(f"{p.name} {p.version}" for p in wheels) or "no oneAPI runtime wheels"
    if wheels and sourced:
        return Rung(
            False,
            f"{listed}, and a sourced oneAPI toolkit ({', '.join(sourced)} set) puts its own "
            "libraries first on the library path, shadowing the wheels torch was built against",
            "Do not source oneAPI's setvars.sh for a torch XPU wheel: open a fresh shell.",
        )
    holds, seen = rung_summary(gpu.get("runtime") or {}, gpu.get("level_zero") or {})
    if holds is False:
        return Rung(False, f"{seen} (the versions: xpu-runtime-versions)", _versions_fix(env))
    if holds is None and not seen:
        return Rung(True if wheels else None, listed)
    return Rung(holds, f"{listed}; {seen}" if wheels else seen)


RUNTIME_WHEELS = (
    "intel-sycl-rt",
    "intel-cmplr-lib-ur",
    "intel-opencl-rt",
    "onemkl-sycl-blas",
    "intel-pti",
)


def _versions_fix(env: Environment) -> str:
    found = runtime_findings(env, expects_xpu(env))
    if not found:
        return ""
    return "; ".join((found[0].remediation, *found[0].commands)).strip("; ")


def selection(env: Environment, gpu: Mapping[str, Any]) -> Rung:
    set_here = {name: env.env_vars[name] for name in SELECTORS if env.env_vars.get(name)}
    selector = set_here.get("ONEAPI_DEVICE_SELECTOR", "")
    hiding = selector and not any(word in selector.lower() for word in ("level_zero", "*", "gpu"))
    seen = ", ".join(f"{k}={v}" for k, v in set_here.items()) or "no device-selection variable set"
    if gpu.get("wsl"):
        seen += "; WSL (GPU through /dev/dxg)" if gpu.get("dxg") else "; WSL without /dev/dxg"
    if hiding:
        return Rung(False, f"{seen}: this selector admits no Level Zero GPU",
                    "unset ONEAPI_DEVICE_SELECTOR (or include level_zero:gpu).")  # fmt: skip
    return Rung(True if set_here else None, seen)


def torch_rung(env: Environment, gpu: Mapping[str, Any]) -> Rung:
    torch = env.runtime.torch
    if not env.runtime.ran:
        return Rung(None, f"torch not examined: {env.runtime.skip_reason or 'not imported'}")
    if not torch.get("xpu_compiled"):
        return Rung(False, f"torch {torch.get('version')} is not an XPU build",
                    "Install torch from https://download.pytorch.org/whl/xpu.")  # fmt: skip
    count = sum(1 for d in env.runtime.devices if d.get("type") == "xpu")
    if not count:
        return Rung(False, "torch is an XPU build but torch.xpu.device_count() is 0")
    return Rung(True, f"torch {torch.get('version')} sees {count} XPU device(s)")


Judge = Callable[[Environment, Mapping[str, Any]], Rung]
RUNGS: tuple[tuple[str, str, Judge], ...] = (
    ("hardware", "No Intel GPU on the PCI bus", hardware),
    ("driver", "The Intel GPU lacks the kernel driver it needs", driver),
    ("device-nodes", "No /dev/dri render node this user may open", device_nodes),
    ("level-zero", "Level Zero does not initialise or lists no GPU", level_zero),
    ("runtime", "A sourced oneAPI toolkit shadows the runtime wheels", runtime),
    ("selection", "A device-selection variable hides the GPU", selection),
    ("torch", "torch is no XPU build or sees no GPU", torch_rung),
)
"""Each rung: id suffix, broken title, judge; in the order a GPU is reached (the registry's
order). The healthy title is the registry's (``xpu-rung-<name>``)."""
_SPECS = {name: spec(f"xpu-rung-{name}") for name, *_ in RUNGS}


def ladder_findings(env: Environment) -> list[Finding]:
    """One finding per rung (``xpu-rung-<name>``); the first broken rung is the cause when an
    XPU build expects a device, and information otherwise."""
    gpu = env.host.gpu
    expected = expects_xpu(env)
    findings: list[Finding] = []
    cause: str | None = None
    for name, broken, judge in RUNGS:
        rung = judge(env, gpu)
        if cause is not None and expected:
            status = Status.SKIP
            summary = f"not reached: the {cause} rung is broken; {rung.seen}"
            remedy = ""
        elif rung.holds is False and expected:
            cause = name
            status = Status.FAIL
            summary = f"the first broken rung, the cause: {rung.seen}"
            remedy = rung.fix
        else:
            # NOTE: where nothing expects an Intel GPU a rung that does not hold is not a
            # problem: not applicable (skip), never a warning
            status = Status.PASS if rung.holds else Status.SKIP
            summary = rung.seen + ("" if expected or rung.holds is not False
                                   else " (information: nothing here expects an Intel GPU)")  # fmt: skip
            remedy = ""
        findings.append(_SPECS[name].finding(
            status, Evidence(summary, {"rung": name, "holds": rung.holds, "expects_xpu": expected}),
            title=broken if rung.holds is False else "", remediation=remedy,
        ))  # fmt: skip
    return findings


def rung_ids() -> Sequence[str]:
    """The finding ids of the ladder, in order."""
    return [f"xpu-rung-{name}" for name, *_ in RUNGS]
