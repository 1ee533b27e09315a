"""The human report, as styled text that rich renders on a terminal and a log gets plain.

Findings are grouped by kind with a mark per status; problems carry their evidence, the fix and
the workaround. Verbosity 0 shows problems and notes; 1 (``-v``) adds passes, skips and the
evidence of each. Every piece of report text goes in as text (``styled.StyledText``, which
becomes a ``rich.text.Text``), never as markup, so an error message containing ``[brackets]``
prints as it is. Rich is imported only where a terminal, or a part a log's plain text cannot
say without it (``styled.plain_text``), needs it.
"""

from __future__ import annotations

import io
import itertools
import textwrap
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from ipex_doctor.model.environment import Environment, device_label
from ipex_doctor.model.findings import (
    Command,
    Finding,
    FindingKind,
    Report,
    Severity,
    Status,
    Verdict,
)
from ipex_doctor.reporting.formats.styled import PLAIN_WIDTH, StyledText, plain_text
from ipex_doctor.reporting.formats.views import (
    bar,
    baseline_lines,
    coverage,
    files_read_text,
    fleet_size,
    isa_view,
    rate_text,
    sparkline,
)
from ipex_doctor.reporting.output_options import FailOn
from ipex_doctor.reporting.policy import Gate, Policy
from ipex_doctor.scan.fix.quoting import quote_name, shown_name
from ipex_doctor.verdicts.hostlist import compress

if TYPE_CHECKING:
    from rich.console import Group, RenderableType

MARKS: dict[Status, tuple[str, str]] = {
    Status.PASS: ("✓", "green"),
    Status.SKIP: ("-", "dim"),
    Status.WARN: ("!", "yellow"),
    Status.FAIL: ("✗", "bold red"),
    Status.ERROR: ("☠", "bold magenta"),
}
_NOTE_MARK = ("i", "cyan")
_INCONCLUSIVE_MARK = ("?", "yellow")
_KIND_TITLES = {
    FindingKind.ENVIRONMENT: "Environment",
    FindingKind.KNOWN_ISSUE: "Known issues",
    FindingKind.SANITY: "Sanity run",
    FindingKind.CODE: "Your code",
}
_GIB = 1024**3


def _is_note(finding: Finding) -> bool:
    return (
        finding.status is Status.PASS
        and finding.severity is Severity.INFO
        and finding.verdict is Verdict.AFFECTED
    )


def _inconclusive(finding: Finding) -> bool:
    return finding.verdict is Verdict.INCONCLUSIVE


def _observed(finding: Finding) -> bool:
    """A known issue a check ran for, a sanity result, the fleet's groups: worth showing."""
    if finding.id in ("fleet-summary", "xpu-rung-hardware"):
        return True  # NOTE: the fleet's groups; whether an Intel GPU is there at all
    if finding.kind is FindingKind.SANITY:
        # NOTE: an inconclusive measurement, or the whole run not applicable here, says why.
        return (
            finding.status is not Status.SKIP
            or _inconclusive(finding)
            or finding.id == "sanity-run"
        )
    return (
        finding.kind is FindingKind.KNOWN_ISSUE
        and bool(finding.evidence.data.get("runs"))
        and finding.verdict is not Verdict.NOT_APPLICABLE
    )


def _packages_line(env: Environment) -> StyledText:
    names = ("torch", "torchvision", "torchaudio", "intel-extension-for-pytorch", "triton")
    parts = []
    for name in names:
        package = env.package(name)
        if package is None:
            continue
        shown = package.version
        outcome = env.runtime.import_of(name.replace("-", "_"))
        if outcome is not None and outcome.version:
            shown = outcome.version
        label = "IPEX" if name == "intel-extension-for-pytorch" else name
        parts.append(f"{label} {shown}")
    text = StyledText("  packages  ", style="bold")
    text.append(" · ".join(parts) if parts else "no torch, torchvision or IPEX installed")
    return text


