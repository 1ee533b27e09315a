"""``scan --fix`` on one file: read it (Python, notebook, shell, Dockerfile), fix it, show
the unified diff, and write it back in place.

``fix_bytes`` fixes a file's bytes in memory (decoding, its byte-order mark, the fixes of its
kind); a fix that raises is a refusal of that file with its reason, never an exception.
``fix_file`` reads a file through ``confined`` (a regular file, not through a link, that
this user may write when it is to be written) and fixes it; with ``write=True``, or later
``write_fix`` on its result, it writes the new bytes into the same file (``confined.rewrite``)
after checking that it is still the file that was read, with the same bytes, size,
modification and status-change times; ``FixError`` otherwise, and the file is as it was.
(``scan --fix`` itself plans every file first and writes them all or none: ``fix_run``.)

The diff is git's: ``a/`` and ``b/`` names, quoted as git quotes a name that holds a control
character, a quote, a backslash or a byte outside ASCII.
"""

from __future__ import annotations

import codecs
import io
import os
import tokenize
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import patiencediff

from ipex_doctor.model.code import FileKind, LineEdit
from ipex_doctor.scan.fix import confined
from ipex_doctor.scan.fix.confined import Contents, Place, PlaceError
from ipex_doctor.scan.fix.notebook import fix_notebook
from ipex_doctor.scan.fix.quoting import quote_name
from ipex_doctor.scan.fix.rewrite import (
    PYTHON_KINDS,
    WHOLE_FILE,
    FixError,
    FixOutcome,
    Refusal,
    check_ids,
    fix_text,
)
from ipex_doctor.scan.fix.verbatim import fix_python, split_lines
from ipex_doctor.scan.read.kinds import SHEBANG_BYTES, by_shebang, sniffed

CHANGED_SINCE_READ = "changed on disk since it was read; not written (run the fix again)"


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
    place: Place | None = field(default=None, repr=False, compare=False)
    """Where the file is (its directory and name, or its root and path below it)."""


# -- files ----------------------------------------------------------------------------------


def kind_of(path: Path) -> FileKind | None:
    """The kind of file ``path`` is for the fixes, from its name (``None``: no fixes apply, or,
    for a name without a suffix, see ``kind_by_content``)."""
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


def kind_by_content(path: Path, data: bytes) -> FileKind | None:
    """The kind of the file ``path`` whose bytes are ``data``: by its name (``kind_of``), else,
    for a name without a suffix, by its ``#!`` line, as the scan read it (``kinds.by_shebang``:
    a shell script named ``bin/run_xpu`` is rewritten as one)."""
    kind = kind_of(path)
    if kind is None and sniffed(path.name):
        kind = by_shebang(data[:SHEBANG_BYTES])
    return kind


def fix_bytes(raw: bytes, kind: FileKind, fix_ids: Collection[str]) -> tuple[FixOutcome, bytes]:
    """The outcome of fixing a file of ``kind`` whose bytes are ``raw``, and the bytes to write
    (``raw`` itself when nothing changed). A file that is not UTF-8, or whose fix fails, is one
    refusal (``WHOLE_FILE``) saying why; ``FixError`` only for an unknown fix id."""
    wanted = check_ids(fix_ids)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _refused(raw, f"not UTF-8 text ({exc.reason})"), raw
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text[len(bom) :]
    try:
        if kind is FileKind.NOTEBOOK:
            outcome = fix_notebook(text, wanted)
        elif kind in PYTHON_KINDS:
            outcome = fix_python(text, wanted)
        else:
            outcome = fix_text(text, kind, wanted)
    except (FixError, RecursionError, MemoryError) as exc:
        return _refused(text, f"the fix cannot be made ({exc})"), raw
    except Exception as exc:  # noqa: BLE001 - NOTE: one file's broken fix must not cost the others
        why = f"the fix failed ({type(exc).__name__}: {exc}); this is a bug in ipex-doctor"
        return _refused(text, why), raw
    if not outcome.changed:
        return outcome, raw
    fixed = (bom + outcome.source).encode("utf-8")
    if kind in PYTHON_KINDS:
        otherwise = _read_otherwise(raw) or _read_otherwise(fixed)
        if otherwise is not None:
            return _refused(text, otherwise), raw
    return outcome, fixed


def _read_otherwise(data: bytes) -> str | None:
    """Why Python would read the module ``data`` otherwise than the fixes read it (as UTF-8):
    its PEP 263 coding declaration names an encoding in which these bytes are other text
    (``None`` when they are the same text)."""
    # NOTE: the scan reads a module in its declared coding, as Python does, and the fixes read
    # UTF-8. Where the two differ (UTF-7's ``+AAo-`` is a line break, ``+ACI-`` a quote), the
    # line the scan found is not the line the fix would rewrite: a rewrite there changed a
    # string's data and left the call the finding named as it was.
    try:
        declared, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        if codecs.lookup(declared).name in ("utf-8", "utf-8-sig"):
            return None
        same = data.decode(declared) == data.decode("utf-8")
    except (SyntaxError, LookupError, UnicodeDecodeError, ValueError):
        same = False
    if same:
        return None
    return "its coding declaration makes Python read it otherwise than the fixes (UTF-8) do"


def _refused(text: str | bytes, reason: str) -> FixOutcome:
    source = text if isinstance(text, str) else text.decode("utf-8", "replace")
    return FixOutcome(source, refusals=(Refusal(WHOLE_FILE, 0, reason),))


