"""The reaper inside a long-lived host process: the subreaper role lasts only while the doctor
has children, what the doctor's children orphan is reaped, and nothing of the host's is.

These run the doctor in the test's own interpreter (``main()``, ``spawn.run``), the way a test
session or a notebook does, and make real orphans: a grandchild whose parent exits first.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from audited import started_by
from conftest import FAKE_TORCH_OK, make_fake_env

from ipex_doctor.cli import main
from ipex_doctor.probe import reaper, spawn

# NOTE: the parent starts the grandchild, writes its pid and exits at once; the grandchild
# exits after it, so it is an orphan when it ends.
_ORPHAN_MAKER = (
    "import subprocess, sys\n"
    "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep({sleep})'])\n"
    "open({pidfile!r}, 'w').write(str(g.pid))\n"
)


def _orphan_maker(pidfile: Path, sleep: float) -> str:
    return _ORPHAN_MAKER.format(sleep=sleep, pidfile=str(pidfile))


def _wait_until_ended(pid: int, limit: float = 30) -> None:
    """Until ``pid`` is gone or a zombie (whoever's child it is now)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return
        except psutil.NoSuchProcess:
            return
        time.sleep(0.05)
    pytest.fail(f"process {pid} still runs after {limit:.0f} s")


def _my_zombies() -> list[int]:
    zombies = []
    for child in psutil.Process().children():
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                zombies.append(child.pid)
        except psutil.NoSuchProcess:
            pass
    return zombies


def test_an_in_process_run_gives_the_subreaper_role_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After ``main()`` ran the doctor in this process, an orphan of another descendant of
    this process is not adopted by it, so it leaves no zombie here."""
    assert reaper.is_subreaper() is False, "the host is a subreaper before the doctor ran"
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", FAKE_TORCH_OK)})
    with pytest.raises(SystemExit):
        main(["env", "--python", python, "--json", str(tmp_path / "report.json"), "-q"])
    capsys.readouterr()
    assert (tmp_path / "report.json").exists()
    assert reaper.is_subreaper() is False
    pidfile = tmp_path / "grandchild.pid"
    subprocess.run([sys.executable, "-c", _orphan_maker(pidfile, 0.5)], check=True)
    grandchild = int(pidfile.read_text())
    _wait_until_ended(grandchild)
    assert grandchild not in _my_zombies()


def test_an_orphan_of_a_child_that_exits_before_the_sweep_is_reaped(tmp_path: Path) -> None:
    """A doctor child's grandchild orphaned while the child runs, and ended before the child
    is closed (a zombie, whose tag cannot be read), is waited for all the same."""
    pidfile = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time\n"
        f"subprocess.run([sys.executable, '-c', {_orphan_maker(pidfile, 0.2)!r}], check=True)\n"
        "time.sleep(2)\n"
    )
    done = spawn.run([sys.executable, "-c", code], timeout=60)
    assert done.returncode == 0, done.stderr
    grandchild = int(pidfile.read_text())
    _wait_until_ended(grandchild)
    assert grandchild not in _my_zombies()
    assert reaper.is_subreaper() is False


def test_the_hosts_own_children_keep_their_exit_status(tmp_path: Path) -> None:
    """Children the host started (in its session or in one of their own) and has not waited
    for yet are left to it, ended or not, whatever the doctor ran meanwhile."""
    exits = [
        subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(7)"]),
        subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(9)"], start_new_session=True),
    ]
    for process in exits:
        _wait_until_ended(process.pid)
    later = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; time.sleep(1); sys.exit(5)"],
        start_new_session=True,
    )
    pidfile = tmp_path / "grandchild.pid"
    done = spawn.run([sys.executable, "-c", _orphan_maker(pidfile, 0.2)], timeout=60)
    assert done.returncode == 0, done.stderr
    assert [p.wait(timeout=30) for p in (*exits, later)] == [7, 9, 5]


def test_a_host_that_was_a_subreaper_stays_one(tmp_path: Path) -> None:
    """The role is given back only when the doctor took it."""
    code = (
        "import ctypes, sys\n"
        "from ipex_doctor.probe import reaper, spawn\n"
        "ctypes.CDLL('libc.so.6').prctl(36, 1, 0, 0, 0)\n"
        "done = spawn.run([sys.executable, '-c', 'pass'], timeout=60)\n"
        "print(done.returncode, reaper.is_subreaper())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.split() == ["0", "True"], out.stderr


def test_a_child_that_cannot_start_leaves_no_subreaper_role() -> None:
    """Starting a program that does not exist opens and closes the window: the host is not
    left a subreaper (it would adopt, and keep as zombies, every later orphan)."""
    before = reaper.is_subreaper()
    with pytest.raises(OSError):
        spawn.run(["/nonexistent/program"], timeout=5)
    assert reaper.is_subreaper() is before


_OWNER_LOST = (
    "import sys\n"
    "from ipex_doctor.probe import spawn\n"
    "child = spawn.Running([sys.executable, '-c', 'import time; time.sleep(600)'], timeout=600)\n"
    "print(child.process.pid, flush=True)\n"
    "del child  # NOTE: as an interrupt between its start and its owner's hands leaves it\n"
)


def test_a_child_whose_owner_was_lost_does_not_outlive_the_doctor() -> None:
    """A started child nothing will collect (an interrupt landed before its owner held it) is
    ended when the doctor's process exits: before, the exit sweep protected it as live and it
    ran on, adopted by init (a scan's probe, seen once in eight SIGINT runs under load)."""
    done = subprocess.run(
        [sys.executable, "-c", _OWNER_LOST], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout)
    _wait_until_ended(pid)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_opening_and_closing_the_window_starts_no_process(tmp_path: Path) -> None:
    """Two children run one after the other, each opening and closing the subreaper window:
    the doctor's process starts those two and nothing else (the C library was looked up with
    ``find_library``, which ran ``ldconfig -p`` at each start and end: six more processes),
    and the role is given back after them."""
    code = (
        "import sys\n"
        "from ipex_doctor.probe import reaper, spawn\n"
        "for _ in range(2):\n"
        "    assert spawn.run([sys.executable, '-c', 'pass'], timeout=60).returncode == 0\n"
        "assert reaper.is_subreaper() is False\n"
    )
    script = tmp_path / "two_children.py"
    script.write_text(code)
    done, started = started_by(tmp_path / "started.json", str(script), module=False)
    assert done.returncode == 0, done.stderr
    assert started == [[sys.executable, "-c", "pass"]] * 2
