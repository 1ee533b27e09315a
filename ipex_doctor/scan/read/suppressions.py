"""Inline suppression: ``# ipex-doctor: ignore[RULE-ID] reason`` (or ``ignore[A, B] reason``).

It applies to a match of one of the named rules on the same line (a trailing comment) or on
the next line (a comment alone on its line, so a trailing comment never reaches past its own
statement). The reason is the rest of the comment, leading dashes or a colon dropped; without
one the match is suppressed with ``NO_REASON``, so a report still says that nobody gave one.
The same comment works in every file kind with ``#`` comments (requirements, shell,
Dockerfile, YAML, TOML, setup.cfg) and in notebook cells. The rule ids are matched exactly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

NO_REASON = "no reason given"

_MARKER = "ipex-doctor"
_COMMENT = re.compile(r"#\s*ipex-doctor:\s*ignore\[([^\]]*)\](.*)")
_REASON_LEAD = " \t-:\u2013\u2014"
"""Spaces, dashes (hyphen, en, em) and a colon that may separate the reason from the ids."""


def suppression(lines: Sequence[str], line: int, rule_id: str) -> str | None:
    """The reason given for ignoring ``rule_id`` at 1-based ``line`` of ``lines``, or ``None``
    when no suppression comment names it there."""
    for number, alone in ((line, False), (line - 1, True)):
        if not 0 < number <= len(lines):
            continue
        text = lines[number - 1]
        if _MARKER not in text:
            continue  # NOTE: the regex runs only on the rare lines that name the tool
        comment = _COMMENT.search(text)
        if comment is None or (alone and not text.lstrip().startswith("#")):
            continue
        if rule_id in {part.strip() for part in comment.group(1).split(",")}:
            return comment.group(2).strip().lstrip(_REASON_LEAD).strip() or NO_REASON
    return None
