"""Text read from elsewhere (a path, a quoted line of code, a message from a file or a pasted
traceback) made safe to show in a human report: it can never drive the reader's terminal, hide
what it says, or break the report's format.

``shown`` writes every character of ``UNSAFE`` as a visible Python escape (``\\x1b``,
``\\u202e``, ``\\udcff``): the ANSI escape and the other C0 controls a terminal acts on (ESC
starts the sequences that recolour, move the cursor, clear the screen or set the window title),
DEL and the C1 controls (U+009B is a one-character CSI on some terminals), the Unicode controls
that reorder or hide text (the bidirectional overrides and isolates of "Trojan Source",
CVE-2021-42574, and the marks beside them), the surrogates a file name that is not UTF-8 is
read into (``surrogateescape``; they cannot be encoded and would stop the report) and the two
noncharacters XML 1.0 forbids (U+FFFE, U+FFFF). Line feed and tab are the report's own layout
and are kept; the five codes rich already drops from text it prints (bell, backspace, vertical
tab, form feed, carriage return) are left to it, so a report of ordinary text is unchanged, and
are escaped where no rich console prints (``shown_in_file``: JUnit XML, Markdown, HTML).

Nothing is dropped: an escape says which character was there. Light: ``re`` alone.
"""

from __future__ import annotations

import re

_TERMINAL = "\x00-\x06\x0e-\x1f\x7f-\x9f"
_DROPPED_BY_RICH = "\x07\x08\x0b\x0c\x0d"
_HIDING = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNENCODABLE = "\ud800-\udfff\ufffe\uffff"

UNSAFE = re.compile(f"[{_TERMINAL}{_HIDING}{_UNENCODABLE}]")
"""What ``shown`` escapes (a console's text, which rich or ``styled.plain_text`` prints)."""

UNSAFE_IN_FILE = re.compile(f"[{_TERMINAL}{_DROPPED_BY_RICH}{_HIDING}{_UNENCODABLE}]")
"""What ``shown_in_file`` escapes: also the codes rich would drop (no rich prints a file)."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text: str) -> str:
    """``text`` with every character of ``UNSAFE`` written as its Python escape; ``text``
    itself (the same object) where it holds none, which is nearly always."""
    return UNSAFE.sub(_escape, text) if UNSAFE.search(text) else text


def shown_in_file(text: str) -> str:
    """``text`` with every character of ``UNSAFE_IN_FILE`` written as its Python escape: for a
    whole rendered JUnit, Markdown or HTML report, whose own markup holds none of them (so the
    file parses as XML 1.0, and no viewer is handed a control or a reordering mark)."""
    return UNSAFE_IN_FILE.sub(_escape, text) if UNSAFE_IN_FILE.search(text) else text
