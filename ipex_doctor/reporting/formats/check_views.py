"""The views of a check's report, apart from what every report shows (``views``): the sanity
run's loss curves and throughput per device, and the finding x device (or x node group) matrix.

Their dataclasses are built only where a report may hold them: the console imports this module
for a report with a sanity finding or a finding judged per device (a check's, a fleet's), never
for a scan's or an environment's; Markdown and HTML import it with themselves. Every status
shown is one a judge wrote into a finding, derived here from the findings' own evidence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ipex_doctor.model.device_spec import DeviceSpec
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import Command, Finding, Report, Status, Verdict
from ipex_doctor.reporting.formats.views import fleet_size, ratio_text
from ipex_doctor.runs.device_selection import first_device
from ipex_doctor.verdicts.hostlist import compress

TRAINING_PATHS = {
    "sanity-train": "AMP",
    "sanity-train-ipex": "ipex.optimize (bf16)",
    "sanity-train-fp16": "fp16 + GradScaler",
}
"""The sanity run's training findings, and how a chart names each path."""
THROUGHPUT_MODES = ("train", "infer")


@dataclass(frozen=True)
class Curve:
    """The losses of one training path, step by step."""

    label: str
    losses: tuple[float, ...]
    status: Status


@dataclass(frozen=True)
class Throughput:
    """Images per second of fp32 and AMP, per mode, in the regime they were measured in."""

    fp32: Mapping[str, float]
    amp: Mapping[str, float]
    regime: Mapping[str, Any]
    status: Status
    inconclusive: bool
    speedups: Mapping[str, float] = field(default_factory=dict)
    """AMP over fp32 per mode as the run recorded it (``speedup_train``), the number the judge
    wrote into the evidence and judged."""

    def speedup(self, mode: str) -> float:
        """AMP over fp32 in ``mode`` (``train`` or ``infer``): the recorded ratio, so the charts
        and the evidence show one number; computed from the rates only for a report that did
        not record it."""
        if mode in self.speedups:
            return self.speedups[mode]
        return self.amp[mode] / self.fp32[mode] if self.fp32.get(mode) else math.nan

    def speedup_text(self, mode: str) -> str:
        """``speedup(mode)`` written by ``ratio_text``."""
        return ratio_text(self.speedup(mode))

    def regime_text(self) -> str:
        """``batch 4 · 224x224 · channels_last · 3 rounds · 2 threads``, from what was recorded."""
        regime = self.regime
        parts = []
        if regime.get("batch") is not None:
            parts.append(f"batch {regime['batch']}")
        if regime.get("image") is not None:
            parts.append(f"{regime['image']}x{regime['image']}")
        if regime.get("layout"):
            parts.append(str(regime["layout"]))
        if regime.get("rounds"):
            parts.append(f"best of {regime['rounds']} rounds")
        if regime.get("threads"):
            parts.append(f"{regime['threads']} threads")
        return " · ".join(parts)


@dataclass(frozen=True)
class SanityView:
    """The sanity run on one device (``node/device`` in a fleet report)."""

    device: str
    amp_dtype: str | None
    curves: tuple[Curve, ...]
    throughput: Throughput | None


def _float_map(data: Mapping[str, Any], key: str) -> dict[str, float]:
    """The numbers ``key`` (``{mode}_fp32``, ``speedup_{mode}``) names per mode, by mode."""
    found = {}
    for mode in THROUGHPUT_MODES:
        value = data.get(key.format(mode=mode))
        if isinstance(value, int | float) and not isinstance(value, bool):
            found[mode] = float(value)
    return found


def _throughput(finding: Finding) -> Throughput | None:
    data = finding.evidence.data
    fp32, amp = _float_map(data, "{mode}_fp32"), _float_map(data, "{mode}_amp")
    if set(fp32) != set(THROUGHPUT_MODES) or set(amp) != set(THROUGHPUT_MODES):
        return None
    regime = data.get("regime")
    return Throughput(
        fp32=fp32,
        amp=amp,
        regime=regime if isinstance(regime, Mapping) else {},
        status=finding.status,
        inconclusive=finding.verdict is Verdict.INCONCLUSIVE,
        speedups=_float_map(data, "speedup_{mode}"),
    )


def _losses(finding: Finding) -> tuple[float, ...]:
    raw = finding.evidence.data.get("losses")
    if not isinstance(raw, list):
        return ()
    return tuple(float(v) for v in raw if isinstance(v, int | float) and not isinstance(v, bool))


