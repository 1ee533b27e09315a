"""No process left behind: the doctor reaps everything its children started, detached or not.

Killing a child's process group misses a grandchild that made a session of its own (``setsid``,
a daemonising driver helper). So every child the doctor starts carries a tag in its
environment, which its descendants inherit; while a child of the doctor runs, the doctor is the
*child subreaper* (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``), so an orphaned descendant is
re-parented to the doctor instead of to init; and whenever a child is closed (normal exit,
timeout, interrupt) and when the doctor exits, every tagged process that no live child of the
doctor accounts for is killed and reaped, and so is every adopted orphan that already exited
in the session of one of the doctor's children (a zombie's environment cannot be read, but
its session can). Where the prctl is not available, the orphans are found by scanning the
process table for the tag instead.

The subreaper role lasts only while the doctor has children (a *window*): it is taken when the
first child is about to start and given back once the last one is closed and its orphans are
reaped. The doctor may run inside a long-lived host process (a test session, a notebook
calling ``main()``); a host that stayed subreaper would adopt every orphan of its other
descendants for the rest of its life and, never waiting for them, keep each as a zombie. The
host's own children are never waited for here (their exit statuses belong to the host): none
of them is in the session of one of the doctor's children, each of which leads its own. A host
that was a subreaper already keeps that role (and its orphans) as it was.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ipex_doctor.probe import proc_table

if TYPE_CHECKING:
    import psutil

TAG_VARIABLE = "IPEX_DOCTOR_REAPER_TAG"
"""The environment variable that marks the doctor's children and their descendants."""
_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_state: dict[str, object] = {"tag": ""}
_live: set[int] = set()
"""Pids of the children the doctor started and has not closed yet: their descendants are
theirs to keep until they are closed."""
_lock = threading.RLock()


@dataclass
class _Window:
    """The time the doctor has children, in one process (fork starts none)."""

    pid: int
    subreaper: bool
    """This process is a subreaper during the window (set here, or by the host before)."""
    set_here: bool
    """The doctor set the subreaper role, so it gives it back when the window closes."""
    started: set[int] = field(default_factory=set)
    """The doctor's children started in the window: each leads its own session, and their
    exit statuses are for ``spawn`` to collect."""


_window: dict[str, _Window] = {}