def _devices_line(env: Environment) -> StyledText:
    text = StyledText("  devices   ", style="bold")
    devices = _device_runs(env.runtime.devices)
    accel = env.runtime.torch.get("accelerators", {}) if env.runtime.torch else {}
    if devices:
        text.append(", ".join(devices))
    elif not env.runtime.ran:
        text.append(f"not probed ({env.runtime.skip_reason})")
    else:
        xpu = (
            "built with XPU"
            if env.runtime.torch.get("xpu_compiled")
            else "no XPU in this torch build"
        )
        said = accel.get("xpu", {}).get("messages") or []
        text.append(f"cpu only ({xpu}{'; ' + said[0] if said else ''})")
    nodes = env.host.render_nodes
    text.append(f" · /dev/dri: {len(nodes)} render node(s)" if nodes else " · /dev/dri: none")
    return text


def _device_runs(devices: Sequence[Mapping[str, Any]]) -> list[str]:
    """The devices by label and name, a run of alike ones as one (``xpu:0-5 Intel(R) Data
    Center GPU Max 1550``: a node of six cards reads in one line)."""
    runs: list[tuple[str, str, str]] = []  # (first label, last label, name)
    for device in devices:
        label, name = device_label(device), str(device.get("name", ""))
        if runs and runs[-1][2] == name and label.split(":")[0] == runs[-1][0].split(":")[0]:
            runs[-1] = (runs[-1][0], label, name)
        else:
            runs.append((label, label, name))
    return [
        f"{first}{'' if first == last else '-' + last.split(':')[-1]} {name}".strip()
        for first, last, name in runs
    ]


def render_environment(env: Environment, *, verbose: bool = False) -> list[StyledText]:
    """A short summary of the examined environment."""
    interp = env.interpreter
    host = env.host
    lines: list[StyledText] = [StyledText("Environment", style="bold underline")]
    line = StyledText("  python    ", style="bold")
    line.append(
        f"{interp.executable} ({interp.implementation} {interp.version}"
        f"{', venv' if interp.virtualenv else ''})"
    )
    lines.append(line)
    lines.append(_packages_line(env))
    cpu = StyledText("  cpu       ", style="bold")
    cpu.append(f"{host.cpu_model} · {host.logical_cpus} logical · {isa_view(host).text()}")
    lines.append(cpu)
    if verbose and host.cpu_flags:
        lines.append(StyledText(f"  cpu flags {' '.join(host.cpu_flags)}"))
    memory = StyledText("  system    ", style="bold")
    memory.append(
        f"{host.os_release} · kernel {host.kernel} · "
        f"{host.memory_total_bytes / _GIB:.1f} GiB RAM ({host.memory_available_bytes / _GIB:.1f} free)"
    )
    lines.append(memory)
    lines.append(_devices_line(env))
    if env.runtime.ran and env.runtime.torch:
        facts = env.runtime.torch
        build = StyledText("  torch     ", style="bold")
        bits = [
            f"cuda {facts['cuda']}" if facts.get("cuda") else None,
            f"xpu {facts['xpu']}" if facts.get("xpu") else None,
            f"oneDNN {facts['onednn_version']}" if facts.get("onednn_version") else None,
            f"cxx11 ABI {facts.get('cxx11_abi')}" if "cxx11_abi" in facts else None,
            f"CPU capability {facts['cpu_capability']}" if facts.get("cpu_capability") else None,
        ]
        build.append(" · ".join(b for b in bits if b) or "no build facts")
        lines.append(build)
    if env.runtime.ipex:
        ipex = StyledText("  ipex      ", style="bold")
        facts = env.runtime.ipex
        ipex.append(
            f"{facts.get('version')} · build {facts.get('build_type', '?')} · "
            f"ISA {facts.get('get_current_isa_level', '?')}"
        )
        lines.append(ipex)
    if verbose and env.env_vars:
        lines.append(StyledText("  variables ", style="bold"))
        for name, value in env.env_vars.items():
            lines.append(StyledText(f"    {name}={value}"))
    if verbose:
        lines.extend(
            StyledText(f"  import {o.module}: ok in {o.seconds or 0:.1f} s", style="dim")
            for o in env.runtime.imports
            if o.ok
        )
    return lines


def _mark(finding: Finding) -> tuple[str, str]:
    if _is_note(finding):
        return _NOTE_MARK
    if finding.verdict is Verdict.INCONCLUSIVE and finding.ignored is None:
        return _INCONCLUSIVE_MARK
    return MARKS[finding.status]


