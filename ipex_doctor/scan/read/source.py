"""A file's text as the scan reports it: decoding, lines as Python counts them, columns.

Lines are 1-based and split at ``\\r\\n``, ``\\r`` and ``\\n`` only (as Python's tokenizer and
``ast`` count them; ``str.splitlines`` would also split at form feeds and Unicode separators
and disagree with ``ast``). Columns are 0-based and count characters (code points), as LibCST
does: ``ast`` reports UTF-8 byte offsets, which ``char_column`` converts.
"""

from __future__ import annotations

import ast
import codecs
import io
import re
import tokenize
import warnings
from collections.abc import Sequence
from typing import NamedTuple

from ipex_doctor.model.code import CodeLocation, CodeMatch
from ipex_doctor.scan.read.suppressions import suppression

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Hit(NamedTuple):
    """A rule matched at a span of one source part (a file, or one notebook cell)."""

    rule_id: str
    symbol: str
    line: int
    column: int
    """Characters from the start of ``line``."""
    end_line: int
    end_column: int
    part: int = 0
    """Which part of the file: 0, or a notebook's 1-based cell."""
    mechanical: bool = False
    """``scan --fix`` rewrites this place (``fixable``)."""
    guard: str = ""
    """The probe or handler under which this place runs only where IPEX is, or ``""``."""
    assigned_at: int = 0
    """The line of this part where the file's own assignment sets the name this place reads,
    in a statement that has run by the time it is read (``matches``); 0: none."""
    rewritten_for: str = ""
    """The rule whose fix rewrites this line though this rule's does not (``CodeMatch``)."""
    set_at: int = 0
    """A flag's read: the line of this part whose assignment makes it a probe's answer
    (``CodeMatch.set_at``); 0: none."""
    embedded: bool = False
    """In Python that a shell command runs (``CodeMatch.embedded``)."""


class TextLine(NamedTuple):
    """A line (or the shell command in a line) that ``text`` rules read."""

    line: int
    text: str
    column: int = 0
    """Where ``text`` starts in the source line (after a notebook's ``!``, for instance)."""
    context: str | None = None
    """What a rule's ``when`` and ``unless`` read when it is more than ``text``: the whole of a
    Python command list or joined string written over several lines, whose words decide what
    each line's string is (``None``: the text itself)."""


class Undecodable(ValueError):
    """A file whose bytes are not text in its encoding; the message says why, in one line."""


class Unparsable(ValueError):
    """Python source that ``ast`` cannot parse; the message says why, in one line."""


def split_lines(text: str) -> list[str]:
    """``text`` as lines without their line ends (line ``n`` is ``[n - 1]``)."""
    return _LINE_BREAK.split(text)


def decode_python(data: bytes) -> str:
    """A Python file's text: its PEP 263 coding cookie or BOM decides, UTF-8 otherwise."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise Undecodable(str(error.msg)) from error
    return _decode(data, encoding)


WIDE_BOM_STARTS = frozenset({codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, b"\0\0"})
"""The first two bytes of a UTF-16 or UTF-32 text's byte order mark (UTF-32's little-endian
mark starts as UTF-16's does, its big-endian one with two NULs): a file that starts otherwise
is UTF-8 for ``decode_text``, whatever else it holds."""
_WIDE_BOMS = (
    # NOTE: UTF-32 first: its little-endian mark (FF FE 00 00) starts with UTF-16's (FF FE)
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_text(data: bytes) -> str:
    """Any other file's text: UTF-8, with or without a BOM, or UTF-16 or UTF-32 where a BOM
    says so (as Windows PowerShell's ISE and ``>`` save text). Which kinds may be wide text is
    the caller's decision (``kinds.decodes_wide``): the NUL bytes of wide text keep a file of
    another kind out as binary before it is decoded."""
    if data[:2] in WIDE_BOM_STARTS:
        for bom, encoding in _WIDE_BOMS:
            if data.startswith(bom):
                # NOTE: the codec reads the mark for the byte order and drops it
                return _decode(data, encoding)
    return _decode(data, "utf-8-sig")


def _decode(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise Undecodable(
            f"not valid {codecs.lookup(error.encoding).name} text "
            f"(byte 0x{data[error.start]:02x} at offset {error.start})"
        ) from error
    except LookupError as error:
        raise Undecodable(f"unknown encoding {encoding!r}") from error


def parse_python(text: str) -> ast.Module:
    """``text`` parsed by this interpreter's ``ast``; ``Unparsable`` when it is not Python 3
    (Python 2, a syntax error, nesting deeper than the parser allows)."""
    try:
        with warnings.catch_warnings():
            # NOTE: ast warns on stderr about invalid escapes and the like: not the user's
            # problem here, and a scan's output is its report.
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except SyntaxError as error:
        where = f" at line {error.lineno}" if error.lineno else ""
        raise Unparsable(f"does not parse as Python 3: {error.msg}{where}") from error
    except (ValueError, RecursionError, MemoryError) as error:
        raise Unparsable(f"does not parse as Python 3: {error}") from error


def escaped(text: str, at: int) -> bool:
    """Whether the character at ``at`` follows an odd run of backslashes (a backslash escapes
    it, in Python source and in shell quotes alike)."""
    run = 0
    while at - run - 1 >= 0 and text[at - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def byte_column(line: str, char_column: int) -> int:
    """The UTF-8 byte offset of character column ``char_column`` in ``line``."""
    if line.isascii():
        return char_column
    return len(line[:char_column].encode("utf-8"))


def char_column(line: str, byte_column: int) -> int:
    """The character column of UTF-8 byte offset ``byte_column`` in ``line``."""
    if line.isascii():
        return byte_column
    return len(line.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))


def to_match(hit: Hit, path: str, lines: Sequence[str]) -> CodeMatch:
    """``hit`` as a ``CodeMatch`` of the file at ``path`` (``lines`` are the hit's part), with
    the inline suppression that applies to it."""
    snippet = lines[hit.line - 1] if 0 < hit.line <= len(lines) else ""
    same_line = hit.end_line == hit.line
    return CodeMatch(
        rule_id=hit.rule_id,
        location=CodeLocation(
            path=path,
            line=hit.line,
            column=hit.column,
            end_line=0 if same_line else hit.end_line,
            end_column=hit.end_column,
            cell=hit.part or None,
        ),
        symbol=hit.symbol,
        snippet=snippet,
        suppressed=suppression(lines, hit.line, hit.rule_id),
        mechanical=hit.mechanical,
        guard=hit.guard or None,
        assigned_at=hit.assigned_at or None,
        rewritten_for=hit.rewritten_for or None,
        set_at=hit.set_at or None,
        embedded=hit.embedded,
    )
