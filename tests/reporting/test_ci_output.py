"""The gate as CI sees it: a log, not a terminal.

Nothing the doctor prints may be cut across lines where no terminal asked for a width (paths,
URLs and commands must survive copy and paste from a log); progress shows as plain lines;
output paths are checked before anything runs; report files get the user's umask.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, doctor_env, make_fake_env, real_env, run_doctor
from unprivileged import Someone

URL = re.compile(r"https://\S+")


def _log_env(**extra: str) -> dict[str, str]:
    """A CI runner's environment: no terminal, no COLUMNS, no colour."""
    env = doctor_env()
    env.pop("COLUMNS", None)
    env.update(extra)
    return env


def _deep_bare_env(tmp_path: Path) -> str:
    # NOTE: the interpreter's path alone is longer than a default 80-column line.
    deep = tmp_path / ("a-rather-long-directory-name-" * 3) / "environment-under-test"
    return make_fake_env(deep, {})


SAVED = REPO / "tests" / "assets" / "reports" / "cpu-reference-check.json"


def test_nothing_is_cut_in_a_log(tmp_path: Path) -> None:
    """Without a terminal or COLUMNS, no line is wrapped: the path and every URL are whole."""
    python = _deep_bare_env(tmp_path)
    assert len(python) > 100
    log = tmp_path / "log.txt"
    with open(log, "w") as handle:
        subprocess.run(
            [sys.executable, "-m", "ipex_doctor", "check", "--python", python, "--json", str(tmp_path / "r.json")],
            stdout=handle, stderr=subprocess.PIPE, env=_log_env(), check=False, timeout=300,
        )  # fmt: skip
    text = log.read_text()
    report = json.loads((tmp_path / "r.json").read_text())
    remedy = next(f for f in report["findings"] if f["id"] == "torch-missing")["remediation"]
    assert remedy in text  # the whole remedy, commands and URLs, on one line
    for line in text.splitlines():
        for url in URL.findall(line):
            assert url.rstrip(".,;)") in json.dumps(report), url
    assert python in text


def test_columns_is_honoured_without_cutting_words(tmp_path: Path) -> None:
    """COLUMNS=60 wraps lines at words; a path longer than the line is never cut in two."""
    python = _deep_bare_env(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", "env", "--python", python],
        capture_output=True, text=True, env=_log_env(COLUMNS="60"), check=False, timeout=300,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert python in done.stdout
    assert any(0 < len(line) <= 60 for line in lines)
    commands = [line.strip()[2:] for line in lines if line.strip().startswith("$ ")]
    assert commands and commands[0].startswith(python) and commands[0].endswith("install torch")
    assert all(
        len(line) <= 60 or any(len(w) > 50 for w in line.split()) or line.strip().startswith("$ ")
        for line in lines
    )


@pytest.mark.envs
def test_progress_is_plain_lines_per_phase_and_check(tmp_path: Path) -> None:
    """In a log, each phase and each check is one line on stderr; no blank line strays in."""
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", "repro", "dot-half", "qconv-op-name", "--device", "cpu",
         "--python", real_env("torch28-only"), "--json", str(tmp_path / "r.json")],
        capture_output=True, text=True, env=_log_env(), check=False, timeout=600,
    )  # fmt: skip
    lines = done.stderr.splitlines()
    assert "" not in lines, done.stderr
    progress = [line for line in lines if line.startswith("ipex-doctor: [")]
    for said in ("importing torch", "running dot-half on cpu", "running qconv-op-name on cpu"):
        assert sum(said in line for line in progress) == 1, (said, progress)
    assert all(re.match(r"ipex-doctor: \[ *\d+\.\d s\] ", line) for line in progress)


def test_quiet_prints_no_progress(tmp_path: Path) -> None:
    """-q keeps the log to the problems and the summary."""
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", "env", "-q", "--python", _deep_bare_env(tmp_path)],
        capture_output=True, text=True, env=_log_env(), check=False, timeout=300,
    )  # fmt: skip
    assert "ipex-doctor: [" not in done.stderr