def _finding(finding: Finding, *, verbose: bool, fleet_size: int = 0) -> list[StyledText]:
    mark, style = _mark(finding)
    head = StyledText("  ")
    head.append(f"{mark} ", style=style)
    head.append(finding.title, style="bold" if finding.is_problem else "")
    head.append(f"  [{finding.id}", style="dim")
    if finding.verdict is not None:
        head.append(f" · {finding.verdict}", style="dim")
    if finding.device is not None:
        head.append(f" · {finding.device}", style="dim")
    where = coverage(finding, fleet_size) if finding.id != "fleet-outlier" else ""
    if where:
        head.append(f" · {where}", style="dim")
    head.append("]", style="dim")
    out: list[StyledText] = [head]
    if finding.ignored is not None:
        note = StyledText(
            f"      ignored ({finding.ignored.source}): {finding.ignored.reason}", style="dim"
        )
        note.append(
            f"; was {finding.ignored.status}"
            + (f"; until {finding.ignored.expires}" if finding.ignored.expires else "")
        )
        out.append(note)
        return out
    show_detail = finding.is_problem or _is_note(finding) or _observed(finding) or verbose
    if show_detail and finding.evidence.summary:
        # NOTE: in a fleet, one node's evidence stands for every node holding the finding; an
        # outlier's evidence is what all its nodes share, and it names them
        seen_on = f"{finding.nodes[0]}: " if len(finding.nodes) > 1 and fleet_size else ""
        if finding.id == "fleet-outlier" and len(finding.nodes) > 1:
            seen_on = f"{compress(finding.nodes)}: "
        out.append(StyledText(f"      {seen_on}{finding.evidence.summary}"))
    explains = finding.is_problem or _is_note(finding) or _inconclusive(finding)
    if finding.remediation and (explains or finding.id == "sanity-run"):
        fix = StyledText("      → ", style="cyan")
        fix.append(finding.remediation)
        out.append(fix)
        for command in finding.commands:
            line = StyledText("        $ ", style="dim")
            line.append(command, style="bold")
            out.append(line)
    if finding.workaround and finding.is_problem:
        workaround = StyledText("      workaround: ", style="cyan")
        workaround.append(finding.workaround)
        out.append(workaround)
    if finding.is_problem and finding.references:
        out.append(StyledText(f"      see {finding.references[0].url}", style="dim"))
    return out


def _summary_line(report: Report, gate: Gate) -> StyledText:
    """The counts, then the gate's verdict in words: fit to deploy or not, and what decided."""
    counts = report.summary.counts
    order = (Status.FAIL, Status.ERROR, Status.WARN, Status.PASS, Status.SKIP)
    parts = [f"{counts[s]} {s}" for s in order if counts[s]]
    ignored = sum(1 for f in report.findings if f.ignored is not None)
    text = StyledText("Summary: ", style="bold")
    text.append(", ".join(parts) or "no findings")
    if ignored:
        text.append(f" ({ignored} ignored by policy)")
    if (read := files_read_text(report)) is not None:
        text.append(f" · {read}")
    text.append(f" · gate --fail-on {gate.fail_on}: ", style="dim")
    if gate.fail_on is FailOn.NEVER:
        text.append("off, so nothing is judged fit or unfit to deploy", style="bold")
    elif gate.passed:
        text.append("passed, fit to deploy", style="bold green")
        warnings = counts[Status.WARN] if gate.fail_on is FailOn.FAIL else 0
        if warnings:
            text.append(f" (read the {warnings} warning{'s' if warnings > 1 else ''} above)")
    else:
        text.append("failed, NOT fit to deploy", style="bold red")
        text.append(f" ({gate.sentence()})")
    if not report.complete:
        text.append(" (incomplete: the run was interrupted)", style="bold red")
    return text


_LEGEND_MARKS = (
    (MARKS[Status.FAIL][0], "fail"),
    (MARKS[Status.ERROR][0], "could not check"),
    (MARKS[Status.WARN][0], "warning"),
    (_INCONCLUSIVE_MARK[0], "inconclusive"),
    (_NOTE_MARK[0], "note"),
    (MARKS[Status.PASS][0], "pass"),
    (MARKS[Status.SKIP][0], "not applicable"),
)


