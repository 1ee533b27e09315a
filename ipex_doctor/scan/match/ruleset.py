"""The code rules compiled for the readers: indexes by file kind, text regexes, prefilters.

A rule's ``symbols``, ``imports`` and ``pattern`` apply to the Python its ``applies_to`` kinds
hold (``*.py``, ``setup.py``, notebook cells); its ``text`` regexes to the lines of those
kinds' files (and, for ``SHELL``, to a notebook's ``!`` and ``%pip`` lines as well). A rule
that names an unknown pattern or an invalid regex is a ``KnowledgeBaseError`` here, even if
the loader let it through.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ipex_doctor.knowledge.code_rules import CodeRule, CodeRules
from ipex_doctor.lazy_pattern import LazyPattern
from ipex_doctor.model.code import FileKind
from ipex_doctor.regex_literals import required_literals
from ipex_doctor.scan.match import rule_checks
from ipex_doctor.scan.match import triggers as triggers_module
from ipex_doctor.scan.match.patterns import PATTERNS, Pattern
from ipex_doctor.scan.match.triggers import (
    Covered,
    Derivation,
    Prefilter,
    Trigger,
    derivation_key,
    derive,
    name_trigger,
    unique,
)
from ipex_doctor.scan.read import derived_cache

if TYPE_CHECKING:
    from ipex_doctor.scan.match.python.names import ProjectImports


class Best(NamedTuple):
    """The rules that match a name best, and how well."""

    score: tuple[int, int]
    """(exact: 1, wildcard: 0; characters of the rule's name): higher is more specific."""
    rule_ids: tuple[str, ...]


class SymbolIndex:
    """``symbols`` of the rules for one kind: exact names and ``a.b.*`` wildcards."""

    __slots__ = ("exact", "prefixes", "under", "unless")

    def __init__(self) -> None:
        self.exact: dict[str, tuple[str, ...]] = {}
        self.under: dict[str, tuple[str, ...]] = {}
        self.prefixes: set[str] = set()
        """Every name that a rule's name starts with (``a``, ``a.b`` of ``a.b.c``), itself
        included: a chain whose name is none of these, and under no wildcard, ends there."""
        self.unless: dict[str, frozenset[str]] = {}
        """The rules that do not mean each name (``unless_symbols``), nor any name under it."""

    def add_unless(self, symbol: str, rule_id: str) -> None:
        """Index ``symbol`` (a dotted name) as one that rule ``rule_id`` does not mean."""
        self.unless[symbol] = self.unless.get(symbol, frozenset()) | {rule_id}

    def add(self, symbol: str, rule_id: str) -> None:
        """Index ``symbol`` (a dotted name, or ``a.b.*``) of rule ``rule_id``."""
        wildcard = symbol.endswith(".*")
        name = symbol[:-2] if wildcard else symbol
        table = self.under if wildcard else self.exact
        if rule_id not in table.get(name, ()):
            table[name] = (*table.get(name, ()), rule_id)
        parts = name.split(".")
        self.prefixes.update(".".join(parts[: n + 1]) for n in range(len(parts)))

    def longest(self, base: str, attributes: Sequence[str]) -> tuple[int, str, Best] | None:
        """The longest ``base.attr1...attrN`` (N attributes, 0 to all) that a rule names:
        (N, the name, its most specific rules: an exact name before a wildcard, a longer
        wildcard before a shorter one); ``None`` when no rule names any. A wildcard above an
        exact name found does not carry the chain past it (``ipex.nn.modules.MergedEmbedding
        Bag.from_embeddingbag_list`` is its rule's class, not the catch-all's name)."""
        found: tuple[int, str, Best] | None = None
        name = base
        wildcard = self._wildcard_above(base)
        for count in range(len(attributes) + 1):
            if count:
                if name in self.under:
                    wildcard = name  # the new name is strictly under it
                name = f"{name}.{attributes[count - 1]}"
            exact = self.exact.get(name)
            if exact:
                found = (count, name, Best((1, len(name)), exact))
            elif wildcard is not None:
                if found is not None and found[2].score[0] and len(found[1]) > len(wildcard):
                    break  # NOTE: the wildcard is less specific than the exact name found
                found = (count, name, Best((0, len(wildcard)), self.under[wildcard]))
            elif name not in self.prefixes:
                break  # nothing longer can be named
        if found is not None and self.unless:
            found = self._without_unless(found, base, attributes)
        return found

    def _without_unless(
        self, found: tuple[int, str, Best], base: str, attributes: Sequence[str]
    ) -> tuple[int, str, Best] | None:
        """``found`` less the rules that do not mean the whole chain ``base.attributes``: a
        part found stands for the chain it begins (``qconv2d_pointwise`` of ``qconv2d_pointwise
        .binary``), so a rule that does not mean a name the chain reaches is not its rule."""
        parts = [*base.split("."), *attributes]
        dropped: frozenset[str] = frozenset()
        for end in range(1, len(parts) + 1):
            dropped |= self.unless.get(".".join(parts[:end]), frozenset())
        if not dropped:
            return found
        kept = tuple(r for r in found[2].rule_ids if r not in dropped)
        return (found[0], found[1], found[2]._replace(rule_ids=kept)) if kept else None

    def _wildcard_above(self, name: str) -> str | None:
        """The longest wildcard strictly above ``name``."""
        while "." in name:
            name = name.rsplit(".", 1)[0]
            if name in self.under:
                return name
        return None

    def __bool__(self) -> bool:
        return bool(self.exact or self.under)


class ImportIndex:
    """``imports`` of the rules for one kind: a module, or any submodule of it."""

    __slots__ = ("modules",)

    def __init__(self) -> None:
        self.modules: dict[str, list[str]] = {}

    def best(self, module: str) -> Best | None:
        """The rules of the longest listed module that is ``module`` or a package above it."""
        name = module
        while True:
            rule_ids = self.modules.get(name)
            if rule_ids:
                return Best((1, len(name)), tuple(rule_ids))
            if "." not in name:
                return None
            name = name.rsplit(".", 1)[0]


class PythonRules(NamedTuple):
    """What the Python reader looks for in files of one kind."""

    symbols: SymbolIndex
    imports: ImportIndex
    patterns: tuple[tuple[str, Pattern, tuple[str, ...]], ...]
    """(rule id, pattern, the rule's ``names``), in rule order."""
    fixes: dict[str, str]
    """The fix id of each rule that has one, by rule id."""
    ipex_only: frozenset[str]
    """The ids of the rules whose names exist only with IPEX (``needs_ipex``)."""

    def ipex_only_name(self, dotted: str) -> bool:
        """Whether the resolved ``dotted`` name exists only with IPEX: a ``needs_ipex`` rule
        names it, whole."""
        base, _, rest = dotted.partition(".")
        attributes = rest.split(".") if rest else []
        found = self.symbols.longest(base, attributes)
        return (
            found is not None
            and found[0] == len(attributes)
            and not self.ipex_only.isdisjoint(found[2].rule_ids)
        )


EMBEDDING_PYTHON = frozenset({FileKind.SHELL, FileKind.DOCKERFILE, FileKind.CI})
"""The kinds whose here-documents may be Python that a command runs (``python_documents``)."""


class TextRule(NamedTuple):
    """A rule's ``text`` regexes, each with its prefilter triggers (one of them must hold)."""

    rule_id: str
    regexes: tuple[tuple[LazyPattern[str], tuple[Trigger, ...]], ...]
    unless: tuple[LazyPattern[str], ...] = ()
    """A line that matches one of these is no match of the rule."""
    when: tuple[LazyPattern[str], ...] = ()
    """A line must also match one of these to be a match (none: no condition)."""
    in_files_with: tuple[LazyPattern[bytes], ...] = ()
    """The file must contain a match of one of these (none: no condition)."""


class RuleSet:
    """``CodeRules`` ready for scanning (built once per scan)."""

    def __init__(self, rules: CodeRules, project: ProjectImports | None = None) -> None:
        self.project = project
        """The project's own imports that stand for an outer module (``NameTable.project``),
        for a file read again once another file showed what it imports (``own_aliases``)."""
        self._python: dict[FileKind, PythonRules] = {}
        self._python_triggers: dict[FileKind, list[Trigger]] = {}
        self._text: dict[FileKind, list[TextRule]] = {}
        self._text_tuples: dict[FileKind, tuple[TextRule, ...]] = {}
        self.fixes = {rule.id: rule.fix for rule in rules.rules if rule.fix is not None}
        """The fix id of each rule that has one, by rule id."""
        for rule in rules.rules:
            self._add(rule)
        self._prefilters: dict[tuple[FileKind, bool], Prefilter] = {}

    def python(self, kind: FileKind) -> PythonRules | None:
        """The Python rules for files of ``kind``, or ``None``."""
        return self._python.get(kind)

    def text(self, kind: FileKind) -> tuple[TextRule, ...]:
        """The text rules for lines of files of ``kind`` (the same tuple every time: a file's
        probe remembers which of them its bytes let through)."""
        rules = self._text_tuples.get(kind)
        if rules is None:
            rules = self._text_tuples[kind] = tuple(self._text.get(kind, ()))
        return rules

    def prefilter(self, kind: FileKind, *, python: bool) -> Prefilter:
        """The prefilter of a reader: files of ``kind``, read as Python when ``python`` (the
        readers of notebooks and CI files also take the ``SHELL`` text rules, for their shell
        lines)."""
        key = (kind, python)
        prefilter = self._prefilters.get(key)
        if prefilter is None:
            triggers = list(self._python_triggers.get(kind, ())) if python else []
            if kind in EMBEDDING_PYTHON and not python:
                # NOTE: the Python a script runs from a here-document or a -c string is read
                # by the Python rules (``python_documents``): a file that spells only their
                # words is read
                triggers.extend(self._python_triggers.get(FileKind.PYTHON, ()))
            # NOTE: a notebook's ! lines and a CI file's commands are shell
            shell = kind in (FileKind.NOTEBOOK, FileKind.CI)
            kinds = (kind, FileKind.SHELL) if shell else (kind,)
            for text_kind in kinds:
                for rule in self._text.get(text_kind, ()):
                    for _, regex_triggers in rule.regexes:
                        triggers.extend(regex_triggers)
            prefilter = self._prefilters[key] = kept_prefilter(triggers)
        return prefilter

    def prefilters(self) -> Iterator[Prefilter]:
        """Every reader's prefilter (for the benchmark's ``grep``)."""
        for kind in FileKind:
            for python in (False, True):
                yield self.prefilter(kind, python=python)

    def _add(self, rule: CodeRule) -> None:
        match = rule.match
        pattern = _pattern_of(rule)
        regexes = tuple((rule_checks.lazy(rule, text), _text_triggers(text)) for text in match.text)
        text_rule = TextRule(
            rule.id,
            regexes,
            tuple(rule_checks.lazy(rule, text) for text in match.unless),
            tuple(rule_checks.lazy(rule, text) for text in match.when),
            tuple(rule_checks.lazy_bytes(rule, text) for text in match.in_files_with),
        )
        for kind in dict.fromkeys(rule.applies_to):
            if match.symbols or match.imports or pattern is not None:
                self._add_python(rule, kind, pattern)
            if regexes:
                self._text.setdefault(kind, []).append(text_rule)

    def _add_python(self, rule: CodeRule, kind: FileKind, pattern: Pattern | None) -> None:
        rules = self._python.get(kind)
        if rules is None:
            rules = PythonRules(SymbolIndex(), ImportIndex(), (), {}, frozenset())
            self._python[kind] = rules
        if rule.fix is not None:
            rules.fixes[rule.id] = rule.fix
        if rule.needs_ipex:
            rules = self._python[kind] = rules._replace(ipex_only=rules.ipex_only | {rule.id})
        triggers = self._python_triggers.setdefault(kind, [])
        for symbol in rule.match.symbols:
            rules.symbols.add(symbol, rule.id)
            triggers.append(name_trigger(symbol, whole=True))
        for symbol in rule.match.unless_symbols:
            # NOTE: a name the rule does not mean lets no file through the prefilter
            rules.symbols.add_unless(symbol, rule.id)
        for module in rule.match.imports:
            rules.imports.modules.setdefault(module, []).append(rule.id)
            triggers.append(name_trigger(module, whole=True))
        if pattern is not None:
            names = rule.match.names
            patterns = (*rules.patterns, (rule.id, pattern, names))
            self._python[kind] = rules._replace(patterns=patterns)
            triggers.extend(pattern.triggers(names))


def kept_prefilter(triggers: Sequence[Trigger]) -> Prefilter:
    """``Prefilter(triggers)``, its derivation taken from an earlier scan's where one derived
    from the same triggers by the same code is kept (``read.derived_cache``), else worked out
    and kept for the next.

    NOTE: deriving the prefilters of the six readers a small project uses (``minimal``,
    anchors and gate over some three hundred triggers each) was about 40 ms of a scan's CPU
    on the 2-core EPYC, in every run; the derivation is a pure function of what
    ``derivation_key`` lists, so the same bytes in and the same prefilter out."""
    listed = unique(triggers)
    key = json.dumps([_DERIVING_CODE, derivation_key(listed)])
    derivation = _derivation_from(derived_cache.get("prefilter", key), len(listed))
    if derivation is None:
        derivation = derive(listed)
        derived_cache.put("prefilter", key, _plain(derivation))
    return Prefilter(listed, derivation)


_DERIVING_CODE = derived_cache.code_stamp([Path(triggers_module.__file__)])
"""The code that derives a prefilter (``triggers.derive`` and what it calls)."""


def _plain(derivation: Derivation) -> dict[str, Any]:
    def covered(indexed: Covered) -> list[list[Any]]:
        return [[anchor.decode("latin-1"), list(at)] for anchor, at in indexed]

    return {
        "kept": list(derivation.kept),
        "anchors": covered(derivation.anchors),
        "gate": None if derivation.gate is None else derivation.gate.decode("latin-1"),
        "ungated": covered(derivation.ungated),
    }


def _derivation_from(value: Any, size: int) -> Derivation | None:
    """The ``Derivation`` that ``_plain`` made ``value`` of, for ``size`` triggers; ``None``
    when ``value`` is anything else (a damaged or foreign cache file: a miss)."""

    def indexes(items: Any) -> tuple[int, ...] | None:
        if not isinstance(items, list):
            return None
        if not all(type(i) is int and 0 <= i < size for i in items):
            return None
        return tuple(items)

    def covered(items: Any) -> Covered | None:
        if not isinstance(items, list):
            return None
        result = []
        for item in items:
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
                return None
            at = indexes(item[1])
            if at is None:
                return None
            result.append((item[0].encode("latin-1"), at))
        return tuple(result)

    try:
        if not isinstance(value, dict):
            return None
        kept = indexes(value.get("kept"))
        anchors = covered(value.get("anchors"))
        ungated = covered(value.get("ungated"))
        gate = value.get("gate")
        if kept is None or anchors is None or ungated is None:
            return None
        if gate is not None and not isinstance(gate, str):
            return None
        return Derivation(kept, anchors, None if gate is None else gate.encode("latin-1"), ungated)
    except UnicodeError:
        return None  # NOTE: a character beyond Latin-1: never one _plain wrote


def _pattern_of(rule: CodeRule) -> Pattern | None:
    """The structural pattern ``rule`` names (``None``: none); ``KnowledgeBaseError`` for a name
    the scanner lacks."""
    rule_checks.refuse_unknown_pattern(rule, PATTERNS)
    return None if rule.match.pattern is None else PATTERNS[rule.match.pattern]


def _text_triggers(regex: str) -> tuple[Trigger, ...]:
    literals = required_literals(regex)
    if literals is None:
        return (Trigger(()),)
    return tuple(
        Trigger(tuple(word.encode() for word in words), folded=literals.folded)
        for words in literals.alternatives
    )


def trigger_words(rules: CodeRules) -> tuple[str, ...]:
    """What the prefilter searches every file for first, sorted: the anchors, and the leading
    word of each trigger no anchor covers (a folded one in lower case, compared ignoring
    case). A file with none of them is never parsed."""
    words: set[str] = set()
    for prefilter in RuleSet(rules).prefilters():
        words.update(anchor.decode() for anchor, _ in prefilter.anchors)
        words.update(t.words[0].decode() for t in prefilter.direct if t.words)
    return tuple(sorted(words))


def grep_pattern(rules: CodeRules) -> str:
    """One ``grep -E`` expression for what the prefilter looks for first (the benchmark's
    floor): the anchors (a pattern's own ``grep`` form where every trigger of an anchor has one)
    and the leading words of the other triggers (case-insensitive for the folded ones)."""
    parts: set[str] = set()
    for prefilter in RuleSet(rules).prefilters():
        for anchor, covered in prefilter.anchors:
            forms = {t.grep for t in covered}
            if None in forms:
                parts.add(_ere(anchor.decode()))
            else:
                parts.update(form for form in forms if form is not None)
        for trigger in prefilter.direct:
            if trigger.words:
                word = _ere(trigger.words[0].decode())
                parts.add(_ere_folded(word) if trigger.folded else word)
    return "|".join(sorted(parts))


def _ere(word: str) -> str:
    return re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", word)


def _ere_folded(word: str) -> str:
    return "".join(f"[{c}{c.upper()}]" if c.isalpha() else c for c in word)
