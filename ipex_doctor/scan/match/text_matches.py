"""The matches of ``text`` rules: their regexes searched in each line, one match per rule and line.

A regex runs only when its prefilter trigger holds for the file (``Probe``), so a rule whose
literal is absent costs nothing more. The first regex of a rule that matches a line gives the
match: the span of its first occurrence there, and the matched text as the symbol.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ipex_doctor.lazy_pattern import LazyPattern
from ipex_doctor.scan.match.ruleset import TextRule
from ipex_doctor.scan.match.triggers import Probe
from ipex_doctor.scan.read.source import Hit, TextLine


def _active(
    rules: Sequence[TextRule], probe: Probe
) -> list[tuple[TextRule, list[LazyPattern[str]]]]:
    """Each rule with the regexes whose prefilter trigger holds for the file (none: left
    out), and whose ``in_files_with`` condition the file meets; worked out once per file and
    set of rules (a notebook asks for each cell)."""
    return probe.remember(rules, lambda: _active_now(rules, probe))


def _active_now(
    rules: Sequence[TextRule], probe: Probe
) -> list[tuple[TextRule, list[LazyPattern[str]]]]:
    return [
        (rule, regexes)
        for rule in rules
        if (
            regexes := [
                regex for regex, triggers in rule.regexes if any(map(probe.holds, triggers))
            ]
        )
        and (not rule.in_files_with or any(map(probe.search, rule.in_files_with)))
    ]


def may_hit(rules: Sequence[TextRule], probe: Probe) -> bool:
    """Whether some regex of ``rules`` can match in the file behind ``probe`` (else reading
    its lines, or parsing it to find them, is wasted)."""
    return bool(_active(rules, probe))


def text_hits(
    lines: Iterable[TextLine], rules: Sequence[TextRule], probe: Probe, part: int = 0
) -> list[Hit]:
    """The hits of ``rules`` in ``lines`` of a file whose bytes ``probe`` holds."""
    active = _active(rules, probe)
    if not active:
        return []
    hits: list[Hit] = []
    for line in lines:
        for rule, regexes in active:
            for regex in regexes:
                found = regex.search(line.text)
                if found is not None:
                    context = line.text if line.context is None else line.context
                    if any(u.search(context) for u in rule.unless) or (
                        rule.when and not any(w.search(context) for w in rule.when)
                    ):
                        break
                    start, end = line.column + found.start(), line.column + found.end()
                    hits.append(
                        Hit(rule.rule_id, found.group(0), line.line, start, line.line, end, part)
                    )
                    break
    return hits
