"""``Wording``: a regular expression over an error text, as the knowledge base writes one.

Compiled when first searched, not when the knowledge base loads: the shipped knowledge base
holds about 170 of them (symptoms, hints, a layer's words, the stack's), ``re`` takes about
10 ms to compile them all, and ``kb list``, ``kb show`` and ``repro --list`` never search.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Wording:
    """A case-insensitive regular expression (validated where the document was loaded)."""

    pattern: str

    def search(self, text: str) -> re.Match[str] | None:
        """The first match of the expression in ``text``, or ``None``."""
        return _compiled(self.pattern).search(text)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    # NOTE: re keeps its own cache too, but only of 512 entries shared with every other
    # caller; this one keeps each expression compiled once for the life of the process.
    return re.compile(pattern, re.IGNORECASE)
