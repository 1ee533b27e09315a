"""The one subprocess wrapper: timeouts, signals, output tails and no stray processes."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ipex_doctor.probe import spawn


def test_normal_exit_and_output() -> None:
    """Exit status and both streams come back."""
    done = spawn.run(
        [
            sys.executable,
            "-c",
            "import sys; print('out'); print('err', file=sys.stderr); sys.exit(4)",
        ],
        timeout=30,
    )
    assert (done.returncode, done.stdout.strip(), done.stderr.strip()) == (4, "out", "err")
    assert done.describe_end() == "exit code 4"


def test_signal_is_named() -> None:
    """A child killed by a signal is reported by the signal's name."""
    done = spawn.run([sys.executable, "-c", "import os; os.abort()"], timeout=30)
    assert done.signal_name == "SIGABRT"
    assert done.describe_end() == "killed by SIGABRT"


def test_the_exit_wait_reaps_or_times_out() -> None:
    """The wait on a child's exit (a pidfd where the kernel has one) reaps a child that ended,
    with its status, and raises ``TimeoutExpired`` for one still running, which stays
    running and reapable."""
    ended = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    spawn._wait_exit(ended, timeout=60)
    assert ended.returncode == 3
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            spawn._wait_exit(running, timeout=0.2)
        assert running.poll() is None
    finally:
        running.kill()
        running.wait()
    assert running.returncode == -signal.SIGKILL


def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    """A hung child and the grandchild it started are both gone after a timeout."""
    pidfile = tmp_path / "grandchild.pid"
    # NOTE: a shell starts the grandchild and writes its pid within milliseconds, well inside
    # the 2 s timeout even on a busy 2-core machine (a Python child took seconds there)
    script = f"sleep 600 & echo $! > {shlex.quote(str(pidfile))}; wait"
    started = time.monotonic()
    done = spawn.run(["sh", "-c", script], timeout=2)
    assert done.timed_out and time.monotonic() - started < 30
    assert "timed out after" in done.describe_end()
    grandchild = int(pidfile.read_text())
    # NOTE: SIGKILL is sent to the group before run returns; how soon the killed process is
    # scheduled to end depends on the machine's load, so wait for it rather than a fixed time
    deadline = time.monotonic() + 30
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild)


def test_grandchildren_are_reaped_after_normal_exit(tmp_path: Path) -> None:
    """A child that exits leaving a daemon behind does not leave it running."""
    pidfile = tmp_path / "daemon.pid"
    code = (
        "import subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'],"
        " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
    )
    done = spawn.run([sys.executable, "-c", code], timeout=30)
    assert done.returncode == 0
    time.sleep(0.2)
    assert not _alive(int(pidfile.read_text()))


def test_a_started_child_never_collected_is_killed_with_its_group(tmp_path: Path) -> None:
    """A child started (``Running``) and left without being collected, as an error or an
    interrupt leaves it, is killed with the grandchild it started when the block is left."""
    pidfile = tmp_path / "grandchild.pid"
    script = f"sleep 600 & echo $! > {shlex.quote(str(pidfile))}; wait"
    with pytest.raises(RuntimeError), spawn.Running(["sh", "-c", script], timeout=600) as child:
        deadline = time.monotonic() + 300
        while not pidfile.exists() or not pidfile.read_text().strip():
            assert time.monotonic() < deadline, "the shell never started its grandchild"
            time.sleep(0.05)
        raise RuntimeError("the doctor's work failed while the child ran")
    done = child.end()
    assert done.returncode == -signal.SIGKILL and not done.timed_out
    deadline = time.monotonic() + 30
    while _alive(int(pidfile.read_text())) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(int(pidfile.read_text()))


def test_probes_started_together_run_at_once(tmp_path: Path) -> None:
    """Two ``JsonScript`` probes started one after the other, neither collected yet, both run:
    each waits for the other's mark before it answers, so run one after the other the first
    would time out instead."""
    script = tmp_path / "rendezvous.py"
    script.write_text(
        "import json, os, sys, time\n"
        "mine, theirs = sys.argv[0] + '.' + os.environ['ME'], os.environ['THEM']\n"
        "open(mine, 'w').close()\n"
        "while not os.path.exists(sys.argv[0] + '.' + theirs):\n"
        "    time.sleep(0.01)\n"
        "print(json.dumps({'me': os.environ['ME']}))\n"
    )
    probes = [
        spawn.JsonScript(
            sys.executable,
            str(script),
            timeout=120,
            what=f"probe {me}",
            env={**os.environ, "ME": me, "THEM": them},
        )
        for me, them in (("a", "b"), ("b", "a"))
    ]
    assert [probe.answer() for probe in probes] == [({"me": "a"}, ""), ({"me": "b"}, "")]


def test_output_is_capped_to_its_tail() -> None:
    """Megabytes of output keep only the tail, and say how much was dropped."""
    code = "import sys\nfor i in range(200000): sys.stdout.write('line %d\\n' % i)\n"
    done = spawn.run([sys.executable, "-c", code], timeout=60, output_limit=4096)
    assert done.stdout.startswith("[... ") and "line 199999" in done.stdout
    assert len(done.stdout) < 4096 + 100


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # NOTE: a zombie still "exists" for kill(0); it is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except OSError:
        return False
