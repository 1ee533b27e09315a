"""The doctor's private per-user state: directories and files that only this user may write.

What the doctor keeps to act on later (``scan --fix``'s undo records, the digests of the
snapshots ``fix`` wrote) vouches for itself: anyone else who could write it could make the
doctor restore their bytes or trust their snapshot. So such a directory must be this user's and
closed to others, and so must each file read from it. This module owns that one test; each
caller words the refusal for what it keeps.

The caches (``$XDG_CACHE_HOME/ipex-doctor``) hold work the doctor takes back without doing it
again, so a cache file is such a file too: ``read_own_file`` gives its bytes only when it is a
regular file of this user's that nobody else may write, within a size, and otherwise nothing
(the work is done again). A cache restored from elsewhere, or a directory shared with others,
cannot make a run wait (a FIFO), read without end (a link to ``/dev/zero``) or take another's
outcomes as its own.
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


def read_own_file(path: Path, limit: int, *, open_to: int = 0o022) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of this user's that nobody else may
    write (nor read, with ``open_to=0o077``: a secret), of at most ``limit`` bytes; ``None``
    otherwise, or when it cannot be read. A link is not followed, a FIFO is never waited on,
    and no more than ``limit`` bytes and one are read whatever the file says its size is."""
    try:
        # NOTE: O_NONBLOCK for the open alone (a FIFO's open waits for a writer); the read
        # below is of a regular file, which never waits.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or status.st_size > limit:
            return None
        if not_private(status, open_to=open_to) is not None:
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= limit and (chunk := os.read(fd, min(1 << 20, limit + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
        return None if size > limit else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