@pytest.mark.parametrize("command", ["env", "check", "repro", "sanity", "merge", "report"])
@pytest.mark.parametrize(
    ("option", "path", "said"),
    [
        ("--json", "/nonexistent/dir/r.json", "directory /nonexistent/dir does not exist"),
        ("--junit-xml", "/", "it is a directory"),
        ("--markdown", "/proc/r.md", "cannot write report to /proc/r.md"),
    ],
)
def test_output_paths_are_checked_before_anything_runs(
    tmp_path: Path, command: str, option: str, path: str, said: str
) -> None:
    """Every output path is checked first: exit 2 at once, nothing probed, nothing written."""
    saved = tmp_path / "saved.json"
    saved.write_text("{}")
    probed = tmp_path / "torch-was-imported"
    # NOTE: a torch whose import leaves a mark: if the probe ran at all, the mark is there.
    torch = f"open({str(probed)!r}, 'w').close()\n"
    args = {
        "env": ["env"],
        "check": ["check"],
        "repro": ["repro", "all"],
        "sanity": ["sanity"],
        "merge": ["merge", str(saved)],
        "report": ["report", str(saved)],
    }[command]
    env = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", torch)})
    python = [] if command in ("merge", "report") else ["--python", env]
    done = run_doctor(*args, *python, option, path)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr
    assert not probed.exists() and "ipex-doctor: [" not in done.stderr


def test_two_formats_into_one_file_is_refused(tmp_path: Path) -> None:
    """--json and --markdown naming the same file would lose one: refused before the run."""
    out = str(tmp_path / "report")
    done = run_doctor("env", "--python", _deep_bare_env(tmp_path), "--json", out, "--markdown", out)
    assert done.returncode == 2 and "would both be written to" in done.stderr


def test_reports_keep_the_umask_and_a_replaced_reports_mode(tmp_path: Path) -> None:
    """A new report is as readable as any new file (umask 022: 0644); a replaced one keeps its mode."""
    python = _deep_bare_env(tmp_path)
    fresh, kept = tmp_path / "fresh.json", tmp_path / "kept.json"
    kept.write_text("old")
    kept.chmod(0o640)
    for target in (fresh, kept):
        subprocess.run(
            [sys.executable, "-m", "ipex_doctor", "env", "--python", python, "--json", str(target)],
            capture_output=True, env=doctor_env(), check=False, timeout=300, umask=0o022,
        )  # fmt: skip
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o644
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o640
    assert json.loads(kept.read_text())["command"] == "env"


@pytest.mark.skipif(os.geteuid() != 0, reason="only root writes over another user's file")
def test_a_report_root_writes_over_a_users_file_stays_that_users(tmp_path: Path) -> None:
    """A report is a new file renamed over the old one; run as root over a file of another
    user's (a CI job under sudo, a report in a user's checkout), it keeps that user and group
    and the mode, as editing it in place would."""
    python = _deep_bare_env(tmp_path)
    target = tmp_path / "theirs.json"
    target.write_text("old")
    os.chown(target, 65534, 65534)
    target.chmod(0o640)
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", "env", "--python", python, "--json", str(target)],
        capture_output=True, env=doctor_env(), check=False, timeout=300, text=True,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    status = os.stat(target)
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (65534, 65534, 0o640)
    assert json.loads(target.read_text())["command"] == "env"


def test_a_user_writes_reports_into_a_directory_they_may_write_but_not_read(
    shared_tmp: Path, other: Someone
) -> None:
    """A drop box (``0333``: the user may make files there, not list it), as an unprivileged
    user: the check before the run and the report's write both work, as they did with
    ``mkstemp``; the directory is opened as a path only (reading it is refused)."""
    saved = shared_tmp / "saved.json"
    saved.write_bytes(SAVED.read_bytes())
    saved.chmod(0o644)
    drop = shared_tmp / "drop"
    drop.mkdir()
    os.chown(drop, other.uid, other.gid)
    drop.chmod(0o333)
    home = other.home(shared_tmp)
    done = subprocess.run(
        other.command("report", str(saved), "-q", "--fail-on", "never", "--json", "drop/r.json"),
        capture_output=True, text=True, env=other.env(home), cwd=shared_tmp, timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    written = drop / "r.json"
    assert json.loads(written.read_text())["findings"]
    assert written.stat().st_uid == other.uid
