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
    directory_fd: int | None = None,
    durable: bool = True,
) -> None:
    """``data`` as the whole of ``target`` (see the module docstring), the new file with
    ``mode`` (``None``: ``0600``, as ``mkstemp`` creates it) and, where given and this process
    may give it, ``owner`` (user and group ids: a file root replaces stays its owner's; a user
    who may not give it keeps the file as their own). ``OSError`` when it fails.
    ``data`` may come in pieces, written as they come (a report too large to hold whole);
    whatever their making raises leaves ``target`` as it was too. With ``directory_fd`` (the
    caller's open descriptor of ``target``'s directory, which it judged) the temporary file,
    the rename and the sync all happen in that directory, whatever its path leads to by then;
    ``target``'s name alone is used. ``durable=False`` leaves out the syncs (the file's and
    the directory's): the rename still makes it whole or nothing, but a crash may lose it, for
    a cache that is derived again (a tree with hundreds of ``.gitignore`` files would
    otherwise wait for the disk hundreds of times in its first scan)."""
    if directory_fd is None and DIRECTORY_DESCRIPTORS:
        directory_fd = open_directory(target.parent)
        try:
            _replace_in(directory_fd, target.name, data, mode, owner, durable)
        finally:
            os.close(directory_fd)
    elif directory_fd is not None:
        _replace_in(directory_fd, target.name, data, mode, owner, durable)
    else:
        _replace_by_name(target, data, mode, owner, durable)


DIRECTORY_DESCRIPTORS = (
    hasattr(os, "O_DIRECTORY")
    and os.open in os.supports_dir_fd
    and os.unlink in os.supports_dir_fd
    # NOTE: os.replace is not listed in supports_dir_fd, yet takes src_dir_fd and dst_dir_fd
    # wherever os.rename does (both are renameat)
    and os.rename in os.supports_dir_fd
)
"""Whether this platform opens, renames and removes files relative to an open directory
(Linux and the BSDs do; Windows does not, and there the directory is named each time)."""


def open_directory(directory: Path) -> int:
    """An open descriptor of ``directory`` to make, rename and remove files in. One the user
    may write but not read (a drop box, ``0333``) is opened as a path only (``O_PATH``): it
    serves every call here but the directory's sync, which is then left out, as on a file
    system that cannot sync one. ``OSError`` when it cannot be opened."""
    flags = os.O_DIRECTORY | os.O_CLOEXEC
    try:
        return os.open(directory, os.O_RDONLY | flags)
    except PermissionError:
        if not hasattr(os, "O_PATH"):
            raise
        return os.open(directory, os.O_PATH | flags)


def _replace_in(
    directory_fd: int,
    name: str,
    data: bytes | Iterable[bytes],
    mode: int | None,
    owner: tuple[int, int] | None,
    durable: bool,
) -> None:
    """``replace_file``'s steps within the open directory ``directory_fd``, each by ``dir_fd``
    (``mkstemp`` takes no directory descriptor: ``open_temporary`` makes the file as it
    would)."""
    fd, temp = open_temporary(name, directory_fd)
    try:
        _fill(fd, data, mode, owner, durable)
        os.replace(temp, name, src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=directory_fd)
        except OSError:
            pass
        raise
    if durable:
        try:
            os.fsync(directory_fd)
        except OSError:
            pass  # NOTE: a file system that cannot sync a directory, as in sync_directory


def temporary_beside(target: Path) -> tuple[int, Path]:
    """A new empty file (``O_EXCL``, ``0600``, open for writing) in ``target``'s directory,
    named after it, and its path: what ``tempfile.mkstemp`` makes, without its imports."""
    fd, temp = open_temporary(str(target), None)
    return fd, Path(temp)


def open_temporary(name: str, directory_fd: int | None) -> tuple[int, str]:
    """A new temporary file for ``name`` (a path, or a name in ``directory_fd``): its open
    descriptor and its name, made the way ``mkstemp`` makes one (a random name, ``O_EXCL``,
    never through a link, ``0600``), without ``tempfile``'s imports (shutil, random and the
    compressors: a few ms that a command writing one file need not pay)."""
    head, tail = os.path.split(name)
    for _ in range(100):
        # NOTE: os.urandom, as secrets.token_hex does (its imports cost more than this)
        temp = os.path.join(head, f".{tail}.{os.urandom(6).hex()}.tmp")
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
            return os.open(temp, flags, 0o600, dir_fd=directory_fd), temp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name for {name}")


def _replace_by_name(
    target: Path,
    data: bytes | Iterable[bytes],
    mode: int | None,
    owner: tuple[int, int] | None,
    durable: bool,
) -> None:
    """``replace_file`` where the platform has no directory descriptors: the temporary file
    beside ``target``, renamed over it by name."""
    fd, temp = temporary_beside(target)
    try:
        _fill(fd, data, mode, owner, durable)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    if durable:
        sync_directory(target.parent)


def _fill(
    fd: int,
    data: bytes | Iterable[bytes],
    mode: int | None,
    owner: tuple[int, int] | None,
    durable: bool,
) -> None:
    """Give the new temporary file ``fd`` its owner and mode, write ``data`` (and sync it,
    where ``durable``); ``fd`` is closed after."""
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
        if durable:
            os.fsync(handle.fileno())


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
