"""The command line in-process: commands return exit codes, ``main`` maps every way out.

The subprocess tests (test_cli.py) show what a user sees; these run the Click commands through
``CliRunner`` (each command returns its ``ExitCode``) and ``main`` in the test's own
interpreter, fast enough to cover each way out of it, and prove that the commands that need
no environment never import torch, even indirectly.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import TESTS

from ipex_doctor.cli import main
from ipex_doctor.cli.commands import cli
from ipex_doctor.errors import ExitCode

RECORDED = TESTS / "assets" / "reports" / "xpu-ipex2120-arc-a770.json"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(list(args))
    out, err = capsys.readouterr()
    code = stop.value.code
    assert isinstance(code, int)
    return code, out, err


def invoke(*args: str, stdin: str | None = None) -> tuple[object, str]:
    """A command's return value (its exit code) and what it printed, via Click's runner."""
    result = CliRunner().invoke(cli, list(args), input=stdin, standalone_mode=False)
    if result.exception is not None:
        raise result.exception
    return result.return_value, result.output


def test_commands_return_their_exit_code() -> None:
    assert invoke("kb", "list")[0] == ExitCode.OK
    code, out = invoke("explain", "-", stdin="RuntimeError: \"dot\" not implemented for 'Half'")
    assert code == ExitCode.OK and "dot-half" in out
    code, out = invoke("explain", "-", "--json", stdin="nothing we know of")
    assert code == ExitCode.FINDINGS and json.loads(out) == {
        "matched": False,
        "result": "none",
        "matches": [],
        "layer": None,
    }
    code, out = invoke("repro", "--list")
    assert code == ExitCode.OK and "bf16-linear" in out


def test_kb_validate_returns_usage_on_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "kb.yaml"
    broken.write_text("schema_version: 1\nissues:\n  - id: x\n")
    code, out = invoke("kb", "validate", str(broken))
    assert code == ExitCode.USAGE and f"{broken}:3" in out


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == ExitCode.OK and "check" in out and "explain" in out
    code, out, _ = run(capsys, "--version")
    assert code == ExitCode.OK and out.startswith("ipex-doctor, version ")


def test_the_help_legend_and_exit_codes_are_the_reports_and_the_doctors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--help`` says by hand what the console's legend and ``ExitCode`` say: each mark with
    its meaning, in the legend's order, and every exit code (explain's 4 in explain's help),
    so a mark or a code changed in one place and not in the other fails here."""
    from ipex_doctor.reporting.formats.console import _LEGEND_MARKS

    _, out, _ = run(capsys, "--help")
    said = " ".join(out.split())
    marks = ", ".join(f"{mark} {meaning}" for mark, meaning in _LEGEND_MARKS)
    assert f"Reading a report: {marks};" in said
    codes = said.split("Exit codes: ", 1)[1].split(".", 1)[0]
    named = {int(word) for word in codes.replace(",", " ").split() if word.isdigit()}
    assert named == set(ExitCode) - {ExitCode.LAYER_ONLY}
    _, out, _ = run(capsys, "explain", "--help")
    assert f"; {int(ExitCode.LAYER_ONLY)} when none did" in " ".join(out.split())


def test_a_usage_error_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", "--fail-on", "loud")
    assert code == ExitCode.USAGE and "'loud' is not one of" in err


def test_a_doctor_error_is_one_line_with_its_tip(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "kb", "show", "dot-halff")
    assert code == ExitCode.USAGE and out == ""
    assert err.startswith("ipex-doctor: error: ") and "dot-half" in err
    assert "Traceback" not in err


def test_builtin_findings_are_described_like_entries(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "kb", "list")
    assert code == ExitCode.OK
    listed = {line.split()[0] for line in out.splitlines() if line.strip()}
    assert {"dot-half", "sanity-train", "fleet-collectives", "device-outlier"} <= listed
    code, out, _ = run(capsys, "kb", "show", "SANITY_TRAIN", "--json")
    assert code == ExitCode.OK and json.loads(out)["id"] == "sanity-train"


def test_replaying_a_report_judges_it_again(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "report", str(RECORDED), "--json", "-")
    assert code == ExitCode.FINDINGS  # the recorded Arc reproduces dot-half and grad-mode
    found = {f["id"]: f["status"] for f in json.loads(out)["findings"]}
    assert found["dot-half"] == "fail" and found["grad-mode-divergence"] == "fail"


def test_merging_something_that_is_not_a_report_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bogus = tmp_path / "notes.json"
    bogus.write_text('{"hello": 1}')
    code, out, err = run(capsys, "merge", str(RECORDED), str(bogus))
    assert code == ExitCode.USAGE and out == "" and str(bogus) in err
    assert len(err.strip().splitlines()) <= 2  # the error and at most its tip


def test_no_command_without_an_environment_imports_torch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "err.log"
    log.write_text("RuntimeError: could not create a primitive descriptor for an inner product")
    for args in (("kb", "list"), ("kb", "validate"), ("explain", "--file", str(log)),
                 ("repro", "--list"), ("report", str(RECORDED), "-q")):  # fmt: skip
        run(capsys, *args)
    assert not {"torch", "torchvision", "intel_extension_for_pytorch"} & set(sys.modules)


def test_an_internal_error_is_exit_3_with_a_crash_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug anywhere below the CLI: one line naming the log, the traceback only in the log."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    @cli.command("explode", hidden=True)
    def explode() -> None:
        raise ZeroDivisionError("boom")

    try:
        code, _, err = run(capsys, "explode")
    finally:
        cli.commands.pop("explode")
    assert code == ExitCode.INTERNAL_ERROR
    assert "internal error (ZeroDivisionError: boom)" in err and "Traceback" not in err
    crash = tmp_path / "ipex-doctor" / "ipex-doctor-crash.md"
    assert str(crash) in err and "ZeroDivisionError" in crash.read_text()


def test_an_abort_is_exit_130(capsys: pytest.CaptureFixture[str]) -> None:
    @cli.command("stop", hidden=True)
    def stop() -> None:
        raise click.exceptions.Abort()

    try:
        code, _, err = run(capsys, "stop")
    finally:
        cli.commands.pop("stop")
    assert code == ExitCode.INTERRUPTED and err.strip() == "ipex-doctor: error: interrupted"
