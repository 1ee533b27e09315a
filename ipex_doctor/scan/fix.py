"""``scan --fix``: apply the mechanical rewrites named by fix id to Python source, shell and
Dockerfile text, notebooks and files.

Contracts:

* ``fix_source`` rewrites Python source with LibCST, so everything it does not rewrite
  (formatting, comments, strings) stays byte for byte; a comment above an import it removes
  moves to the next statement (one at the end of the removed line goes with it). It returns
  the new source, each rewrite applied (fix id, line of the original source) and each place a
  fix recognised but left alone because it could not prove the rewrite equivalent there
  (with why). The result must parse: if it does not, nothing is applied and that is
  reported. Running it again on its own result changes nothing.
* ``fix_text`` does the same for shell scripts and Dockerfiles (line-anchored regular
  expressions: text has no syntax tree).
* ``fix_file`` reads a file (Python, notebook, shell, Dockerfile), fixes it, and returns the
  unified diff; with ``write=True`` (or later, ``write_fix`` on its result, after showing the
  diff) it replaces the file atomically (temporary file in the same directory, fsync, rename;
  the file's mode kept) and refuses, with ``FixError``, to overwrite a file whose bytes,
  modification time or size changed since it was read (checked again after the fsync, just
  before the rename).

Notebooks: the code cells are fixed together, as one module in cell order (a cell sees the
imports of the cells above it, as when the notebook runs top to bottom), each rewrite located
by cell and line. IPython's line magics and shell escapes (``%time``, ``!pip``) are masked as
comments while the cells are fixed (``!`` commands get the ``launcher`` text fix); cells that
start with a cell magic are not Python and are left alone, except ``%%bash`` / ``%%sh``, which
get the ``launcher`` text fix. The notebook is written back with ``json`` in its own layout
(indent, key order, escaping); a notebook whose layout ``json`` cannot reproduce exactly (not
written by Jupyter) is refused, so a fix never reformats the cells it did not change.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper

from ipex_doctor.errors import DoctorError, did_you_mean
from ipex_doctor.model.code import FileKind
from ipex_doctor.model.codec import JsonModel
from ipex_doctor.scan.codemods import CODEMODS, FIX_IDS, TEXT_FIXES
from ipex_doctor.scan.codemods_base import Refusal, Rewrite

__all__ = [
    "FIX_IDS",
    "FileFix",
    "FixError",
    "FixOutcome",
    "Refusal",
    "Rewrite",
    "fix_file",
    "fix_notebook",
    "fix_source",
    "fix_text",
    "kind_of",
    "unified_diff",
    "write_fix",
]

PYTHON_KINDS = frozenset({FileKind.PYTHON, FileKind.SETUP})
TEXT_KINDS = frozenset({FileKind.SHELL, FileKind.DOCKERFILE})
WHOLE_FILE = ""
"""The fix id of a refusal about the whole text (it does not parse), not one fix."""


class FixError(DoctorError):
    """A fix cannot be read, applied or written: an unknown fix id, an unreadable file, a file
    that changed on disk since it was read. The message is one line naming the file."""


@dataclass(frozen=True)
class FixOutcome(JsonModel):
    """The result of fixing one text: the new text, the rewrites applied and the places left
    alone, in line order."""

    source: str
    changed: bool = False
    rewrites: tuple[Rewrite, ...] = ()
    refusals: tuple[Refusal, ...] = ()


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


def _check_ids(fix_ids: Collection[str]) -> set[str]:
    unknown = sorted(set(fix_ids) - FIX_IDS)
    if unknown:
        raise FixError(
            f"unknown fix id {unknown[0]!r}",
            tip=did_you_mean(unknown[0], FIX_IDS, otherwise=f"known: {', '.join(sorted(FIX_IDS))}"),
        )
    return set(fix_ids)


# -- Python source --------------------------------------------------------------------------


def fix_source(source: str, fix_ids: Collection[str]) -> FixOutcome:
    """``source`` with the Python fixes among ``fix_ids`` applied (see the module docstring).

    Raises ``FixError`` for an unknown fix id; everything else (a file that does not parse, a
    place a fix refuses) is reported in the outcome."""
    wanted = _check_ids(fix_ids)
    ids = [fix_id for fix_id in CODEMODS if fix_id in wanted]
    if not ids:
        return FixOutcome(source)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return FixOutcome(source, refusals=(_not_python(exc),))
    current = source
    # NOTE: metadata (scopes, qualified names) is most of the cost; a pass that changed
    # nothing leaves the tree, and the metadata already resolved for it, to the next one.
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    to_original: Callable[[int], int] = _identity
    rewrites: list[Rewrite] = []
    refusals: list[Refusal] = []
    for fix_id in ids:
        codemod = CODEMODS[fix_id]()
        if not codemod.may_apply(current):
            continue
        try:
            new = wrapper.visit(codemod).code
            # NOTE: LibCST checks each pass's output parses: the next pass needs its tree.
            changed = new != current
            if changed:
                wrapper = MetadataWrapper(cst.parse_module(new), unsafe_skip_copy=True)
        except Exception as exc:  # NOTE: one broken fix must not cost the others
            refusals.append(
                Refusal(fix_id, 1, f"not applied: the fix failed ({type(exc).__name__}: {exc}); "
                "this is a bug in ipex-doctor")
            )  # fmt: skip
            continue
        rewrites.extend(replace(r, line=to_original(r.line)) for r in codemod.rewrites)
        refusals.extend(replace(r, line=to_original(r.line)) for r in codemod.refusals)
        if changed:
            to_original = _compose(to_original, _line_step(current, new))
            current = new
    why = _does_not_parse(source, current)
    if why is not None:
        refusals.append(
            Refusal(WHOLE_FILE, 1, f"nothing applied: the rewritten code does not parse ({why}); "
            "this is a bug in ipex-doctor")
        )  # fmt: skip
        return FixOutcome(source, refusals=_in_order(refusals))
    return FixOutcome(current, current != source, _in_order(rewrites), _in_order(refusals))


def _not_python(exc: cst.ParserSyntaxError) -> Refusal:
    message = str(exc).splitlines()[0] if str(exc) else "syntax error"
    return Refusal(WHOLE_FILE, exc.raw_line, f"not fixed: the file does not parse ({message})")


def _does_not_parse(before: str, after: str) -> str | None:
    """Why ``after`` does not parse as Python although ``before`` did (``None``: it parses).
    LibCST parsed every pass's output already; ``ast`` is the interpreter's own parser, the
    one that counts."""
    try:
        ast.parse(before)
    except (SyntaxError, ValueError):
        # NOTE: the interpreter rejects the original too (another Python's syntax): LibCST
        # is the judge.
        try:
            cst.parse_module(after)
        except cst.ParserSyntaxError as exc:
            return str(exc).splitlines()[0]
        return None
    try:
        ast.parse(after)
    except (SyntaxError, ValueError) as exc:
        return str(exc)
    return None


def _identity(line: int) -> int:
    return line


def _compose(outer: Callable[[int], int], inner: Callable[[int], int]) -> Callable[[int], int]:
    return lambda line: outer(inner(line))


def _line_step(old: str, new: str) -> Callable[[int], int]:
    """Maps a line of ``new`` to the line of ``old`` it came from (a line added maps to the
    line it was added before), so records keep pointing at the user's original lines."""
    a, b = old.splitlines(), new.splitlines()
    table: list[int] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
        # NOTE: an equal line maps to its twin; a changed or added one to the old line at the
        # same offset in its block, or to the line the block was added before.
        last_old = max(i1, i2 - 1)
        table.extend(
            i1 + k + 1 if tag == "equal" else min(i1 + k, last_old) + 1 for k in range(j2 - j1)
        )
    last = max(len(a), 1)
    return lambda line: min(table[line - 1], last) if 1 <= line <= len(table) else last


