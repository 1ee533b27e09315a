"""Python source written back byte for byte around ``scan --fix``'s rewrites.

LibCST is given the source with every line ending as ``\\n`` (``lf_text``: Python reads
``\\r\\n`` and ``\\r`` as ``\\n`` too, so the program is the same), and what it gives back is
laid over the original lines (``trace``): a line LibCST did not change is written back as the
original line, with its own ending (LF, CRLF or CR), form feeds and trailing whitespace; only a
rewritten line is LibCST's, with the ending of the original line it replaces. So nothing
outside the rewritten lines depends on how LibCST prints what it did not touch: it does not
round-trip everything (a final ``\\r``, a form feed before a statement, a space before an
``except`` clause's colon are lost in its output).

Lines are those of Python's tokenizer (``\\r\\n``, ``\\r``, ``\\n``), never ``str.splitlines``,
which also breaks at a form feed, ``\\x1c`` to ``\\x1e``, ``\\x85`` and the Unicode separators.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import libcst as cst

from ipex_doctor.scan.fix.rewrite import WHOLE_FILE, FixOutcome, Refusal, fix_source

Line = tuple[str, str]
"""One line: its text and its ending (``"\\n"``, ``"\\r\\n"``, ``"\\r"``, or ``""`` for a last line
without one)."""

_BREAK = re.compile(r"\r\n|\r|\n")

NOT_LINE_FOR_LINE = (
    "not fixed: LibCST does not give this file back line for line, so the lines around the "
    "rewrites could change; rewrite it by hand"
)


def split_lines(text: str) -> list[Line]:
    """``text`` as Python's tokenizer breaks it into lines, each with its ending."""
    lines: list[Line] = []
    start = 0
    for found in _BREAK.finditer(text):
        lines.append((text[start : found.start()], found.group()))
        start = found.end()
    if start < len(text):
        lines.append((text[start:], ""))
    return lines


def join_lines(lines: Sequence[Line]) -> str:
    """The text of ``lines``, each with its own ending."""
    return "".join(text + ending for text, ending in lines)


def lf_text(lines: Sequence[Line]) -> str:
    """The text of ``lines`` with every ending written ``\\n`` (a missing last one stays missing)."""
    return "".join(text + ("\n" if ending else "") for text, ending in lines)


@dataclass(frozen=True)
class Traced:
    """A fixed text laid over the original lines."""

    lines: tuple[Line, ...]
    """The lines to write back."""
    origins: tuple[int | None, ...]
    """For each line, the index of the original line it is (``None``: a rewritten line)."""


def trace(original: Sequence[Line], roundtrip: str, fixed: str) -> Traced | None:
    """``fixed`` (LibCST's output for ``lf_text(original)`` after the rewrites) laid over
    ``original`` (see the module docstring).

    ``roundtrip`` is LibCST's output for the same text without any rewrite. ``fixed`` is
    compared with it, so a line LibCST prints otherwise without changing it counts as
    unchanged, and it tells which original line each printed line is: LibCST may print a
    line's whitespace otherwise or drop a line of whitespace alone (the last one, one beside a
    page break), which is then written back where it was. ``None`` when the two cannot be
    told apart line for line: no line could then be placed with certainty."""
    printed = [text for text, _ in split_lines(roundtrip)]
    sources = _sources(original, printed)
    if sources is None:
        return None
    new = [text for text, _ in split_lines(fixed)]
    printed_back = set(sources)
    lines: list[Line] = []
    origins: list[int | None] = []
    placed = -1

    def catch_up(upto: int) -> None:
        """Write back the lines LibCST dropped before original line ``upto``."""
        for index in range(placed + 1, upto):
            if index not in printed_back:
                lines.append(original[index])
                origins.append(index)

    for tag, i1, i2, j1, j2 in _opcodes(printed, new):
        for k in range(j2 - j1):
            if tag == "equal":
                source = sources[i1 + k]
                catch_up(source)
                lines.append(original[source])
                origins.append(source)
                placed = source
                continue
            # NOTE: a rewritten line takes the ending of the line it replaces, an inserted
            # one that of the line above it.
            at = sources[min(i1 + k, i2 - 1)] if i2 > i1 else (sources[i1 - 1] if i1 else -1)
            lines.append((new[j1 + k], original[at][1] if at >= 0 else ""))
            origins.append(None)
    catch_up(len(original))
    _end_lines(lines, original)
    return Traced(tuple(lines), tuple(origins))


def _sources(original: Sequence[Line], printed: Sequence[str]) -> list[int] | None:
    """For each line LibCST printed, the index of the original line it is; ``None`` when
    they cannot be matched line for line (an original line with more than whitespace is
    missing, or the print has lines of its own).

    Lines are matched by their text without whitespace: what LibCST prints otherwise is
    whitespace (a form feed before a statement, a space before a colon), and a line of
    whitespace alone it may drop."""
    keys = ["".join(text.split()) for text, _ in original]
    sources: list[int] = []
    for tag, i1, i2, j1, j2 in _opcodes(keys, ["".join(text.split()) for text in printed]):
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            sources.extend(range(i1, i2))
        elif tag != "delete" or any(keys[i1:i2]):
            return None
    return sources


def _end_lines(lines: list[Line], original: Sequence[Line]) -> None:
    """Every line but the last ends (with the original's first ending, where a line that
    had none is no longer last); the last ends as the original's last did."""
    usual = next((ending for _, ending in original if ending), "\n")
    for index, (text, ending) in enumerate(lines[:-1]):
        if not ending:
            lines[index] = (text, usual)
    if lines and original:
        text, ending = lines[-1]
        last = original[-1][1]
        lines[-1] = (text, last if not last or not ending else ending)


_REFINE_LIMIT = 4_000_000
"""The largest block (lines before times lines after) matched again exactly (``_opcodes``)."""


def _opcodes(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """``difflib``'s opcodes from ``a`` to ``b``, equal lines matched exactly.

    The first pass uses difflib's heuristic for popular lines (blank lines, ``pass``): it
    never lets them seed a match, which keeps a 50,000-line file fast but can leave unchanged
    lines inside a changed block; so every changed block is matched again without it (they
    are small)."""
    result: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes():
        if tag == "equal" or (i2 - i1) * (j2 - j1) > _REFINE_LIMIT or i1 == i2 or j1 == j2:
            result.append((tag, i1, i2, j1, j2))
            continue
        inner = difflib.SequenceMatcher(None, a[i1:i2], b[j1:j2], autojunk=False)
        result.extend(
            (t, i1 + x1, i1 + x2, j1 + y1, j1 + y2) for t, x1, x2, y1, y2 in inner.get_opcodes()
        )
    return result


def fix_python(text: str, fix_ids: Collection[str]) -> FixOutcome:
    """``fix_source`` on ``text`` (Python source without its byte-order mark), everything
    outside the rewritten lines kept byte for byte (see the module docstring). Records count
    lines as ``text`` does."""
    lines = split_lines(text)
    normalised = lf_text(lines)
    outcome = fix_source(normalised, fix_ids)
    if not outcome.changed:
        return replace(outcome, source=text)
    traced = trace(lines, cst.parse_module(normalised).code, outcome.source)
    if traced is None:
        refusal = Refusal(WHOLE_FILE, 1, NOT_LINE_FOR_LINE)
        return FixOutcome(text, refusals=(*outcome.refusals, refusal))
    return replace(outcome, source=join_lines(traced.lines))