def _legend(marks: set[str], terms: set[str]) -> StyledText:
    """One line that explains the marks shown above and the words a newcomer meets first:
    the verdict in brackets, the gate, a rung of the GPU ladder."""
    said = [f"{mark} {meaning}" for mark, meaning in _LEGEND_MARKS if mark in marks]
    words = ["[id · verdict] (affected: the problem holds here)"]
    if "rung" in terms:
        words.append("rung: a step of the Intel GPU ladder, hardware to torch")
    words.append("gate: what fails the run (exit 1)")
    return StyledText("Legend: " + " · ".join(said + words), style="dim")


def render_console(
    report: Report, gate: Gate | None = None, *, verbosity: int = 0
) -> RenderableType:
    """The human report, whole (``console_parts`` gives it one part at a time).

    ``verbosity`` -1 (``-q``) shows only the problems and the summary; 0 adds the environment,
    notes and what the checks measured; 1 (``-v``) everything. The gate's threshold
    (default ``--fail-on fail``) is named in the summary so a reader knows why the run passed
    or failed.
    """
    from rich.console import Group

    return Group(*console_parts(report, gate, verbosity=verbosity))


def console_parts(
    report: Report, gate: Gate | None = None, *, verbosity: int = 0
) -> Iterator[StyledText]:
    """The parts of the human report (``render_console``), in order, each made when it is
    asked for: a scan's findings become renderables while the report is printed, never all
    at once (rich's objects of 119,109 findings were about 1 GiB)."""
    gate = gate or Policy().decide(report)
    verbose, quiet = verbosity > 0, verbosity < 0
    nodes = fleet_size(report)
    if not quiet:
        yield from render_environment(report.environment, verbose=verbose)
    marks: set[str] = set()
    terms: set[str] = set()
    for kind in FindingKind:
        group = [f for f in report.findings if f.kind is kind]
        if quiet:
            shown = [f for f in group if f.is_problem]
        else:
            shown = [
                f
                for f in group
                if verbose
                or f.is_problem
                or ((_is_note(f) or _observed(f)) and not (nodes > 1 and _fleet_quiet(f)))
                or f.ignored is not None
            ]
        if not group or (quiet and not shown):
            continue
        marks.update(_mark(f)[0] for f in shown)
        terms.update("rung" for f in shown if f.id.startswith("xpu-rung-"))
        yield StyledText("")
        title = StyledText(_KIND_TITLES[kind], style="bold underline")
        # NOTE: by identity (shown is a filter of group): `f not in shown` compared findings
        # field by field, pair by pair, and took most of a scan with 10,000 findings.
        shown_ids = {id(f) for f in shown}
        hidden = [f for f in group if id(f) not in shown_ids]
        if hidden and not quiet:
            # NOTE: counted in the summary's words, so the two add up
            counted = ", ".join(
                f"{n} {status}"
                for status in Status
                if (n := sum(1 for f in hidden if f.status is status))
            )
            title.append(f"  ({counted} not shown; -v shows them)", style="dim")
        yield title
        if not shown:
            yield StyledText("  ✓ nothing to report", style="green")
        if kind is FindingKind.CODE:
            yield from _code_lines(shown, verbose=verbose)
        # NOTE: a code finding without a place in the code (the files scan could not read)
        # reads as any other finding.
        unplaced = [f for f in shown if kind is not FindingKind.CODE or f.location is None]
        for finding in _sorted(unplaced):
            yield from _finding(finding, verbose=verbose, fleet_size=nodes)
            yield from _unread_lines(finding, verbose=verbose)
        if kind is FindingKind.SANITY and not quiet and (verbose or not nodes):
            # NOTE: in a fleet the curves and bars are the first node's: -v shows them
            yield from _sanity_lines(report)
    if not quiet:
        yield from _baseline_lines(report)
        yield from _matrix(report)
    yield from _rewritten_lines(report)
    yield StyledText("")
    yield _summary_line(report, gate)
    if not quiet:
        yield _legend(marks, terms)


def _fleet_quiet(finding: Finding) -> bool:
    """In a fleet report, a finding that is no problem: a pass or a note, on every node or on
    the nodes an outlier already names (the header counts them; -v shows them). A fleet view
    is about what is wrong and what differs. The fleet's own summary always shows."""
    return finding.id != "fleet-summary" and not finding.is_problem


