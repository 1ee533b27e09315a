"""Writing a file whole or not at all.

The new content goes to a temporary file beside the target, is flushed and fsynced, and is
renamed over the target; then the directory is fsynced, so the rename survives a crash. A
reader sees the old file or the new one, never part of either, and a write that fails or is
interrupted leaves the old file as it was and no temporary file behind. (Not for the user's own
source files: ``scan --fix`` writes those in place, to keep the file itself; see
``scan.confined``.)
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def replace_file(
    target: Path,
    data: bytes | Iterable[bytes],
    *,
    mode: int | None = None,
    owner: tuple[int, int] | None = None,
) -> None:
    """``data`` as the whole of ``target`` (see the module docstring), the new file with
    ``mode`` (``None``: ``0600``, as ``mkstemp`` creates it) and, where given and this process
    may give it, ``owner`` (user and group ids: a file root replaces stays its owner's; a user
    who may not give it keeps the file as their own). ``OSError`` when it fails.
    ``data`` may come in pieces, written as they come (a report too large to hold whole);
    whatever their making raises leaves ``target`` as it was too."""
    # NOTE: lazy; tempfile (with shutil, random and the compressors it loads) costs a few ms
    # of CPU, and most commands (a scan to a pipe) write no file
    import tempfile

    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        if owner is not None and owner != (os.geteuid(), os.getegid()):
            try:
                os.fchown(fd, *owner)
            except PermissionError:
                pass  # NOTE: only root gives a file away; the writer keeps it, as cp would
        if mode is not None:
            # NOTE: after the owner: chown clears the set-id bits a mode may carry
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            for piece in [data] if isinstance(data, bytes) else data:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    sync_directory(target.parent)


def sync_directory(directory: Path) -> None:
    """Make a rename or removal in ``directory`` durable; a file system that cannot sync a
    directory is left as it is."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