def sanity_views(report: Report) -> list[SanityView]:
    """One view per device that ran the sanity run, in the order the report lists them."""
    by_device: dict[str, dict[str, Finding]] = {}
    for finding in report.findings:
        if finding.device is not None and finding.id.startswith("sanity-"):
            by_device.setdefault(finding.device, {})[finding.id] = finding
    views = []
    for device, found in by_device.items():
        curves = tuple(
            Curve(label, _losses(found[fid]), found[fid].status)
            for fid, label in TRAINING_PATHS.items()
            if fid in found and _losses(found[fid])
        )
        measured = found.get("sanity-throughput")
        throughput = _throughput(measured) if measured is not None else None
        agreement = found.get("sanity-amp-agreement")
        dtype = agreement.evidence.data.get("amp_dtype_out") if agreement else None
        if curves or throughput is not None:
            amp_dtype = str(dtype).removeprefix("torch.") if dtype else None
            views.append(SanityView(device, amp_dtype, curves, throughput))
    return views


@dataclass(frozen=True)
class Matrix:
    """Statuses by finding (rows) and device or node (columns), as the judges recorded them."""

    title: str
    columns: tuple[str, ...]
    rows: Mapping[str, Mapping[str, Status]]


def finding_matrix(report: Report) -> Matrix | None:
    """The finding x node-group (fleet) or finding x device matrix; ``None`` with fewer than
    two columns."""
    if report.command is Command.FLEET:
        return _fleet_matrix(report)
    rows: dict[str, dict[str, Status]] = {}
    for finding in report.findings:
        for where, status in finding.per_device.items():
            row = rows.setdefault(finding.id, {})
            for column in judged_devices(where, report.environment):
                if column not in row or row[column].rank < status.rank:
                    row[column] = status
    columns: list[str] = []
    for row in rows.values():
        columns.extend(c for c in row if c not in columns)
    if len(columns) < 2 or not rows:
        return None
    return Matrix("Finding x device", tuple(columns), rows)


def judged_devices(where: str, env: Environment) -> list[str]:
    """The devices a finding's ``per_device`` key stands for in ``env``.

    A run that did not get as far as choosing a device (the sanity run without torchvision)
    is recorded under the ``--device`` spec it was asked with (``auto``, ``local``, ``cuda``);
    a matrix column names devices, so a spec becomes the device it picks here (``auto``: the
    first accelerator, else ``cpu``; ``all``: every device). A device label, present or absent
    (``xpu:1`` asked for and missing), and a spec naming a kind that is absent stay as they are.
    """
    if ":" in where or where in env.device_labels:
        return [where]
    if where == "all":
        return list(env.device_labels)
    try:
        spec = DeviceSpec.parse(where)
    except ValueError:
        return [where]  # NOTE: a saved report's text: shown as it is
    device, _missing = first_device(spec, env)
    return [device] if device is not None else [where]


_FLEET_OWN = ("fleet-summary", "fleet-outlier", "fleet-collectives")
COLUMN_WIDTH = 24
"""A node group's column is named by its node list up to this width, else by its size."""


def _fleet_matrix(report: Report) -> Matrix | None:
    """Only the findings whose status is not the same on every node, and one column per group
    of nodes that agree on all of them (the size of the matrix follows the distinct problems,
    not the nodes)."""
    total = fleet_size(report)
    statuses: dict[str, dict[str, Status]] = {}
    held: dict[str, set[Status]] = {}
    for finding in report.findings:
        if not finding.nodes or finding.id in _FLEET_OWN:
            continue
        row = finding.id + (f" [{finding.device}]" if finding.device else "")
        held.setdefault(row, set()).add(finding.status)
        for node in finding.nodes:
            mine = statuses.setdefault(node, {})
            # NOTE: a node's ranks may judge one finding apart (one per device): the worst
            if row not in mine or mine[row].rank < finding.status.rank:
                mine[row] = finding.status
    covered = {row: sum(row in mine for mine in statuses.values()) for row in held}
    varying = [row for row, kinds in held.items() if len(kinds) > 1 or covered[row] != total]
    groups: dict[tuple[Status | None, ...], list[str]] = {}
    for node, mine in statuses.items():
        groups.setdefault(tuple(mine.get(row) for row in varying), []).append(node)
    if len(groups) < 2:
        return None  # NOTE: every node alike in what varies: nothing for a grid to show
    ordered_groups = sorted(groups.items(), key=lambda item: -len(item[1]))
    columns = [_group_label(names) for _, names in ordered_groups]
    rows: dict[str, dict[str, Status]] = {row: {} for row in varying}
    for (pattern, _), column in zip(ordered_groups, columns, strict=True):
        for row, status in zip(varying, pattern, strict=True):
            if status is not None:
                rows[row][column] = status
    return Matrix("Finding x node group", tuple(columns), rows)


def _group_label(names: list[str]) -> str:
    listed = compress(names)
    return listed if len(listed) <= COLUMN_WIDTH else f"{len(names)} nodes"
