"""Python source written back byte for byte around ``scan --fix``'s rewrites.

LibCST is given the source with every line ending as ``\\n`` (``lf_text``: Python reads
``\\r\\n`` and ``\\r`` as ``\\n`` too, so the program is the same), and what it gives back is
laid over the original lines (``trace``): a line LibCST did not change is written back as the
original line, with its own ending (LF, CRLF or CR), form feeds and trailing whitespace; only a
rewritten line is LibCST's, with the ending of the original line it replaces. So nothing
outside the rewritten lines depends on how LibCST prints what it did not touch: it does not
round-trip everything (a final ``\\r``, a form feed before a statement, a space before an
``except`` clause's colon are lost in its output).

An outcome of the splices (``fix_source_in_place``) is laid over the original lines without
LibCST (``lay_in_place``): it keeps every line where it was, and each line it rewrote is
already the line LibCST prints, so matching lines through LibCST's print of the text could
only find the same places (a test holds the two lay-overs to each other).

Lines are those of Python's tokenizer (``\\r\\n``, ``\\r``, ``\\n``), never ``str.splitlines``,
which also breaks at a form feed, ``\\x1c`` to ``\\x1e``, ``\\x85`` and the Unicode separators.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import libcst as cst
from patiencediff import PatienceSequenceMatcher

from ipex_doctor.scan.fix.rewrite import (
    WHOLE_FILE,
    FixOutcome,
    Refusal,
    fix_source_in_place,
    fix_with_libcst,
)
from ipex_doctor.scan.read.top_level import top_level

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
    """``difflib``-style opcodes from ``a`` to ``b``, equal lines matched exactly.

    The first pass is a patience diff: it anchors on lines that occur once in both, so it
    stays near linear where every statement changed (difflib's matcher, which picks the
    longest match and recurses on both sides, is quadratic there: a dense 0.25 MiB module
    spent most of its ``--fix`` in it), but it can leave unchanged lines inside a changed
    block; so every changed block is matched again with difflib, without its heuristic for
    popular lines (the blocks are small)."""
    result: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in PatienceSequenceMatcher(None, a, b).get_opcodes():
        if tag == "equal" or (i2 - i1) * (j2 - j1) > _REFINE_LIMIT or i1 == i2 or j1 == j2:
            result.append((tag, i1, i2, j1, j2))
            continue
        inner = difflib.SequenceMatcher(None, a[i1:i2], b[j1:j2], autojunk=False)
        result.extend(
            (t, i1 + x1, i1 + x2, j1 + y1, j1 + y2) for t, x1, x2, y1, y2 in inner.get_opcodes()
        )
    return result


REGION_LINES = 2_000
"""Regions that only touch (one ends where the next begins) are traced apart once the first
holds this many lines: where every statement is rewritten (generated code), they would
otherwise make one region of the whole module, a LibCST tree of all of it (``fix.chunks``
keeps ``fix_source`` from needing one). Two touching regions share no line, so tracing them
apart places every line as tracing them together does (a test holds the two together)."""


def fix_python(
    text: str,
    fix_ids: Collection[str],
    region_lines: int = REGION_LINES,
    *,
    splice: bool = True,
) -> FixOutcome:
    """``fix_source`` on ``text`` (Python source without its byte-order mark), everything
    outside the rewritten lines kept byte for byte (see the module docstring). Records count
    lines as ``text`` does.

    An outcome of the splices is laid over the original lines as it stands
    (``lay_in_place``). Any other is traced through LibCST one changed place at a time, over
    the top-level statements around it (``lay_with_libcst``). ``splice=False``: LibCST
    wherever ``fix_source`` would splice (``fix_with_libcst``), the reference the splices are
    held to."""
    # NOTE: a text without ``\r`` is its own ``lf_text``; splitting 10 MiB into lines costs a
    # second of CPU time, which only a text with other line endings (or LibCST's trace) needs.
    normalised = text if "\r" not in text else lf_text(split_lines(text))
    if splice:
        outcome, in_place = fix_source_in_place(normalised, fix_ids)
    else:
        outcome, in_place = fix_with_libcst(normalised, fix_ids), False
    if not outcome.changed:
        return replace(outcome, source=text)
    laid = lay_in_place(text, outcome) if in_place else None
    return laid or lay_with_libcst(text, outcome, region_lines)


def lay_in_place(text: str, outcome: FixOutcome) -> FixOutcome | None:
    """``outcome`` (of ``fix_source_in_place`` on ``text`` with every line ending written
    ``\\n``, the splices having answered) laid over the lines of ``text``: a line whose text
    did not change is the original line, with its own ending; a rewritten line is the
    outcome's, with the ending of the original line it replaces. ``None`` when the outcome
    does not keep every line in place (the splices never give such an outcome:
    ``lay_with_libcst`` then traces it).

    This is what ``lay_with_libcst`` writes for such an outcome, without LibCST's parse and
    print of every changed statement (half the CPU time of a ``scan --fix`` where every
    statement is rewritten): LibCST's print of the text may differ from it only in
    whitespace (a space before a colon, a line of whitespace alone), never in where a line
    is, so tracing through it places each unchanged line on itself; and each rewritten line
    is already LibCST's print of it (``fix.splice``)."""
    new = outcome.source
    if "\r" not in text and "\r" not in new:
        # NOTE: every line ends with ``\n`` but a last one without an ending, in both: the
        # same count of ``\n`` and the same last line's ending make the outcome its own
        # lay-over (what the loop below gives, without a tuple a line).
        same = new.count("\n") == text.count("\n") and new.endswith("\n") == text.endswith("\n")
        return replace(outcome, changed=new != text) if same else None
    lines = split_lines(text)
    fixed = [line for line, _ in split_lines(new)]
    if len(fixed) != len(lines):
        return None
    written = [
        line if line[0] == rewritten else (rewritten, line[1])
        for line, rewritten in zip(lines, fixed, strict=True)
    ]
    source = join_lines(written)
    return replace(outcome, source=source, changed=source != text)


