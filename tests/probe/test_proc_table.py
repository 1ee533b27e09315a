"""``/proc``'s process table and memory, as the reaper and the host's facts read them without
psutil: the same children psutil finds (a grandchild in a session of its own, a child started
by another thread), a zombie told from a live process, psutil's total memory."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import psutil
import pytest

from ipex_doctor.probe import proc_table

pytestmark = pytest.mark.skipif(
    proc_table.children(os.getpid()) is None, reason="this kernel's /proc lists no children"
)

# NOTE: a child that starts a grandchild in a new session (as a daemonising helper does),
# prints its pid and waits on its stdin
_TREE = (
    "import subprocess, sys\n"
    "g = subprocess.Popen([sys.executable, '-c', 'import sys; sys.stdin.read()'],"
    " stdin=subprocess.PIPE, start_new_session=True)\n"
    "print(g.pid, flush=True)\n"
    "sys.stdin.read()\n"
    "g.stdin.close()\n"
    "g.wait()\n"
)


@pytest.fixture
def tree() -> Iterator[tuple[int, int]]:
    """A child and its grandchild (pids), running until the test ends."""
    child = subprocess.Popen(
        [sys.executable, "-c", _TREE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdin is not None
    grandchild = int(child.stdout.readline())
    try:
        yield child.pid, grandchild
    finally:
        child.stdin.close()
        child.wait(timeout=30)


def test_a_child_s_descendants_are_psutil_s(tree: tuple[int, int]) -> None:
    child, grandchild = tree
    assert proc_table.children(child) == [grandchild]
    assert proc_table.children(child, recursive=True) == [grandchild]
    assert child in (proc_table.children(os.getpid()) or [])
    mine = {p.pid for p in psutil.Process().children(recursive=True)}
    assert set(proc_table.children(os.getpid(), recursive=True) or []) == mine
    assert {child, grandchild} <= mine


def test_a_child_started_by_another_thread_is_listed() -> None:
    """``/proc`` lists a child under the thread that started it (while that thread lives),
    not under the process's first."""
    started: list[subprocess.Popen[bytes]] = []
    ready, checked = threading.Event(), threading.Event()

    def start() -> None:
        started.append(
            subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
        )  # fmt: skip
        ready.set()
        checked.wait(timeout=60)

    thread = threading.Thread(target=start)
    thread.start()
    try:
        assert ready.wait(timeout=60)
        assert started[0].pid in (proc_table.children(os.getpid()) or [])
    finally:
        checked.set()
        thread.join()
        for child in started:
            assert child.stdin is not None
            child.stdin.close()
            child.wait(timeout=30)


def test_a_gone_process_has_no_children_and_no_state() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    assert proc_table.children(child.pid) == []
    assert proc_table.is_zombie(child.pid) is None


def test_a_zombie_is_told_from_a_live_process() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)  # fmt: skip
    assert child.stdin is not None
    assert proc_table.is_zombie(child.pid) is False
    child.stdin.close()
    deadline = time.monotonic() + 30
    while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the child never exited"
        time.sleep(0.02)
    assert proc_table.is_zombie(child.pid) is True
    child.wait(timeout=30)


def test_the_memory_is_psutil_s() -> None:
    read = proc_table.memory_bytes()
    assert read is not None
    total, available = read
    assert total == psutil.virtual_memory().total
    assert 0 < available <= total
