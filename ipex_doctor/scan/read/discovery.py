"""The candidate files under the scan's roots, each with its kind, in a deterministic order.

A root is a directory (walked) or a file (read whatever ``.gitignore`` or ``exclude`` say,
since the user named it). Walking, ``ignores`` decides what is left out, with git's meaning: a
``.gitignore`` concerns untracked files only, so where one ignores a path of a git work tree
the index is asked (``git_index.TrackedPaths``, read at that first question only) and a file it
tracks is read, a directory holding one entered for its tracked files alone; the caller's
``exclude`` leaves out tracked files too. An index that cannot be read is one ``SkippedFile``
saying why, and ``.gitignore`` alone decides. A file whose name
``kinds.classify`` does not know is never opened (a ``*.txt`` or ``*.in`` of no known kind is
a candidate ``by_use``: the scan reads it only where another file names it,
``named_requirements``). A symbolic link found in the walk is followed only when its target
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

import os
from collections.abc import Hashable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from ipex_doctor.errors import DoctorError
from ipex_doctor.model.code import FileKind, SkippedFile
from ipex_doctor.scan.read.git_index import TrackedPaths
from ipex_doctor.scan.read.ignores import (
    SKIPPED_DIR_NAMES,
    Ignores,
    InvalidPattern,
    LeftOut,
    is_environment,
)
from ipex_doctor.scan.read.kinds import classify
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
        # a directory entered only because the index tracks files below it (a ``.gitignore``
        # ignores it) is "tracked only": its untracked files stay ignored, as in git
        stack: list[tuple[Path, str, Ignores, bool]] = [(root, "", ignores, False)]
        while stack:
            path, rel, rules, tracked_only = stack.pop()
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
            if ".gitignore" in names:
                rules = rules.with_gitignore(rel, _read_text(path / ".gitignore"))
            subdirs: list[tuple[Path, str, Ignores, bool]] = []
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
                                (Path(entry.path), child, rules, tracked_only or why is not None)
                            )
                        continue
                    if not entry.is_file():
                        continue  # a broken link, a FIFO, a socket, a device
                    kind = classify(entry.name, parent_name, rel)
                    by_use = kind is None and entry.name.lower().endswith(BY_USE_SUFFIXES)
                    if by_use:
                        kind = FileKind.REQUIREMENTS
                    if kind is None or (kind is FileKind.DOCS and not self.docs):
                        continue
                    why = rules.left_out(child, is_dir=False)
                    if why is LeftOut.EXCLUDED:
                        continue
                    if (why or tracked_only) and not tracked.has_file(child):
                        continue
                    if self.leads_out(entry):
                        yield SkippedFile(child, LINK_OUT)
                        continue
                    stat = entry.stat()
                except OSError:
                    continue  # vanished or unreadable while walking: not a candidate
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


def inside(path: str, root: str) -> bool:
    """Whether the resolved ``path`` is ``root`` or below it (both absolute, resolved)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""  # an unreadable .gitignore ignores nothing, as in git
