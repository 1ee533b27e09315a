"""A Jupyter notebook's code cells as Python source and shell lines, line numbers kept.

A cell is numbered by its 1-based position among all the notebook's cells (markdown ones
too), so ``cells[number - 1]`` of the JSON is the cell; lines count within the cell. IPython
syntax is taken out of the Python, each line replaced so that the cell still has its lines:

* ``!cmd`` and ``%pip`` / ``%conda`` / ``%mamba`` (also ``x = !cmd``) are shell commands: the
  ``text`` rules for ``SHELL`` read them (``!pip install intel-extension-for-pytorch``);
* other ``%magic`` lines and ``obj?`` help lines are dropped;
* a cell starting with ``%%bash``, ``%%sh`` or ``%%script bash|sh|zsh`` is all shell; one
  starting with ``%%time``, ``%%timeit``, ``%%capture``, ``%%prun`` or ``%%debug`` is Python
  after its first line; any other cell magic (``%%html``, ``%%writefile``...) is neither.

A dropped line becomes ``pass`` at its indentation (a statement, as IPython makes it), its
continuation lines (after a trailing ``\\``) empty. Notebooks in nbformat 4 and 3 are read; one
whose kernel language is not Python is not a notebook the scan reads (``NotANotebook``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from ipex_doctor.scan.read.source import TextLine, split_lines

_SHELL_LINE_MAGICS = frozenset({"pip", "conda", "mamba", "sx", "system"})
_SHELL_CELL_MAGICS = frozenset({"bash", "sh"})
_SHELL_SCRIPTS = frozenset({"bash", "sh", "zsh"})
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
_ASSIGNED_MAGIC = re.compile(r"(\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)([!%])(.*)")


class NotANotebook(ValueError):
    """The JSON is not a notebook the scan can read; the message says why, in one line."""


class Cell(NamedTuple):
    """One code cell."""

    number: int
    """1-based position among all the notebook's cells."""
    lines: list[str]
    """The cell's source as written, by line."""
    python: str
    """The source with IPython syntax replaced (same number of lines), or ``""`` for a cell
    that is not Python."""
    shell: list[TextLine]
    """The shell commands, with their line and where they start in it."""


def code_cells(document: Any) -> list[Cell]:
    """The code cells of a notebook parsed from JSON (``NotANotebook`` when it is none)."""
    if not isinstance(document, Mapping):
        raise NotANotebook("not a Jupyter notebook (the JSON is not an object)")
    language = _language(document)
    if language not in (None, "python", "python3"):
        raise NotANotebook(f"a {language} notebook, not Python")
    cells = document.get("cells")
    if cells is None:  # nbformat 3: cells inside worksheets, code under "input"
        worksheets = document.get("worksheets")
        if isinstance(worksheets, list):
            cells = [c for w in worksheets if isinstance(w, Mapping) for c in w.get("cells", ())]
    if not isinstance(cells, list):
        raise NotANotebook("not a Jupyter notebook (no cells)")
    found: list[Cell] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, Mapping) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            source = "".join(part for part in source if isinstance(part, str))
        if not isinstance(source, str):
            continue
        found.append(read_cell(number, source))
    return found


def _language(document: Mapping[str, Any]) -> str | None:
    metadata = document.get("metadata")
    if not isinstance(metadata, Mapping):
        return None
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        section = metadata.get(key)
        if isinstance(section, Mapping) and isinstance(section.get(field), str):
            return str(section[field]).lower()
    return None


def read_cell(number: int, source: str) -> Cell:
    """One code cell's ``source`` read as the module docstring says (a Markdown or reST
    Python block is read the same way)."""
    lines = split_lines(source)
    python = list(lines)
    shell: list[TextLine] = []
    first = lines[0].strip() if lines else ""
    start = 0
    if first.startswith("%%"):
        name, _, argument = first[2:].partition(" ")
        interpreter = (argument.split() or [""])[0]
        if name in _SHELL_CELL_MAGICS or (name == "script" and interpreter in _SHELL_SCRIPTS):
            shell = [TextLine(i + 1, line) for i, line in enumerate(lines) if i > 0]
            return Cell(number, lines, "", shell)
        if name not in _PYTHON_CELL_MAGICS:
            return Cell(number, lines, "", [])
        python[0] = ""
        start = 1
    continued = False
    for index in range(start, len(lines)):
        line = lines[index]
        if continued:  # the rest of a magic or shell command
            python[index] = ""
            if shell and shell[-1].line == index:
                shell.append(TextLine(index + 1, line))
            continued = line.endswith("\\")
            continue
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        assigned = _ASSIGNED_MAGIC.fullmatch(line) if "=" in line else None
        if assigned is not None:
            head, sigil, command = assigned.groups()
            python[index] = head + "None"
            column = len(head) + 1
        elif stripped.startswith(("!", "%")):
            python[index] = indent + "pass"
            sigil = stripped[0]
            command = stripped[2:] if stripped.startswith("!!") else stripped[1:]
            column = len(line) - len(command)
        else:
            if stripped.endswith("?") and not stripped.startswith("#"):
                python[index] = indent + "pass"  # obj? / obj?? help
            continue
        magic = (command.split(maxsplit=1) or [""])[0]
        if sigil == "!" or magic in _SHELL_LINE_MAGICS:
            if sigil == "%":
                command, column = _drop_magic_name(command, column)
            shell.append(TextLine(index + 1, command, column))
        continued = line.endswith("\\")
    return Cell(number, lines, "\n".join(python), shell)


def _drop_magic_name(command: str, column: int) -> tuple[str, int]:
    """``pip install x`` stays as it is (it is the shell command); ``sx ls`` / ``system ls``
    drop the magic's name."""
    name, _, rest = command.partition(" ")
    if name in ("sx", "system"):
        stripped = rest.lstrip()
        return stripped, column + len(command) - len(stripped)
    return command, column