def _sanity_lines(report: Report) -> list[StyledText]:
    """Per device: a sparkline of each training path's loss, and fp32 vs AMP throughput bars."""
    # NOTE: imported here, asked only for a report with a sanity finding: a scan's report
    # never builds the sanity views' dataclasses.
    from ipex_doctor.reporting.formats.check_views import sanity_views

    lines: list[StyledText] = []
    for view in sanity_views(report):
        indent = "  " + " " * len(view.device) + "  "
        line = StyledText(f"  {view.device}  ", style="bold")
        for index, curve in enumerate(view.curves):
            line.append(("  " if index else "") + f"{curve.label} loss ")
            line.append(sparkline(curve.losses, width=12), style="cyan")
            line.append(f" {curve.losses[0]:.2f}→{curve.losses[-1]:.2f}")
        lines.append(line)
        if view.throughput is None:
            continue
        numbers = view.throughput
        for mode in ("train", "infer"):
            high = max(numbers.fp32[mode], numbers.amp[mode])
            row = StyledText(f"{indent}{mode} fp32 ")
            row.append(f"▕{bar(numbers.fp32[mode], high)}▏", style="dim")
            row.append(f" {rate_text(numbers.fp32[mode])}  AMP ")
            faster = numbers.amp[mode] >= numbers.fp32[mode]
            row.append(f"▕{bar(numbers.amp[mode], high)}▏", style="green" if faster else "yellow")
            row.append(f" {rate_text(numbers.amp[mode])} img/s ({numbers.speedup_text(mode)})")
            lines.append(row)
        lines.append(StyledText(f"{indent}measured at {numbers.regime_text()}", style="dim"))
    return lines


def _baseline_lines(report: Report) -> list[StyledText]:
    """The "since baseline" section: appeared, resolved, changed, throughput."""
    comparison = report.baseline
    if comparison is None:
        return []
    title = f"Since the baseline ({comparison.source}, {comparison.created_at})"
    lines: list[StyledText] = [StyledText(""), StyledText(title, style="bold underline")]
    for status, text in baseline_lines(comparison):
        mark, style = MARKS[status] if status is not None else ("~", "")
        line = StyledText(f"  {mark} ", style=style)
        line.append(text)
        lines.append(line)
    return lines


def _matrix(report: Report) -> list[StyledText]:
    """The finding x node (fleet) or finding x device (one node) matrix, when there are several."""
    if report.command is not Command.FLEET and not any(f.per_device for f in report.findings):
        # NOTE: no finding judged per device, no row: ``finding_matrix`` would say ``None``.
        # Asked here so a scan's (or env's) report never loads the matrix's module.
        return []
    from ipex_doctor.reporting.formats.check_views import finding_matrix

    matrix = finding_matrix(report)
    if matrix is None:
        return []
    width = max(len(fid) for fid in matrix.rows)
    lines: list[StyledText] = [StyledText(""), StyledText(matrix.title, style="bold underline")]
    lines.append(StyledText("  " + " " * width + "  " + "  ".join(matrix.columns), style="dim"))
    for fid, row in matrix.rows.items():
        line = StyledText(f"  {fid:<{width}}  ")
        for column in matrix.columns:
            status = row.get(column)
            mark, style = MARKS[status] if status is not None else (" ", "dim")
            line.append(mark.center(len(column)) + "  ", style=style)
        lines.append(line)
    return lines


def _code_lines(findings: Iterable[Finding], *, verbose: bool) -> Iterator[StyledText]:
    """Code findings grouped by file, in file order: each with its line of code, the matched
    span highlighted, what it means here and what replaces it (made as they are asked for)."""
    current = None
    for finding in findings:
        location = finding.location
        if location is None:
            continue
        if location.path != current:
            current = location.path
            yield StyledText(f"  {shown_name(current)}", style="bold")
        mark, style = _mark(finding)
        head = StyledText("    ")
        head.append(f"{mark} ", style=style)
        cell = f"cell {location.cell} " if location.cell is not None else ""
        head.append(f"{cell}{location.line}:{location.column + 1}  ", style="dim")
        head.append(finding.title, style="bold" if finding.is_problem else "")
        head.append(f"  [{finding.id} · {finding.verdict}]", style="dim")
        yield head
        if finding.snippet:
            yield _snippet(finding.snippet, location.column, location.end_column
                           if location.end_line in (0, location.line) else None)  # fmt: skip
        if finding.ignored is not None:
            yield StyledText(f"        ignored ({finding.ignored.source}): "
                       f"{finding.ignored.reason}", style="dim")  # fmt: skip
            continue
        _, _, fact = finding.evidence.summary.partition(": ")
        if fact:
            yield StyledText(f"        {fact}")
        if finding.remediation and (finding.is_problem or verbose):
            fix = StyledText("        → ", style="cyan")
            fix.append(finding.remediation)
            yield fix


