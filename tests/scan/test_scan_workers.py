"""A scan whose spawned workers die or hang (issue 31): real ``ipex-doctor scan`` runs of a
tree large enough that workers read beside the doctor, with a worker made to fail on purpose
(``workers.FAULT_VARIABLE``, honoured under pytest only) or killed from outside.

What must hold on any machine, whoever ends up reading which file: every file found is either
read, with exactly the findings a clean scan gives it, or named unread (``scan-unread``, so
``--fail-on warn`` exits 1); never counted clean unread; and only a file a worker died on is
ever named. Which files the workers take depends on timing, so the trees hold the file that
kills them many times over (a worker dies on the first one it reaches).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from conftest import doctor_env, run_doctor

from ipex_doctor.scan.workers import FAULT_VARIABLE, HANG_AFTER_S

pytestmark = pytest.mark.skipif(
    (os.cpu_count() or 1) < 2, reason="the scan starts workers only where there are 2 cores"
)

_BODY = "".join(f"def f{j}(x):\n    return torch.relu(x) + {j}\n" for j in range(150))
# NOTE: parsed (it names a rule's symbol) and judged a pass, so a clean scan passes
# --fail-on warn and only an unread file can fail it
_SOURCE = "import torch\nwith torch.cpu.amp.autocast():\n    pass\n" + _BODY


def _tree(root: Path, files: int, every: int, name: str) -> Path:
    """``files`` modules of about 5 KB (several CPU seconds of reading, so workers start),
    one in ``every`` of them named ``name``."""
    for i in range(files):
        path = root / f"pkg{i // 10:03d}" / (name if i % every == every // 2 else f"m{i}.py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_SOURCE, encoding="utf-8")
    return root


def _scan(root: Path, fault: str | None = None) -> tuple[int, dict[str, Any]]:
    env = {FAULT_VARIABLE: fault} if fault else {}
    out = run_doctor(
        "scan", "--no-cache", "--fail-on", "warn", "--json", "-", str(root), extra_env=env
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out.returncode, json.loads(out.stdout)


def _by_file(report: dict[str, Any]) -> dict[str, list[tuple[Any, ...]]]:
    """Each file's code findings (what, where, status), from the report."""
    found: dict[str, list[tuple[Any, ...]]] = {}
    for finding in report["findings"]:
        if finding["id"] == "scan-unread":
            continue
        summary = finding["evidence"]["summary"]  # NOTE: "path:line: what"
        found.setdefault(summary.partition(":")[0], []).append(
            (finding["id"], finding["status"], summary)
        )
    return found


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A clean scan of the tree every test here damages: all read, every finding a pass."""
    root = _tree(tmp_path_factory.mktemp("clean"), 300, 10, "poison.py")
    code, report = _scan(root)
    assert code == 0
    assert report["scan"]["skipped"] == []
    assert report["scan"]["files_parsed"] == report["scan"]["files_seen"] == 300
    return report


def _assert_exact_or_named(
    report: dict[str, Any],
    clean: dict[str, Any],
    root: Path,
    code: int,
    named_may_be: set[str],
    why: str,
) -> list[str]:
    """Every file of ``root`` that was read has the findings the clean scan gave each file
    (they all hold the same source), every other is named unread with ``why``: the exit code
    and the counts follow. The files named unread."""
    skipped = {s["path"]: s["reason"] for s in report["scan"]["skipped"]}
    assert {Path(p).name for p in skipped} <= named_may_be, skipped
    assert all(why in reason for reason in skipped.values()), skipped
    one = _by_file(clean)["pkg000/m0.py"]
    files = sorted(path.relative_to(root).as_posix() for path in root.rglob("*.py"))
    assert report["scan"]["files_seen"] == len(files)
    assert report["scan"]["files_parsed"] == len(files) - len(skipped)
    expected = {
        file: [
            (what, status, file + summary[len("pkg000/m0.py") :]) for what, status, summary in one
        ]
        for file in files
        if file not in skipped
    }
    assert _by_file(report) == expected  # nothing unread is reported, nothing read is lost
    unread = [f for f in report["findings"] if f["id"] == "scan-unread"]
    if skipped:
        assert code == 1
        assert len(unread) == 1 and unread[0]["status"] == "warn"
        assert sorted(s["path"] for s in unread[0]["evidence"]["data"]["skipped"]) == sorted(
            skipped
        )
    else:
        assert (code, unread) == (0, [])
    return sorted(skipped)


def test_a_worker_that_dies_at_start_up_costs_no_file(
    tmp_path: Path, clean: dict[str, Any]
) -> None:
    """Every worker kills itself before it takes any work: the doctor's process reads it all,
    and the report is the clean one (on main the scan hung for good)."""
    root = _tree(tmp_path, 300, 10, "poison.py")
    code, report = _scan(root, "start")
    assert _assert_exact_or_named(report, clean, root, code, set(), "") == []


def test_a_worker_that_dies_reading_names_only_the_file_it_died_on(
    tmp_path: Path, clean: dict[str, Any]
) -> None:
    """A worker killed (SIGKILL) by a file: its chunk is read again by fresh workers, one file
    at a time; each file that kills them too is named unread, every other file is read (on
    main: an internal error, exit 3, and no report). 600 modules: 300 left their worker 0.6
    CPU seconds on a 2-core Xeon with AMX, near the half second of work left below which the
    doctor starts none (``HELP_WHEN_LEFT_S``); a faster machine would start none."""
    root = _tree(tmp_path, 600, 10, "poison.py")
    code, report = _scan(root, "read:poison.py")
    named = _assert_exact_or_named(
        report, clean, root, code, {"poison.py"}, "the process reading it was killed by SIGKILL"
    )
    assert named  # NOTE: a worker starts and dies on the first chunk it reads
    assert code == 1


def test_a_hung_worker_is_stopped_and_its_file_named(tmp_path: Path, clean: dict[str, Any]) -> None:
    """A worker that stops making progress (it sleeps on a file) is stopped after
    ``HANG_AFTER_S``, and the scan ends with that file named (on main it waited forever). 600
    modules, for a worker to start on a fast machine too (above)."""
    root = _tree(tmp_path, 600, 40, "stuck.py")
    started = time.monotonic()
    code, report = _scan(root, "hang:stuck.py")
    named = _assert_exact_or_named(report, clean, root, code, {"stuck.py"}, "made no progress")
    assert named
    assert time.monotonic() - started < 20 * HANG_AFTER_S


@pytest.mark.parametrize("when", ["at its start", "while it reads"])
def test_a_worker_killed_from_outside_loses_no_finding(
    tmp_path: Path, clean: dict[str, Any], when: str
) -> None:
    """A real SIGKILL to the doctor's first worker, as soon as it exists or once it has
    used half a second of CPU (it is reading chunks then): the report is the clean one, since
    the chunk it held is read again by a fresh worker (on main the first hung the scan for
    good, the second ended it as an internal error, exit 3, with no report).

    The tree is sized for the slowest kill to land on any machine: 2,000 modules give the
    worker 3.7 CPU seconds of reading on a 2-core Xeon with AMX, seven times the half second;
    600 gave it 1.1 to 1.2 s there, so a kill after one second raced the worker's end and
    missed it (CI, 2026-11-29)."""
    root = _tree(tmp_path, 2000, 10, "poison.py")
    command = [sys.executable, "-m", "ipex_doctor", "scan", "--no-cache", "--fail-on", "warn"]
    doctor = subprocess.Popen(
        [*command, "--json", "-", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=doctor_env(),
    )
    killed = _kill_first_worker(psutil.Process(doctor.pid), 0.0 if when == "at its start" else 0.5)
    try:
        out, err = doctor.communicate(timeout=300)
    finally:
        doctor.kill()
    assert "Traceback" not in err, err
    assert doctor.returncode == 0, err
    assert killed  # NOTE: a tree of several CPU seconds always starts a worker
    assert _assert_exact_or_named(json.loads(out), clean, root, 0, set(), "") == []


def _kill_first_worker(doctor: psutil.Process, after_cpu_s: float, limit: float = 120) -> bool:
    """SIGKILL to the doctor's first spawned worker once it has used ``after_cpu_s`` of CPU
    (``False``: none came, or it ended first)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and doctor.is_running():
        for child in _children(doctor):
            try:
                if "spawn_main" not in " ".join(child.cmdline()):
                    continue
                while sum(child.cpu_times()[:2]) < after_cpu_s:
                    time.sleep(0.005)
                child.send_signal(signal.SIGKILL)
                return True
            except psutil.Error:
                continue  # NOTE: gone, or not yet readable: look again
        time.sleep(0.005)
    return False


def _children(process: psutil.Process) -> list[psutil.Process]:
    try:
        return process.children()
    except psutil.Error:
        return []
