"""``scan --fix`` on a Jupyter notebook: its code cells fixed together, written back in the
notebook's own JSON layout.

The code cells are fixed together, as one module in cell order (a cell sees the imports of the
cells above it, as when the notebook runs top to bottom), each rewrite located by cell and
line. IPython's line magics and shell escapes (``%time``, ``!pip``) are masked as comments
while the cells are fixed (``!`` commands get the ``launcher`` text fix); cells that start with
a cell magic are not Python and are left alone, except ``%%bash`` / ``%%sh``, which get the
``launcher`` text fix. The notebook is written back with ``json`` in its own layout (indent,
key order, escaping); a notebook whose layout ``json`` cannot reproduce exactly (not written
by Jupyter) is refused, so a fix never reformats the cells it did not change.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import replace
from typing import Any

import libcst as cst

from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.fix import (
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
            refusals.append(replace(not_python(exc), cell=number))
            continue
        python[number] = (masked, magics)
    fixed = _fix_cells_together(python, wanted, rewrites, refusals) if python else {}
    for number, (masked, magics) in python.items():
        new_source = _unmask(fixed.get(number, masked), magics)
        if new_source != _cell_text(code[number - 1]):
            _set_cell_text(code[number - 1], new_source)
    new = json.dumps(data, indent=layout[0], ensure_ascii=layout[1]) + layout[2]
    return FixOutcome(new, new != text, in_order(rewrites), in_order(refusals))


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
