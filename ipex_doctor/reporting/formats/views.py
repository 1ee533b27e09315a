"""What the formats show beyond the findings, read from the report once for all of them.

The sanity run's loss curves and throughput, the finding x device (or x node) matrix and the
gate's outcome are derived here from the findings' own evidence, so the console, Markdown and
HTML show the same numbers and none of them decides anything: a status shown is a status a
judge wrote into a finding.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ipex_doctor.model.device_spec import DeviceSpec
from ipex_doctor.model.environment import Environment, Host
from ipex_doctor.model.findings import (
    Command,
    Finding,
    Report,
    Status,
    Verdict,
    VersionFact,
)
from ipex_doctor.model.variants import describe_label, variant_label
from ipex_doctor.model.versions import build_variant
from ipex_doctor.runs.device_selection import first_device
from ipex_doctor.verdicts.hostlist import compress

if TYPE_CHECKING:
    from ipex_doctor.model.baseline import BaselineComparison

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


def ratio_text(value: float) -> str:
    """A speedup as every format writes it, ``2.60x``: two decimals, the rule the sanity judge
    writes its evidence with, applied to the same recorded number."""
    return f"{value:.2f}x" if math.isfinite(value) else "n/a"


def rate_text(value: float) -> str:
    """A throughput as every format writes it, ``12.9``: one decimal, as the evidence does."""
    return f"{value:.1f}"


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


def fleet_size(report: Report) -> int:
    """How many nodes a fleet report covers (0 for a report of one machine)."""
    for finding in report.findings:
        if finding.id == "fleet-summary":
            count = finding.evidence.data.get("node_count")
            if isinstance(count, int):
                return count
    return 0


def coverage(finding: Finding, total: int) -> str:
    """Where in the fleet a finding holds: ``on all 1000 nodes``, ``on 3 of 1000:
    node[0007,0412,0913]``; empty outside a fleet report."""
    if not finding.nodes or not total:
        return ""
    count = len(set(finding.nodes))
    if count == total:
        return f"on all {total} nodes" if total > 1 else ""
    return f"on {count} of {total}: {compress(finding.nodes)}"


ISA_FEATURES = (
    ("avx2", "AVX2"),
    ("avx512f", "AVX-512"),
    ("avx512_bf16", "AVX512-BF16"),
    ("avx512_fp16", "AVX512-FP16"),
    ("amx_bf16", "AMX-BF16"),
    ("amx_fp16", "AMX-FP16"),
)
"""The CPU features that decide how fast PyTorch runs on a Xeon, by /proc/cpuinfo flag."""
PRESENT_MARK, ABSENT_MARK = "✓", "✗"


@dataclass(frozen=True)
class IsaView:
    """Which of ``ISA_FEATURES`` the CPU has and which it lacks (``known``: flags were read)."""

    present: tuple[str, ...]
    absent: tuple[str, ...]
    known: bool

    def text(self) -> str:
        """``present: ✓ AVX2, ✓ AVX-512 · absent: ✗ AMX-BF16, ✗ AMX-FP16``: each feature with
        its own mark and under a word, so neither the mark nor a colour alone carries it."""
        if not self.known:
            return "unknown: no CPU flags were read"
        return f"{self.present_text()} · {self.absent_text()}"

    def present_text(self) -> str:
        """``present: ✓ AVX2, ✓ AVX-512`` (``present: none``)."""
        return "present: " + (", ".join(f"{PRESENT_MARK} {n}" for n in self.present) or "none")

    def absent_text(self) -> str:
        """``absent: ✗ AMX-BF16`` (``absent: none``)."""
        return "absent: " + (", ".join(f"{ABSENT_MARK} {n}" for n in self.absent) or "none")


def isa_view(host: Host) -> IsaView:
    """The features of ``ISA_FEATURES`` ``host`` has and lacks, in that order."""
    return IsaView(
        present=tuple(name for flag, name in ISA_FEATURES if host.has_flag(flag)),
        absent=tuple(name for flag, name in ISA_FEATURES if not host.has_flag(flag)),
        known=bool(host.cpu_flags),
    )


def fact_variant(fact: VersionFact, env: Environment) -> str:
    """The build variant of a version fact in words, as the environment's package table says
    it when the fact is about the package installed there (a fleet's finding may be about
    another node's), else from the fact's own version label, else the judge's token."""
    package = env.package(fact.package)
    if (
        package is not None
        and fact.installed is not None
        and fact.installed in (package.version, f"{package.version}+{package.variant.local}")
    ):
        return variant_label(env, package)
    if fact.installed is not None and build_variant(fact.installed).local is not None:
        text = describe_label(build_variant(fact.installed))
        if text:
            return text
    return fact.variant or ""


_SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], width: int = 16) -> str:
    """``values`` as a line of block characters, resampled to at most ``width`` of them."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return ""
    if len(values) > width:
        step = (len(values) - 1) / (width - 1)
        values = [values[round(i * step)] for i in range(width)]
    low, high = min(finite), max(finite)
    span = high - low or 1.0
    top = len(_SPARKS) - 1
    return "".join(
        _SPARKS[round((v - low) / span * top)] if math.isfinite(v) else "×" for v in values
    )


def bar(value: float, high: float, width: int = 10) -> str:
    """``value`` out of ``high`` as a bar of block characters ``width`` wide (in eighths)."""
    if not (math.isfinite(value) and math.isfinite(high)) or value <= 0 or high <= 0:
        return " " * width
    eighths = round(min(value, high) / high * width * 8)
    full, part = divmod(eighths, 8)
    drawn = "█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")
    return drawn.ljust(width)


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Problems first (worst status first), then the rest in report order."""
    return sorted(findings, key=lambda f: -f.status.rank)