def tag() -> str:
    """This doctor process's tag (new in a process that forked from another doctor)."""
    current = str(_state["tag"])
    if not current.startswith(f"{os.getpid()}-"):
        # NOTE: os.urandom, as secrets.token_hex does: the secrets module's imports (base64,
        # hmac) cost a scan a few ms of CPU for this one call
        current = f"{os.getpid()}-{os.urandom(4).hex()}"
        _state["tag"] = current
    return current


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library this process runs on (Linux), opened once; ``None`` elsewhere or when it
    cannot be opened."""
    if not sys.platform.startswith("linux"):
        return None
    # NOTE: the symbols already loaded in this process first (dlopen(NULL): Python links the C
    # library). ctypes.util.find_library("c") runs `ldconfig -p` on each call, and every start
    # and end of a child asked it two or three times: six processes per scan, on its critical
    # path. It stays the fallback where the global symbols lack prctl (a static interpreter).
    with contextlib.suppress(OSError):
        loaded = ctypes.CDLL(None, use_errno=True)
        if hasattr(loaded, "prctl"):
            return loaded
    # NOTE: lazy; on POSIX ctypes.util imports tempfile and shutil, a few ms of every command
    from ctypes.util import find_library

    try:
        return ctypes.CDLL(find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None


def is_subreaper() -> bool | None:
    """Whether this process is a child subreaper now (``None``: the prctl is not available)."""
    libc = _libc()
    if libc is None:
        return None
    flag = ctypes.c_int(0)
    try:
        if int(libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)) != 0:
            return None
    except AttributeError:
        return None
    return bool(flag.value)


def _set_subreaper(on: bool) -> bool:
    libc = _libc()
    if libc is None:
        return False
    try:
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)) == 0
    except AttributeError:
        return False


def _current_window() -> _Window | None:
    window = _window.get("open")
    # NOTE: a forked child is no subreaper (the kernel clears it) and has none of the children
    return window if window is not None and window.pid == os.getpid() else None


def become_subreaper() -> bool:
    """Open the window: make this process the reaper of its orphaned descendants (Linux) until
    ``release``; whether it is one. Opening an open window changes nothing."""
    with _lock:
        window = _current_window()
        if window is None:
            already = is_subreaper()
            set_here = not already and already is not None and _set_subreaper(True)
            window = _Window(os.getpid(), bool(already) or set_here, set_here)
            _window["open"] = window
        return window.subreaper


def release() -> None:
    """Close the window once no child of the doctor is live: reap what its children left,
    then give the subreaper role back if the doctor took it, so the host process does not
    adopt (and keep as zombies) the orphans of its other descendants from then on."""
    with _lock:
        window = _current_window()
        if window is None or _live:
            return
        reap_orphans()
        if window.set_here:
            _set_subreaper(False)
        del _window["open"]


def tagged_environment(env: Mapping[str, str] | None) -> dict[str, str]:
    """``env`` (``None``: this process's) with the tag added, for a child about to start
    (the doctor becomes the subreaper first, so the child's orphans come back to it)."""
    become_subreaper()
    base = os.environ if env is None else env
    return {**base, TAG_VARIABLE: tag()}


def started(pid: int) -> None:
    """A child was started: its descendants are its own until ``closing(pid)``."""
    with _lock:
        _live.add(pid)
        window = _current_window()
        if window is not None:
            window.started.add(pid)


def _psutil() -> Any:
    """psutil, imported only once a process is to be looked at closer than ``/proc``'s lists
    (its import cost every scan about 20 ms of CPU, and nearly every sweep finds nothing)."""
    import psutil

    return psutil


def _descendants(pid: int) -> list[int]:
    """The pids of ``pid``'s descendants (none when it is gone): ``/proc``'s lists, else
    psutil's."""
    listed = proc_table.children(pid, recursive=True)
    if listed is not None:
        return listed
    psutil = _psutil()
    try:
        return [process.pid for process in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _processes(pids: Iterable[int]) -> list[psutil.Process]:
    """psutil's handles of ``pids``, less those gone already (psutil is imported only for a
    pid)."""
    pids = list(pids)
    if not pids:
        return []
    psutil = _psutil()
    found = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            found.append(psutil.Process(pid))
    return found


def closing(pid: int) -> list[psutil.Process]:
    """The descendants of a child about to be killed (to kill with it, whatever session they
    made); the child no longer protects them."""
    with _lock:
        _live.discard(pid)
    return _processes(_descendants(pid))


def kill(processes: Iterable[psutil.Process]) -> None:
    """SIGKILL ``processes`` and reap those that are this process's children."""
    victims = list(processes)
    if not victims:
        return
    psutil = _psutil()
    for process in victims:
        with contextlib.suppress(psutil.Error):
            process.kill()
    with contextlib.suppress(psutil.Error, ChildProcessError):
        psutil.wait_procs(victims, timeout=5)


def orphans() -> list[psutil.Process]:
    """Tagged processes of this doctor that no live child accounts for, and, as subreaper,
    the adopted ones in the session of one of its children (a descendant that cleared its
    environment)."""
    mine = tag()
    protected = {os.getpid(), *_live}
    for pid in list(_live):
        protected.update(_descendants(pid))
    window = _current_window()
    sessions = window.started if window is not None and window.subreaper else set()
    if window is not None and window.subreaper:
        # NOTE: as subreaper, every orphan of a descendant is re-parented to this process
        candidates = _processes(
            pid for pid in _descendants(os.getpid()) if pid not in protected | sessions
        )
    else:
        candidates = list(_psutil().process_iter())
    if not candidates:
        return []  # NOTE: the usual answer, found without importing psutil
    psutil = _psutil()
    found = []
    for process in candidates:
        if process.pid in protected or process.pid in sessions:
            continue
        with contextlib.suppress(psutil.Error, OSError):
            if process.environ().get(TAG_VARIABLE) == mine or os.getsid(process.pid) in sessions:
                found.append(process)
    return found


def _reap_adopted_zombies(window: _Window) -> int:
    """Wait for the orphans adopted in the window that already exited in the session of one
    of the doctor's children (they were its descendants); how many.

    Only those: the doctor's children themselves are ``spawn``'s to wait for, and every other
    child of this process may be one the host still waits for (its exit status is the host's).
    """
    listed = proc_table.children(os.getpid())
    if listed is None:
        psutil = _psutil()
        try:
            listed = [child.pid for child in psutil.Process().children()]
        except psutil.Error:
            return 0
    reaped = 0
    for pid in listed:
        if pid in window.started or not _is_zombie(pid):
            continue
        try:
            if os.getsid(pid) not in window.started:
                continue
            reaped += os.waitpid(pid, os.WNOHANG)[0] == pid
        except OSError:
            continue
    return reaped


def _is_zombie(pid: int) -> bool:
    """Whether ``pid`` exited and waits to be reaped: ``/proc``'s state, else psutil's."""
    state = proc_table.is_zombie(pid)
    if state is not None:
        return state
    psutil = _psutil()
    try:
        return bool(psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def reap_orphans() -> int:
    """Kill and reap every orphan of this doctor's children, and wait for those that already
    exited; how many there were."""
    with _lock:
        window = _current_window()
        if window is None:
            # NOTE: no child started, or the window closed after its last sweep: none left
            return 0
        found = orphans()
        kill(found)
        return len(found) + _reap_adopted_zombies(window)


def reap_tree(pid: int, kill_group: Callable[[], None]) -> None:
    """End a child for good: its descendants (whatever session they made), its process group
    (``kill_group``), and any orphan a child of the doctor left behind; the last child closed
    closes the window (``release``)."""
    descendants = closing(pid)
    kill_group()
    kill(descendants)
    with _lock:
        # NOTE: the last child's close sweeps once, in release (each sweep reads the process
        # table, a few ms); while others live, release does not sweep, so it is done here.
        if _live:
            reap_orphans()
        release()


def _kill_lost(pid: int) -> None:
    for signal_to in (os.killpg, os.kill):  # NOTE: a session leader, or a child that is not
        with contextlib.suppress(ProcessLookupError, PermissionError):
            signal_to(pid, signal.SIGKILL)


def end_all() -> None:
    """End every child the doctor still counts live, with its descendants, then sweep the
    orphans: the doctor's last act when it exits, whatever way it exits short of SIGKILL."""
    # NOTE: at exit, a child still live has lost its owner: an interrupt landed between its
    # start and its owner's hands (a few bytecodes: a scan's probes, SIGINT under load), and
    # nothing would ever collect it. Without this the sweep protected it as live.
    with _lock:
        lost = list(_live)
    for pid in lost:
        reap_tree(pid, functools.partial(_kill_lost, pid))
    reap_orphans()


atexit.register(end_all)