def _in_order(records: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(sorted(records, key=lambda r: (r.cell or 0, r.line)))


# -- shell scripts and Dockerfiles ----------------------------------------------------------


def fix_text(text: str, kind: FileKind, fix_ids: Collection[str]) -> FixOutcome:
    """``text`` (a file of ``kind``) with the text fixes among ``fix_ids`` applied. Only
    shell scripts and Dockerfiles have text fixes; other kinds come back unchanged. Python
    and notebooks are refused (``FixError``): use ``fix_source`` / ``fix_file``."""
    wanted = _check_ids(fix_ids)
    if kind in PYTHON_KINDS or kind is FileKind.NOTEBOOK:
        raise FixError(f"fix_text is for text files, not {kind.value}: use fix_source or fix_file")
    if kind not in TEXT_KINDS:
        return FixOutcome(text)
    rewrites: list[Rewrite] = []
    refusals: list[Refusal] = []
    current = text
    for fix_id, fix in TEXT_FIXES.items():
        if fix_id not in wanted:
            continue
        new, notes = fix(current)
        for note in notes:
            if note.applied:
                rewrites.append(Rewrite(fix_id, note.line, note.message))
            else:
                refusals.append(Refusal(fix_id, note.line, note.message))
        current = new
    return FixOutcome(current, current != text, _in_order(rewrites), _in_order(refusals))


# -- notebooks ------------------------------------------------------------------------------

_CELL_MARK = "# <ipex-doctor:cell {}>"
_CELL_MARK_RE = re.compile(r"^# <ipex-doctor:cell (\d+)>\n", re.MULTILINE)
_MAGIC_MARK = "# <ipex-doctor:magic {}>"
_MAGIC_MARK_RE = re.compile(r"^[ \t]*# <ipex-doctor:magic (\d+)>$")
_SHELL_CELL_MAGICS = ("%%bash", "%%sh")


def _json_layout(text: str, data: Any) -> tuple[int | None, bool, str] | None:
    """The ``json.dumps`` settings (indent, ensure_ascii, trailing text) that write ``data``
    back as ``text`` exactly, or ``None`` when none does."""
    second = text.split("\n", 2)[1] if text.count("\n") >= 1 else ""
    indent = len(second) - len(second.lstrip(" ")) if text.startswith("{\n") else None
    tail = text[len(text.rstrip()) :]
    for ensure_ascii in (False, True):
        if json.dumps(data, indent=indent, ensure_ascii=ensure_ascii) + tail == text:
            return indent, ensure_ascii, tail
    return None


def _cell_text(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _set_cell_text(cell: dict[str, Any], text: str) -> None:
    cell["source"] = (
        text.splitlines(keepends=True) if isinstance(cell.get("source"), list) else text
    )


def fix_notebook(text: str, fix_ids: Collection[str]) -> FixOutcome:
    """A notebook's JSON ``text`` with its code cells fixed (see the module docstring); the
    records carry the 1-based code-cell number and the line within the cell."""
    wanted = _check_ids(fix_ids)
    try:
        data = json.loads(text)
    except ValueError as exc:
        return FixOutcome(text, refusals=(Refusal(WHOLE_FILE, 1, f"not fixed: not JSON ({exc})"),))
    layout = _json_layout(text, data)
    cells = data.get("cells") if isinstance(data, dict) else None
    if layout is None or not isinstance(cells, list):
        why = (
            "not a notebook"
            if not isinstance(cells, list)
            else (
                "its JSON layout is not one json can write back exactly, so every cell would be "
                "reformatted: fix it in Jupyter, or save it from Jupyter first"
            )
        )
        return FixOutcome(text, refusals=(Refusal(WHOLE_FILE, 1, f"not fixed: {why}"),))  # fmt: skip
    code = [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    rewrites: list[Rewrite] = []
    refusals: list[Refusal] = []
    python: dict[int, tuple[str, list[str]]] = {}
    for number, cell in enumerate(code, start=1):
        source = _cell_text(cell)
        if source.lstrip().startswith("%%"):
            _fix_shell_cell(cell, source, number, wanted, rewrites, refusals)
            continue
        masked, magics = _mask_magics(source, number, wanted, rewrites, refusals)
        try:
            cst.parse_module(masked)
        except cst.ParserSyntaxError as exc:
            refusals.append(replace(_not_python(exc), cell=number))
            continue
        python[number] = (masked, magics)
    fixed = _fix_cells_together(python, wanted, rewrites, refusals) if python else {}
    for number, (masked, magics) in python.items():
        new_source = _unmask(fixed.get(number, masked), magics)
        if new_source != _cell_text(code[number - 1]):
            _set_cell_text(code[number - 1], new_source)
    new = json.dumps(data, indent=layout[0], ensure_ascii=layout[1]) + layout[2]
    return FixOutcome(new, new != text, _in_order(rewrites), _in_order(refusals))


def _fix_cells_together(
    python: dict[int, tuple[str, list[str]]],
    wanted: set[str],
    rewrites: list[Rewrite],
    refusals: list[Refusal],
) -> dict[int, str]:
    """Fix the (masked) Python cells as one module, a marker comment before each, and return
    each cell's new masked text. Comments, markers included, never move across statements
    out of order, so splitting at the markers gives the cells back."""
    joined = ""
    starts: list[tuple[int, int]] = []  # (line of the cell's first line in ``joined``, cell)
    for number, (masked, _) in python.items():
        body = masked if masked.endswith("\n") or not masked else masked + "\n"
        starts.append((joined.count("\n") + 2, number))
        joined += _CELL_MARK.format(number) + "\n" + body
    outcome = fix_source(joined, wanted)

    def locate(record: Any) -> Any:
        start, number = max((s for s in starts if s[0] <= record.line), default=starts[0])
        return replace(record, cell=number, line=max(record.line - start + 1, 1))

    rewrites.extend(locate(r) for r in outcome.rewrites)
    refusals.extend(locate(r) for r in outcome.refusals)
    fixed: dict[int, str] = {}
    pieces = _CELL_MARK_RE.split(outcome.source)
    for number_text, body in zip(pieces[1::2], pieces[2::2], strict=True):
        masked = python[int(number_text)][0]
        fixed[int(number_text)] = (
            body[:-1] if not masked.endswith("\n") and body.endswith("\n") else body
        )
    return fixed


def _mask_magics(
    source: str, cell: int, wanted: set[str], rewrites: list[Rewrite], refusals: list[Refusal]
) -> tuple[str, list[str]]:
    """``source`` with IPython's line magics and shell escapes as placeholder comments, and
    the lines they stand for (a ``!`` command already given the text fixes)."""
    lines = source.splitlines(keepends=True)
    magics: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.lstrip()
        if not stripped.startswith(("%", "!")):
            continue
        indent = line[: len(line) - len(stripped)]
        if stripped.startswith("!"):
            outcome = fix_text(stripped[1:], FileKind.SHELL, wanted)
            rewrites.extend(replace(r, cell=cell, line=index + 1) for r in outcome.rewrites)
            refusals.extend(replace(r, cell=cell, line=index + 1) for r in outcome.refusals)
            line = indent + "!" + outcome.source
        newline = line[len(line.rstrip("\r\n")) :]
        lines[index] = indent + _MAGIC_MARK.format(len(magics)) + newline
        magics.append(line[: len(line) - len(newline)] if newline else line)
    return "".join(lines), magics


def _unmask(source: str, magics: list[str]) -> str:
    def restore(line: str) -> str:
        body = line.rstrip("\r\n")
        match = _MAGIC_MARK_RE.match(body)
        return magics[int(match.group(1))] + line[len(body) :] if match else line

    return "".join(restore(line) for line in source.splitlines(keepends=True))


def _fix_shell_cell(
    cell: dict[str, Any],
    source: str,
    number: int,
    wanted: set[str],
    rewrites: list[Rewrite],
    refusals: list[Refusal],
) -> None:
    """A cell-magic cell: ``%%bash`` / ``%%sh`` bodies get the text fixes; others are left."""
    first, _, body = source.partition("\n")
    words = first.split()
    if not words or words[0] not in _SHELL_CELL_MAGICS:
        return
    outcome = fix_text(body, FileKind.SHELL, wanted)
    rewrites.extend(replace(r, cell=number, line=r.line + 1) for r in outcome.rewrites)
    refusals.extend(replace(r, cell=number, line=r.line + 1) for r in outcome.refusals)
    if outcome.changed:
        _set_cell_text(cell, first + "\n" + outcome.source)


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
    wanted = _check_ids(fix_ids)
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
    lines = difflib.unified_diff(
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
