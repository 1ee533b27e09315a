"""Literals that every match of a regular expression contains: the prefilter of the scan's
``text`` rules and of ``explain``'s wording.

``required_literals(r"intel[-_]extension[-_]for[-_]pytorch")`` gives one alternative,
``("extension", "pytorch", "intel")``: the literal runs outside classes and optional atoms, all
of which every match contains. Alternations give several alternatives, one of which every
match satisfies: ``(?:setvars|oneapi-vars)\\.sh`` gives ``("setvars",)`` and
``("oneapi-vars",)``. A file that satisfies no alternative cannot match, so it is never split
into lines.

A group with scoped flags is followed where they leave its literals literal: ``(?-i:...)``
(case-sensitive inside a case-insensitive expression: what it must hold exactly, it holds
folded too), ``(?s:...)``, ``(?m:...)``; one that turns on ``i`` or ``x`` is not. In a
case-insensitive expression a class of one letter's two cases (``[Ss]``) is that letter.

An alternative that holds all the literals of another adds nothing and is dropped (``(?:sh|bat)``
after ``setvars`` leaves ``setvars``); more than ``MAX_ALTERNATIVES`` are merged into the one
alternative of the literals all of them hold (``.dll`` in every way a DLL fails to load), a
branch's ways first.

The answer is conservative: a construct this reader does not follow (a lookaround, a group
that turns a flag on, a back-reference or octal escape, a group of more than
``MAX_ALTERNATIVES`` ways in a row) contributes nothing, and ``None`` (no prefilter: every file
of the rule's kinds is matched line by line) comes back when some alternative keeps no literal
of ``MIN_LENGTH`` ASCII characters, or in verbose mode. Fewer literals than possible is fine,
a wrong one never.

NOTE: hand-written because no maintained library answers this for Python's ``re`` dialect and
``re._parser`` is private to CPython (it moved in 3.11). The tests hold it to ``re`` itself:
strings generated to match each expression must contain the literals of an alternative.
"""

from __future__ import annotations

from typing import NamedTuple

MIN_LENGTH = 3
"""A shorter literal is in nearly every file: checking it would cost a pass and save none."""
MAX_ALTERNATIVES = 8
"""More alternatives than this (a product of alternations) are not worth a pass each."""

_GLOBAL_FLAGS = "aiLmsux"
_CLASS_ESCAPES = set("dDsSwWbBAZntrfva")
"""Escapes of one letter that stand for a class, an anchor or a control character."""
_QUANTIFIERS = "*+?{"
_CHARACTER_ESCAPES = {"x": 2, "u": 4, "U": 8, "N": 0}
"""Escapes that stand for one character: the hex digits each takes (``\\N{NAME}``: a name)."""
_HEX = set("0123456789abcdefABCDEF")
_SCOPED_ON = set("ms")
"""Scoped flags that may be turned on without changing what a literal matches."""
_SCOPED_OFF = set("ims")
"""Scoped flags that may be turned off: ``i`` off makes a literal stricter, never looser."""


class RequiredLiterals(NamedTuple):
    """Every match contains all the literals of at least one alternative."""

    alternatives: tuple[tuple[str, ...], ...]
    """Each alternative's literals, longest first."""
    folded: bool
    """Case-insensitive (``(?i)``): the literals are lower case, compared with lowered data."""


def required_literals(regex: str) -> RequiredLiterals | None:
    """The literals every match of ``regex`` contains, or ``None`` (see the module)."""
    flags, body = _split_global_flags(regex)
    if flags is None or "x" in flags:
        return None
    alternatives = _alternatives(body, folded="i" in flags)
    if not alternatives:
        return None
    folded = "i" in flags
    kept: list[tuple[str, ...]] = []
    for runs in alternatives:
        usable = [r for r in dict.fromkeys(runs) if len(r) >= MIN_LENGTH and r.isascii()]
        if not usable:
            return None  # this alternative can match with no literal to look for
        usable.sort(key=len, reverse=True)
        kept.append(tuple(r.lower() for r in usable) if folded else tuple(usable))
    return RequiredLiterals(tuple(dict.fromkeys(kept)), folded)


