"""The human report is printed one part at a time (``console.parts_of``), so that rich holds
the segments of one part, not of the whole report: what comes out is what rich prints of the
report whole, in a log (``to_plain_text``) and on a terminal."""

from __future__ import annotations

import io

import pytest
from builders import make_env
from rich.console import Console

from ipex_doctor.model import findings as model
from ipex_doctor.reporting.formats.console import parts_of, render_console, to_plain_text


def _report() -> model.Report:
    """Findings of every kind, failing and warning, enough for several groups of parts."""
    statuses = (model.Status.FAIL, model.Status.WARN)
    findings = tuple(
        model.Finding(
            id=f"issue-{n}",
            kind=kind,
            status=status,
            severity=model.Severity.WARNING,
            title=f"issue {n} " + "word " * (n % 30),
            evidence=model.Evidence(f"evidence {n}"),
            remediation=f"$ pip install thing=={n}",
            verdict=model.Verdict.AFFECTED,
        )
        for n, (kind, status) in enumerate(
            [(kind, status) for kind in model.FindingKind for status in statuses] * 25
        )
    )
    return model.Report(
        "0.1.0", "2026-01-01T00:00:00Z", model.Command.CHECK, make_env({}), findings
    )


def _printed_whole(renderable: object, **options: object) -> str:
    buffer = io.StringIO()
    Console(file=buffer, **options).print(renderable)  # type: ignore[arg-type]
    return buffer.getvalue()


@pytest.mark.parametrize("verbosity", [-1, 0, 1])
def test_a_log_gets_what_the_whole_report_prints(verbosity: int) -> None:
    renderable = render_console(_report(), verbosity=verbosity)
    assert len(parts_of(renderable)) > 1
    whole = _printed_whole(
        renderable, width=1_000_000, soft_wrap=True, no_color=True, highlight=False,
        force_terminal=False, emoji=False,
    )  # fmt: skip
    assert to_plain_text(renderable) == whole


@pytest.mark.parametrize("width", [40, 120])
def test_a_terminal_gets_what_the_whole_report_prints(width: int) -> None:
    renderable = render_console(_report(), verbosity=1)
    options = {"width": width, "force_terminal": True, "highlight": False, "color_system": "256"}
    buffer = io.StringIO()
    console = Console(file=buffer, **options)  # type: ignore[arg-type]
    for part in parts_of(renderable):
        console.print(part)
    assert buffer.getvalue() == _printed_whole(renderable, **options)
