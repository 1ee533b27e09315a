"""The rules beside the judge, and the rule names the knowledge base's loader knows."""

from __future__ import annotations

from ipex_doctor.knowledge.rule_names import RULE_NAMES
from ipex_doctor.verdicts.rules import NEEDS, RULES


def test_the_loader_knows_exactly_the_rules_the_judge_has() -> None:
    """The KB format's rule names (knowledge) and the detectors (verdicts) are the same set:
    a name without a rule would pass the loader and break the judge, a rule without a name
    could never be used."""
    assert set(RULES) == RULE_NAMES


def test_a_rule_needs_only_rules_that_exist_and_need_nothing_back() -> None:
    for rule, needed in NEEDS.items():
        assert rule in RULES and set(needed) <= set(RULES), rule
        assert all(rule not in NEEDS.get(other, ()) for other in needed), rule