def _rewritten_lines(report: Report) -> list[StyledText]:
    """What ``scan --fix`` changed (shown at every verbosity: the user's files changed): the
    files rewritten and the undo command, then those left alone and why."""
    fix = report.scan.fix if report.scan is not None else None
    if fix is None:
        return []
    count = len(fix.rewritten)
    head = StyledText("", style="bold")
    if count:
        head.append(f"Rewrote {count} file{'s' if count != 1 else ''}")
        head.append(f" (to undo: ipex-doctor scan --undo {quote_name(fix.undo_record or '?')})")
    else:
        head.append("Rewrote no file")
    lines: list[StyledText] = [StyledText(""), head]
    for rewritten in fix.rewritten:
        times = f"{rewritten.rewrites} rewrite{'s' if rewritten.rewrites != 1 else ''}"
        lines.append(StyledText(f"  {quote_name(rewritten.path)}  ({times})"))
    lines.extend(
        StyledText(f"  left alone: {quote_name(left.path)}: {left.reason}", style="dim")
        for left in fix.left_alone
    )
    return lines


def _unread_lines(finding: Finding, *, verbose: bool) -> list[StyledText]:
    """Under ``scan-unread``: each file the scan could not read and why (``-v``), or how to
    see them."""
    skipped = finding.evidence.data.get("skipped") if finding.id == "scan-unread" else None
    if not isinstance(skipped, list) or finding.ignored is not None:
        return []
    if not verbose:
        return [StyledText("      -v lists each file and why", style="dim")]
    lines: list[StyledText] = []
    for item in skipped:
        if isinstance(item, dict):
            line = StyledText("        ")
            line.append(quote_name(str(item.get("path"))), style="bold")
            line.append(f": {item.get('reason')}")
            lines.append(line)
    return lines


def _snippet(code: str, start: int, end: int | None) -> StyledText:
    """One line of code with the columns ``start``..``end`` (to the end: ``None`` or 0)
    highlighted."""
    text = StyledText("        │ ", style="dim")
    shown = code.rstrip()
    stop = end if end and end > start else len(shown)
    text.append(shown[:start])
    text.append(shown[start:stop], style="bold yellow")
    text.append(shown[stop:])
    return text


def _sorted(findings: Iterable[Finding]) -> list[Finding]:
    """Worst first; in a fleet the nodes that differ lead, then the fleet-wide view."""
    return sorted(
        findings,
        key=lambda f: (
            f.id not in ("fleet-outlier", "fleet-summary"),
            f.id != "fleet-outlier",
            -f.status.rank,
            _is_note(f) is False,
        ),
    )


def parts_of(renderable: RenderableType) -> list[RenderableType]:
    """``renderable`` in parts to print one after the other: printed whole, rich holds the
    segments of the whole report at once (a scan with 100,000 findings: hundreds of MiB);
    printed in parts, one part's. A group's parts are groups of up to ``PRINTED_TOGETHER`` of
    its renderables (one print call each would cost more than the rendering)."""
    from rich.console import Group

    if not isinstance(renderable, Group):
        return [renderable]
    return list(in_groups(renderable.renderables))


def in_groups(parts: Iterable[RenderableType]) -> Iterator[Group]:
    """``parts`` as groups of up to ``PRINTED_TOGETHER``, each taken from ``parts`` only when
    it is asked for (``console_parts`` makes a part when it is taken)."""
    from rich.console import Group

    for batch in _batches(parts):
        yield Group(*batch)


def _batches(parts: Iterable[RenderableType]) -> Iterator[list[RenderableType]]:
    """``parts`` in lists of up to ``PRINTED_TOGETHER``, each taken when it is asked for."""
    taken = iter(parts)
    while batch := list(itertools.islice(taken, PRINTED_TOGETHER)):
        yield batch


PRINTED_TOGETHER = 500


