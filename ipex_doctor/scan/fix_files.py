"""``scan --fix`` on files: read one (Python, notebook, shell, Dockerfile), fix it, show the
unified diff, and write it back.

``fix_file`` reads a file, fixes it, and returns the unified diff; with ``write=True`` (or
later, ``write_fix`` on its result, after showing the diff) it replaces the file atomically
(temporary file in the same directory, fsync, rename; the file's mode kept) and refuses, with
``FixError``, to overwrite a file whose bytes, modification time or size changed since it was
read (checked again after the fsync, just before the rename).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import patiencediff

from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.fix import (
    PYTHON_KINDS,
    FixError,
    FixOutcome,
    check_ids,
    fix_source,
    fix_text,
)
from ipex_doctor.scan.fix_notebook import fix_notebook


@dataclass(frozen=True)
class FileFix:
    """The result of fixing one file: its unified diff (empty when unchanged) and outcome.
    ``write_fix`` writes it; it keeps what was read so the write can refuse a file that
    changed in between."""

    path: Path
    diff: str
    changed: bool
    outcome: FixOutcome
    original: bytes = field(default=b"", repr=False, compare=False)
    """The file's bytes as they were read."""
    fixed: bytes = field(default=b"", repr=False, compare=False)
    """The bytes to write (the fixed text, in the file's encoding and byte-order mark)."""
    seen: os.stat_result | None = field(default=None, repr=False, compare=False)
    """The file's status when it was read."""


# -- files ----------------------------------------------------------------------------------


def kind_of(path: Path) -> FileKind | None:
    """The kind of file ``path`` is for the fixes, from its name (``None``: no fixes apply)."""
    name = path.name
    if name == "setup.py":
        return FileKind.SETUP
    if path.suffix in (".py", ".pyw"):
        return FileKind.PYTHON
    if path.suffix == ".ipynb":
        return FileKind.NOTEBOOK
    if path.suffix in (".sh", ".bash"):
        return FileKind.SHELL
    lowered = name.lower()
    if (
        lowered in ("dockerfile", "containerfile")
        or lowered.startswith("dockerfile.")
        or (lowered.endswith((".dockerfile", ".containerfile")))
    ):
        return FileKind.DOCKERFILE
    return None


def fix_file(
    path: Path, fix_ids: Collection[str], *, write: bool, kind: FileKind | None = None
) -> FileFix:
    """Fix the file at ``path`` (of ``kind``, else judged from its name) and return the diff;
    with ``write``, replace it atomically when it changed (see the module docstring).

    Raises ``FixError`` for an unknown fix id, a file that cannot be read or is not UTF-8, a
    kind of file without fixes, a write that fails, and a file that changed since it was read.
    """
    wanted = check_ids(fix_ids)
    kind = kind or kind_of(path)
    if kind is None:
        raise FixError(f"{path}: no fixes apply to this kind of file")
    raw, seen = _read(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FixError(f"{path}: not UTF-8 text ({exc.reason}); not fixed") from None
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text[len(bom) :]
    if kind is FileKind.NOTEBOOK:
        outcome = fix_notebook(text, wanted)
    elif kind in PYTHON_KINDS:
        outcome = fix_source(text, wanted)
    else:
        outcome = fix_text(text, kind, wanted)
    if not outcome.changed:
        return FileFix(path, "", False, outcome, raw, raw, seen)
    diff = unified_diff(text, outcome.source, path.as_posix())
    fixed = FileFix(path, diff, True, outcome, raw, (bom + outcome.source).encode("utf-8"), seen)
    if write:
        write_fix(fixed)
    return fixed


def write_fix(fix: FileFix) -> None:
    """Replace ``fix.path`` with the fixed text, atomically: a temporary file in the same
    directory, flushed and fsynced, renamed over the file (through a symlink to its target),
    with the file's mode. Nothing is written when nothing changed. Raises ``FixError`` when
    the file changed on disk since ``fix_file`` read it (other bytes, or another modification
    time or size), or when the write fails; the file is then as it was."""
    if not fix.changed:
        return
    if fix.seen is None:
        raise FixError(f"{fix.path}: not read by fix_file; nothing written")
    _replace(fix.path, fix.original, fix.seen, fix.fixed)


def unified_diff(old: str, new: str, name: str) -> str:
    """The unified diff from ``old`` to ``new`` as ``git diff`` shows it (``a/`` and ``b/``
    names, a marker where a file does not end with a newline)."""
    name = name.lstrip("/")
    # NOTE: patience diff: difflib's matcher is quadratic on the repeated lines of generated
    # code (the diff of a fixed 10 MiB module of similar functions never finished).
    lines = patiencediff.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{name}", f"b/{name}"
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _read(path: Path) -> tuple[bytes, os.stat_result]:
    """The bytes of ``path`` and its status when they were read."""
    try:
        before = path.stat()
        raw = path.read_bytes()
        after = path.stat()
    except FileNotFoundError:
        raise FixError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise FixError(f"{path}: is a directory") from None
    except OSError as exc:
        raise FixError(f"{path}: cannot read: {exc.strerror}") from None
    if (before.st_mtime_ns, before.st_size) != (after.st_mtime_ns, after.st_size):
        raise FixError(f"{path}: changed while it was read; not fixed")
    return raw, after


def _replace(path: Path, original: bytes, seen: os.stat_result, data: bytes) -> None:
    """Write ``data`` over ``path`` atomically, unless the file changed since ``original`` was
    read (same bytes, modification time and size are required)."""
    # NOTE: through a symlink to its target, keeping the link the user made.
    target = path.resolve() if path.is_symlink() else path
    _check_unchanged(path, target, original, seen)
    mode = stat.S_IMODE(target.stat().st_mode)
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise FixError(f"{path}: cannot write: {exc.strerror}") from None
    try:
        # NOTE: mkstemp makes the file 0600; the fixed file keeps the mode it had.
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # NOTE: the last look before the rename, after the slow part (fsync).
        _check_unchanged(path, target, original, seen)
        os.replace(temp, target)
    except OSError as exc:
        Path(temp).unlink(missing_ok=True)
        raise FixError(f"{path}: cannot write: {exc.strerror}") from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _sync_directory(target.parent)


def _check_unchanged(path: Path, target: Path, original: bytes, seen: os.stat_result) -> None:
    try:
        now = target.stat()
        same = (now.st_mtime_ns, now.st_size) == (seen.st_mtime_ns, seen.st_size)
        same = same and target.read_bytes() == original
    except OSError:
        same = False
    if not same:
        raise FixError(
            f"{path}: changed on disk since it was read; not written (run the fix again)"
        )


def _sync_directory(directory: Path) -> None:
    """Make the rename durable; some file systems cannot sync a directory, which is fine."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
