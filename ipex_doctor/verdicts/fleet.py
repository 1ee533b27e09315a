"""Fleet reports: many nodes' (or ranks') reports merged into one, with the outliers named.

A deployment fails when *one* node differs: another driver, another torch, a missing device, a
finding that fails only there. The fleet report keeps every node's findings (``device`` says
``node`` or ``node/device``), adds a ``fleet-summary`` finding with each node's fingerprint, and
one ``fleet-outlier`` finding per node that differs from the majority. It is an ordinary
``Report``, so every format, the gate policy and the exit codes apply unchanged.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ipex_doctor import __version__
from ipex_doctor.model.findings import (
    Command,
    Evidence,
    Finding,
    FindingKind,
    Report,
    Severity,
    Status,
    now_utc,
)
from ipex_doctor.verdicts.majority import odd_members

_PACKAGES = (
    "torch",
    "torchvision",
    "intel-extension-for-pytorch",
    "oneccl-bind-pt",
    "intel-sycl-rt",
)


def fingerprint(report: Report) -> dict[str, Any]:
    """What must be the same on every node of a job: software builds, devices, CPU."""
    env = report.environment
    facts: dict[str, Any] = {}
    for name in _PACKAGES:
        package = env.package(name)
        facts[f"package {name}"] = None if package is None else package.version
    torch = env.runtime.torch
    facts["torch build"] = (torch.get("version"), torch.get("xpu_compiled"), torch.get("cuda"))
    devices = list(env.runtime.devices)
    facts["devices"] = tuple(sorted(f"{d.get('type')} {d.get('name', '?')}" for d in devices))
    facts["device memory"] = tuple(sorted(str(d.get("total_memory", "?")) for d in devices))
    facts["device driver"] = tuple(sorted(str(d.get("driver_version", "?")) for d in devices))
    facts["cpu"] = (env.host.cpu_model, env.host.cpu_flags)
    facts["python"] = env.interpreter.version
    return facts


def _problems(report: Report) -> dict[str, str]:
    return {f.id: f.status.value for f in report.findings if f.is_problem}


def _outliers(nodes: Sequence[tuple[str, Report]]) -> list[Finding]:
    prints = {name: fingerprint(report) for name, report in nodes}
    problems = {name: _problems(report) for name, report in nodes}
    differences: dict[str, list[str]] = {name: [] for name, _ in nodes}
    keys = dict.fromkeys(key for facts in prints.values() for key in facts)
    for key in keys:
        values = {name: repr(facts.get(key)) for name, facts in prints.items()}
        shown = {text: prints[name].get(key) for name, text in reversed(values.items())}
        for name, odd in odd_members(values).items():
            mine = prints[name].get(key)
            if odd.majority is not None:
                count, theirs = odd.others[odd.majority], shown[str(odd.majority)]
                differences[name].append(f"{key}: {mine} (the {count} others: {theirs})")
            else:
                differences[name].append(f"{key}: {mine} (no value is held by a majority)")
    # NOTE: a problem counted once per (finding, status): linear in the nodes
    held = collections.Counter(item for mine in problems.values() for item in mine.items())
    for name, mine in problems.items():
        for finding_id, status in sorted(mine.items()):
            elsewhere = held[(finding_id, status)]
            if elsewhere <= len(nodes) / 2:
                differences[name].append(
                    f"{finding_id} is {status} only on {elsewhere} of {len(nodes)} nodes"
                )
    findings = []
    for name, _ in nodes:
        if differences[name]:
            findings.append(
                Finding(
                    id="fleet-outlier",
                    kind=FindingKind.ENVIRONMENT,
                    status=Status.FAIL,
                    severity=Severity.ERROR,
                    title=f"{name} differs from the other nodes",
                    evidence=Evidence(
                        "; ".join(differences[name]),
                        {"node": name, "differences": differences[name]},
                    ),
                    remediation="Make every node of the job run the same builds and drivers; "
                    "examine this node alone with 'ipex-doctor check' on it.",
                    device=name,
                )
            )
    return findings


def merge(nodes: Sequence[tuple[str, Report]], *, extra: Sequence[Finding] = ()) -> Report:
    """One fleet report from ``(node name, report)`` pairs, the first one's environment on top."""
    if not nodes:
        raise ValueError("no reports to merge")
    findings: list[Finding] = []
    for name, report in nodes:
        for finding in report.findings:
            device = name if finding.device is None else f"{name}/{finding.device}"
            findings.append(
                dataclasses.replace(finding, device=device, per_device={name: finding.status})
            )
    summary: dict[str, Mapping[str, Any]] = {
        name: {
            "python": report.environment.interpreter.executable,
            "fingerprint": {k: repr(v) for k, v in fingerprint(report).items()},
            "counts": {s.value: n for s, n in report.summary.counts.items()},
            "complete": report.complete,
        }
        for name, report in nodes
    }
    outliers = _outliers(nodes) if len(nodes) > 2 else []
    overview = Finding(
        id="fleet-summary",
        kind=FindingKind.ENVIRONMENT,
        status=Status.PASS,
        severity=Severity.INFO,
        title=f"Fleet of {len(nodes)} nodes",
        evidence=Evidence(
            f"{len(nodes)} nodes, {len(outliers)} outlier(s): "
            + ", ".join(f"{name} ({_worst(report)})" for name, report in nodes),
            {"nodes": summary},
        ),
        remediation="",
    )
    return Report(
        doctor_version=__version__,
        created_at=now_utc(),
        command=Command.FLEET,
        environment=nodes[0][1].environment,
        findings=(overview, *outliers, *extra, *findings),
        complete=all(report.complete for _, report in nodes),
    )


