"""Files inside a root, reached one directory at a time without following a link, and
rewritten in place.

``scan --fix`` (and its undo) reads and writes only regular files inside the roots it was
given. A file is a ``Place``: a root directory (absolute and resolved: the user named it) and
the components below it. It is opened by walking from the root one component at a time, each
directory with ``O_NOFOLLOW | O_DIRECTORY`` relative to the one before (``dir_fd``), the file
itself with ``O_NOFOLLOW``: a symbolic link put in the way at any moment, even between a check
and the write, makes the open fail instead of leading out of the tree.

A rewrite writes the new bytes into the same inode (``pwrite``, ``ftruncate``, ``fsync``)
after checking, on the open descriptor, that it is still a regular file with the identity and
the bytes expected (``accept``). Nothing is replaced, so the file keeps its owner, group,
mode, extended attributes and ACLs, and stays the same file for every process holding it
open (a writer that appends later appends to the new text); for the same reason it is the same
text under every name of the file, so ``scan --fix`` leaves a file with hard links alone
(``read(one_name=True)``). Opening for writing is the kernel's permission check: a file
the user may not write (read-only to them, another user's) fails with EACCES, where a rename
into a writable directory would have replaced it; and a file whose mode grants write to nobody
is refused even to root. The cost:
a crash in the middle of the write leaves the file part new, part old, which is why
``scan --fix`` records every file before its first write (``fix_journal``) and its undo
recognises such a half-written file.

Why by hand: Python has no ``openat2`` (``RESOLVE_BENEATH``) and no library for this walk;
it is a few ``os.open`` calls with ``dir_fd``.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ipex_doctor.scan.fix.quoting import quote_name
from ipex_doctor.scan.read.discovery import LINK_OUT, inside

READ_ONLY = "a read-only file (its mode lets nobody write it)"
NOT_REGULAR = "not a regular file"
UNSUPPORTED = "this system cannot open a file below its root without following links"
# NOTE: getattr: the flags are POSIX; elsewhere (Windows) the module still imports, and every
# open is refused with UNSUPPORTED.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS = _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _OPEN_FLAGS
_SUPPORTED = (
    bool(_NOFOLLOW)
    and hasattr(os, "O_DIRECTORY")
    and os.open in os.supports_dir_fd
    and os.stat in os.supports_dir_fd
)


class PlaceError(Exception):
    """A file that cannot be read or written where it is; ``reason`` says why, in words that
    follow the file's name (one line; the caller says what becomes of the file)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Place:
    """A file inside a root: the root directory (absolute, resolved) and the names below it."""

    root: str
    parts: tuple[str, ...]

    @property
    def path(self) -> str:
        """The file's absolute path."""
        return os.path.join(self.root, *self.parts)

    @property
    def relative(self) -> str:
        """The file's path below the root, POSIX form."""
        return "/".join(self.parts)


def place_of(root: Path, display: str) -> Place:
    """The place of the file a scan of ``root`` found as ``display``: resolved, so a link
    inside the tree leads to its target (``PlaceError`` when the target lies outside the
    root). A root that is a file is its own place (in its directory)."""
    base = os.path.realpath(root)
    if not os.path.isdir(base):
        return Place(os.path.dirname(base), (os.path.basename(base),))
    target = os.path.realpath(os.path.join(base, display))
    if target == base or not inside(target, base):
        raise PlaceError(LINK_OUT)
    return Place(base, tuple(Path(os.path.relpath(target, base)).parts))


def check_root(root: str) -> None:
    """``PlaceError`` unless ``root`` is an absolute path in normal form (no ``.``, ``..`` or
    empty components)."""
    if not root.startswith("/") or os.path.normpath(root) != root or "\0" in root:
        raise PlaceError(f"its root {root!r} is not an absolute path in normal form")


def check_place(place: Place) -> None:
    """``PlaceError`` unless ``place`` could name a file below its root: a root as
    ``check_root`` wants it, and names that are each one component (no ``.`` or ``..``)."""
    root, parts = place.root, place.parts
    check_root(root)
    if not parts or any(
        not part or part in (".", "..") or "/" in part or "\0" in part for part in parts
    ):
        raise PlaceError("its path is not a plain path below its root")


@dataclass(frozen=True)
class Contents:
    """A file's bytes and its status (on the same descriptor) when they were read."""

    data: bytes
    status: os.stat_result


def read(place: Place, *, writable: bool, one_name: bool = False) -> Contents:
    """The bytes of the regular file at ``place``; with ``writable``, refused (``PlaceError``)
    unless this user may write it and its mode lets someone write it; with ``one_name``, refused
    when the file has other names (hard links: ``other_names``). Changing while it is read is
    refused too."""
    with _Opened(place, write=writable) as fd:
        before = os.fstat(fd)
        if one_name and before.st_nlink > 1:
            raise PlaceError(other_names(before.st_nlink))
        data = _read_all(fd)
        after = os.fstat(fd)
    if stamp(before) != stamp(after) or len(data) != after.st_size:
        raise PlaceError("changed while it was read (run the fix again)")
    return Contents(data, after)


