"""How a run that raised ends: each kind of exception, its exit code and its one line.

The whole commands (tests/cli/test_main.py, test_cli.py) show the same lines reach stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from ipex_doctor.app.endings import Ending, ending_of
from ipex_doctor.errors import ExitCode, KnowledgeBaseError, Stopped, Terminated


def test_an_expected_failure_is_its_exit_code_and_one_line_with_its_tip() -> None:
    ending = ending_of(KnowledgeBaseError("kb.yaml:3: bad id", tip="use lower case"), "0.1")
    assert ending == Ending(
        ExitCode.USAGE, "ipex-doctor: error: kb.yaml:3: bad id\n  tip: use lower case"
    )
    stopped = Stopped("interrupted: the report above is partial", exit_code=ExitCode.INTERRUPTED)
    assert ending_of(stopped, "0.1") == Ending(
        ExitCode.INTERRUPTED, "ipex-doctor: error: interrupted: the report above is partial"
    )


@pytest.mark.parametrize(
    ("exc", "ending"),
    [
        (KeyboardInterrupt(), Ending(ExitCode.INTERRUPTED, "ipex-doctor: error: interrupted")),
        (Terminated(), Ending(ExitCode.TERMINATED, "ipex-doctor: error: terminated (SIGTERM)")),
        (BrokenPipeError(), Ending(ExitCode.OK, None)),
    ],
)
def test_interrupts_and_a_closed_pipe(exc: BaseException, ending: Ending) -> None:
    assert ending_of(exc, "0.1") == ending


def test_anything_else_is_a_bug_exit_3_with_the_traceback_in_the_crash_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    try:
        {}["missing"]
    except KeyError as exc:
        ending = ending_of(exc, "9.9.9")
    crash = tmp_path / "ipex-doctor" / "ipex-doctor-crash.md"
    assert ending == Ending(
        ExitCode.INTERNAL_ERROR,
        "ipex-doctor: error: internal error (KeyError: 'missing'); this is a bug in "
        f"ipex-doctor; details in {crash}",
    )
    log = crash.read_text()
    assert "ipex-doctor 9.9.9" in log and "Traceback" in log and '{}["missing"]' in log


def test_an_exit_already_decided_is_not_translated() -> None:
    with pytest.raises(SystemExit):
        ending_of(SystemExit(5), "0.1")
