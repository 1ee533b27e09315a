"""The human report is printed one part at a time (``console.parts_of``), so that rich holds
the segments of one part, not of the whole report: what comes out is what rich prints of the
report whole, in a log (``to_plain_text``) and on a terminal."""

from __future__ import annotations

import io
import json
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from builders import make_env
from rich.console import Console

from ipex_doctor.model import findings as model
from ipex_doctor.model.code import CodeLocation
from ipex_doctor.reporting import output
from ipex_doctor.reporting.formats.console import (
    PRINTED_TOGETHER,
    _wrapped,
    console_parts,
    parts_of,
    render_console,
    to_plain_text,
    write_plain_text,
)
from ipex_doctor.reporting.formats.json_format import json_chunks
from ipex_doctor.reporting.formats.sarif import sarif_chunks
from ipex_doctor.reporting.publish import print_human


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


# --- a report made as it is printed ------------------------------------------------------------
# ``publish`` prints ``console_parts``: each part made when the printer takes it, a group at a
# time, never the whole report's renderables; JSON and SARIF are written as json encodes them.


def _code_report(findings: int) -> model.Report:
    """A scan's report of ``findings`` code findings in a few files, some with a remedy, a
    snippet, a suppression or a fix."""
    made = tuple(
        model.Finding(
            id=f"rule-{n % 7}",
            kind=model.FindingKind.CODE,
            status=(model.Status.FAIL, model.Status.WARN, model.Status.PASS)[n % 3],
            severity=model.Severity.WARNING,
            title=f"use {n} of a rule " + "word " * (n % 40),
            evidence=model.Evidence(
                f"torch.xpu.thing_{n}: what it means here, {'long ' * (n % 50)}",
                data={"suppressed": "kept"} if n % 11 == 0 else {},
            ),
            remediation=f"use torch.thing_{n} instead" if n % 5 else "",
            verdict=model.Verdict.AFFECTED,
            location=CodeLocation(f"pkg/mod_{n // 400}.py", n + 1, 4, n + 1, 20),
            snippet=f"    with torch.xpu.thing_{n}():  # é",
        )
        for n in range(findings)
    )
    return model.Report("0.1.0", "2026-01-01T00:00:00Z", model.Command.SCAN, make_env({}), made)


@pytest.mark.parametrize("verbosity", [-1, 0, 1])
@pytest.mark.parametrize("width", [None, 60])
def test_a_log_printed_as_the_parts_come_is_the_whole_report(
    verbosity: int, width: int | None
) -> None:
    """Group by group, wrapped group by group: the text of the whole report, printed and
    wrapped at once."""
    report = _code_report(1_300)
    whole = _printed_whole(
        render_console(report, verbosity=verbosity), width=1_000_000, soft_wrap=True,
        no_color=True, highlight=False, force_terminal=False, emoji=False,
    )  # fmt: skip
    streamed = io.StringIO()
    write_plain_text(console_parts(report, verbosity=verbosity), streamed, width=width)
    assert streamed.getvalue() == (whole if width is None else _wrapped(whole, width))
    assert streamed.getvalue().count("\n") > 2 * PRINTED_TOGETHER


def test_the_report_is_made_while_it_is_printed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What ``publish`` prints is never held whole: the memory printing takes does not grow
    with the report (the console made every part before printing the first: four times the
    findings, four times the memory)."""
    monkeypatch.setenv("COLUMNS", "120")
    peaks = []
    for findings in (800, 3_200):
        report = _code_report(findings)
        printed = tmp_path / f"{findings}.txt"
        with printed.open("w", encoding="utf-8") as log:
            monkeypatch.setattr(sys, "stdout", log)
            tracemalloc.start()
            try:
                before, _ = tracemalloc.get_traced_memory()
                print_human(console_parts(report), to_stderr=False)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
        peaks.append(peak - before)
        # NOTE: passes are not shown
        assert printed.read_text(encoding="utf-8").count(" · affected]") > findings // 2
    assert peaks[1] < 1.5 * peaks[0]


def test_json_and_sarif_in_pieces_are_the_text_of_their_whole_data() -> None:
    report = _code_report(700)
    assert "".join(json_chunks(report)) == (
        json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
    )
    sarif = "".join(sarif_chunks(report))
    assert sarif == json.dumps(json.loads(sarif), indent=2, ensure_ascii=False) + "\n"
    results = json.loads(sarif)["runs"][0]["results"]
    assert len(results) == 700
    assert [r["ruleIndex"] for r in results[:8]] == [0, 1, 2, 3, 4, 5, 6, 0]


def test_a_report_in_pieces_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    """The pieces go to the temporary file as they come; when making one fails, the report
    that was there stays, and no temporary file is left."""
    target = tmp_path / "report.json"
    target.write_text("old\n")

    def pieces(fail: bool) -> Iterator[str]:
        for n in range(3_000):
            if fail and n == 2_500:
                raise RuntimeError("a renderer's bug")
            yield f"piece {n} " * 100

    with pytest.raises(RuntimeError):
        output.write_text(str(target), pieces(True))
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    output.write_text(str(target), pieces(False))
    assert target.read_text() == "".join(pieces(False))
