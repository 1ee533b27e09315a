"""What the formats show beyond the findings, read from the report once for all of them.

The CPU's instruction sets, the versions' variants, the fleet's coverage and the baseline's
lines are derived here from the report's own evidence (a check's sanity views and matrix in
``check_views``, which a scan's report never loads), so the console, Markdown and HTML show the
same numbers and none of them decides anything: a status shown is a status a judge wrote into a
finding.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ipex_doctor.model.environment import Environment, Host
from ipex_doctor.model.findings import (
    Finding,
    Report,
    Status,
    VersionFact,
)
from ipex_doctor.model.variants import describe_label, variant_label
from ipex_doctor.model.versions import build_variant
from ipex_doctor.verdicts.hostlist import compress

if TYPE_CHECKING:
    from ipex_doctor.model.baseline import BaselineComparison


def ratio_text(value: float) -> str:
    """A speedup as every format writes it, ``2.60x``: two decimals, the rule the sanity judge
    writes its evidence with, applied to the same recorded number."""
    return f"{value:.2f}x" if math.isfinite(value) else "n/a"


def rate_text(value: float) -> str:
    """A throughput as every format writes it, ``12.9``: one decimal, as the evidence does."""
    return f"{value:.1f}"


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


def files_read_text(report: Report) -> str | None:
    """How much of the code a scan read, for the summary (``None`` for another command): a
    scan of the wrong directory, or one whose excludes left everything out, reads "no file"
    rather than passing as a clean tree."""
    if report.scan is None:
        return None
    seen = report.scan.files_seen
    if seen == 0:
        return "no file read (check the paths given, scan.exclude and .gitignore)"
    return f"{seen} file{'s' if seen != 1 else ''} read"


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