def printed_parts(
    renderable: RenderableType | Iterator[RenderableType],
) -> Iterator[Group] | list[RenderableType]:
    """What to print one after the other for ``renderable``: a report's parts as they come
    (``console_parts``), in groups, or one renderable's parts (``parts_of``)."""
    if isinstance(renderable, Iterator):
        return in_groups(renderable)
    return parts_of(renderable)


def to_plain_text(renderable: RenderableType, *, width: int | None = None) -> str:
    """The renderable as plain text for a log (``write_plain_text``)."""
    buffer = io.StringIO()
    write_plain_text(renderable, buffer, width=width)
    return buffer.getvalue()


def write_plain_text(
    renderable: RenderableType | Iterator[RenderableType],
    stream: TextIO,
    *,
    width: int | None = None,
) -> None:
    """Write ``renderable`` (or a report's parts as ``console_parts`` makes them) to
    ``stream`` as plain text for a log: no styles, and lines wrapped at ``width`` only between
    words, keeping each line's indent (``None``: not wrapped at all). A path, URL or command
    word longer than the line stays whole on a line of its own, and a command line (``$
    ...``) is never wrapped: it must paste as one.

    The text is what a rich console of ``PLAIN_WIDTH`` columns without colour writes; for the
    report's parts (``StyledText``) it is written without rich (``styled.plain_text``), which
    is then never imported. Written one group of parts at a time, so the text of the whole
    report is never held: each group's text ends with a line break, so wrapping it alone wraps
    its lines as the whole text's."""
    batches = _batches(renderable) if isinstance(renderable, Iterator) else [[renderable]]
    printer: _PlainConsole | None = None
    for batch in batches:
        text = plain_text(batch)
        if text is not None:
            texts: Iterable[str] = [text]
        else:
            printer = printer or _PlainConsole()
            texts = map(printer.text_of, _groups_of(batch))
        for text in texts:
            if text:
                stream.write(text if width is None else _wrapped(text, width))


def _groups_of(batch: list[RenderableType]) -> list[RenderableType]:
    """What rich prints for ``batch``: one renderable's parts (``parts_of``), or the batch of a
    report's parts as one group."""
    if len(batch) == 1:
        return parts_of(batch[0])
    from rich.console import Group

    return [Group(*batch)]


class _PlainConsole:
    """A rich console that writes plain text for a log, and gives back what it wrote."""

    def __init__(self) -> None:
        from rich.console import Console

        self._buffer = io.StringIO()
        self._console = Console(
            file=self._buffer, width=PLAIN_WIDTH, soft_wrap=True, no_color=True,
            highlight=False, force_terminal=False, emoji=False,
        )  # fmt: skip

    def text_of(self, renderable: RenderableType) -> str:
        self._console.print(renderable)
        text = self._buffer.getvalue()
        self._buffer.seek(0)
        self._buffer.truncate()
        return text


def _wrapped(text: str, width: int) -> str:
    """``text`` (whole lines) wrapped for ``write_plain_text``."""
    lines = []
    for line in text.splitlines():
        if line.lstrip().startswith("$ "):
            lines.append(line)  # NOTE: a command to paste stays on one line, whatever its length
        elif len(line) <= width and _TEXTWRAP_SPACES.isdisjoint(line):
            # NOTE: what textwrap makes of a line that fits, without it (it took most of a
            # small scan's report in a log with COLUMNS set): only its trailing spaces go.
            lines.append(line.rstrip(" "))
        else:
            lines.extend(_wrapped_line(line, width))
    return "\n".join(lines) + "\n"


_TEXTWRAP_SPACES = frozenset("\t\n\x0b\x0c\r")
"""The whitespace besides the space that textwrap turns into spaces (and tabs into several)."""


def _wrapped_line(line: str, width: int) -> list[str]:
    """One line wrapped at ``width`` between words, its indent kept and deepened by two."""
    indent = line[: len(line) - len(line.lstrip(" "))]
    wrapped = textwrap.wrap(
        line, width=width, initial_indent="", subsequent_indent=indent + "  ",
        break_long_words=False, break_on_hyphens=False, drop_whitespace=True,
    )  # fmt: skip
    # NOTE: textwrap strips the first line's indent when it starts with spaces; keep it.
    return [indent + wrapped[0].lstrip(" "), *wrapped[1:]] if wrapped else [""]
