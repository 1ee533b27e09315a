"""The part of a Python module that ``fix_source``'s codemods read, cut out and put back.

LibCST costs tens of microseconds per node, and a codemod's metadata (scopes, positions) and
traversal cover the whole module: a 10 MiB file of generated tables with three IPEX lines
would take many minutes. But a codemod reads only statements that spell certain names (its
targets and triggers, the names the module's imports bind, ``torch``...; ``Codemod.
relevant``). ``cut`` keeps every top-level statement that spells one of them, and every
import, and replaces each run of the others by one placeholder statement (``pass`` with a
comment no file holds), which binds, uses and says nothing. The codemods run on that slice,
and ``Slice.splice`` puts each run back, byte for byte, where its placeholder stands.

Why the outcome is the whole module's:

* every decision reads statements that are kept (a use of an import spells the name it
  binds; a rebinding spells it too; ``__all__``, ``globals()``, a ``"ccl"`` string are
  words as well; a statement with a backslash is kept while ``"ccl"`` strings matter, since
  an escape can spell one);
* a placeholder is a simple statement like the run it replaces, and no import, docstring or
  ``__future__`` import (those are kept), so where ``import torch`` is added does not move;
* LibCST gives the blank and comment lines between two statements to the first (a block's
  footer) or the second (its leading lines), and a removed import takes its leading lines with
  it: a run is cut only at a gap whose every line starts at column 0, where both readings give
  the lines to the statement after, as in the whole module;
* the first statement (a docstring; the file's first line sets LibCST's line ending), the
  last (the end of the file) and the statement with the file's first indented line (it sets
  the indent LibCST writes new blocks with) are always kept;
* what stays out is never parsed: a syntax error there stays as it was (the result parses
  wherever the original did).

The lines of records are those of the slice; ``Slice.line`` maps them to the original's.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from ipex_doctor.scan.read.top_level import Statement, top_level

Split = Callable[[], "list[Statement] | None"]
"""``top_level`` of one text, as ``split_once`` keeps it."""


def split_once(source: str) -> Split:
    """``top_level(source)``, split on the first call and kept: the slice and the splices
    read the same module's statements, and splitting a large one costs about 0.07 CPU seconds
    a MiB."""
    return functools.cache(lambda: top_level(source))


PLACEHOLDER = "pass  # "

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_INDENTED_GAP_LINE = re.compile(r"(?<![^\r\n])[ \t\f]")
_IMPORT = re.compile(r"(?<!\w)import(?!\w)")


@dataclass(frozen=True)
class Slice:
    """A module cut down to what the codemods read (see the module)."""

    text: str
    runs: tuple[str, ...]
    """The original text of each run left out, in order."""
    markers: tuple[str, ...]
    """The placeholder line (without its line break) that stands for each run."""
    slice_lines: tuple[int, ...]
    """Where each piece of the slice starts (1-based lines), in order..."""
    original_lines: tuple[int, ...]
    """... and where the same piece starts in the original."""

    def line(self, line: int) -> int:
        """The line of the original that line ``line`` of the slice is (a placeholder: the
        first line of its run)."""
        at = bisect.bisect_right(self.slice_lines, line) - 1
        if at < 0:
            return line
        return self.original_lines[at] + line - self.slice_lines[at]

    def outside(self, word: str) -> bool:
        """Whether ``word`` occurs in the text left out."""
        return any(word in run for run in self.runs)

    def splice(self, fixed: str) -> str | None:
        """``fixed`` (the slice after the codemods) with every run back in place of its
        placeholder; ``None`` when a placeholder is not found once, in order, on a line of
        its own (a codemod touched one: never expected)."""
        pieces: list[str] = []
        pos = 0
        for marker, run in zip(self.markers, self.runs, strict=True):
            at = fixed.find(marker, pos)
            if at < 0 or (at and fixed[at - 1] not in "\r\n"):
                return None
            end = at + len(marker)
            if fixed.startswith("\r\n", end):
                end += 2
            elif fixed.startswith(("\r", "\n"), end):
                end += 1
            else:
                return None
            pieces.append(fixed[pos:at])
            pieces.append(run)
            pos = end
        pieces.append(fixed[pos:])
        return "".join(pieces)


def cut(source: str, relevant: Collection[str], split: Split | None = None) -> Slice | None:
    """``source`` cut down to the top-level statements that spell one of ``relevant`` (a
    name, matched as a whole word, or any other text, matched anywhere), the names its
    imports bind, or an import; ``None`` when nothing would be left out, or when the source
    cannot be split with confidence (then the whole module is the slice). ``split``: its
    statements (``split_once``), when already split."""
    found = statement_groups(source, split)
    if found is None:
        return None
    groups, bound = found
    texts = [w for w in relevant if not w.isidentifier()]
    spelled = words_pattern((*relevant, *bound, "import"))
    keep = [
        index in (0, len(groups) - 1)
        or group.indented
        or spelled.search(source, group.start, group.end) is not None
        or any(source.find(text, group.start, group.end) >= 0 for text in texts)
        for index, group in enumerate(groups)
    ]
    if all(keep):
        return None
    return _build(source, groups, keep)


def statement_groups(
    source: str, split: Split | None = None
) -> tuple[list[Statement], set[str]] | None:
    """The top-level statements of ``source`` merged into the groups a cut may separate
    (``groups_of``), and the names its imports bind (``bound_names``); ``None`` when it
    cannot be split with confidence, has fewer than three statements, or an import does not
    parse. ``split``: its statements (``split_once``), when already split."""
    statements = top_level(source) if split is None else split()
    if statements is None or len(statements) < 3:
        return None
    groups = groups_of(source, statements)
    bound = bound_names(source, groups)
    return None if bound is None else (groups, bound)


def words_pattern(words: Iterable[str]) -> re.Pattern[str]:
    """A pattern that matches any of ``words`` that is a name, as a whole word."""
    names = sorted({w for w in words if w.isidentifier()}, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, names)) + r")(?!\w)")


def groups_of(source: str, statements: list[Statement]) -> list[Statement]:
    """``statements`` merged across every gap that has a line starting with whitespace (see
    the module: only a gap of column-0 lines is a safe cut)."""
    groups = [statements[0]]
    for statement in statements[1:]:
        last = groups[-1]
        if _INDENTED_GAP_LINE.search(source, last.end, statement.start) is not None:
            groups[-1] = Statement(last.start, statement.end, last.indented or statement.indented)
        else:
            groups.append(statement)
    return groups


def bound_names(source: str, groups: Iterable[Statement]) -> set[str] | None:
    """The names the module's imports bind, anywhere (read with ``ast`` from the statements
    that spell ``import``); ``None`` when one of those does not parse."""
    bound: set[str] = set()
    for group in groups:
        if _IMPORT.search(source, group.start, group.end) is None:
            continue
        try:
            tree = ast.parse(source[group.start : group.end])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                bound.update(a.asname or a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                bound.update(a.asname or a.name for a in node.names if a.name != "*")
    return bound


def _build(source: str, groups: list[Statement], keep: list[bool]) -> Slice:
    token = "ipex-doctor-slice-"
    while token in source:
        token += "x"
    pieces = [source[: groups[0].start]]
    runs: list[str] = []
    markers: list[str] = []
    slice_lines = [1]
    original_lines = [1]
    slice_line = original_line = 1 + _breaks(pieces[0])

    def piece(text: str, original: str) -> None:
        nonlocal slice_line, original_line
        slice_lines.append(slice_line)
        original_lines.append(original_line)
        pieces.append(text)
        slice_line += _breaks(text)
        original_line += _breaks(original)

    index = 0
    while index < len(groups):
        group = groups[index]
        if keep[index]:
            text = source[group.start : _next_start(source, groups, index)]
            piece(text, text)
            index += 1
            continue
        last = index
        while not keep[last + 1]:
            last += 1
        run = source[group.start : groups[last].end]
        marker = f"{PLACEHOLDER}{token}{len(runs)}."
        placeholder = marker + line_break_of_run(run)
        piece(placeholder, run)
        gap = source[groups[last].end : groups[last + 1].start]
        piece(gap, gap)
        runs.append(run)
        markers.append(marker)
        index = last + 1
    return Slice(
        "".join(pieces), tuple(runs), tuple(markers), tuple(slice_lines), tuple(original_lines)
    )


def line_break_of_run(run: str) -> str:
    """The line break a placeholder for ``run`` ends with: the one that ends the run."""
    line_break = _LINE_BREAK.search(run, len(run) - 2)
    return line_break.group(0) if line_break else "\n"


def _next_start(source: str, groups: list[Statement], index: int) -> int:
    return groups[index + 1].start if index + 1 < len(groups) else len(source)


def _breaks(text: str) -> int:
    return text.count("\n") + text.count("\r") - text.count("\r\n")


class Words:
    """What ``Codemod.may_apply`` asks of a text: whether it holds a word. The text of a slice
    holds what the slice holds and what the slice left out."""

    def __init__(self, text: str, outside: Callable[[str], bool]) -> None:
        self.text = text
        self.outside = outside

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and (word in self.text or self.outside(word))
