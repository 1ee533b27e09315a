"""A script's path held in a variable, read where the variable is used: ``SETVARS=/opt/intel/
oneapi/setvars.sh`` then ``source "$SETVARS"`` is found as ``source /opt/intel/oneapi/
setvars.sh`` is (PowerShell's ``$setvars = "...\\setvars.bat"`` then ``cmd /c "`"$setvars`" &&
set"``, batch's ``set SETVARS=...`` then ``call "%SETVARS%"``).

Which value a use reads: the variable's last assignment before it in the same file, wherever
that stands (in a branch, a loop or a function body included: a literal ``source`` line there
is read too, and when branches assign different paths the last one written is taken).
An assignment to anything else (``SETVARS=./env.sh``), or to a value this reader does not take
as written, hides the earlier one. Nothing is evaluated: a value is taken as written only when
it is a word, a quoted string (variables left in it as they stand) or, in PowerShell, a
``Join-Path`` of such; one that runs a command to find the path (``$(find ...)``,
``(Get-ChildItem ...)``) is not followed, nor a variable set in another file (a sourced
``env.sh``, a CI job's environment).

Only a value that names a script (``*.sh``, ``*.bat``, ``*.cmd``) is put in place: the rules
that read paths read scripts' (setvars.sh, a library's ``env/setvars.sh``); the other values a
variable carries to an install command are ``shell_lines.through_variables``'.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ipex_doctor.lazy_pattern import LazyPattern
from ipex_doctor.scan.match.ruleset import TextRule
from ipex_doctor.scan.match.shell_lines import variable_grammar
from ipex_doctor.scan.match.text_matches import text_hits
from ipex_doctor.scan.match.triggers import Probe
from ipex_doctor.scan.read.kinds import ShellDialect
from ipex_doctor.scan.read.source import Hit, TextLine

_SCRIPT = re.compile(r"(?i)\.(?:sh|bat|cmd)\b")
_VALUE = {
    ShellDialect.POSIX: LazyPattern(r"\s*(\"[^\"]*\"|'[^']*'|[^\s;&|\"'()`]+)(?=[\s;&|]|$)"),
    ShellDialect.POWERSHELL: LazyPattern(
        r"(?i)\s*(\"(?:[^\"`]|`.)*\"|'[^']*'|Join-Path(?:\s+(?:-\w+\s+)?(?:\"[^\"]*\"|'[^']*'|"
        r"\$[\w:]+))+)\s*(?:;|$)"
    ),
    ShellDialect.BATCH: LazyPattern(r"([^\"&|<>]*)\"?\s*$"),
}
"""A value taken as written, after the ``=`` of a line that sets a variable."""


def _value(text: str, start: int, dialect: ShellDialect) -> str | None:
    """The value set from ``start`` (after ``=``), quotes dropped, or ``None`` when it is not
    taken as written (a command's output: never evaluated)."""
    found = _VALUE[dialect].match(text, start)
    if found is None or "$(" in found.group(1):
        return None
    if dialect is ShellDialect.POSIX and "`" in found.group(1):
        return None
    value = found.group(1)
    if value[:1] in "\"'" and value[-1:] == value[:1]:
        value = value[1:-1]
    return value


def scripts_in_place(
    hits: Sequence[Hit],
    lines: Sequence[TextLine],
    rules: Sequence[TextRule],
    probe: Probe,
    dialect: ShellDialect,
) -> list[Hit]:
    """``hits`` and the hits of ``rules`` on lines where a variable that holds a script's path
    (see the module) is used, read with the path in its place; each new hit spans the
    variable's use (``"$SETVARS"``), and a rule already found on that line is not found again.
    ``lines`` as ``shell_lines.command_lines`` gives them (what only prints reads nothing)."""
    if _SCRIPT.search("\n".join(line.text for line in lines)) is None:
        return list(hits)  # NOTE: one pass over the text: most scripts name no other script
    grammar = variable_grammar(dialect)
    folded = grammar.folded
    values: dict[str, str | None] = {}
    """Each variable's last value so far (``None``: not taken as written)."""
    found = list(hits)
    there = {(hit.line, hit.rule_id) for hit in hits}
    reading: re.Pattern[str] | None = None
    """A reading of a variable that holds a script now (``None``: none does)."""
    for line in lines:
        if reading is not None:
            uses = list(reading.finditer(line.text))
            if uses:
                found += _hits_in_place(line, uses, values, folded, rules, probe, there)
        definition = grammar.definition.match(line.text) if "=" in line.text else None
        if definition is not None:
            name = definition.group(1)
            key = name.lower() if folded else name
            equals = line.text.index("=", definition.end(1))
            value = _value(line.text, equals + 1, dialect)
            values[key] = value if value is not None and _SCRIPT.search(value) else None
            scripts = [re.escape(name) for name, value in values.items() if value is not None]
            reading = grammar.reading("|".join(scripts)) if scripts else None
    return found


def _hits_in_place(
    line: TextLine,
    uses: list[re.Match[str]],
    values: dict[str, str | None],
    folded: bool,
    rules: Sequence[TextRule],
    probe: Probe,
    there: set[tuple[int, str]],
) -> list[Hit]:
    """The new hits of ``rules`` on ``line`` read with each of ``uses`` replaced by its value."""
    pieces: list[str] = []
    spans: list[tuple[int, int, int, int]] = []
    """Each use: its span in the line, and its value's span in the text read."""
    cursor = 0
    length = 0
    for use in uses:
        name = use.group(1) or use.group(2)
        value = values[name.lower() if folded else name] or ""
        pieces.append(line.text[cursor : use.start()])
        length += use.start() - cursor
        spans.append((use.start(), use.end(), length, length + len(value)))
        pieces.append(value)
        length += len(value)
        cursor = use.end()
    pieces.append(line.text[cursor:])
    expanded = TextLine(line.line, "".join(pieces), 0)
    new: list[Hit] = []
    for hit in text_hits([expanded], rules, probe):
        start, end = hit.column, hit.end_column
        inside = [s for s in spans if s[2] < end and start < s[3]]
        if not inside or (line.line, hit.rule_id) in there:
            continue  # NOTE: a match of the line's own words is already among the hits
        first, last = inside[0], inside[-1]
        column = line.column + min(first[0], _back(start, spans))
        end_column = line.column + max(last[1], _back(end, spans))
        symbol = line.text[column - line.column : end_column - line.column]
        there.add((line.line, hit.rule_id))
        new.append(Hit(hit.rule_id, symbol, line.line, column, line.line, end_column))
    return new


def _back(offset: int, spans: list[tuple[int, int, int, int]]) -> int:
    """Where ``offset`` of the text read lies in the line (outside every value)."""
    shift = 0
    for start, end, value_start, value_end in spans:
        if offset < value_start:
            break
        if offset < value_end:
            return start
        shift = end - value_end
    return offset + shift
