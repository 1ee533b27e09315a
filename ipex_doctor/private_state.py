"""The doctor's private per-user state: directories and files that only this user may write.

What the doctor keeps to act on later (``scan --fix``'s undo records, the digests of the
snapshots ``fix`` wrote) vouches for itself: anyone else who could write it could make the
doctor restore their bytes or trust their snapshot. So such a directory must be this user's and
closed to others, and so must each file read from it. This module owns that one test; each
caller words the refusal for what it keeps.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def not_private(status: os.stat_result, *, open_to: int) -> str | None:
    """Why a file or directory may hold what someone else put there: not this user's, or its
    mode grants any of the ``open_to`` permission bits (``0o077`` for a directory nobody else
    may enter, ``0o022`` for a file nobody else may write); ``None`` when neither."""
    if status.st_uid != os.geteuid():
        return "not yours"
    if status.st_mode & open_to:
        return f"open to other users (mode {stat.S_IMODE(status.st_mode):o})"
    return None


def directory_problem(directory: Path, *, create: bool) -> str | None:
    """Why ``directory`` is no private directory of this user's (``None`` when it is), made
    ``0700`` first when ``create`` and missing. ``OSError`` when it cannot be made or read."""
    if create:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    status = os.lstat(directory)
    if not stat.S_ISDIR(status.st_mode):
        return "not a directory"
    return not_private(status, open_to=0o077)