def baseline_throughput(report: Report) -> dict[str, dict[str, dict[str, float]]]:
    """The baseline's throughput by device, mode (``train``/``infer``) and ``fp32``/``amp``."""
    found: dict[str, dict[str, dict[str, float]]] = {}
    if report.baseline is None:
        return found
    for delta in report.baseline.throughput:
        mode, _, precision = delta.mode.partition("_")
        found.setdefault(delta.device, {}).setdefault(mode, {})[precision] = delta.before
    return found


def baseline_lines(comparison: BaselineComparison) -> list[tuple[Status | None, str]]:
    """The "since baseline" section as lines, each with the status it reads as (``None``: a
    plain change), in one order for every format."""
    lines: list[tuple[Status | None, str]] = []
    lines += [(Status.FAIL, f"appeared: {item}") for item in comparison.appeared]
    lines += [(Status.PASS, f"resolved: {item}") for item in comparison.resolved]
    lines += [
        (None, f"changed: {c.what}: {c.before or 'unset'} -> {c.after or 'unset'}")
        for c in comparison.changes
    ]
    lines += [
        (
            Status.WARN if d.regressed else Status.PASS,
            f"{d.device} {d.mode}: {d.before:.1f} -> {d.after:.1f} img/s ({d.change:+.0%}; "
            f"{'beyond' if d.regressed else 'within'} the allowed -{d.tolerance:.0%})",
        )
        for d in comparison.throughput
    ]
    lines += [(Status.SKIP, f"not compared: {item}") for item in comparison.not_compared]
    return lines or [(Status.PASS, "nothing changed")]


def runtime_rows(env: Environment) -> list[tuple[str, str]]:
    """The oneAPI runtime as the runtime probe saw it, one (label, text) row each: libsycl,
    the Unified Runtime loader and its initialisation, each adapter's platforms and devices,
    the OpenCL ICD files. Empty where the probe did not run or found no runtime at all (the
    GPU ladder's runtime rung says so in words)."""
    runtime = env.host.gpu.get("runtime")
    if not isinstance(runtime, Mapping) or not runtime.get("ran"):
        return []
    if not runtime.get("sycl") and not runtime.get("loader_candidates"):
        return []
    rows: list[tuple[str, str]] = []
    if runtime.get("sycl_error"):
        rows.append(("libsycl", f"does not load: {runtime['sycl_error']}"))
    elif runtime.get("sycl_loaded"):
        rows.append(("libsycl", f"{runtime['sycl_loaded']} (loaded)"))
    if runtime.get("load_error"):
        rows.append(("UR loader", f"does not load: {runtime['load_error']}"))
    elif runtime.get("loader"):
        init = f" · urLoaderInit {runtime['init']}" if runtime.get("init") else ""
        rows.append(("UR loader", f"{runtime['loader']}{init}"))
    for adapter in runtime.get("adapters") or ():
        if not isinstance(adapter, Mapping):
            continue
        rows.append((f"adapter {adapter.get('backend', '?')}", _adapter_text(adapter)))
    for icd in runtime.get("icd_files") or ():
        if not isinstance(icd, Mapping):
            continue
        state = "present" if icd.get("exists") else "missing"
        copy = (
            f"; this environment's copy: {icd['environment_copy']}"
            if icd.get("environment_copy")
            else ""
        )
        rows.append(("OpenCL ICD", f"{icd.get('file')} names {icd.get('names')} ({state}{copy})"))
    if runtime.get("ocl_icd_filenames"):
        rows.append(("OCL_ICD_FILENAMES", str(runtime["ocl_icd_filenames"])))
    return rows


def _adapter_text(adapter: Mapping[str, Any]) -> str:
    if adapter.get("error"):
        return f"error: {adapter['error']}"
    platforms = [p for p in adapter.get("platforms") or () if isinstance(p, Mapping)]
    if not platforms:
        return "no platform"
    parts = []
    for platform in platforms:
        devices = [d for d in platform.get("devices") or () if isinstance(d, Mapping)]
        seen = ", ".join(
            f"{d.get('name', '?')} ({d.get('type', '?')}, driver {d.get('driver_version', '?')})"
            for d in devices
        )
        parts.append(f"{platform.get('name', '?')}: {seen or 'no device'}")
    return "; ".join(parts)
