"""The paths a git checkout tracks, read from its index (``.git/index``) by hand.

Git applies ``.gitignore`` to untracked files only: a file in the index is part of the project
whatever an ignore pattern says. The scan asks this module which paths are tracked once a
``.gitignore`` has ignored something (``TrackedPaths``, lazy), never before.

The index is read here, never through ``git``: a repository's own config (``core.fsmonitor``,
hooks) can make git run a command, and nothing a scanned tree holds is ever executed. No
library is used either: the few pure-Python readers of the format are unmaintained or pull in
a whole git implementation, and reading path names takes a page (gitformat-index(5)).

Only a plain index is read: the dircache format's versions 2, 3 and 4, SHA-1 or SHA-256
object names, a trailing checksum that matches (or is all zeros: ``index.skipHash``), no
extension that git itself requires (a lowercase signature, such as ``link`` of a split index
or ``sdir`` of a sparse one, which leave paths out of this file), and no more than
``MAX_INDEX_BYTES``. Anything else is an ``IndexUnread`` whose message says why, so the scan
can say it and fall back to ``.gitignore`` alone. A ``.git`` that is a file (a worktree's or a
submodule's ``gitdir:`` pointer) is not followed: that path comes from a file of the tree.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

MAX_INDEX_BYTES = 128 * 1024 * 1024
"""The largest index read: a checkout of hundreds of thousands of files stays well under it."""

_GITLINK = 0o160000
"""The mode of a submodule's entry: a commit, not a file of this checkout."""


class IndexUnread(Exception):
    """The index exists but is not read; the message says why: a predicate of the index ("is
    truncated"), or, when ``git_path`` is set, what that ``.git`` is."""

    def __init__(self, why: str, git_path: str | None = None) -> None:
        super().__init__(why)
        self.git_path = git_path


def find_git_dir(root: Path) -> Path | None:
    """The ``.git`` directory of the work tree holding the directory ``root`` (resolved): at
    ``root`` or above it, up to the file system's root or a mount point; ``None`` when there
    is none. ``IndexUnread`` when the nearest ``.git`` is a file or a symbolic link."""
    here = os.path.realpath(root)
    while True:
        candidate = os.path.join(here, ".git")
        try:
            mode = os.lstat(candidate).st_mode
        except OSError:
            mode = 0
        if stat.S_ISDIR(mode):
            return Path(candidate)
        if stat.S_ISLNK(mode):
            raise IndexUnread("a symbolic link to a git directory: not followed", candidate)
        if stat.S_ISREG(mode):
            raise IndexUnread(
                "a file pointing to a git directory elsewhere (a worktree or a submodule): "
                "not followed, so its index was not read",
                candidate,
            )
        parent = os.path.dirname(here)
        if parent == here or os.path.ismount(here):
            return None
        here = parent


def in_work_tree(root: Path) -> bool:
    """Whether the directory ``root`` lies in a git work tree: a ``.git`` at ``root`` or above
    it (``find_git_dir``), a directory or a worktree's or submodule's pointer alike (whose
    index is not read, but whose ``.gitignore`` files git applies)."""
    try:
        return find_git_dir(root) is not None
    except IndexUnread:
        return True


def read_index(path: Path) -> frozenset[str]:
    """The paths (POSIX, relative to the work tree) the index at ``path`` holds as files
    (submodules left out); an empty set when there is no index (nothing added yet).
    ``IndexUnread`` when it is not a plain index (the module's docstring)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return frozenset()
    except OSError as error:
        raise IndexUnread(f"cannot be read: {error.strerror}") from error
    if stat.S_ISLNK(info.st_mode):
        raise IndexUnread("is a symbolic link: not followed")
    if not stat.S_ISREG(info.st_mode):
        raise IndexUnread("is not a regular file")
    if info.st_size > MAX_INDEX_BYTES:
        raise IndexUnread(f"is larger than {MAX_INDEX_BYTES // (1024 * 1024)} MiB")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_INDEX_BYTES + 1)
    except OSError as error:
        raise IndexUnread(f"cannot be read: {error.strerror}") from error
    return parse_index(data)


def parse_index(data: bytes) -> frozenset[str]:
    """The file paths of the index whose bytes are ``data`` (``read_index``)."""
    if len(data) > MAX_INDEX_BYTES:
        raise IndexUnread(f"is larger than {MAX_INDEX_BYTES // (1024 * 1024)} MiB")
    if len(data) < 12 + 20 or data[:4] != b"DIRC":
        raise IndexUnread("is not a git index (truncated or another format)")
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4):
        raise IndexUnread(f"is of version {version}; versions 2, 3 and 4 are read")
    hash_size = _hash_size(data)
    end = len(data) - hash_size
    paths: set[str] = set()
    position, previous = 12, b""
    for _ in range(count):
        name_at = position + 40 + hash_size + 2
        if name_at > end:
            raise IndexUnread("is truncated")
        (mode,) = struct.unpack_from(">I", data, position + 24)
        (flags,) = struct.unpack_from(">H", data, name_at - 2)
        if flags & 0x4000:
            if version == 2:
                raise IndexUnread("is corrupt (an extended entry in version 2)")
            name_at += 2
        if version == 4:
            strip, name_at = _varint(data, name_at, end)
            if strip > len(previous):
                raise IndexUnread("is corrupt (a path prefix longer than the path before)")
            nul = data.find(b"\0", name_at, end)
            if nul < 0:
                raise IndexUnread("is truncated")
            name = previous[: len(previous) - strip] + data[name_at:nul]
            position = nul + 1
        else:
            nul = data.find(b"\0", name_at, end)
            if nul < 0:
                raise IndexUnread("is truncated")
            name = data[name_at:nul]
            # NOTE: an entry is padded with 1 to 8 NULs to a multiple of 8 bytes
            position += (nul - position + 8) & ~7
            if position > end:
                raise IndexUnread("is truncated")
        previous = name
        if not name or mode & 0o170000 == _GITLINK:
            continue
        paths.add(os.fsdecode(name))
    _check_extensions(data, position, end)
    return frozenset(paths)


def _hash_size(data: bytes) -> int:
    """The size of the index's object names and trailing checksum, which must match."""
    import hashlib  # NOTE: only once an index is read; most scans never read one

    if hashlib.sha1(data[:-20]).digest() == data[-20:]:
        return 20
    if len(data) >= 12 + 32 and hashlib.sha256(data[:-32]).digest() == data[-32:]:
        return 32
    if data[-20:] == bytes(20):
        return 20  # NOTE: index.skipHash writes zeros where the checksum would be; git accepts it
    raise IndexUnread("has a checksum that does not match its content (corrupt or truncated)")


