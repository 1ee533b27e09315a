"""Comparing a run with a saved report of the same machine: what appeared, what changed, what
got slower.

A throughput is a regression only where the comparison must hold: the same device, the same
measurement regime (batch, image size, layout, AMP dtype), neither run on a busy machine, and a
fall beyond the runs' own noise. The noise of a mode is the larger spread of its rounds in the
two runs (each run measures every mode in several alternating rounds); a fall counts when it is
larger than twice that and than ``MIN_DROP``. Where the runs are too noisy for that to mean
anything, the comparison says so instead of guessing. Rounds show the noise *within* a run, not
between runs: on a many-core machine one process's thread placement can halve inference for the
whole run. So when nothing the doctor records changed, a fall in half the modes or fewer is
inconclusive; a fall in most modes, or any fall with a change beside it, is a regression.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from ipex_doctor.errors import DoctorError
from ipex_doctor.model.baseline import (
    BaselineComparison,
    Change,
    Incomparable,
    NotCompared,
    ThroughputDelta,
)
from ipex_doctor.model.environment import Environment, Host, device_label
from ipex_doctor.model.findings import Command, Evidence, Finding, Report, Status, Verdict
from ipex_doctor.verdicts.registry import spec
from ipex_doctor.verdicts.sanity_findings import BUSY_SHARE

_REGRESSION = spec("perf-regression")

MIN_DROP = 0.15
"""A throughput may fall this much (15 %) between two runs before it counts, whatever the noise:
on the shared 2-core machines best-of-3 rounds of two quiet runs differed by up to 9 %."""
MAX_TOLERANCE = 0.5
"""Runs whose noise allows more than a 50 % fall cannot show a regression: inconclusive."""
MODES = ("train_fp32", "train_amp", "infer_fp32", "infer_amp")
_REGIME_KEYS = ("batch", "image", "layout")
_RUNTIME_PREFIXES = (
    "torch", "torchvision", "torchaudio", "intel-extension-for-pytorch", "triton",
    "pytorch-triton", "intel-", "oneccl", "dpcpp", "mkl", "onemkl", "impi", "tcmlib", "umf",
    "nvidia-", "numpy",
)  # fmt: skip


class BaselineError(DoctorError):
    """A baseline that cannot be compared with this run (another machine, another kind)."""


def machine_of(report: Report) -> str:
    """What must be equal for two reports to compare: the CPU and the devices (or, for a
    fleet, the nodes)."""
    if report.command is Command.FLEET:
        nodes = sorted({str(f.device).split("/", 1)[0] for f in report.findings if f.device})
        return f"fleet of {len(nodes)} nodes ({', '.join(nodes[:3])}{', ...' if len(nodes) > 3 else ''})"
    host = report.environment.host
    devices = sorted(str(d.get("name", d.get("type"))) for d in report.environment.runtime.devices)
    shown = f" + {', '.join(devices)}" if devices else ""
    return f"{host.cpu_model} x{host.logical_cpus}{shown}"


def check_same_machine(current: Report, baseline: Report, source: str) -> None:
    """Refuse (one line) a baseline recorded on another machine, device set or fleet."""
    if (current.command is Command.FLEET) != (baseline.command is Command.FLEET):
        kind = "a fleet" if baseline.command is Command.FLEET else "one machine"
        raise BaselineError(
            f"{source} is a report of {kind}; this run is not",
            tip="compare a node with a node's baseline, a fleet with a fleet's",
        )
    mine, theirs = machine_of(current), machine_of(baseline)
    if mine != theirs:
        raise BaselineError(
            f"{source} was recorded on another machine ({theirs}); this is {mine}",
            tip="compare runs of the same machine and devices",
        )


def check_same_host(baseline: Report, host: Host, source: str) -> None:
    """Before a run: refuse a baseline of another CPU (or of a fleet) at once, not after minutes
    of diagnosis. The devices are compared once the run has seen them."""
    if baseline.command is Command.FLEET:
        raise BaselineError(
            f"{source} is a report of a fleet; this run examines one machine",
            tip="compare a node with a node's baseline, a fleet with a fleet's",
        )
    theirs = baseline.environment.host
    if (theirs.cpu_model, theirs.logical_cpus) != (host.cpu_model, host.logical_cpus):
        raise BaselineError(
            f"{source} was recorded on another machine ({theirs.cpu_model} x"
            f"{theirs.logical_cpus}); this is {host.cpu_model} x{host.logical_cpus}",
            tip="compare runs of the same machine and devices",
        )


def _problems(report: Report) -> dict[str, str]:
    found = {}
    for finding in report.findings:
        # NOTE: a baseline's own comparison with its baseline is not a problem of that machine
        if finding.is_problem and finding.id != "perf-regression":
            where = f" [{finding.device}]" if finding.device else ""
            found[f"{finding.id}{where}"] = finding.status.value
    return found


def _runtime_packages(env: Environment) -> dict[str, str]:
    return {p.name: p.version for p in env.packages if p.name.startswith(_RUNTIME_PREFIXES)}


def _drivers(env: Environment) -> dict[str, str]:
    return {
        device_label(d): f"{d.get('name', '?')} {d.get('driver_version', '')}".strip()
        for d in env.runtime.devices
    }


def _throughputs(report: Report) -> dict[str, Mapping[str, Any]]:
    """The throughput each device measured, whatever the sanity run concluded of it: a
    measurement the sanity run found inconclusive (a busy machine, overlapping rounds) is
    still one, and the comparison judges the load and the noise itself."""
    return {
        str(f.device): f.evidence.data
        for f in report.findings
        if f.id == "sanity-throughput" and f.device
        and all(isinstance(f.evidence.data.get(m), int | float) for m in MODES)
    }  # fmt: skip


def _unmeasured(report: Report) -> dict[str, str]:
    """The devices whose sanity run measured no throughput, each with its own account of why
    (``not measured: bfloat16 is emulated on this CPU``)."""
    measured = _throughputs(report)
    return {
        str(f.device): f.evidence.summary
        for f in report.findings
        if f.id == "sanity-throughput" and f.device and str(f.device) not in measured
    }


def _diff(what: str, before: Mapping[str, str], after: Mapping[str, str]) -> list[Change]:
    return [
        Change(f"{what} {key}", before.get(key), after.get(key))
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]


def _changes(current: Report, baseline: Report) -> list[Change]:
    now, then = current.environment, baseline.environment
    changes = _diff("package", _runtime_packages(then), _runtime_packages(now))
    changes += _diff("device", _drivers(then), _drivers(now))
    changes += _diff("variable", dict(then.env_vars), dict(now.env_vars))
    if then.interpreter.version != now.interpreter.version:
        changes.append(Change("python", then.interpreter.version, now.interpreter.version))
    if then.host.kernel != now.host.kernel:
        changes.append(Change("kernel", then.host.kernel, now.host.kernel))
    before, after = _throughputs(baseline), _throughputs(current)
    for device in sorted(set(before) & set(after)):
        old = (before[device].get("regime") or {}).get("threads")
        new = (after[device].get("regime") or {}).get("threads")
        if old is not None and new is not None and old != new:
            changes.append(Change(f"torch threads {device}", str(old), str(new)))
    return changes


def _spread(data: Mapping[str, Any], mode: str) -> float:
    rounds = (data.get("rounds") or {}).get(mode) or []
    values = [float(v) for v in rounds if isinstance(v, int | float) and v > 0]
    return max(values) / min(values) - 1 if len(values) > 1 else 0.0


def _regime(data: Mapping[str, Any], dtype: str | None) -> tuple[Any, ...]:
    regime = data.get("regime") or {}
    return (*(regime.get(key) for key in _REGIME_KEYS), dtype)


def _dtype(report: Report, device: str) -> str | None:
    for finding in report.findings:
        if finding.id == "sanity-amp-agreement" and finding.device == device:
            return str(finding.evidence.data.get("amp_dtype_out"))
    return None


def _compare_throughput(
    current: Report, baseline: Report
) -> tuple[list[ThroughputDelta], list[NotCompared]]:
    """The deltas judged, and each throughput that could not be judged with why."""
    before, after = _throughputs(baseline), _throughputs(current)
    unmeasured = {"the baseline": _unmeasured(baseline), "this run": _unmeasured(current)}
    deltas: list[ThroughputDelta] = []
    skipped: list[NotCompared] = []
    devices = (
        set(before) | set(after) | set(unmeasured["the baseline"]) | set(unmeasured["this run"])
    )
    for device in sorted(devices):
        if device not in before or device not in after:
            which = [name for name, runs in (("the baseline", before), ("this run", after))
                     if device not in runs]  # fmt: skip
            whys = [unmeasured[name][device] for name in which if device in unmeasured[name]]
            detail = f"no throughput measured in {' or '.join(which)}"
            skipped.append(NotCompared(
                device, Incomparable.NOT_MEASURED,
                detail + (f" ({'; '.join(dict.fromkeys(whys))})" if whys else ""),
            ))  # fmt: skip
            continue
        old, new = before[device], after[device]
        if _regime(old, _dtype(baseline, device)) != _regime(new, _dtype(current, device)):
            then_regime = _regime(old, _dtype(baseline, device))
            now_regime = _regime(new, _dtype(current, device))
            skipped.append(NotCompared(
                device, Incomparable.OTHER_REGIME,
                f"measured in another regime (baseline {then_regime}, now {now_regime})",
            ))  # fmt: skip
            continue
        busy = max(float(old.get("others_cpu_share") or 0), float(new.get("others_cpu_share") or 0))
        if busy > BUSY_SHARE:
            skipped.append(NotCompared(
                device, Incomparable.BUSY,
                f"inconclusive, other processes used {busy:.0%} of the CPU during one of the runs",
            ))  # fmt: skip
            continue
        for mode in MODES:
            noise = max(_spread(old, mode), _spread(new, mode))
            tolerance = max(MIN_DROP, 2 * noise)
            before_value, after_value = float(old[mode]), float(new[mode])
            if tolerance > MAX_TOLERANCE:
                skipped.append(NotCompared(
                    device, Incomparable.NOISY,
                    f"{mode} inconclusive, its rounds varied by {noise:.0%}, too much to tell a "
                    "slowdown from noise",
                    mode=mode,
                ))  # fmt: skip
                continue
            regressed = after_value < before_value * (1 - tolerance)
            deltas.append(
                ThroughputDelta(
                    device,
                    mode,
                    before_value,
                    after_value,
                    round(noise, 4),
                    round(tolerance, 4),
                    regressed,
                )  # fmt: skip
            )
    return deltas, skipped


_REMEDIES = {
    Status.WARN: "Undo what changed (above), or rerun both on a quiet machine; "
    "'ipex-doctor sanity --profile full' measures longer.",
    Status.SKIP: "Rerun this and the baseline on a quiet machine (another run in a row shows how "
    "much this machine varies).",
}


def _regression_findings(
    deltas: Iterable[ThroughputDelta],
    changes: list[Change],
    skipped: list[NotCompared],
    source: str,
) -> list[Finding]:
    """One ``perf-regression`` finding per device with a sanity-throughput finding in either
    run."""
    by_device: dict[str, list[ThroughputDelta]] = {}
    for delta in deltas:
        by_device.setdefault(delta.device, []).append(delta)
    for item in skipped:
        by_device.setdefault(item.device, [])
    return [
        _regression(
            device, mine, [item for item in skipped if item.device == device], changes, source
        )
        for device, mine in sorted(by_device.items())
    ]


def _regression(
    device: str,
    mine: list[ThroughputDelta],
    skipped: list[NotCompared],
    changes: list[Change],
    source: str,
) -> Finding:
    """The ``perf-regression`` finding of one device: its deltas (``mine``), why some modes
    were not compared (``skipped``) and what changed since the baseline."""
    reasons = [item.detail for item in skipped]
    changed = "; ".join(f"{c.what}: {c.before or 'unset'} -> {c.after or 'unset'}" for c in changes)
    fallen = [d for d in mine if d.regressed]
    measured = "; ".join(
        f"{d.mode} {d.before:.1f} -> {d.after:.1f} img/s ({d.change:+.0%}, "
        f"allowed -{d.tolerance:.0%})"
        for d in (fallen or mine)
    )
    unexplained = bool(fallen) and not changes and len(fallen) * 2 <= len(MODES)
    if unexplained:
        # NOTE: measured on a 32-core Xeon: two runs in a row of one environment, nothing
        # changed, inference fell 27-51% while training held, every round of each run
        # alike (thread placement differs between processes). A fall in some modes with
        # nothing changed is the machine's state, not the stack's: inconclusive.
        status, verdict = Status.SKIP, Verdict.INCONCLUSIVE
        title = "Throughput varied since the baseline, with nothing in the environment changed"
        summary = (
            f"{measured}; only {len(fallen)} of {len(MODES)} modes fell and nothing the doctor "
            "records changed, so this is the machine's state between runs (thread "
            "placement, clocks, other tenants), not the environment; rerun both to judge"
        )
    elif fallen:
        status, verdict = Status.WARN, Verdict.REGRESSION
        title = "Throughput fell since the baseline"
        summary = f"{measured}, beyond the runs' noise; changed since the baseline: " + (
            changed or "nothing the doctor records (look at the machine's load and clocks)"
        )
    elif mine:
        status, verdict = Status.PASS, Verdict.NOT_AFFECTED
        title = "Throughput as in the baseline"
        summary = measured + ("; not compared: " + "; ".join(reasons) if reasons else "")
    else:
        status, verdict = Status.SKIP, Verdict.INCONCLUSIVE
        title = "Throughput could not be compared with the baseline"
        summary = "; ".join(reasons)
    return _REGRESSION.finding(
        status,
        Evidence(summary, {
            "baseline": source,
            "throughput": [d.to_dict() for d in mine],
            "changes": [c.to_dict() for c in changes],
            "not_compared": reasons,
            "incomparable": [item.to_dict() for item in skipped],
        }),
        title=title,
        remediation=_REMEDIES.get(status, ""),
        verdict=verdict,
        device=device,
        per_device={device: status},
    )  # fmt: skip


def compare(
    current: Report, baseline: Report, source: str
) -> tuple[BaselineComparison, list[Finding]]:
    """What changed between ``baseline`` (read from ``source``) and ``current``, and one
    ``perf-regression`` finding per device with throughput in either. The caller checked
    that both come from the same machine (``check_same_machine``)."""
    now, then = _problems(current), _problems(baseline)
    changes = _changes(current, baseline)
    deltas, skipped = _compare_throughput(current, baseline)
    comparison = BaselineComparison(
        source=source,
        created_at=baseline.created_at,
        appeared=tuple(f"{key}: {status}" for key, status in now.items() if key not in then),
        resolved=tuple(f"{key}: {status}" for key, status in then.items() if key not in now),
        changes=tuple(changes),
        throughput=tuple(deltas),
        not_compared=tuple(str(item) for item in skipped),
        incomparable=tuple(skipped),
    )
    return comparison, _regression_findings(deltas, changes, skipped, source)


def attach(current: Report, baseline: Report, source: str) -> Report:
    """``current`` with the comparison and its ``perf-regression`` findings (replacing any it
    carried from an earlier comparison); raises ``BaselineError`` for another machine."""
    check_same_machine(current, baseline, source)
    comparison, findings = compare(current, baseline, source)
    kept = tuple(f for f in current.findings if f.id != "perf-regression")
    return dataclasses.replace(current, findings=kept + tuple(findings), baseline=comparison)
