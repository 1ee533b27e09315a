"""A log's plain text is written without rich (``styled.plain_text``): byte for byte what rich
writes for the same report, for every shape of report a command prints, at every width a log
may be wrapped to (``COLUMNS``); and a scan piped to a log never imports rich, where one on a
terminal still prints through it."""

from __future__ import annotations

import io
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from builders import make_env
from rich.console import Console, Group
from rich.text import Text

from ipex_doctor.model import findings as model
from ipex_doctor.model.code import CodeLocation, SkippedFile
from ipex_doctor.model.environment import ImportOutcome
from ipex_doctor.model.fix_summary import FixSummary, RewrittenFile
from ipex_doctor.model.terms import Reference
from ipex_doctor.reporting.formats.console import (
    _wrapped,
    _wrapped_line,
    console_parts,
    render_console,
    write_plain_text,
)
from ipex_doctor.reporting.formats.styled import PLAIN_WIDTH, StyledText, plain_text
from ipex_doctor.verdicts.unread_files import unread_finding

# NOTE: every text a report carries may hold what rich changes: its control codes, a tab, a
# wide or combining character, markup-like brackets, an escape sequence.
ODD = (
    "plain",
    "[bold]not markup[/bold] and [link]",
    "é, ü, 漢字 and 🙂, a combining e\u0301",
    "bell\x07 backspace\x08 vtab\x0b formfeed\x0c return\r escape\x1b[31m red",
    "a\ttab and\ttwo",
    "two\nlines",
    "trailing spaces   ",
    "",
)
LONG_PATH = "src/" + "/".join(f"package_{n}" for n in range(40)) + "/module.py"


def _finding(n: int, kind: model.FindingKind, status: model.Status, odd: str) -> model.Finding:
    """A finding of ``kind`` and ``status``, with ``odd`` in every text it carries."""
    code = kind is model.FindingKind.CODE
    return model.Finding(
        id=f"issue-{n}",
        kind=kind,
        status=status,
        severity=tuple(model.Severity)[n % len(model.Severity)],
        title=f"title {n} {odd}",
        evidence=model.Evidence(
            f"torch.xpu.thing_{n}: evidence {odd}", data={"runs": [1]} if n % 2 else {}
        ),
        remediation=f"remedy {odd}" if n % 3 else "",
        references=(Reference(f"https://example.com/{n}?q={odd}"),) if n % 4 else (),
        verdict=tuple(model.Verdict)[n % len(model.Verdict)] if n % 5 else None,
        workaround=f"workaround {odd}" if n % 2 else "",
        device="xpu:0" if n % 7 == 1 else None,
        ignored=(
            model.Ignored(f"reason {odd}", status, "2030-01-01", "policy.yaml")
            if n % 9 == 4
            else None
        ),
        manual_commands=(f"pip install thing=={n} {odd}",) if n % 3 == 1 else (),
        location=(
            CodeLocation(
                LONG_PATH if n % 4 == 0 else f"pkg/mod {odd}.py",
                n + 1,
                n % 5,
                n + 1,
                n % 11,
                n % 3 if n % 6 == 0 else None,
            )
            if code
            else None
        ),  # fmt: skip
        snippet=f"    with torch.xpu.thing_{n}():  # {odd}" if code else "",
    )


def _reports() -> dict[str, model.Report]:
    """Every shape of report: none, one and many findings of every kind, status and verdict,
    notes, ignores, a scan's unread files and its fix, an environment with odd facts."""
    env = make_env(
        {"torch": "2.8.0+xpu", "intel-extension-for-pytorch": "2.8.10+xpu"},
        devices=({"type": "xpu", "index": 0, "name": "Intel(R) Arc(TM) A770 é"},),
        torch_facts={"xpu": "20250101", "xpu_compiled": True, "cxx11_abi": True},
        env_vars={"ONEAPI_DEVICE_SELECTOR": "level_zero:0", "ODD": ODD[3]},
        imports=(ImportOutcome("torch", True, version="2.8.0", seconds=1.5),),
    )
    findings = tuple(
        _finding(n, kind, status, odd)
        for n, (kind, status, odd) in enumerate(
            itertools.product(model.FindingKind, model.Status, ODD)
        )
    )
    skipped = (SkippedFile(f"data/{odd}.py", f"unreadable: {odd}") for odd in ODD)
    unread = unread_finding(tuple(skipped))
    assert unread is not None
    fix = FixSummary(
        (RewrittenFile(f"pkg/{ODD[2]}.py", 3, "a" * 64, "b" * 64), RewrittenFile(LONG_PATH, 1, "c", "d")),
        (SkippedFile("pkg/link.py", "a symbolic link\tleft alone"),),
        "/tmp/record é.json",
    )  # fmt: skip

    def report(found: tuple[model.Finding, ...], **extra: object) -> model.Report:
        return model.Report(
            "0.1.0", "2026-01-01T00:00:00Z", model.Command.SCAN, env, found, **extra  # type: ignore[arg-type]
        )  # fmt: skip

    scan = model.ScanSummary((".",), 124, 28, (), fix)
    return {
        "no findings": report(()),
        "every kind, status and odd text": report(findings),
        "one code finding": report(findings[-len(ODD) :][:1]),
        "unread files and a fix, incomplete": report(
            (*findings[:20], unread), scan=scan, complete=False
        ),
    }


def _what_rich_writes(report: model.Report, verbosity: int, width: int | None) -> str:
    """The old way: rich prints the whole report to a log's console, then wrapped."""
    buffer = io.StringIO()
    Console(
        file=buffer, width=PLAIN_WIDTH, soft_wrap=True, no_color=True, highlight=False,
        force_terminal=False, emoji=False,
    ).print(render_console(report, verbosity=verbosity))  # fmt: skip
    text = buffer.getvalue()
    return text if width is None else _wrapped(text, width)


