"""``Wording``: a regular expression over an error text, as the knowledge base writes one.

Compiled when first searched, not when the knowledge base loads: the shipped knowledge base
holds about 170 of them (symptoms, hints, a layer's words, the stack's), ``re`` takes about
10 ms to compile them all, and ``kb list``, ``kb show`` and ``repro --list`` never search.

A search first asks whether the text holds the literals every match must (``regex_literals``):
``explain`` tries some 800 of them on one text, and a case-insensitive regex cannot skip ahead
to a literal the way a case-sensitive one does, so on a long log (a CI job's last megabyte)
each search read the whole text, 17 ms apiece. A text without the literals cannot match; the
regex then never runs (nor is compiled).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_FOLDED_TO_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
"""The characters that ``re``'s case-insensitive matching takes for an ASCII letter while
``str.lower`` keeps them apart: the dotless i and the long s, and the dotted capital I (which
it lowers to two characters, an i and a combining dot). Every other character's ``lower`` is
what ``re`` folds it to."""


@dataclass(frozen=True)
class Wording:
    """A case-insensitive regular expression (validated where the document was loaded)."""

    pattern: str

    def search(self, text: str) -> re.Match[str] | None:
        """The first match of the expression in ``text``, or ``None``."""
        needed = _literals(self.pattern)
        if needed is not None:
            folded = _folded(text)
            if not any(all(literal in folded for literal in words) for words in needed):
                return None
        return _compiled(self.pattern).search(text)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    # NOTE: re keeps its own cache too, but only of 512 entries shared with every other
    # caller; this one keeps each expression compiled once for the life of the process.
    return re.compile(pattern, re.IGNORECASE)


@functools.cache
def _literals(pattern: str) -> tuple[tuple[str, ...], ...] | None:
    """Lower-case literals of which every match holds all of one alternative (``None``: no
    such literals could be read, the regex decides alone)."""
    # NOTE: imported here: kb list and kb show load every Wording and never search one
    from ipex_doctor.regex_literals import required_literals

    found = required_literals("(?i)" + pattern)
    return None if found is None else found.alternatives


@functools.lru_cache(maxsize=4)
def _folded(text: str) -> str:
    """``text`` lower-cased as ``re`` folds it, once for all the searches of one text."""
    if not text.isascii() and any(c in text for c in "\u0130\u0131\u017f"):
        text = text.translate(_FOLDED_TO_ASCII)
    return text.lower()
