"""Where the top-level statements of Python source begin and end, found lexically: strings,
comments, brackets and line continuations are followed as Python 3's tokenizer follows them,
nothing is parsed and nothing is built but the spans.

``top_level(text)`` gives one ``Statement`` per top-level statement (statements that share a
line, ``a; b``, are one; a decorated definition is one with its decorators): its start is the
first character of its first line (always column 0), its end is just past the line break that
ends its last logical line (or the end of the text). Between two statements, and before the
first and after the last, lie only blank lines and comment lines (a "gap"). ``None`` when the
text cannot be split with confidence: an unterminated string, unbalanced brackets, an indented
line before any statement. A line that starts with whitespace (a form feed included) never
starts a statement: it continues the statement before it, so a doubt merges two statements
into one span and never cuts one in two.

Hand-written rather than with the standard library's ``tokenize`` because ``scan --fix`` of a
10 MiB file has a budget of seconds: ``tokenize`` yields every token of the file as a Python
object (about 10 s for 10 MiB on a 2-core machine), while the spans need only the quotes,
brackets, comments and line breaks, which ``str.find`` and one regular expression reach in
C. The tokenizer's rules followed are those of Python 3.11 (before PEP 701, an f-string is
one string token).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ipex_doctor.scan.read.source import escaped


class Statement(NamedTuple):
    """One top-level statement: ``text[start:end]``, and whether an indented block of it
    starts with an indented line (the file's first such line is the indent LibCST writes new
    blocks with)."""

    start: int
    end: int
    indented: bool = False


_EVENT = re.compile(r"[\"'#\\()\[\]{}\r\n]")
"""Everything that changes the lexical state within a line."""
_LINE_START = re.compile(r"(?P<gap>[ \t\f]*(?:#[^\r\n]*)?(?:\r\n|\r|\n|\Z))|(?P<indent>[ \t\f])")
"""At a line start: a blank or comment-only line (a gap), or an indented line."""
_CLAUSE = re.compile(r"(?:else|elif|except|finally)(?![\w])")
"""The keywords that continue a compound statement at column 0."""
_OPENING = "([{"
_CLOSING = ")]}"


class _Unsplittable(ValueError):
    """The text cannot be split with confidence."""


def top_level(text: str) -> list[Statement] | None:
    """The top-level statements of ``text`` in order (see the module), or ``None``."""
    try:
        return _split(text)
    except _Unsplittable:
        return None


def _split(text: str) -> list[Statement]:
    statements: list[Statement] = []
    start = -1
    """Where the statement being read began (-1: none yet)."""
    end = 0
    """Just past the last logical line read."""
    indented = seen_indent = after_decorator = False
    pos = 0
    size = len(text)
    while pos < size:
        line = _LINE_START.match(text, pos)
        if line is not None and line.group("gap") is not None:
            pos = line.end()
            continue
        if line is not None:  # an indented line: the block of the statement being read
            if start < 0:
                raise _Unsplittable("an indented line before any statement")
            if not seen_indent:
                indented = seen_indent = True
        elif start < 0:
            start = pos
        elif not after_decorator and _CLAUSE.match(text, pos) is None:
            statements.append(Statement(start, end, indented))
            start, indented = pos, False
        after_decorator = line is None and text.startswith("@", pos)
        pos = end = _logical_line_end(text, pos)
    if start >= 0:
        statements.append(Statement(start, end, indented))
    return statements


def _logical_line_end(text: str, pos: int) -> int:
    """Just past the line break that ends the logical line starting at ``pos`` (or the end of
    the text), following strings, comments, brackets and backslash continuations."""
    depth = 0
    while True:
        found = _EVENT.search(text, pos)
        if found is None:
            if depth:
                raise _Unsplittable("unbalanced brackets")
            return len(text)
        char = found.group(0)
        pos = found.end()
        if char in "\r\n":
            if char == "\r" and text.startswith("\n", pos):
                pos += 1
            if not depth:
                return pos
        elif char == "#":
            newline = _EVENT_NEWLINE.search(text, pos)
            pos = newline.start() if newline is not None else len(text)
        elif char == "\\":
            pos = _past_line_break(text, pos) if text.startswith(("\r", "\n"), pos) else pos + 1
        elif char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
            if depth < 0:
                raise _Unsplittable("unbalanced brackets")
        else:
            pos = _string_end(text, found.start(), char)


_EVENT_NEWLINE = re.compile(r"[\r\n]")
_SHORT_STRING = {quote: re.compile(rf"[\\{quote}\r\n]") for quote in "\"'"}


def _past_line_break(text: str, pos: int) -> int:
    return pos + 2 if text.startswith("\r\n", pos) else pos + 1


def _string_end(text: str, quote_at: int, quote: str) -> int:
    """Just past the string literal whose opening quote is at ``quote_at`` (its prefix, if
    any, was read as part of the line: it changes nothing lexically, since a backslash escapes
    the next character in a raw string too, as far as where the string ends)."""
    if text.startswith(quote * 3, quote_at):
        closing = quote * 3
        pos = quote_at + 3
        while True:
            found = text.find(closing, pos)
            if found < 0:
                raise _Unsplittable("an unterminated string")
            if escaped(text, found):
                pos = found + 1
                continue
            return found + 3
    pattern = _SHORT_STRING[quote]
    pos = quote_at + 1
    while True:
        event = pattern.search(text, pos)
        if event is None or event.group(0) in "\r\n":
            raise _Unsplittable("an unterminated string")
        if event.group(0) == "\\":
            pos = event.end()
            pos = _past_line_break(text, pos) if text.startswith(("\r", "\n"), pos) else pos + 1
            continue
        return event.end()