def _varint(data: bytes, position: int, end: int) -> tuple[int, int]:
    """Git's offset varint at ``position`` (each continuation adds one before shifting), and
    where what follows it starts."""
    if position >= end:
        raise IndexUnread("is truncated")
    byte = data[position]
    value = byte & 0x7F
    while byte & 0x80:
        position += 1
        if position >= end:
            raise IndexUnread("is truncated")
        byte = data[position]
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, position + 1


def _check_extensions(data: bytes, position: int, end: int) -> None:
    """``IndexUnread`` unless the extensions between ``position`` and ``end`` are all optional
    ones (an uppercase signature) and fill the space exactly."""
    while position < end:
        if position + 8 > end:
            raise IndexUnread("is truncated")
        signature = data[position : position + 4]
        (size,) = struct.unpack_from(">I", data, position + 4)
        if not 0x41 <= signature[0] <= 0x5A:
            name = signature.decode("ascii", "replace")
            kind = {"link": " (a split index)", "sdir": " (a sparse index)"}.get(name, "")
            raise IndexUnread(f"has the '{name}' extension{kind}, which leaves paths out of it")
        position += 8 + size
    if position != end:
        raise IndexUnread("is truncated")


class TrackedPaths:
    """What the index of the work tree holding a scanned directory tracks under it, read at
    the first question (a scan whose ``.gitignore`` ignores nothing never opens the index).

    Paths are relative to the scanned directory, POSIX form. When the index cannot be read,
    nothing is tracked (``.gitignore`` alone decides) and ``unread`` says why, once.
    """

    __slots__ = ("_dirs", "_files", "_root", "unread")

    def __init__(self, root: Path) -> None:
        self._root = root
        self._files: frozenset[str] | None = None
        self._dirs: frozenset[str] = frozenset()
        self.unread: tuple[str, str] | None = None
        """Where the index (or ``.git``) is, as the scan shows it, and why it was not read."""

    def has_file(self, path: str) -> bool:
        """Whether the index tracks the file ``path``."""
        return path in self._load()

    def has_under(self, directory: str) -> bool:
        """Whether the index tracks some file under ``directory`` (no trailing ``/``)."""
        self._load()
        return directory in self._dirs

    def _load(self) -> frozenset[str]:
        if self._files is not None:
            return self._files
        self._files = frozenset()
        try:
            git_dir = find_git_dir(self._root)
            if git_dir is None:
                return self._files
            index = git_dir / "index"
            everything = read_index(index)
        except IndexUnread as error:
            if error.git_path:
                where, why = _shown(Path(error.git_path), self._root), str(error)
            else:
                where, why = _shown(index, self._root), f"the git index {error}"
            self.unread = (where, f"{why}; .gitignore alone decided what was read")
            return self._files
        base = os.path.relpath(os.path.realpath(self._root), git_dir.parent)
        prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
        files = {path[len(prefix) :] for path in everything if path.startswith(prefix)}
        dirs: set[str] = set()
        for path in files:
            cut = path.rfind("/")
            while cut > 0 and path[:cut] not in dirs:
                dirs.add(path[:cut])
                cut = path.rfind("/", 0, cut)
        self._files, self._dirs = frozenset(files), frozenset(dirs)
        return self._files


def _shown(path: Path, root: Path) -> str:
    """``path`` as the scan shows it: relative to the scanned ``root``, POSIX form."""
    return os.path.relpath(path, os.path.realpath(root)).replace(os.sep, "/")
