"""``explain``: find the knowledge-base entries whose symptoms match an error message.

Tracebacks arrive mangled: surrounded by other frames, wrapped by a terminal (sometimes in the
middle of a word), indented, with runs of spaces (IPEX 2.1.x prints its mismatch message with
line continuations), with Windows paths. The text is matched in two normalised forms (line
breaks as spaces, and line breaks removed), whitespace runs collapsed; each entry scores by the
length of what its symptoms matched, so the most specific entry comes first. Never imports
torch; the input is bounded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ipex_doctor.knowledge.kb import KnowledgeBase, KnownIssue

MAX_INPUT_CHARS = 1_000_000
"""Longer input is cut to its last MAX_INPUT_CHARS characters (an error is at the end)."""


@dataclass(frozen=True)
class Match:
    """One entry that matched, with what matched and how strongly."""

    issue: KnownIssue
    matched: tuple[str, ...]
    score: int


def _forms(text: str) -> tuple[str, ...]:
    text = text[-MAX_INPUT_CHARS:].replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.strip() for line in text.split("\n")]
    spaced = re.sub(r"[ \t]+", " ", " ".join(lines))
    # NOTE: a terminal wraps at a column, not at a space; joining the lines with nothing
    # rebuilds a word split across two lines.
    joined = re.sub(r"[ \t]+", " ", "".join(lines))
    return spaced, joined


def explain(text: str, kb: KnowledgeBase) -> list[Match]:
    """The entries whose symptoms occur in ``text``, best first."""
    forms = _forms(text)
    matches = []
    for issue in kb.issues:
        found: list[str] = []
        for pattern in issue.symptoms:
            for form in forms:
                hit = pattern.search(form)
                if hit is not None:
                    found.append(hit.group(0))
                    break
        if found:
            matches.append(
                Match(issue=issue, matched=tuple(found), score=sum(len(m) for m in found))
            )
    return sorted(matches, key=lambda m: (-m.score, m.issue.id))
