"""The candidate files under the scan's roots, each with its kind, in a deterministic order.

A root is a directory (walked) or a file (read whatever ``.gitignore`` or ``exclude`` say,
since the user named it). Walking, ``ignores`` decides what is left out, with git's meaning: a
``.gitignore`` concerns untracked files only, so where one ignores a path of a git work tree
the index is asked (``git_index.TrackedPaths``, read at that first question only) and a file it
tracks is read, a directory holding one entered for its tracked files alone; the caller's
``exclude`` leaves out tracked files too. A ``.gitignore`` outside every git work tree (no
``.git`` in its directory or above it) is not applied, as git applies none there (and ripgrep,
by default): a source archive, a ZIP download of a repository or a container's copy of a
project holds the tracked files alone, its ``.gitignore`` among them, and a file tracked under
a path that ``.gitignore`` names (added with ``git add -f``, or before the pattern) was left
out of the scan, unsaid. An index that cannot be read is one ``SkippedFile``
saying why, and ``.gitignore`` alone decides. A file whose name
``kinds.classify`` does not know is never opened (a ``*.txt`` or ``*.in`` of no known kind is
a candidate ``by_use``: the scan reads it only where another file names it,
``named_requirements``), but for a name without a suffix: its first bytes are read for a ``#!``
line, and a shell script is read as one (``kinds.by_shebang``). A symbolic link found in the walk is followed only when its target
(resolved) lies inside one of the roots (resolved: a root the user named is taken wherever its
own links lead); a link out of the scanned tree, to a file or a directory, is a ``SkippedFile``
with ``LINK_OUT`` as its reason and is never read, so a tree from elsewhere cannot make the scan
read (or ``--fix`` write) a file outside it. Every
directory and file is visited once however many links reach it (by device and inode, which
name the real path without resolving it), so a link loop ends and overlapping roots do not
scan a file twice; a file is visited once for each kind it is found as (a module's hard link
named ``notes.txt`` does not hide the module). Within a directory entries go in name order, files before subdirectories.

A candidate's ``display`` path is relative to the root it was found under, in POSIX form; for
a root that is a file it is that root as given. ``source_path`` goes back from the two.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Hashable, Iterator, Sequence
from pathlib import Path
from stat import S_ISBLK, S_ISCHR, S_ISFIFO, S_ISREG, S_ISSOCK
from typing import NamedTuple

from ipex_doctor.errors import DoctorError
from ipex_doctor.model.code import FileKind, SkippedFile
from ipex_doctor.scan.read.git_index import TrackedPaths, in_work_tree
from ipex_doctor.scan.read.ignores import (
    SKIPPED_DIR_NAMES,
    Ignores,
    InvalidPattern,
    LeftOut,
    is_environment,
)
from ipex_doctor.scan.read.kinds import SHEBANG_BYTES, by_shebang, classify, sniffed
from ipex_doctor.scan.read.named_requirements import BY_USE_SUFFIXES

LINK_OUT = "a symbolic link out of the scanned tree: not followed"
"""Why a link whose target lies outside every root is skipped."""


class ScanError(DoctorError):
    """A scan cannot start: a root that does not exist, an invalid exclude pattern."""


class Candidate(NamedTuple):
    """A file the scan may read."""

    path: Path
    """Where it is on disk (the root joined with ``display``)."""
    display: str
    """Its path in results: relative to its root, POSIX form (a file root: as given)."""
    kind: FileKind
    size: int
    """Bytes, from the directory walk's ``stat`` (the reader re-checks what it reads)."""
    stamp: tuple[int, ...] = ()
    """What any write to the file changes, from the same ``stat`` (``outcome_cache.stamp``)."""
    by_use: bool = False
    """A ``*.txt`` or ``*.in`` that is a requirement list only if another file of the tree
    hands it to pip (``named_requirements``): read, as ``REQUIREMENTS``, only then."""


def file_stamp(stat: os.stat_result) -> tuple[int, ...]:
    """What any write to a file changes: device, inode, size, modification and status-change
    times in nanoseconds (``st_ctime_ns`` moves on every write and ``touch``, and no user call
    sets it back)."""
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def source_path(root: Path, display: str) -> Path:
    """The file on disk behind a result's ``display`` path found under ``root``."""
    return root if root.is_file() else root / display


def discover(
    roots: Sequence[Path], *, exclude: Sequence[str] = (), docs: bool = False
) -> Iterator[Candidate | SkippedFile]:
    """Every candidate file under ``roots`` (a directory that cannot be listed, or a root file
    of a kind the scan does not read, comes as a ``SkippedFile``). Documents (``DOCS``) found
    in a directory are candidates only with ``docs``; one named as a root always is.
    ``ScanError`` before the first item when a root does not exist or an ``exclude`` pattern
    is invalid."""
    try:
        ignores = Ignores(exclude)
    except InvalidPattern as error:
        raise ScanError(f"invalid exclude pattern: {error}") from error
    for root in roots:
        if not root.is_file() and not root.is_dir():
            if root.exists() or root.is_symlink():
                raise ScanError(
                    f"{root}: not a regular file or a directory; name a file or a directory"
                )
            raise ScanError(f"{root}: no such file or directory")
    walk = _Walk(docs=docs, roots=[os.path.realpath(root) for root in roots])
    for root in roots:
        if root.is_dir():
            yield from walk.directory(root, ignores)
        else:
            yield from walk.file(root)


