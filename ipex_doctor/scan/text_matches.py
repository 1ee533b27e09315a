"""The matches of ``text`` rules: their regexes searched in each line, one match per rule and line.

A regex runs only when its prefilter trigger holds for the file (``Probe``), so a rule whose
literal is absent costs nothing more. The first regex of a rule that matches a line gives the
match: the span of its first occurrence there, and the matched text as the symbol.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ipex_doctor.scan.ruleset import TextRule
from ipex_doctor.scan.source import Hit, TextLine
from ipex_doctor.scan.triggers import Probe


def text_hits(
    lines: Iterable[TextLine], rules: Sequence[TextRule], probe: Probe, part: int = 0
) -> list[Hit]:
    """The hits of ``rules`` in ``lines`` of a file whose bytes ``probe`` holds."""
    active = [
        (rule.rule_id, regexes)
        for rule in rules
        if (
            regexes := [
                regex for regex, triggers in rule.regexes if any(map(probe.holds, triggers))
            ]
        )
    ]
    if not active:
        return []
    hits: list[Hit] = []
    for line in lines:
        for rule_id, regexes in active:
            for regex in regexes:
                found = regex.search(line.text)
                if found is not None:
                    start, end = line.column + found.start(), line.column + found.end()
                    hits.append(
                        Hit(rule_id, found.group(0), line.line, start, line.line, end, part)
                    )
                    break
    return hits
