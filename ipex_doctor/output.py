"""Writing reports: atomically to files, or to stdout for ``-``.

A report file is written to a temporary file in the same directory, flushed, fsynced and then
renamed over the target, so an interrupted or failed write never leaves a truncated report and
never destroys the previous one.
"""

from __future__ import annotations

import errno
import os
import sys
import tempfile
from pathlib import Path

from ipex_doctor.errors import OutputError

STDOUT = "-"


def write_text(destination: str, text: str) -> None:
    """Write ``text`` to ``destination`` (``-`` is stdout); raise ``OutputError`` on failure."""
    if destination == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(destination)
    if target.is_dir():
        raise OutputError(f"cannot write report to {destination}: it is a directory")
    if target.exists() and not target.is_file():
        # NOTE: a device or FIFO (/dev/stdout, /dev/full, a pipe) is written in place:
        # renaming a temporary file over it would replace the device node itself.
        _write_in_place(destination, target, text)
        return
    # NOTE: write through a symlink to its target, keeping the link the user made.
    target = target.resolve() if target.is_symlink() else target
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise OutputError(
            f"cannot write report to {destination}: directory {directory} does not exist",
            tip="create it first, or choose another path",
        )
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputError(f"cannot write report to {destination}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except OSError as exc:
        Path(temp).unlink(missing_ok=True)
        reason = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror
        raise OutputError(f"cannot write report to {destination}: {reason}") from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _write_in_place(destination: str, target: Path, text: str) -> None:
    try:
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
    except OSError as exc:
        reason = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror
        raise OutputError(f"cannot write report to {destination}: {reason}") from None
