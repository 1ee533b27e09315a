"""Who descends from whom, and the memory, as Linux's ``/proc`` says, read without psutil.

The reaper asks at every child's close which processes descend from it and from the doctor,
and nearly always the answer is none; the host's facts need two lines of ``/proc/meminfo``.
psutil answers both, but its import (with ``socket`` and its named tuples) costs a scan about
20 ms of CPU before the first question. These readers answer where ``/proc`` can, and say
``None`` where it cannot (another system, a kernel without ``/proc/PID/task/TID/children``),
so the caller asks psutil then, as before.
"""

from __future__ import annotations

import os
from pathlib import Path

_PROC = Path("/proc")


def _lists_children() -> bool:
    """Whether this kernel lists a task's children (``CONFIG_PROC_CHILDREN``, Linux 3.5+)."""
    return (_PROC / "self" / "task" / str(os.getpid()) / "children").is_file()


def _direct(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (a child is listed under the thread that
    started it); none when ``pid`` is gone."""
    found: list[int] = []
    try:
        tasks = os.listdir(_PROC / str(pid) / "task")
    except OSError:
        return found
    for task in tasks:
        try:
            text = (_PROC / str(pid) / "task" / task / "children").read_text(encoding="ascii")
        except OSError:
            continue  # NOTE: a thread that ended meanwhile: its children went to another
        found.extend(int(word) for word in text.split())
    return found


def children(pid: int, *, recursive: bool = False) -> list[int] | None:
    """The pids of ``pid``'s children (with ``recursive``, every descendant), in the order
    found; ``[]`` when ``pid`` is gone; ``None`` where ``/proc`` does not list children.

    A snapshot, as psutil's is: a process that starts or ends while it is read may be missed.
    """
    if not _lists_children():
        return None
    found: list[int] = []
    seen = {pid}
    queue = [pid]
    while queue:
        for child in _direct(queue.pop(0)):
            if child not in seen:
                seen.add(child)
                found.append(child)
                if recursive:
                    queue.append(child)
    return found


def is_zombie(pid: int) -> bool | None:
    """Whether ``pid`` has exited and waits to be reaped (``None``: gone, or unreadable)."""
    try:
        text = (_PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # NOTE: the state follows the command's name in parentheses, which may hold ") "
    _, _, rest = text.rpartition(") ")
    return rest[:1] == "Z" if rest else None


def memory_bytes() -> tuple[int, int] | None:
    """The machine's total and available memory in bytes (``MemTotal`` and ``MemAvailable`` of
    ``/proc/meminfo``, as psutil reads them there); ``None`` where either is missing or the
    available is 0 or above the total (psutil estimates it then: ask it)."""
    try:
        text = (_PROC / "meminfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields: dict[str, int] = {}
    for line in text.splitlines():
        name, _, value = line.partition(":")
        words = value.split()
        if name in ("MemTotal", "MemAvailable") and words and words[0].isdigit():
            fields[name] = int(words[0]) * 1024
    if len(fields) != 2 or not 0 < fields["MemAvailable"] <= fields["MemTotal"]:
        return None
    return fields["MemTotal"], fields["MemAvailable"]