def lay_with_libcst(text: str, outcome: FixOutcome, region_lines: int = REGION_LINES) -> FixOutcome:
    """``outcome`` (of ``fix_source`` on ``text`` with every line ending written ``\\n``) laid
    over the lines of ``text`` by ``trace``, each changed place on its own, over the
    top-level statements around it (``changed_regions``); the lines between are the
    original's, as ``fix_source`` left them. So a 10 MiB module with a rewrite near each end
    costs a few statements, not a LibCST tree of the whole module. A refusal of the whole file
    where LibCST cannot read the statements around a change, or cannot be traced line for
    line."""
    lines = split_lines(text)
    normalised = lf_text(lines)
    fixed = split_lines(outcome.source)
    written: list[Line] = []
    done = 0
    regions = changed_regions(normalised, split_lines(normalised), fixed, region_lines)
    for first, last, start, end in regions:
        region = lines[first:last]
        try:
            roundtrip = cst.parse_module(lf_text(region)).code
        except (cst.ParserSyntaxError, RecursionError):
            refusal = Refusal(WHOLE_FILE, first + 1, NOT_READABLE_AROUND)
            return FixOutcome(text, refusals=(*outcome.refusals, refusal))
        traced = trace(region, roundtrip, join_lines(fixed[start:end]))
        if traced is None:
            refusal = Refusal(WHOLE_FILE, 1, NOT_LINE_FOR_LINE)
            return FixOutcome(text, refusals=(*outcome.refusals, refusal))
        written += lines[done:first]
        written += traced.lines
        done = last
    written += lines[done:]
    source = join_lines(written)
    # NOTE: LibCST's print may differ from the text where nothing was rewritten (``except E :``
    # loses its space); laid over the original lines, that is no change, and no write.
    return replace(outcome, source=source, changed=source != text)


NOT_READABLE_AROUND = (
    "not fixed: LibCST cannot read the statements around the rewrites (a syntax error there?), "
    "so the lines around them could not be kept as they are; rewrite it by hand"
)


def changed_regions(
    normalised: str,
    before: Sequence[Line],
    after: Sequence[Line],
    region_lines: int = REGION_LINES,
) -> list[tuple[int, int, int, int]]:
    """Where ``after`` differs from ``before`` (the lines of ``normalised``), as ``(first,
    last, start, end)``: ``before[first:last]`` became ``after[start:end]``, and the lines
    between two regions are the same in both.

    A region is whole top-level statements, from the end of one to the end of another, so a
    statement's leading comments go with it; a change in the lines between two statements
    takes both (LibCST gives such lines to the one before, as a block's footer, or to the
    one after). Two regions that only touch are one, unless the first holds ``region_lines``
    lines or more. The whole text when it cannot be split into statements (``top_level``)."""
    spans = _statement_lines(normalised, len(before))
    keys = [text + ending for text, ending in before]
    if spans is None:
        return [(0, len(before), 0, len(after))]
    starts = [first for first, _ in spans]
    changes = [
        op for op in _opcodes(keys, [text + ending for text, ending in after]) if op[0] != "equal"
    ]
    widened: list[list[int]] = []
    for _, i1, i2, _, _ in changes:
        low, high = (i1, i2 - 1) if i2 > i1 else (max(i1 - 1, 0), i1)
        first, last = _around(low, high, spans, starts, len(before))
        if widened and (
            first < widened[-1][1]
            or (first == widened[-1][1] and widened[-1][1] - widened[-1][0] < region_lines)
        ):
            widened[-1][1] = max(widened[-1][1], last)
        else:
            widened.append([first, last])
    regions: list[tuple[int, int, int, int]] = []
    shift = 0
    for first, last in widened:
        inside = [op for op in changes if first <= op[1] and op[2] <= last]
        grown = sum((j2 - j1) - (i2 - i1) for _, i1, i2, j1, j2 in inside)
        regions.append((first, last, first + shift, last + shift + grown))
        shift += grown
    return regions


def _around(
    low: int, high: int, spans: Sequence[tuple[int, int]], starts: Sequence[int], size: int
) -> tuple[int, int]:
    """The region of whole statements around lines ``low`` to ``high`` (see
    ``changed_regions``)."""
    before = bisect.bisect_right(starts, low) - 1
    first = spans[before - 1][1] if before >= 1 else 0
    after = bisect.bisect_right(starts, high) - 1
    if after < 0:
        last = spans[0][1] if spans else size
    elif high < spans[after][1]:
        last = spans[after][1]
    else:
        last = spans[after + 1][1] if after + 1 < len(spans) else size
    return first, last


def _statement_lines(normalised: str, size: int) -> list[tuple[int, int]] | None:
    """Each top-level statement of ``normalised`` (``\\n`` line breaks, ``size`` lines) as
    the index of its first line and of the line after its last; ``None`` when the text
    cannot be split (``top_level``)."""
    statements = top_level(normalised)
    if statements is None:
        return None
    spans: list[tuple[int, int]] = []
    line = 0
    pos = 0
    for statement in statements:
        line += normalised.count("\n", pos, statement.start)
        first = line
        line += normalised.count("\n", statement.start, statement.end)
        pos = statement.end
        # NOTE: a last line without a line break is a line all the same
        spans.append((first, line if normalised.endswith("\n", 0, pos) else size))
    return spans