def _split_global_flags(regex: str) -> tuple[str | None, str]:
    """The leading ``(?flags)`` groups joined, and the rest (``None``: an unclosed group)."""
    flags = ""
    while regex.startswith("(?") and len(regex) > 2 and regex[2] in _GLOBAL_FLAGS:
        end = regex.find(")")
        if end < 0:
            return None, regex
        if not all(c in _GLOBAL_FLAGS for c in regex[2:end]):
            break  # (?i:...) is a group with a scoped flag
        flags += regex[2:end]
        regex = regex[end + 1 :]
    return flags, regex


def _character_escape_end(branch: str, i: int, escaped: str) -> int | None:
    """Where the escape whose letter ``escaped`` stands before ``i`` ends; ``None`` when it is
    malformed (re would refuse it)."""
    if escaped == "N":
        end = branch.find("}", i)
        return end + 1 if branch.startswith("{", i) and end > i else None
    digits = branch[i : i + _CHARACTER_ESCAPES[escaped]]
    hexadecimal = len(digits) == _CHARACTER_ESCAPES[escaped]
    return i + len(digits) if hexadecimal and all(c in _HEX for c in digits) else None


def _reduced(alternatives: list[list[str]]) -> list[list[str]]:
    """``alternatives`` with only their usable runs (``MIN_LENGTH`` ASCII characters or more),
    and without one that holds all of another's: a text that holds the larger holds the
    smaller, so the smaller alone decides. A product of small groups (``(cpp|h|td)``) then
    costs nothing: its short branches leave one empty alternative, which every other holds."""
    usable: dict[frozenset[str], list[str]] = {}
    for runs in alternatives:
        kept = [r for r in dict.fromkeys(runs) if len(r) >= MIN_LENGTH and r.isascii()]
        usable.setdefault(frozenset(kept), kept)  # NOTE: the first order seen, for the reader
    return [runs for held, runs in usable.items() if not any(other < held for other in usable)]


def _alternatives(body: str, *, folded: bool) -> list[list[str]] | None:
    """For each way ``body`` can match, the literal runs it then contains; ``None`` when the
    expression is malformed or has too many ways."""
    branches = _split_branches(body)
    if branches is None:
        return None
    found: list[list[str]] = []
    for branch in branches:
        sequence = _sequence(branch, folded=folded)
        if sequence is None:
            return None
        # NOTE: too many ways to check each: what all the ways of a branch hold is still
        # required of it (and what all the branches hold, if they are still too many)
        if len(found) + len(sequence) > MAX_ALTERNATIVES:
            sequence = _merged(sequence)
        found = _reduced(found + sequence)
        if len(found) > MAX_ALTERNATIVES:
            found = _merged(found)
        if found == [[]]:
            return None  # some way to match holds no literal worth looking for
    return found


def _merged(alternatives: list[list[str]]) -> list[list[str]]:
    """The one alternative of the runs every one of ``alternatives`` holds."""
    first, *others = alternatives
    return [[run for run in first if all(run in other for other in others)]]


