"""Fault injection on real processes: every fault ends as a finding or a one-line error.

Each test records the outcome it observed (``record``); ``tools/fault_matrix.py`` runs this
file with IPEX_DOCTOR_FAULT_MATRIX set and writes docs/reliability.md from those records, so
the matrix is produced by running the suite, not by hand.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest
from conftest import TESTS, make_fake_env, real_env, run_doctor, start_doctor

FAULT_CHECKS = TESTS / "assets" / "fault_checks"
FAULTY = TESTS / "assets" / "faulty_checks"
pytestmark = pytest.mark.envs


def record(fault: str, outcome: str, exit_code: int) -> None:
    """Add a row to the fault matrix (only when tools/fault_matrix.py runs the suite)."""
    path = os.environ.get("IPEX_DOCTOR_FAULT_MATRIX")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(
                json.dumps({"fault": fault, "outcome": outcome, "exit_code": exit_code}) + "\n"
            )


def _wait_for(
    condition: Callable[[], bool], process: subprocess.Popen[str], what: str, limit: float = 300
) -> None:
    """Poll ``condition`` until it holds; fail (not hang) if the doctor ends or ``limit`` passes."""
    deadline = time.monotonic() + limit
    while not condition():
        if process.poll() is not None:
            _out, err = process.communicate()
            pytest.fail(f"the doctor exited ({process.returncode}) before {what}: {err[-2000:]}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"waited {limit:.0f} s for {what}")
        time.sleep(0.1)


def _still_running(processes: list[psutil.Process], limit: float = 30) -> list[psutil.Process]:
    """The processes still alive (zombies count as gone) after up to ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while True:
        alive = []
        for process in processes:
            try:
                if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                    alive.append(process)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def _is_worker(process: psutil.Process) -> bool:
    try:
        return any(part.endswith("worker.py") for part in process.cmdline())
    except psutil.Error:
        return False


def _findings(stdout: str) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in json.loads(stdout)["findings"]}