def _worst(report: Report) -> str:
    return report.summary.worst.value


def collectives_finding(ranks: Sequence[Mapping[str, Any]]) -> Finding:
    """Correctness and bandwidth of all_reduce / all_gather across ``ranks`` (rank 0's view)."""
    facts = [r.get("collectives") or {} for r in ranks]
    wrong = [
        f"rank {f.get('rank')}"
        for f in facts
        if not (f.get("all_reduce_ok") and f.get("all_gather_ok"))
    ]
    bandwidths = sorted(float(f.get("busbw_gbps") or 0.0) for f in facts)
    median = bandwidths[len(bandwidths) // 2] if bandwidths else 0.0
    slow = [
        f"rank {f.get('rank')} ({f.get('host')}): {float(f.get('busbw_gbps') or 0):.3f} GB/s"
        for f in facts
        if median and float(f.get("busbw_gbps") or 0.0) < LINK_FRACTION * median
    ]
    first = facts[0] if facts else {}
    summary = (
        f"{len(facts)} ranks, backend {first.get('backend')}: all_reduce {first.get('all_reduce_mib')} MiB "
        f"bus bandwidth median {median:.3f} GB/s (min {bandwidths[0] if bandwidths else 0:.3f}, "
        f"max {bandwidths[-1] if bandwidths else 0:.3f}); all_reduce and all_gather "
        + ("correct on every rank" if not wrong else f"WRONG on {', '.join(wrong)}")
    )
    status = Status.FAIL if wrong else (Status.WARN if slow else Status.PASS)
    if slow:
        summary += (
            f"; far below the others (< {LINK_FRACTION:.0%} of the median): {', '.join(slow)}"
        )
    return Finding(
        id="fleet-collectives",
        kind=FindingKind.SANITY,
        status=status,
        severity=Severity.ERROR if wrong else Severity.WARNING,
        title="Collectives are correct and no link is far below its peers",
        evidence=Evidence(summary, {"ranks": facts}),
        remediation="Check the slow or wrong ranks' interconnect, driver and NIC/fabric settings "
        "(CCL_*, I_MPI_*, NCCL_* variables), then rerun."
        if status is not Status.PASS
        else "",
    )


LINK_FRACTION = 0.5
"""A rank whose all_reduce bus bandwidth is below half the median is 'far below its peers'."""