def _sequence(branch: str, *, folded: bool) -> list[list[str]] | None:
    """The alternatives of one branch (no top-level ``|``): literal runs and groups in order."""
    alternatives: list[list[str]] = [[]]
    run: list[str] = []

    def close() -> None:
        if run:
            text = "".join(run)
            for alternative in alternatives:
                alternative.append(text)
            run.clear()

    i, n = 0, len(branch)
    while i < n:
        c = branch[i]
        if c == "\\":
            if i + 1 >= n:
                return None
            escaped = branch[i + 1]
            i += 2
            if escaped.isalnum():
                if escaped in _CHARACTER_ESCAPES:
                    # NOTE: one character (a quote the knowledge base writes \x27), ending the run
                    end = _character_escape_end(branch, i, escaped)
                    if end is None:
                        return None
                    i = end
                elif escaped not in _CLASS_ESCAPES:
                    return None  # \1, \012, \g<...>: a group's text or octal, not worth reading
                close()
            else:
                run.append(escaped)
            continue
        if c == "[":
            end = _class_end(branch, i)
            if end is None:
                return None
            members = branch[i + 1 : end - 1]
            if (
                folded
                and len(members) == 2
                and members.isalpha()
                and members.isascii()
                and (members[0] != members[1] and members[0].lower() == members[1].lower())
            ):
                # NOTE: [Ss] is one letter in either case: compared with lowered data, an "s"
                # (a scoped (?-i:[Ss]ycl) spells a case-insensitive word in a strict group)
                run.append(members[0].lower())
            else:
                close()
            i = end
            continue
        if c == "(":
            end = _group_end(branch, i)
            if end is None:
                return None
            close()
            quantifier_end, minimum = _quantifier(branch, end) if end < n else (None, 1)
            inner = _group_body(branch[i:end])
            if inner is not None and (quantifier_end is None or minimum > 0):
                inner_alternatives = _alternatives(inner, folded=folded)
                if inner_alternatives and (
                    len(alternatives) * len(inner_alternatives) <= MAX_ALTERNATIVES
                ):
                    alternatives = _reduced(
                        [a + b for a in alternatives for b in inner_alternatives]
                    )
            i = end
            continue
        if c in ".^$":
            close()
            i += 1
            continue
        if c == ")":
            return None  # unbalanced
        if c in _QUANTIFIERS:
            end, minimum = _quantifier(branch, i)
            if end is None:
                run.append(c)  # a "{" that starts no quantifier is itself
                i += 1
                continue
            if run and minimum == 0:
                run.pop()  # the atom before it may be absent
            close()
            i = end
            if i < n and branch[i] in "?+":
                i += 1  # lazy or possessive
            continue
        run.append(c)
        i += 1
    close()
    return alternatives


def _group_body(group: str) -> str | None:
    """The expression inside a capturing, non-capturing or named group, or a group of scoped
    flags that keep literals literal; ``None`` for the groups whose literals are not simply
    required (lookarounds, conditionals, a scoped ``i`` or ``x`` turned on)."""
    inner = group[1:-1]
    if not inner.startswith("?"):
        return inner
    if inner.startswith("?:"):
        return inner[2:]
    if inner.startswith("?P<"):
        close = inner.find(">")
        return inner[close + 1 :] if close > 0 else None
    flags, colon, body = inner[1:].partition(":")
    on, _, off = flags.partition("-")
    if colon and (on or off) and set(on) <= _SCOPED_ON and set(off) <= _SCOPED_OFF:
        return body
    return None


def _split_branches(body: str) -> list[str] | None:
    """``body`` split at its top-level ``|``; ``None`` when a group or class is unclosed."""
    branches: list[str] = []
    start = i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = _class_end(body, i)
        elif c == "(":
            end = _group_end(body, i)
        else:
            if c == "|":
                branches.append(body[start:i])
                start = i + 1
            i += 1
            continue
        if end is None:
            return None
        i = end
    branches.append(body[start:])
    return branches


def _quantifier(body: str, i: int) -> tuple[int | None, int]:
    """Where the quantifier at ``i`` ends and its minimum count; ``(None, 0)`` when there is
    none (a ``{`` that is a literal brace, or any other character)."""
    c = body[i]
    if c in "*?":
        return i + 1, 0
    if c == "+":
        return i + 1, 1
    if c != "{":
        return None, 0
    end = body.find("}", i)
    if end < 0:
        return None, 0
    low, comma, high = body[i + 1 : end].partition(",")
    if not (low.isdigit() or (comma and not low)) or (high and not high.isdigit()):
        return None, 0
    if not low and not high:
        return None, 0  # "{,}" is literal in re
    return end + 1, int(low) if low else 0


def _class_end(body: str, i: int) -> int | None:
    """The index after the character class that starts at ``i``."""
    j = i + 1
    if j < len(body) and body[j] == "^":
        j += 1
    if j < len(body) and body[j] == "]":
        j += 1  # a leading "]" is a member
    while j < len(body):
        if body[j] == "\\":
            j += 2
            continue
        if body[j] == "]":
            return j + 1
        j += 1
    return None


def _group_end(body: str, i: int) -> int | None:
    """The index after the group that starts at ``i`` (nested groups, classes and escapes)."""
    depth = 0
    j = i
    while j < len(body):
        c = body[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            end = _class_end(body, j)
            if end is None:
                return None
            j = end
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return None