def _repro(
    *names: str, extra_env: dict[str, str] | None = None, timeout: str = "60"
) -> tuple[int, dict[str, dict[str, Any]], str]:
    done = run_doctor(
        "repro", *names, "--checks-dir", str(FAULT_CHECKS), "--checks-dir", str(FAULTY),
        "--python", real_env("torch28-only"), "--device", "cpu", "--timeout", timeout, "--json", "-",
        extra_env=extra_env,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, _findings(done.stdout), done.stderr


def test_check_faults_in_one_run(tmp_path: Path) -> None:
    """Segfault, hang, os._exit, raise, memory exhaustion, closed stdout, 20 MB of output,
    garbage on the result channel, zombie children: each ends as a finding, the run completes."""
    pidfile = tmp_path / "pids"
    code, found, _err = _repro(
        "segfaults", "hangs", "hard-exit", "raises", "eats-memory", "closes-stdout",
        "floods-output", "writes-garbage", "leaves-children", "qconv-op-name",
        extra_env={"IPEX_DOCTOR_TEST_PIDFILE": str(pidfile)}, timeout="30",
    )  # fmt: skip
    assert code == 1
    expected = {
        "segfaults": ("error", "killed by SIGSEGV"),
        "hangs": ("error", "did not finish within 30 s"),
        "hard-exit": ("error", "exit code 3"),
        "raises": ("error", "ValueError: planted failure"),
        "eats-memory": ("error", "MemoryError"),
        "closes-stdout": ("pass", "returned after closing stdout"),
        "floods-output": ("pass", "returned after printing 20 MB"),
        "writes-garbage": ("pass", "returned after writing garbage"),
        "leaves-children": ("pass", "returned, leaving a zombie"),
        "qconv-op-name": ("skip", "matches the float conv"),  # ran; no XPU: not applicable
    }
    for check_id, (status, said) in expected.items():
        finding = found[check_id]
        assert finding["status"] == status and said in finding["evidence"]["summary"], (
            check_id,
            finding,
        )
        if check_id != "qconv-op-name":  # NOTE: the healthy control run after the faults
            record(f"check: {check_id.replace('-', ' ')}", f"{status}: {said}", code)
    flood = found["floods-output"]["evidence"]["data"]["runs"][0]["output"]
    assert len(flood) < 20_000  # kept as a tail, not 20 MB
    left: list[psutil.Process] = []
    for pid in map(int, pidfile.read_text().split()):
        try:
            left.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            pass
    assert not _still_running(left)
    record("check leaves a zombie and an orphan", "both gone when the doctor exits", code)


@pytest.mark.parametrize(
    ("sig", "expected"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_interrupt_writes_partial_report_and_stops_workers(
    tmp_path: Path, sig: int, expected: int
) -> None:
    """SIGINT/SIGTERM during check: workers killed, a partial report marked incomplete, 130/143."""
    out = tmp_path / "report.json"
    out.write_text("previous report")
    marker = tmp_path / "inside-the-check"
    process = start_doctor(
        "repro", "qconv-op-name", "sleeps", "--checks-dir", str(FAULT_CHECKS),
        "--python", real_env("torch28-only"), "--device", "cpu", "--json", str(out),
        extra_env={"IPEX_DOCTOR_TEST_MARKER": str(marker)},
    )  # fmt: skip
    # NOTE: the signal goes in once the worker is inside the sleeping check (the marker), so
    # qconv-op-name has finished whatever the machine's load: no guess at how long imports take.
    _wait_for(marker.exists, process, "the worker to enter the sleeping check")
    workers = psutil.Process(process.pid).children(recursive=True)
    process.send_signal(sig)
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == expected, stderr
    assert "partial" in stderr and "Traceback" not in stderr
    report = json.loads(out.read_text())
    assert report["complete"] is False
    qconv = next(f for f in report["findings"] if f["id"] == "qconv-op-name")
    assert qconv["evidence"]["data"]["runs"][0]["outcome"] == "ok"  # it finished before the signal
    assert not _still_running(workers)
    record(
        f"{signal.Signals(sig).name} during a check",
        "workers killed, partial report (complete: false)",
        expected,
    )


def test_interrupt_during_probe_keeps_nothing_running(tmp_path: Path) -> None:
    """SIGINT while the probe's import hangs: the probe worker dies with the doctor."""
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", "import time\ntime.sleep(600)\n")})
    process = start_doctor("env", "--python", python, "--json", str(tmp_path / "r.json"))
    doctor = psutil.Process(process.pid)

    def worker_started() -> bool:
        # NOTE: the worker, not the handshake interpreter that runs before it: once the
        # worker exists the static facts are known and a partial report can be written.
        return any(_is_worker(child) for child in doctor.children(recursive=True))

    _wait_for(worker_started, process, "the probe worker to start")
    workers = doctor.children(recursive=True)
    process.send_signal(signal.SIGINT)
    _out, stderr = process.communicate(timeout=300)
    assert process.returncode == 130 and "Traceback" not in stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["complete"] is False
    assert not _still_running(workers)
    record(
        "SIGINT during the probe's hanging import",
        "worker killed, partial report (static facts)",
        130,
    )


def _sleep_377(pidfile: Path) -> psutil.Process | None:
    """The detached ``sleep 377`` the check started, if it is still there."""
    try:
        process = psutil.Process(int(pidfile.read_text()))
        return process if "377" in process.cmdline() else None
    except (psutil.Error, ValueError, FileNotFoundError):
        return None


@pytest.mark.parametrize("ending", ["normal exit", "timeout", "Ctrl-C"])
def test_a_detached_grandchild_is_not_left_behind(tmp_path: Path, ending: str) -> None:
    """A check starts ``setsid sleep 377`` (a session of its own: killing the worker's group
    misses it); however the doctor ends, the sleep ends with it."""
    pidfile = tmp_path / "daemon.pid"
    env = {
        "IPEX_DOCTOR_TEST_PIDFILE": str(pidfile),
        "IPEX_DOCTOR_TEST_DETACH_THEN": "return" if ending == "normal exit" else "hang",
    }
    process = start_doctor(
        "repro", "detaches", "--checks-dir", str(FAULT_CHECKS), "--python",
        real_env("torch28-only"), "--device", "cpu", "--json", str(tmp_path / "r.json"),
        "--timeout", "20" if ending == "timeout" else "300", extra_env=env,
    )  # fmt: skip
    expected = {"normal exit": 0, "timeout": 1, "Ctrl-C": 130}[ending]
    if ending == "normal exit":
        # NOTE: the doctor may be done before a poll sees the sleep: the pid file says the
        # check started it, and no sleep 377 of that pid may outlive the doctor.
        _out, stderr = process.communicate(timeout=300)
        assert process.returncode == expected and "Traceback" not in stderr, stderr
        assert pidfile.read_text().strip()
        deadline = time.monotonic() + 10
        while _sleep_377(pidfile) is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _sleep_377(pidfile) is None
        record(f"check leaves a detached grandchild ({ending})", "killed with the worker", expected)
        return
    _wait_for(lambda: _sleep_377(pidfile) is not None, process, "the check to start sleep 377")
    daemon = _sleep_377(pidfile)
    assert daemon is not None and daemon.pid != process.pid
    if ending == "Ctrl-C":
        process.send_signal(signal.SIGINT)
    _out, stderr = process.communicate(timeout=300)
    assert process.returncode == expected and "Traceback" not in stderr, stderr
    assert not _still_running([daemon], limit=10)
    record(f"check leaves a detached grandchild ({ending})", "killed with the worker", expected)


@pytest.mark.parametrize(
    ("fault", "args", "said"),
    [
        ("--python missing", ["--python", "/nonexistent/python"], "no such file"),
        ("--python a directory", ["--python", "/tmp"], "is a directory"),
        ("--json in a missing directory", ["--json", "/nonexistent/dir/r.json"], "does not exist"),
        ("--json to /dev/full", ["--json", "/dev/full"], "disk is full"),
    ],
)
def test_bad_invocations_are_one_line(
    tmp_path: Path, fault: str, args: list[str], said: str
) -> None:
    """Unusable interpreters and unwritable outputs: exit 2, one line, no traceback."""
    base = (
        ["env"] if "--python" in args else ["env", "--python", make_fake_env(tmp_path / "bare", {})]
    )
    done = run_doctor(*base, *args)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, (
        done.stderr
    )
    said_lines = [s for s in done.stderr.splitlines() if not s.startswith("ipex-doctor: [")]
    assert len(said_lines) <= 2, done.stderr  # the error and its tip (progress lines aside)
    record(fault, f"one-line error: {said}", 2)