def fix_file(
    path: Path, fix_ids: Collection[str], *, write: bool, kind: FileKind | None = None
) -> FileFix:
    """Fix the file at ``path`` (of ``kind``, else judged from its name; a link leads to its
    target, as a path the user names does) and return the diff; with ``write``, write it in
    place when it changed (see the module docstring).

    Raises ``FixError`` for an unknown fix id, a file that cannot be read (or, with ``write``,
    written), a kind of file without fixes, and a file that changed since it was read.
    """
    check_ids(fix_ids)
    kind = kind or kind_of(path)
    if kind is None and not sniffed(path.name):
        raise FixError(f"{path}: no fixes apply to this kind of file")
    real = os.path.realpath(path)
    place = Place(os.path.dirname(real), (os.path.basename(real),))
    try:
        contents = confined.read(place, writable=write, one_name=write)
    except PlaceError as error:
        raise FixError(f"{path}: {error.reason}") from None
    kind = kind or kind_by_content(path, contents.data)
    if kind is None:
        raise FixError(f"{path}: no fixes apply to this kind of file")
    fixed = file_fix(path, place, contents, fix_ids, kind)
    if write:
        write_fix(fixed)
    return fixed


def file_fix(
    path: Path, place: Place, contents: Contents, fix_ids: Collection[str], kind: FileKind
) -> FileFix:
    """The fix of the file at ``place`` read as ``contents``, its diff named ``path``."""
    outcome, fixed = fix_bytes(contents.data, kind, fix_ids)
    if not outcome.changed:
        return FileFix(
            path, "", False, outcome, contents.data, contents.data, contents.status, place
        )
    before = contents.data.decode("utf-8").removeprefix("\ufeff")
    diff = unified_diff(before, outcome.source, path.as_posix())
    return FileFix(path, diff, True, outcome, contents.data, fixed, contents.status, place)


def write_fix(fix: FileFix) -> None:
    """Write ``fix.fixed`` into the file, in place, after checking it is the file that was read,
    unchanged (same bytes, size, modification and status-change times). Nothing is written
    when nothing changed. ``FixError`` when it changed or the write fails; the file is then as
    it was."""
    if not fix.changed:
        return
    if fix.seen is None or fix.place is None:
        raise FixError(f"{fix.path}: not read by fix_file; nothing written")
    try:
        confined.rewrite(fix.place, fix.fixed, unchanged_since(Contents(fix.original, fix.seen)))
    except PlaceError as error:
        raise FixError(f"{fix.path}: {error.reason}") from None


def unchanged_since(read: Contents) -> confined.Accept:
    """The check that a file is still as ``read``: the same file (device, inode), size,
    modification and status-change times, and bytes."""

    def accept(status: os.stat_result, data: bytes) -> str | None:
        same = confined.stamp(status) == confined.stamp(read.status) and data == read.data
        return None if same else CHANGED_SINCE_READ

    return accept


# -- diffs ----------------------------------------------------------------------------------


def line_edits(before: str, after: str) -> list[LineEdit]:
    """The changed line ranges from ``before`` to ``after`` (for SARIF fixes)."""
    # NOTE: patience diff, not difflib: difflib's matcher is quadratic on the repeated lines of
    # generated code, and a fixed 10 MiB module must not take minutes here.
    # NOTE: lines as the scan numbers them (``\r\n``, ``\r``, ``\n``), never ``splitlines``,
    # which also breaks at a form feed, ``\x1c``..``\x1e``, ``\x85`` and ``\u2028``: past one
    # such character every edit was a line off its finding (SARIF fixes on the wrong lines).
    old, new = _edit_lines(before), _edit_lines(after)
    matcher = patiencediff.PatienceSequenceMatcher(None, old, new)
    return [
        LineEdit(i1 + 1, i2, "".join(new[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def unified_diff(old: str, new: str, name: str) -> str:
    """The unified diff from ``old`` to ``new`` as ``git diff`` shows it (``a/`` and ``b/``
    names, quoted as git quotes them; a marker where a file does not end with a newline).
    Lines are Python's (``\\r\\n``, ``\\r``, ``\\n``); a CR-only line is shown ending in
    ``\\n``, so the diff stays one line per line."""
    name = name.lstrip("/")
    # NOTE: patience diff: difflib's matcher is quadratic on the repeated lines of generated
    # code (the diff of a fixed 10 MiB module of similar functions never finished).
    # (patiencediff.unified_diff falls back to difflib's matcher unless it is given one.)
    lines = patiencediff.unified_diff(
        _diff_lines(old), _diff_lines(new), diff_header_name(f"a/{name}"),
        diff_header_name(f"b/{name}"), sequencematcher=patiencediff.PatienceSequenceMatcher,
    )  # fmt: skip
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def diff_header_name(name: str) -> str:
    """``name`` as git writes it after ``---`` / ``+++``: quoted (``quoting``), and followed by
    a tab when it holds a space, so that ``patch`` knows where it ends."""
    return quote_name(name) + ("\t" if " " in name else "")


def _edit_lines(text: str) -> list[str]:
    return [body + ending for body, ending in split_lines(text)]


def _diff_lines(text: str) -> list[str]:
    """``text``'s lines (Python's), each ending in ``\\n`` (``\\r\\n`` where it does),
    a last line without an ending as it is."""
    if "\r" not in text:
        # NOTE: then Python's lines break at ``\n`` alone, as ``StringIO``'s do with
        # ``newline="\n"`` (no translation), read in C: a tenth of the time of the tuples
        # ``split_lines`` builds, on a 10 MiB module.
        return io.StringIO(text, newline="\n").readlines()
    return [
        body + ("\r\n" if ending == "\r\n" else "\n" if ending else "")
        for body, ending in split_lines(text)
    ]