class _Walk:
    """One scan's walk over all its roots: what it has visited, by device and inode."""

    def __init__(self, *, docs: bool = False, roots: Sequence[str] = ()) -> None:
        self.dirs: set[Hashable] = set()
        self.files: set[Hashable] = set()
        self.docs = docs
        self.roots = tuple(roots)
        """The roots, resolved: where a link found in the walk may lead."""

    def leads_out(self, entry: os.DirEntry[str]) -> bool:
        """Whether ``entry`` is a symbolic link whose target lies outside every root."""
        if not entry.is_symlink():
            return False
        # NOTE: resolved in full, so a chain of links that ends outside is out too.
        target = os.path.realpath(entry.path)
        return not any(inside(target, root) for root in self.roots)

    def file(self, root: Path) -> Iterator[Candidate | SkippedFile]:
        display = root.as_posix()
        kind = classify(root.name, root.parent.name)
        if kind is None and sniffed(root.name):
            kind = _kind_by_shebang(root)
        if kind is None:
            yield SkippedFile(display, "not a kind of file the scan reads")
            return
        stat = root.stat()
        if self._first_visit(self.files, stat, root, (kind.value, False)):
            yield Candidate(root, display, kind, stat.st_size, file_stamp(stat))

    def directory(self, root: Path, ignores: Ignores) -> Iterator[Candidate | SkippedFile]:
        if not self._first_visit(self.dirs, root.stat(), root):
            return
        tracked = TrackedPaths(root)
        root_in_git = functools.cache(lambda: in_work_tree(root))
        # a directory entered only because the index tracks files below it (a ``.gitignore``
        # ignores it) is "tracked only": its untracked files stay ignored, as in git; ``git``:
        # whether the directory lies in a git work tree (``None``: not asked yet, for the root:
        # the ``.git`` above it is looked for at the first ``.gitignore`` only)
        stack: list[tuple[Path, str, Ignores, bool, bool | None]] = [
            (root, "", ignores, False, None)
        ]
        while stack:
            path, rel, rules, tracked_only, git = stack.pop()
            try:
                with os.scandir(path) as listing:
                    entries = sorted(listing, key=lambda entry: entry.name)
            except OSError as error:
                yield SkippedFile(rel or ".", f"cannot list the directory: {error.strerror}")
                continue
            names = [entry.name for entry in entries]
            # NOTE: once per directory, not per file (``Path.name`` is computed at each call)
            parent_name = path.name
            if rel and is_environment(names):
                continue
            if ".git" in names:
                git = True
            if ".gitignore" in names:
                if git is None:
                    git = root_in_git()
                if git:
                    text, unread = _gitignore_text(path / ".gitignore")
                    if unread:
                        yield SkippedFile(f"{rel}/.gitignore" if rel else ".gitignore", unread)
                    rules = rules.with_gitignore(rel, text)
            subdirs: list[tuple[Path, str, Ignores, bool, bool | None]] = []
            for entry in entries:
                child = f"{rel}/{entry.name}" if rel else entry.name
                try:
                    if entry.is_dir():
                        if entry.name in SKIPPED_DIR_NAMES:
                            continue
                        why = rules.left_out(child, is_dir=True)
                        if why is LeftOut.EXCLUDED:
                            continue
                        if (why or tracked_only) and not tracked.has_under(child):
                            continue
                        if self.leads_out(entry):
                            yield SkippedFile(child, LINK_OUT)
                            continue
                        if self._first_visit(self.dirs, entry.stat(), entry.path):
                            subdirs.append(
                                (
                                    Path(entry.path),
                                    child,
                                    rules,
                                    tracked_only or why is not None,
                                    git,
                                )
                            )
                        continue
                    regular = entry.is_file()
                    kind = classify(entry.name, parent_name, rel)
                    by_use = kind is None and entry.name.lower().endswith(BY_USE_SUFFIXES)
                    if by_use:
                        kind = FileKind.REQUIREMENTS
                    # NOTE: a file of no kind by its name is a script where its #! line says so
                    # (``kinds.by_shebang``); anything else about it goes unsaid, as for every
                    # file of no kind: nothing says it was ever meant to be read
                    sniff = kind is None and regular and sniffed(entry.name)
                    if (kind is None and not sniff) or (kind is FileKind.DOCS and not self.docs):
                        continue
                    why = rules.left_out(child, is_dir=False)
                    if why is LeftOut.EXCLUDED:
                        continue
                    if (why or tracked_only) and not tracked.has_file(child):
                        continue
                    if self.leads_out(entry):
                        if not sniff:
                            yield SkippedFile(child, LINK_OUT)
                        continue
                    if not regular and by_use:
                        continue  # read only where a file names it, as a regular one is
                    if not regular:
                        # NOTE: said, not passed over: a file of a kind the scan reads that is
                        # a FIFO (opening it would wait for a writer), a device or a broken
                        # link is a file whose content the report cannot speak for
                        yield SkippedFile(child, not_regular(entry))
                        continue
                    stat = entry.stat()
                    if sniff:
                        kind = _kind_by_shebang(entry.path)
                except FileNotFoundError:
                    continue  # removed while the walk went by: nothing is there to read
                except OSError as error:
                    yield SkippedFile(child, f"cannot be examined: {error.strerror or error}")
                    continue
                if kind is None:
                    continue
                # NOTE: a file is one visit per kind it is read as: a hard link of a module
                # named as a kind the scan does not read (``notes.txt``, found first in name
                # order) took the module's only visit, and its findings were lost, unsaid.
                if self._first_visit(self.files, stat, entry.path, (kind.value, by_use)):
                    yield Candidate(
                        Path(entry.path), child, kind, stat.st_size, file_stamp(stat), by_use
                    )
            stack.extend(reversed(subdirs))
        if tracked.unread is not None:
            yield SkippedFile(*tracked.unread)

    @staticmethod
    def _first_visit(
        seen: set[Hashable], stat: os.stat_result, path: str | Path, how: Hashable = None
    ) -> bool:
        """Whether the file or directory ``stat`` describes is seen for the first time (as
        ``how``, for a file the kind it is read as), and notes it."""
        key: Hashable = (stat.st_dev, stat.st_ino, how)
        if not stat.st_ino:
            # NOTE: Windows fills no inode into a directory listing's stat, and some file
            # systems have none: the resolved path is the identity there (one call more).
            key = (os.path.realpath(path), how)
        if key in seen:
            return False
        seen.add(key)
        return True


