"""``scan --fix`` on a Jupyter notebook: its code cells fixed together, written back in the
notebook's own JSON layout.

Cells are numbered as the scan numbers them (``notebooks``: the 1-based position among all the
notebook's cells, Markdown ones too), so a record names the same cell as a finding.

The Python cells are fixed together, as one module in cell order (a cell sees the imports of
the cells above it, as when the notebook runs top to bottom). Nothing is written into the code
to find the cells or the IPython syntax again: no marker a user's own line could equal.
Instead every line is known by its position:

* IPython syntax (``%time``, ``!pip``, ``x = !ls``, ``obj?``, a ``%%time`` line, a magic's
  continuation lines) is masked as the scan reads it (``notebooks.read_cell``: the same number
  of lines, each masked line a ``pass``, ``None`` or empty), and each masked line gets its own
  text back by its position afterwards. Shell commands (``!ipexrun``, a ``%%bash`` cell's
  lines) get the text fixes (``launcher``) in place;
* the cells are joined knowing each one's line span; after the fix every line of the result
  is traced back to the line it came from (``verbatim.trace``), and so to its cell; a line a
  fix adds goes to the cell of the line before it (an insertion between two cells to the cell
  above, which runs first);
* a cell no rewrite touched is left exactly as it was; a rewritten cell keeps every line the
  fix did not change byte for byte (its line endings too). A result that would move a line
  between cells or touch a masked line is refused for the whole notebook, with why.

A cell that is not a JSON object, or whose ``source`` is neither a string nor a list of
strings, is left alone with its reason (a refusal of the whole cell: line 0); the others are
still fixed. So is a cell that does not
parse. The notebook is written back with ``json`` in its own layout (indent, key order,
escaping); a notebook whose layout ``json`` cannot reproduce exactly (not written by Jupyter)
is refused, so a fix never reformats the cells it did not change.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import libcst as cst

from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.fix.rewrite import (
    WHOLE_FILE,
    FixOutcome,
    Refusal,
    Rewrite,
    check_ids,
    fix_source,
    fix_text,
    in_order,
    not_python,
)
from ipex_doctor.scan.fix.verbatim import NOT_LINE_FOR_LINE, Line, join_lines, split_lines, trace
from ipex_doctor.scan.read.notebooks import read_cell

RecordT = TypeVar("RecordT", Rewrite, Refusal)

NOT_A_CELL = "this cell is not a JSON object"
NOT_TEXT = "its source is neither a string nor a list of strings"


@dataclass
class _Cell:
    """One code cell on its way through the fix."""

    number: int
    data: dict[str, Any]
    original: str
    lines: list[Line]
    """The cell's lines, shell commands already given the text fixes."""
    masked: list[str] = field(default_factory=list)
    """The Python the fix reads, line for line (IPython syntax masked); empty: no Python."""


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


def _source_text(cell: dict[str, Any]) -> str | None:
    """A code cell's source as one text, or ``None`` when it is not text."""
    source = cell.get("source", "")
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(part, str) for part in source):
        return "".join(source)
    return None


def fix_notebook(text: str, fix_ids: Collection[str]) -> FixOutcome:
    """A notebook's JSON ``text`` with its code cells fixed (see the module docstring); the
    records carry the cell's number and the 1-based line within the cell."""
    wanted = check_ids(fix_ids)
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
    rewrites: list[Rewrite] = []
    refusals: list[Refusal] = []
    code: list[_Cell] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            refusals.append(Refusal(WHOLE_FILE, 0, NOT_A_CELL, cell=number))
            continue
        if cell.get("cell_type") != "code":
            continue
        source = _source_text(cell)
        if source is None:
            refusals.append(Refusal(WHOLE_FILE, 0, NOT_TEXT, cell=number))
            continue
        code.append(_read(number, cell, source, wanted, rewrites, refusals))
    python = [cell for cell in code if cell.masked]
    fixed = _fix_together(python, wanted, rewrites, refusals) if python else {}
    for cell in code:
        new = fixed.get(cell.number, join_lines(cell.lines))
        if new != cell.original:
            _set_source(cell.data, new)
    new_text = json.dumps(data, indent=layout[0], ensure_ascii=layout[1]) + layout[2]
    return FixOutcome(new_text, new_text != text, in_order(rewrites), in_order(refusals))


def _read(
    number: int,
    data: dict[str, Any],
    source: str,
    wanted: set[str],
    rewrites: list[Rewrite],
    refusals: list[Refusal],
) -> _Cell:
    """One code cell: its shell commands fixed in place, its Python masked (or none)."""
    lines = split_lines(source)
    cell = _Cell(number, data, source, lines)
    read = read_cell(number, source)
    for command in read.shell:
        index = command.line - 1
        if index >= len(lines):
            continue  # the empty "line" after a cell's last line ending
        body, ending = lines[index]
        outcome = fix_text(command.text, FileKind.SHELL, wanted)
        rewrites.extend(replace(r, cell=number, line=command.line) for r in outcome.rewrites)
        refusals.extend(replace(r, cell=number, line=command.line) for r in outcome.refusals)
        if outcome.changed:
            lines[index] = (body[: command.column] + outcome.source, ending)
    if not read.python:
        return cell
    masked = read.python.split("\n")[: len(lines)]
    try:
        cst.parse_module("\n".join(masked) + "\n")
    except cst.ParserSyntaxError as exc:
        refusals.append(replace(not_python(exc), cell=number))
        return cell
    cell.masked = masked
    return cell


