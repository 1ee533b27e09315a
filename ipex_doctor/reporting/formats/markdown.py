"""Markdown ready to paste into an upstream GitHub issue: environment, findings, evidence.

Evidence data goes into collapsible ``<details>`` blocks. The report was redacted when it was
built, so nothing here can reintroduce a secret; only report fields are rendered. A field's
``<`` is written as ``&lt;`` (``_text``), which a Markdown viewer shows as ``<``: the words of a
scanned tree's file names or a saved report from elsewhere never become HTML in the page
(an image fetched from anywhere, a closed ``<details>``); a line break in a file name is
quoted before it gets here (``shown_name``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ipex_doctor.model.environment import Environment, device_label
from ipex_doctor.model.findings import (
    Finding,
    FindingKind,
    Report,
    Status,
    Verdict,
)
from ipex_doctor.model.variants import variant_label
from ipex_doctor.reporting.formats.shown import shown_in_file
from ipex_doctor.reporting.formats.views import (
    baseline_lines,
    coverage,
    fact_variant,
    files_read_text,
    fleet_size,
    isa_view,
    runtime_rows,
)
from ipex_doctor.reporting.policy import Gate, Policy

if TYPE_CHECKING:
    from ipex_doctor.model.baseline import BaselineComparison

_MARK = {
    Status.PASS: "✅",
    Status.SKIP: "⏭️",
    Status.WARN: "⚠️",
    Status.FAIL: "❌",
    Status.ERROR: "💥",
}


def _text(text: str) -> str:
    return text.replace("<", "&lt;")


def _cell(text: str) -> str:
    return _text(text).replace("|", "\\|").replace("\n", " ")


def _finding(finding: Finding, env: Environment, total: int = 0) -> list[str]:
    mark = "❔" if finding.verdict is Verdict.INCONCLUSIVE else _MARK[finding.status]
    head = f"### {mark} {_text(finding.title)} (`{finding.id}`"
    head += f", {finding.verdict}" if finding.verdict else ""
    head += f", {finding.device}" if finding.device else ""
    where = coverage(finding, total) if finding.id != "fleet-outlier" else ""
    head += f", {where})" if where else ")"
    lines = [head, "", _text(finding.evidence.summary), ""]
    if finding.ignored is not None:
        lines += [
            f"*Ignored ({_text(finding.ignored.source)}): {_text(finding.ignored.reason)}; was {finding.ignored.status}.*",
            "",
        ]
    if finding.versions:
        lines += [
            "| package | installed | variant | affected | fixed in |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {v.package} | {v.installed or 'not installed'} | {_cell(fact_variant(v, env))} | {_cell(v.affected)} | {v.fixed_in or ''} |"
            for v in finding.versions
        ]
        lines.append("")
    if finding.remediation:
        lines += [f"**Fix:** {_text(finding.remediation)}", ""]
    if finding.commands:
        lines += ["```sh", *finding.commands, "```", ""]
    if finding.workaround:
        lines += [f"**Workaround:** {_text(finding.workaround)}", ""]
    if finding.references:
        lines += [
            "References: "
            + ", ".join(f"[{r.title or r.url}]({r.url})" for r in finding.references),
            "",
        ]
    if finding.evidence.data:
        data = json.dumps(finding.evidence.data, indent=2, ensure_ascii=False, default=str)
        lines += [
            "<details><summary>evidence data</summary>",
            "",
            "```json",
            data,
            "```",
            "",
            "</details>",
            "",
        ]
    return lines


def render_markdown(report: Report, gate: Gate | None = None) -> str:
    """The report as Markdown; under the counts, the gate's decision and why (default gate:
    ``--fail-on fail``)."""
    env = report.environment
    counts = report.summary.counts
    gate = gate or Policy().decide(report)
    lines = [
        f"## ipex-doctor {report.doctor_version} report ({report.command}, {report.created_at})",
        "",
        (", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no findings")
        + ("" if (read := files_read_text(report)) is None else f" ({read})")
        + ("" if report.complete else " — **incomplete**"),
        "",
        f"Gate: **{'passed' if gate.passed else 'failed'}**, {gate.sentence()}.",
        "",
        "| | |",
        "|---|---|",
        f"| Python | {env.interpreter.implementation} {env.interpreter.version} |",
        f"| OS | {_cell(env.host.os_release)}, kernel {env.host.kernel}, {env.host.machine} |",
        f"| CPU | {_cell(env.host.cpu_model)} ({env.host.logical_cpus} logical) |",
        f"| ISA | {_cell(isa_view(env.host).text())} |",
        f"| CPU flags | {' '.join(env.host.cpu_flags) or 'none read'} |",
    ]
    lines += [f"| {p.name} | {p.version} · {_cell(variant_label(env, p))} |" for p in env.packages]
    if env.runtime.torch.get("version"):
        lines.append(f"| torch (imported) | {env.runtime.torch['version']} |")
    if env.runtime.ipex.get("version"):
        lines.append(f"| IPEX (imported) | {env.runtime.ipex['version']} |")
    devices = ", ".join(f"{device_label(d)} {d.get('name', '')}" for d in env.runtime.devices)
    lines.append(f"| devices | {_cell(devices) or 'cpu only'} |")
    lines += [f"| {_cell(label)} | {_cell(text)} |" for label, text in runtime_rows(env)]
    lines.append("")
    problems = [f for f in report.findings if f.is_problem or f.ignored is not None]
    others = [f for f in report.findings if f not in problems]
    for title, group in (("Problems", problems), ("Other findings", others)):
        if not group:
            continue
        lines += [f"## {title}", ""]
        for kind in FindingKind:
            for finding in (f for f in group if f.kind is kind):
                lines += _finding(finding, env, fleet_size(report))
        if title == "Problems" and report.baseline is not None:
            lines += _since_baseline(report.baseline)
    if not problems and report.baseline is not None:
        lines += _since_baseline(report.baseline)
    if report.repair is not None:
        from ipex_doctor.reporting.formats.repair_text import repair_section

        lines += [
            "## Repair (fix)",
            "",
            "```text",
            repair_section(report.repair).rstrip(),
            "```",
            "",
        ]
    # NOTE: text from files (paths, lines of code) is in the lines; a control or a reordering
    # mark in it must reach no issue tracker's page as itself (the markup holds none).
    return shown_in_file("\n".join(lines).rstrip() + "\n")


def _since_baseline(comparison: BaselineComparison) -> list[str]:
    lines = [f"## Since the baseline ({comparison.source}, {comparison.created_at})", ""]
    lines += [
        f"- {_MARK[status] if status else '〰️'} {text}"
        for status, text in baseline_lines(comparison)
    ]
    return [*lines, ""]
