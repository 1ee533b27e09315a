"""Whether a rule set can be built: each rule's pattern known and each regex compiling, checked
without building it (``refuse_invalid``), and the rules' regexes as ``LazyPattern`` refused the
same way where they do not compile (``lazy``, ``lazy_bytes``).

It lives apart from ``ruleset`` so that a scan whose every file comes from the outcome cache
refuses a bad rule before anything is read, as every scan must, without importing what
building the rule set takes (the structural patterns, the triggers and the matchers behind
them): the pattern names are checked against the knowledge base's list of them
(``code_rules.PATTERNS``, which a test holds to the scanner's own), the regexes through
``lazy_regex``'s kept knowledge of which compile.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from ipex_doctor.errors import KnowledgeBaseError
from ipex_doctor.knowledge.code_rules import PATTERNS, CodeRule, CodeRules
from ipex_doctor.lazy_pattern import LazyPattern
from ipex_doctor.scan.match import lazy_regex


def refuse_invalid(rules: CodeRules) -> None:
    """``KnowledgeBaseError`` for the first rule of ``rules`` that names an unknown pattern or
    an invalid regex: what building a ``RuleSet`` refuses, checked without building one, so a
    scan that builds it only once a file is to be read still refuses a bad rule before it reads
    anything (and where it reads nothing). The regexes compiled here are ``re``'s cached ones
    when the rule set is built."""
    texts: list[str | bytes] = []
    for rule in rules.rules:
        texts.extend((*rule.match.text, *rule.match.unless, *rule.match.when))
        texts.extend(text.encode() for text in rule.match.in_files_with)
    kept = lazy_regex.learn_kept(texts)
    for rule in rules.rules:
        refuse_unknown_pattern(rule, PATTERNS)
        for text in (*rule.match.text, *rule.match.unless, *rule.match.when):
            lazy(rule, text)
        for text in rule.match.in_files_with:
            lazy_bytes(rule, text)
    if not kept:
        lazy_regex.keep(texts)  # NOTE: once; a run that took it back writes nothing


def refuse_unknown_pattern(rule: CodeRule, known: Collection[str]) -> None:
    """``KnowledgeBaseError`` where ``rule`` names a structural pattern not in ``known`` (the
    names, or a mapping by name), with the names known."""
    name = rule.match.pattern
    if name is not None and name not in known:
        names = ", ".join(sorted(known))
        raise KnowledgeBaseError(f"code rule {rule.id}: unknown pattern {name!r} (known: {names})")


def lazy(rule: CodeRule, regex: str) -> LazyPattern[str]:
    """``regex``, compiled at its first search; refused now (``KnowledgeBaseError``) where it
    does not compile (``lazy_regex.checked``)."""
    return lazy_regex.checked(regex, _refusal(rule, regex))


def lazy_bytes(rule: CodeRule, regex: str) -> LazyPattern[bytes]:
    """``regex`` for a file's bytes (``in_files_with`` is searched in the whole file once)."""
    return lazy_regex.checked(regex.encode(), _refusal(rule, regex))


def _refusal(rule: CodeRule, regex: str) -> Callable[[re.error], KnowledgeBaseError]:
    return lambda error: KnowledgeBaseError(
        f"code rule {rule.id}: invalid regex {regex!r}: {error}"
    )
