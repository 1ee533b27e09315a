"""No process left behind: the doctor reaps everything its children started, detached or not.

Killing a child's process group misses a grandchild that made a session of its own (``setsid``,
a daemonising driver helper). So every child the doctor starts carries a tag in its
environment, which its descendants inherit; the doctor makes itself the *child subreaper*
(Linux ``prctl(PR_SET_CHILD_SUBREAPER)``), so an orphaned descendant is re-parented to the
doctor instead of to init; and whenever a child is closed (normal exit, timeout, interrupt) and
when the doctor exits, every tagged process that no live child of the doctor accounts for is
killed and reaped. Where the prctl is not available, the orphans are found by scanning the
process table for the tag instead.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import os
import secrets
import sys
from collections.abc import Callable, Iterable, Mapping

import psutil

TAG_VARIABLE = "IPEX_DOCTOR_REAPER_TAG"
"""The environment variable that marks the doctor's children and their descendants."""
_PR_SET_CHILD_SUBREAPER = 36
_state: dict[str, object] = {"tag": "", "subreaper": None}
_live: set[int] = set()
"""Pids of the children the doctor started and has not closed yet: their descendants are
theirs to keep until they are closed."""


def tag() -> str:
    """This doctor process's tag (new in a process that forked from another doctor)."""
    current = str(_state["tag"])
    if not current.startswith(f"{os.getpid()}-"):
        current = f"{os.getpid()}-{secrets.token_hex(4)}"
        _state["tag"] = current
    return current


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); whether it is."""
    if _state["subreaper"] is None:
        _state["subreaper"] = _prctl_subreaper()
    return bool(_state["subreaper"])


def _prctl_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def tagged_environment(env: Mapping[str, str] | None) -> dict[str, str]:
    """``env`` (``None``: this process's) with the tag added, for a child about to start
    (the doctor becomes the subreaper first, so the child's orphans come back to it)."""
    become_subreaper()
    base = os.environ if env is None else env
    return {**base, TAG_VARIABLE: tag()}


def started(pid: int) -> None:
    """A child was started: its descendants are its own until ``closing(pid)``."""
    _live.add(pid)


def closing(pid: int) -> list[psutil.Process]:
    """The descendants of a child about to be killed (to kill with it, whatever session they
    made); the child no longer protects them."""
    _live.discard(pid)
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def kill(processes: Iterable[psutil.Process]) -> None:
    """SIGKILL ``processes`` and reap those that are this process's children."""
    victims = list(processes)
    for process in victims:
        with contextlib.suppress(psutil.Error):
            process.kill()
    with contextlib.suppress(psutil.Error, ChildProcessError):
        psutil.wait_procs(victims, timeout=5)


def orphans() -> list[psutil.Process]:
    """Tagged processes of this doctor that no live child accounts for."""
    mine = tag()
    protected = {os.getpid(), *_live}
    for pid in list(_live):
        with contextlib.suppress(psutil.Error):
            protected.update(p.pid for p in psutil.Process(pid).children(recursive=True))
    candidates: list[psutil.Process] = []
    if become_subreaper():
        # NOTE: as subreaper, every orphan of a descendant is re-parented to this process
        with contextlib.suppress(psutil.Error):
            candidates = psutil.Process().children(recursive=True)
    else:
        candidates = list(psutil.process_iter())
    found = []
    for process in candidates:
        if process.pid in protected:
            continue
        with contextlib.suppress(psutil.Error):
            if process.environ().get(TAG_VARIABLE) == mine:
                found.append(process)
    return found


def reap_orphans() -> int:
    """Kill and reap every orphan of this doctor's children; how many there were."""
    found = orphans()
    kill(found)
    return len(found)


def reap_tree(pid: int, kill_group: Callable[[], None]) -> None:
    """End a child for good: its descendants (whatever session they made), its process group
    (``kill_group``), and any orphan a child of the doctor left behind."""
    descendants = closing(pid)
    kill_group()
    kill(descendants)
    reap_orphans()


# NOTE: a last sweep when the doctor exits, whatever way it exits short of SIGKILL
atexit.register(reap_orphans)