class NotRegularFile(OSError):
    """A candidate that is no longer a regular file when it is read (a FIFO or a device put
    in its place since the walk)."""


def read_candidate(path: Path, limit: int) -> bytes:
    """The bytes of the candidate at ``path``: at most ``limit`` and one (the caller judges a
    longer one too large), whatever its size says. Opening never waits and nothing is read
    from what is not a regular file (``NotRegularFile``): the walk saw one, but a FIFO put in
    its place since then would make ``read_bytes`` wait for a writer forever. ``OSError`` as
    opening or reading raises it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not S_ISREG(info.st_mode):
            raise NotRegularFile(f"{path}: not a regular file")
        # NOTE: the size it says, and one, asked for first: one read for a file that did not
        # grow, with no buffer of the whole limit allocated for each small file
        chunks = [os.read(fd, min(info.st_size, limit) + 1)]
        size = len(chunks[0])
        while size <= limit and chunks[-1]:
            chunks.append(os.read(fd, min(1 << 20, limit + 1 - size)))
            size += len(chunks[-1])
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def _kind_by_shebang(path: str | Path) -> FileKind | None:
    """The kind the ``#!`` line of the file at ``path`` gives it (``kinds.by_shebang``), or
    ``None``, also where it cannot be read (nothing says it is a script then)."""
    try:
        return by_shebang(read_candidate(Path(path), SHEBANG_BYTES))
    except OSError:
        return None


def not_regular(entry: os.DirEntry[str]) -> str:
    """Why ``entry``, which is not a regular file (nor a directory), is not read."""
    try:
        mode = entry.stat().st_mode
    except FileNotFoundError:
        return "a symbolic link to nothing (broken): not read"
    except OSError as error:
        return f"cannot be examined: {error.strerror or error}"
    if S_ISFIFO(mode):
        return "a FIFO, not a regular file: not read (reading it would wait for a writer)"
    if S_ISSOCK(mode):
        return "a socket, not a regular file: not read"
    if S_ISCHR(mode) or S_ISBLK(mode):
        return "a device, not a regular file: not read"
    return "not a regular file: not read"


def inside(path: str, root: str) -> bool:
    """Whether the resolved ``path`` is ``root`` or below it (both absolute, resolved)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


GITIGNORE_LIMIT = 16 * 1024 * 1024
"""The most of a ``.gitignore`` read (real ones are a few KiB; a link to ``/dev/zero`` is not)."""


def _gitignore_text(path: Path) -> tuple[str, str]:
    """The text of the ``.gitignore`` at ``path``, and why it could not be read (empty when it
    was). One that cannot be read ignores nothing, as in git, and is said: the scan then reads
    files its author meant to leave out. One that is a FIFO is not waited on."""
    try:
        data = read_candidate(path, GITIGNORE_LIMIT)
    except FileNotFoundError:
        return "", ""  # removed since the listing
    except NotRegularFile:
        if path.is_dir():
            return "", ""  # a directory of that name: git passes over it too
        return "", "not a regular file: not read, so its patterns are not applied"
    except OSError as error:
        return "", f"cannot be read: {error.strerror or error}, so its patterns are not applied"
    if len(data) > GITIGNORE_LIMIT:
        return "", (
            f"larger than {GITIGNORE_LIMIT >> 20} MiB: not read, so its patterns are not applied"
        )
    return data.decode("utf-8", errors="replace"), ""