def other_names(links: int) -> str:
    """Why a file with ``links`` names is not rewritten: a write in place changes the text
    under every name, and the others may lie outside the tree (a backup made with
    ``cp -l``, a package cache that links its files into environments)."""
    others = "another name" if links == 2 else f"{links - 1} other names"
    return (
        f"it has {others} (hard links), whose text a rewrite would change too; "
        "copy it to a file of its own to fix it"
    )


Accept = Callable[[os.stat_result, bytes], str | None]
"""Whether a file as it is now (status and bytes) may be rewritten: ``None``, or why not."""


def rewrite(
    place: Place, data: bytes, accept: Accept, *, times: tuple[int, int] | None = None
) -> None:
    """Write ``data`` into the file at ``place``, in place (see the module docstring), once
    ``accept`` agrees with what the file is now; ``PlaceError`` otherwise, or when the write
    fails, and then the file is as it was (a failed write puts back what was there). With
    ``times`` (access and modification, in nanoseconds), the file gets them back after the
    write (a file put back as it was)."""
    with _Opened(place, write=True) as fd:
        status = os.fstat(fd)
        current = _read_all(fd)
        why = accept(status, current)
        if why is not None:
            raise PlaceError(why)
        try:
            _write_all(fd, data)
        except OSError as error:
            try:
                _write_all(fd, current)
            except OSError:
                raise PlaceError(f"{_failed(error)}, and the file could not be put back") from None
            raise PlaceError(_failed(error)) from None
        if times is not None:
            os.utime(fd, ns=times)


def stamp(status: os.stat_result) -> tuple[int, ...]:
    """What any write to a file changes (as ``discovery.file_stamp``)."""
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def _failed(error: OSError) -> str:
    reason = "the disk is full" if error.errno == errno.ENOSPC else error.strerror
    return f"could not be written ({reason})"


class _Opened:
    """The file at a place, open (read-only, or read-write), as a context manager."""

    def __init__(self, place: Place, *, write: bool) -> None:
        self.place = place
        self.write = write
        self.fd = -1

    def __enter__(self) -> int:
        if not _SUPPORTED:
            raise PlaceError(UNSUPPORTED)
        check_place(self.place)
        directory = self._directory()
        try:
            name = self.place.parts[-1]
            try:
                status = os.stat(name, dir_fd=directory, follow_symlinks=False)
            except OSError as error:
                raise PlaceError(_cannot(error, write=self.write)) from None
            if stat.S_ISLNK(status.st_mode):
                raise PlaceError(LINK_OUT)
            if not stat.S_ISREG(status.st_mode):
                raise PlaceError(NOT_REGULAR)
            if self.write and not status.st_mode & 0o222:
                raise PlaceError(READ_ONLY)
            mode = os.O_RDWR if self.write else os.O_RDONLY
            try:
                self.fd = os.open(name, mode | _OPEN_FLAGS, dir_fd=directory)
            except OSError as error:
                raise PlaceError(_cannot(error, write=self.write)) from None
        finally:
            os.close(directory)
        opened = os.fstat(self.fd)
        if (opened.st_dev, opened.st_ino) != (status.st_dev, status.st_ino):
            self.__exit__()
            raise PlaceError("changed while it was opened (run the fix again)")
        return self.fd

    def __exit__(self, *_: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _directory(self) -> int:
        """The file's directory, open, reached from the root without following a link."""
        try:
            # NOTE: the root is resolved: a link as its last component was put there since.
            fd = os.open(self.place.root, _DIR_FLAGS)
        except OSError as error:
            raise PlaceError(
                f"its root {quote_name(self.place.root)} cannot be opened as a directory "
                f"({error.strerror})"
            ) from None
        for part in self.place.parts[:-1]:
            try:
                inner = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as error:
                os.close(fd)
                if error.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise PlaceError(f"{quote_name(part)}/ on its path is not a directory of the tree "
                                     "(a symbolic link?): not followed") from None  # fmt: skip
                raise PlaceError(_cannot(error, write=self.write)) from None
            os.close(fd)
            fd = inner
        return fd


def _cannot(error: OSError, *, write: bool) -> str:
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"you may not {'write' if write else 'read'} it (permission denied)"
    if error.errno == errno.EROFS:
        return "on a read-only file system"
    if error.errno == errno.ENOENT:
        return "no longer exists"
    if error.errno == errno.ELOOP:
        return LINK_OUT
    return f"cannot be opened ({error.strerror})"


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _write_all(fd: int, data: bytes) -> None:
    """``data`` as the file's whole content, durably: written from the start, the rest cut."""
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        offset += os.pwrite(fd, view[offset:], offset)
    os.ftruncate(fd, len(data))
    os.fsync(fd)