def _fix_together(
    cells: Sequence[_Cell], wanted: set[str], rewrites: list[Rewrite], refusals: list[Refusal]
) -> dict[int, str]:
    """Fix the Python cells as one module; each rewritten cell's new source, by number."""
    boundary = _boundary(cells)
    joined: list[Line] = []
    # NOTE: each joined line's cell and its index there (None: a boundary)
    owner: list[tuple[_Cell, int] | None] = []
    for cell in cells:
        if joined:
            joined.append((boundary, "\n"))
            owner.append(None)
        joined.extend((line, "\n") for line in cell.masked)
        owner.extend((cell, index) for index in range(len(cell.masked)))
    source = join_lines(joined)
    outcome = fix_source(source, wanted)

    def located(records: Sequence[RecordT]) -> list[RecordT]:
        """Records of the joined module at their cell and line within it."""
        found = []
        for record in records:
            cell, index = _owner_at(owner, record.line - 1)
            found.append(replace(record, cell=cell.number, line=index + 1))
        return found

    refusals.extend(located(outcome.refusals))
    if not outcome.changed:
        return {}
    traced = trace(joined, cst.parse_module(source).code, outcome.source)
    split = None if traced is None else _split(traced.lines, traced.origins, owner)
    if isinstance(split, str) or split is None:
        refusals.append(Refusal(WHOLE_FILE, 1, split or NOT_LINE_FOR_LINE))
        return {}
    rewrites.extend(located(outcome.rewrites))
    return {
        cell.number: join_lines(_ended(split[cell.number], cell.lines))
        for cell in cells
        if cell.number in split
    }


def _boundary(cells: Sequence[_Cell]) -> str:
    """A comment line to stand between two cells in the joined module, equal to no line of
    theirs (a random name: no user's line can be written to match it in advance).

    It is never looked for by its text: the lines of the fixed module are traced back by
    position, and a boundary is only an unchanged line there, so a rewrite at the end of one
    cell and another at the start of the next are never one changed block whose lines could
    not be told apart."""
    lines = {line for cell in cells for line in cell.masked}
    while True:
        boundary = f"# ipex-doctor: the end of a cell {secrets.token_hex(16)}"
        if boundary not in lines:
            return boundary


def _owner_at(owner: Sequence[tuple[_Cell, int] | None], index: int) -> tuple[_Cell, int]:
    """The cell line at ``index`` of the joined module (clamped), a boundary counting as the
    last line of the cell above it."""
    index = min(max(index, 0), len(owner) - 1)
    while owner[index] is None:
        index -= 1
    found = owner[index]
    assert found is not None  # NOTE: the joined module starts with a cell line
    return found


def _split(
    lines: Sequence[Line],
    origins: Sequence[int | None],
    owner: Sequence[tuple[_Cell, int] | None],
) -> dict[int, list[Line]] | str:
    """The fixed module's lines back in their cells: the lines of each cell a rewrite touched,
    by cell number; or why they cannot be split back (a string).

    A line the fix did not change is its cell's own line again (with its own ending and, for
    a masked line, its own text). A run of new lines between two unchanged ones replaces the
    lines between those, which lie in one cell (every boundary must come back unchanged), and
    goes to that cell; a run that replaces nothing goes to the cell of the line above it (the
    cell above a boundary, the first cell at the top)."""
    cells: dict[int, list[Line]] = {}
    touched: set[int] = set()
    run: list[str] = []
    last = -1

    def place(upto: int) -> str | None:
        """Place ``run``, which replaces the joined module's lines between ``last`` and
        ``upto``; why it cannot be placed, or ``None``."""
        replaced = list(owner[last + 1 : upto])
        for found in replaced:
            if found is None:
                return (
                    "not fixed: a rewrite moved the boundary between two cells; rewrite it by hand"
                )
            cell, at = found
            touched.add(cell.number)
            if cell.masked[at] != cell.lines[at][0]:
                return (
                    f"not fixed: a rewrite would change line {at + 1} of cell {cell.number}, "
                    "which is IPython syntax; rewrite it by hand"
                )
        if run:
            cell, at = replaced[0] if replaced and replaced[0] else _owner_at(owner, last)
            touched.add(cell.number)
            cells.setdefault(cell.number, []).extend((text, cell.lines[at][1]) for text in run)
            run.clear()
        return None

    for (text, _), origin in zip(lines, origins, strict=True):
        if origin is None:
            run.append(text)
            continue
        why = place(origin)
        if why is not None:
            return why
        found = owner[origin]
        if found is not None:
            cell, at = found
            cells.setdefault(cell.number, []).append(cell.lines[at])
        last = origin
    why = place(len(owner))
    if why is not None:
        return why
    return {number: cells.get(number, []) for number in touched}


def _ended(lines: list[Line], original: Sequence[Line]) -> list[Line]:
    """A rewritten cell's lines, each but the last ended, the last ended as the cell's was."""
    usual = next((ending for _, ending in original if ending), "\n")
    out = [(text, ending or usual) for text, ending in lines]
    if out and original and not original[-1][1]:
        out[-1] = (out[-1][0], "")
    return out


def _set_source(cell: dict[str, Any], text: str) -> None:
    """Write a cell's new source as it was stored: one string, or a list of lines."""
    if isinstance(cell.get("source"), list):
        cell["source"] = [body + ending for body, ending in split_lines(text)]
    else:
        cell["source"] = text
