"""One self-contained HTML page of a report: the verdict, the problems, the pictures.

Everything is inline (CSS and SVG); there is no script, no font and no image to fetch, so the
file opens offline, attaches to a ticket and prints. Links to references are ordinary anchors:
nothing is loaded from them. Each status is shown by a symbol and a word as well as a colour.
Like every format this only renders: each status shown was written into a finding by a judge.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from html import escape
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
from ipex_doctor.reporting.formats import svg
from ipex_doctor.reporting.formats.check_views import (
    Matrix,
    SanityView,
    finding_matrix,
    sanity_views,
)
from ipex_doctor.reporting.formats.shown import shown_in_file
from ipex_doctor.reporting.formats.views import (
    baseline_lines,
    baseline_throughput,
    coverage,
    fact_variant,
    fleet_size,
    isa_view,
    ordered,
    rate_text,
    runtime_rows,
)
from ipex_doctor.reporting.policy import Gate, Policy

if TYPE_CHECKING:
    from ipex_doctor.model.baseline import BaselineComparison

SYMBOLS = {
    Status.PASS: "✓",
    Status.SKIP: "–",
    Status.WARN: "!",
    Status.FAIL: "✗",
    Status.ERROR: "☠",
}
_GIB = 1024**3

_CSS = """
:root{--pass:#1a7f37;--skip:#6e7781;--warn:#9a6700;--fail:#cf222e;--error:#8250df;
--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1100px;padding:16px;font:14px/1.45 system-ui,sans-serif;
color:var(--fg);background:var(--bg)}
h1{font-size:1.4em;margin:0 0 4px}h2{font-size:1.15em;margin:24px 0 8px;
border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:1em;margin:0}
.verdict{border:2px solid;border-radius:6px;padding:10px 14px;margin:8px 0 16px}
.verdict.passed{border-color:var(--pass)}.verdict.failed{border-color:var(--fail)}
.verdict strong{font-size:1.2em}
.badge{display:inline-block;min-width:1.6em;text-align:center;font-weight:bold;
border-radius:4px;padding:0 4px;color:#fff}
.s-pass{background:var(--pass)}.s-skip{background:var(--skip)}.s-warn{background:var(--warn)}
.s-fail{background:var(--fail)}.s-error{background:var(--error)}.s-none{background:#fff;color:var(--muted)}
.finding{border:1px solid var(--line);border-left:6px solid var(--skip);border-radius:4px;
padding:8px 12px;margin:8px 0;break-inside:avoid}
.finding.warn{border-left-color:var(--warn)}.finding.fail{border-left-color:var(--fail)}
.finding.error{border-left-color:var(--error)}.finding.pass{border-left-color:var(--pass)}
.meta{color:var(--muted);font-size:.9em}
.fix{margin:6px 0}.fix b{color:var(--fg)}
pre,code{font-family:ui-monospace,monospace;font-size:.92em}
pre{background:#f6f8fa;border-radius:4px;padding:6px 8px;white-space:pre-wrap;
overflow-wrap:anywhere;margin:4px 0}
table{border-collapse:collapse;margin:4px 0;max-width:100%}
td,th{border:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
.wrap{overflow-x:auto}
.matrix td{text-align:center}.matrix td:first-child{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:16px}.chart{max-width:100%;height:auto}
.device{border:1px solid var(--line);border-radius:4px;padding:8px 12px;margin:8px 0;
break-inside:avoid}
.regime{color:var(--muted);font-size:.9em;margin:2px 0 0}
.isa-absent{color:var(--muted)}
details summary{cursor:pointer;color:var(--muted)}
footer{color:var(--muted);font-size:.85em;margin-top:24px}
@media (max-width:600px){body{padding:8px}.charts{display:block}}
@media print{body{max-width:none;font-size:11px}details{display:block}
details>summary{display:none}a{color:inherit;text-decoration:none}
.finding,.device,svg{break-inside:avoid}}
"""


def _e(value: object) -> str:
    return shown_in_file(escape(str(value), quote=True))


def _badge(status: Status | None, *, word: bool = False) -> str:
    if status is None:
        return '<span class="badge s-none" title="not judged here">·</span>'
    text = SYMBOLS[status] + (f" {status.value}" if word else "")
    return f'<span class="badge s-{status.value}" title="{status.value}">{_e(text)}</span>'


def _finding(finding: Finding, env: Environment, total: int = 0) -> str:
    inconclusive = finding.verdict is Verdict.INCONCLUSIVE
    meta = [f"<code>{_e(finding.id)}</code>"]
    if finding.verdict is not None:
        meta.append(_e(finding.verdict.value))
    if finding.device:
        meta.append(_e(finding.device))
    if finding.id != "fleet-outlier" and coverage(finding, total):
        meta.append(_e(coverage(finding, total)))
    parts = [
        f'<article class="finding {finding.status.value}">',
        f"<h3>{_badge(finding.status, word=True)} {_e(finding.title)}"
        + (" <em>(inconclusive)</em>" if inconclusive else "")
        + "</h3>",
        f'<div class="meta">{" · ".join(meta)}</div>',
        f"<p>{_e(finding.evidence.summary)}</p>" if finding.evidence.summary else "",
    ]
    if finding.ignored is not None:
        parts.append(
            f'<p class="meta">Ignored ({_e(finding.ignored.source)}): '
            f"{_e(finding.ignored.reason)}; was {_e(finding.ignored.status.value)}.</p>"
        )
    if finding.versions:
        rows = "".join(
            f"<tr><td>{_e(v.package)}</td><td>{_e(v.installed or 'not installed')}</td>"
            f"<td>{_e(fact_variant(v, env))}</td><td>{_e(v.affected)}</td>"
            f"<td>{_e(v.fixed_in or '')}</td></tr>"
            for v in finding.versions
        )
        parts.append(
            '<div class="wrap"><table><tr><th>package</th><th>installed</th><th>variant</th>'
            f"<th>affected</th><th>fixed in</th></tr>{rows}</table></div>"
        )
    if finding.remediation and (finding.is_problem or inconclusive):
        parts.append(f'<p class="fix"><b>Fix:</b> {_e(finding.remediation)}</p>')
    if finding.commands:
        parts.append(f"<pre>{_e(chr(10).join(finding.commands))}</pre>")
    if finding.workaround and finding.is_problem:
        parts.append(f'<p class="fix"><b>Workaround:</b> {_e(finding.workaround)}</p>')
    if finding.references:
        links = ", ".join(
            f'<a href="{_e(r.url)}" rel="noreferrer">{_e(r.title or r.url)}</a>'
            for r in finding.references
        )
        parts.append(f'<p class="meta">References: {links}</p>')
    if finding.evidence.data:
        data = json.dumps(finding.evidence.data, indent=2, default=str)
        parts.append(f"<details><summary>evidence data</summary><pre>{_e(data)}</pre></details>")
    parts.append("</article>")
    return "".join(parts)


def _isa_cell(env: Environment) -> str:
    """The ISA row's cell: what the CPU has on one line and what it lacks on the next, each
    feature with its own mark under a word, so an absent feature can never read as one more
    item of the present list (and neither the mark nor a colour carries it alone)."""
    isa = isa_view(env.host)
    if not isa.known:
        return _e(isa.text())
    return (
        f'<span class="isa-present">{_e(isa.present_text())}</span><br>'
        f'<span class="isa-absent">{_e(isa.absent_text())}</span>'
    )


def _environment(env: Environment) -> str:
    host, interp = env.host, env.interpreter
    rows = [
        ("python", f"{interp.executable} ({interp.implementation} {interp.version}"
                   f"{', venv' if interp.virtualenv else ''})"),
        ("system", f"{host.os_release} · kernel {host.kernel} · {host.machine}"),
        ("CPU", f"{host.cpu_model} · {host.logical_cpus} logical CPUs · "
                f"{host.memory_total_bytes / _GIB:.1f} GiB RAM"),
    ]  # fmt: skip
    cells = [(key, _e(value)) for key, value in rows]
    cells.append(("ISA", _isa_cell(env)))
    torch = env.runtime.torch
    if torch.get("version"):
        build = [str(torch["version"])]
        build += [f"{name} {torch[name]}" for name in ("cuda", "xpu") if torch.get(name)]
        if torch.get("cpu_capability"):
            build.append(f"CPU capability {torch['cpu_capability']}")
        cells.append(("torch build", _e(" · ".join(build))))
    if env.runtime.ipex.get("version"):
        ipex = env.runtime.ipex
        level = ipex.get("get_current_isa_level", "?")
        cells.append(("IPEX build", _e(f"{ipex['version']} · ISA {level}")))
    cells += [(label, _e(text)) for label, text in runtime_rows(env)]
    table = "".join(f"<tr><th>{_e(key)}</th><td>{cell}</td></tr>" for key, cell in cells)
    packages = "".join(
        f"<tr><td>{_e(p.name)}</td><td>{_e(p.version)}</td>"
        f"<td>{_e(variant_label(env, p))}</td></tr>"
        for p in env.packages
    )
    devices = "".join(
        f"<tr><td>{_e(device_label(d))}</td><td>{_e(d.get('name', ''))}</td>"
        f"<td>{_e(_memory(d.get('total_memory')))}</td>"
        f"<td>{_e(d.get('driver_version') or d.get('capability') or '')}</td></tr>"
        for d in env.runtime.devices
    )
    out = [f'<div class="wrap"><table>{table}</table></div>']
    if packages:
        out.append(
            '<div class="wrap"><table><tr><th>package</th><th>version</th><th>variant</th></tr>'
            f"{packages}</table></div>"
        )
    if devices:
        out.append(
            '<div class="wrap"><table><tr><th>device</th><th>name</th><th>memory</th>'
            f"<th>driver</th></tr>{devices}</table></div>"
        )
    elif env.runtime.ran:
        out.append("<p>No accelerator: the CPU only.</p>")
    else:
        out.append(f"<p>Devices not probed: {_e(env.runtime.skip_reason)}</p>")
    return "".join(out)


def _memory(value: object) -> str:
    return f"{value / _GIB:.1f} GiB" if isinstance(value, int | float) and value else ""


def _sanity(view: SanityView, baseline: dict[str, dict[str, float]] | None) -> str:
    charts = []
    if view.curves:
        charts.append(
            svg.line_chart(
                [(curve.label, curve.losses) for curve in view.curves],
                title=f"Training loss on {view.device}",
                x_label="step",
                y_label="loss",
            )
        )
    regime = ""
    if view.throughput is not None:
        numbers = view.throughput
        dtype = view.amp_dtype or "AMP"
        groups = []
        for mode, name in (("train", "training"), ("infer", "inference")):
            bars: list[tuple[str, float | None]] = [
                ("fp32", numbers.fp32[mode]),
                (f"AMP ({dtype})", numbers.amp[mode]),
            ]
            if baseline is not None:
                bars += [
                    ("fp32, baseline", baseline.get(mode, {}).get("fp32")),
                    ("AMP, baseline", baseline.get(mode, {}).get("amp")),
                ]
            groups.append((f"{name} ({numbers.speedup_text(mode)})", bars))
        charts.append(
            svg.bar_chart(
                groups, title=f"Throughput on {view.device}", unit="img/s", value_text=rate_text
            )
        )
        note = " (inconclusive: the machine was busy)" if numbers.inconclusive else ""
        regime = f'<p class="regime">Measured at {_e(numbers.regime_text())}{_e(note)}.</p>'
    statuses = " ".join(f"{_badge(c.status)} {_e(c.label)}" for c in view.curves)
    return (
        f'<section class="device"><h3>{_e(view.device)}</h3>'
        f'<p class="meta">training paths: {statuses or "none ran"}</p>'
        f'<div class="charts">{"".join(charts)}</div>{regime}</section>'
    )


def _matrix(matrix: Matrix) -> str:
    head = "".join(f"<th>{_e(column)}</th>" for column in matrix.columns)
    rows = "".join(
        f"<tr><td><code>{_e(fid)}</code></td>"
        + "".join(f"<td>{_badge(row.get(column))}</td>" for column in matrix.columns)
        + "</tr>"
        for fid, row in matrix.rows.items()
    )
    return (
        f'<h2>{_e(matrix.title)}</h2><div class="wrap"><table class="matrix">'
        f"<tr><th>finding</th>{head}</tr>{rows}</table></div>"
    )


def _bandwidth(report: Report) -> str:
    for finding in report.findings:
        if finding.id != "fleet-collectives":
            continue
        ranks = finding.evidence.data.get("ranks")
        if not isinstance(ranks, list) or not ranks:
            return ""
        bars: list[tuple[str, float | None]] = []
        for rank in ranks:
            if isinstance(rank, dict):
                value = rank.get("busbw_gbps")
                label = f"rank {rank.get('rank')} ({rank.get('host', '?')})"
                bars.append((label, float(value) if isinstance(value, int | float) else None))
        chart = svg.bar_chart([("all_reduce bus bandwidth", bars)], title="Bus bandwidth per "
                              "rank", unit="GB/s", width=520)  # fmt: skip
        return f'<h2>Collectives</h2><div class="charts">{chart}</div>'
    return ""


def _since_baseline(comparison: BaselineComparison) -> str:
    items = "".join(
        f"<li>{_badge(status) if status else '~'} {_e(text)}</li>"
        for status, text in baseline_lines(comparison)
    )
    return (
        f'<h2>Since the baseline</h2><p class="meta">{_e(comparison.source)}, recorded '
        f"{_e(comparison.created_at)}</p><ul>{items}</ul>"
    )


def _section(title: str, findings: Iterable[Finding], env: Environment, total: int = 0) -> str:
    shown = "".join(_finding(f, env, total) for f in findings)
    return f"<h2>{_e(title)}</h2>{shown}" if shown else ""


def render_html(report: Report, gate: Gate | None = None) -> str:
    """The whole page, stating the gate's decision (default: ``--fail-on fail``)."""
    gate = gate or Policy().decide(report)
    counts = report.summary.counts
    order = (Status.FAIL, Status.ERROR, Status.WARN, Status.PASS, Status.SKIP)
    tally = " · ".join(f"{_badge(s)} {counts[s]} {s.value}" for s in order if counts[s])
    state = "passed" if gate.passed else "failed"
    incomplete = (
        "<p><strong>Incomplete:</strong> the run was interrupted; this report is partial.</p>"
        if not report.complete
        else ""
    )
    nodes = fleet_size(report)
    env = report.environment
    problems = [f for f in ordered(report.findings) if f.is_problem]
    others = [f for f in report.findings if not f.is_problem]
    views = sanity_views(report)
    matrix = finding_matrix(report)
    body = [
        f"<header><h1>ipex-doctor {_e(report.command.value)}</h1>"
        f'<p class="meta">{_e(report.created_at)} · ipex-doctor {_e(report.doctor_version)}</p>'
        f'<div class="verdict {state}" role="status"><strong>'
        f"{_badge(Status.PASS if gate.passed else Status.FAIL)} Gate {state.upper()}</strong>"
        f" — {_e(gate.sentence())}<br>{tally}</div>{incomplete}</header>",
        _section("Problems", problems, env, nodes)
        or "<h2>Problems</h2><p>None: nothing at warning level or above.</p>",
        f"<h2>Environment</h2>{_environment(env)}",
    ]
    if views:
        body.append("<h2>Sanity run</h2>")
        body.append(svg.HATCH_DEFS)
        before = baseline_throughput(report)
        body.extend(_sanity(view, before.get(view.device)) for view in views)
    if report.baseline is not None:
        body.append(_since_baseline(report.baseline))
    if report.repair is not None:
        from ipex_doctor.reporting.formats.repair_text import outcome_text, plan_text

        text = plan_text(report.repair) + outcome_text(report.repair)
        body.append(f"<h2>Repair (fix): {_e(str(report.repair.verdict))}</h2><pre>{_e(text)}</pre>")
    if matrix is not None:
        body.append(_matrix(matrix))
    body.append(_bandwidth(report))
    if others:
        kinds = {kind: [f for f in others if f.kind is kind] for kind in FindingKind}
        rest = "".join(
            f"<details><summary>{_e(kind.value)}: {len(group)} passed or not applicable"
            f"</summary>{''.join(_finding(f, env, nodes) for f in group)}</details>"
            for kind, group in kinds.items()
            if group
        )
        body.append(f"<h2>Everything else</h2>{rest}")
    body.append(
        "<footer>Written by ipex-doctor; self-contained: nothing on this page is loaded "
        "from the network.</footer>"
    )
    title = f"ipex-doctor {report.command.value}: gate {state}"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
        + "".join(body)
        + "</body></html>\n"
    )