@pytest.mark.parametrize("shape", list(_reports()))
@pytest.mark.parametrize("verbosity", [-1, 0, 1])
@pytest.mark.parametrize("width", [None, 40, 80, 200])
def test_a_log_gets_rich_s_bytes_without_rich(
    shape: str, verbosity: int, width: int | None
) -> None:
    report = _reports()[shape]
    written = io.StringIO()
    write_plain_text(console_parts(report, verbosity=verbosity), written, width=width)
    assert written.getvalue() == _what_rich_writes(report, verbosity, width)


def test_rich_is_left_only_what_it_changes_otherwise() -> None:
    """A part is said without rich unless it holds a tab (rich expands it to its cell widths)
    or a line a console of ``PLAIN_WIDTH`` columns might crop; and those come out as rich's."""
    said = plain_text([StyledText("a\x07b\rc", "bold").append("é 漢字", "dim"), StyledText()])
    assert said == "abcé 漢字\n\n"
    assert plain_text([StyledText("a\tb")]) is None
    assert plain_text([StyledText("x" * (PLAIN_WIDTH // 2 + 1))]) is None
    assert plain_text([StyledText("x\n" * (PLAIN_WIDTH // 2 + 1))]) is not None
    assert plain_text([Text("rich's own")]) is None
    for part in (StyledText("漢" * (PLAIN_WIDTH // 2 + 1)), StyledText("\ta\t漢\tb")):
        written = io.StringIO()
        write_plain_text(iter([part, StyledText("after")]), written)
        buffer = io.StringIO()
        Console(
            file=buffer, width=PLAIN_WIDTH, soft_wrap=True, no_color=True, highlight=False,
            force_terminal=False, emoji=False,
        ).print(Group(Text(part.plain), Text("after")))  # fmt: skip
        assert written.getvalue() == buffer.getvalue()


def test_a_terminal_gets_the_text_made_by_the_same_calls() -> None:
    """On a terminal rich renders ``StyledText`` as the ``Text`` the same calls make: the
    whole's style over every piece, each piece's own over it alone."""
    styled = StyledText("  head ", style="bold").append("dim", style="dim").append(" plain")
    made = Text("  head ", style="bold").append("dim", style="dim").append(" plain")
    printed = []
    for text in (styled, made):
        buffer = io.StringIO()
        Console(file=buffer, force_terminal=True, color_system="256", width=80).print(text)
        printed.append(buffer.getvalue())
    assert printed[0] == printed[1]
    assert "\x1b[1;2mdim" in printed[0]  # NOTE: the whole is bold, the piece dim too


@pytest.mark.parametrize("width", [1, 8, 40, 80, 200])
def test_a_line_that_fits_is_wrapped_as_textwrap_wraps_it(width: int) -> None:
    """``_wrapped`` leaves textwrap out for a line that fits: what it writes is textwrap's,
    for every line of every report shape and lines made to sit at the edge."""
    report_lines = {
        line
        for report in _reports().values()
        for verbosity in (-1, 0, 1)
        for line in _what_rich_writes(report, verbosity, None).splitlines()
    }
    edges = {
        " " * n + word + " " * m
        for n in (0, 1, 4)
        for m in (0, 1, 3)
        for word in ("x" * (width - 1), "x" * width, "a b" * (width // 3 + 1), "é\u00a0漢")
    }
    edges |= {"", " ", " " * width, "a\tb", "    a\t", " $ pip install x  ", "$ x" + " " * width}
    for line in report_lines | edges:
        expected = [line] if line.lstrip().startswith("$ ") else _wrapped_line(line, width)
        assert _wrapped(line + "\n", width) == "\n".join(expected) + "\n", repr(line)


# --- the command ---------------------------------------------------------------------------------

_RUN = """
import atexit, sys
atexit.register(lambda: print("rich imported:", "rich" in sys.modules, file=sys.stderr))
sys.argv[0] = "ipex-doctor"
from ipex_doctor.cli import main
main(sys.argv[1:])
"""


def _scan(tree: Path, *, terminal: bool) -> tuple[str, str]:
    """``scan tree`` run as a command, its stdout a pipe or (``terminal``) a pseudo-terminal;
    what it printed and what it said of rich."""
    argv = [sys.executable, "-c", _RUN, "scan", str(tree), "--no-cache"]
    env = {**os.environ, "COLUMNS": "100"}
    if not terminal:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
        return done.stdout, done.stderr
    import pty

    leader, follower = pty.openpty()
    with subprocess.Popen(argv, stdout=follower, stderr=subprocess.PIPE, env=env) as process:
        os.close(follower)
        out = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # NOTE: EIO once the follower's last holder has closed it
                break
            if not chunk:
                break
            out += chunk
        _, err = process.communicate(timeout=120)
    os.close(leader)
    return out.decode(), err.decode()


def test_a_piped_scan_never_imports_rich_and_a_terminal_s_does(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(
        "import intel_extension_for_pytorch as ipex\nmodel = ipex.optimize(model)\n",
        encoding="utf-8",
    )
    piped, said = _scan(tmp_path, terminal=False)
    assert "rich imported: False" in said
    assert "ipex.optimize" in piped and "\x1b[" not in piped
    shown, said = _scan(tmp_path, terminal=True)
    assert "rich imported: True" in said
    assert "ipex.optimize" in shown and "\x1b[" in shown
