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
import sys
from dataclasses import dataclass

from ipex_doctor.errors import DoctorError
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


def read_input(text: str | None, file_path: str | None) -> str:
    """The text to explain: the argument, ``--file PATH``, or standard input (``-``).

    Raises ``DoctorError`` (exit 2) for no input, both forms at once, or an empty text.
    """
    if text is not None and file_path is not None:
        raise DoctorError("give the text or --file, not both")
    source = file_path if file_path is not None else ("-" if text in (None, "-") else None)
    if source == "-":
        if sys.stdin.isatty() and text is None:
            raise DoctorError("paste the error as an argument, with --file PATH, or pipe it in")
        text = sys.stdin.read(MAX_INPUT_CHARS * 2)
    elif source is not None:
        try:
            with open(source, encoding="utf-8", errors="replace") as handle:
                text = handle.read(MAX_INPUT_CHARS * 2)
        except OSError as exc:
            raise DoctorError(f"--file {source}: cannot read: {exc.strerror}") from None
    assert text is not None
    if not text.strip():
        where = "the text" if source is None else ("standard input" if source == "-" else source)
        raise DoctorError(f"{where} is empty: give the error message or traceback to explain")
    return text
