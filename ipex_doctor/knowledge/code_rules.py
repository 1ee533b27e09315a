"""The code rules: what ``ipex-doctor scan`` looks for in a project, as data (``code_rules.yaml``).

A rule names what it matches (resolved names, imports, a structural pattern, or a line of a
non-Python file), why it matters, the upstream replacement, the mechanical fix when there is
one, the knowledge-base entries it walks into and the public sources behind it.

The file is data, never code, and is read as the knowledge base is: PyYAML's safe loader with
aliases refused (``yamldoc``), validated against ``knowledge/code_rules.schema.json``
(``knowledge.schema``), then checked for what a schema cannot say: regular expressions compile
and cannot backtrack for minutes, fix and pattern ids are ones the scanner implements, knowledge
base ids exist (and rule ids are not also issue ids: a report names both), a rule without a fix
has a recipe. Every error is one line naming the file, the line and the rule id, raised as
``KnowledgeBaseError``. PyYAML and the knowledge base are imported only when a file is read, so
importing this module stays cheap for the light commands.

A site keeps its own rules in overlay files of the same format (``scan --rules FILE``,
``with_overlays``): applied in order, an overlay rule with an existing id replaces that rule
(said, never silent), a new id is added; an overlay is validated as the shipped file is, and
its fixes are always checked against the rewrites the scanner has.
"""

from __future__ import annotations

import enum
import functools
import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ipex_doctor import resources
from ipex_doctor.errors import KnowledgeBaseError, read_bounded
from ipex_doctor.knowledge import cache
from ipex_doctor.model.code import FileKind
from ipex_doctor.model.codec import JsonModel
from ipex_doctor.model.terms import Reference, Severity, TextEnum

if TYPE_CHECKING:
    import yaml

    from ipex_doctor.knowledge import yamldoc


@enum.unique
class IpexBuild(TextEnum):
    """Which IPEX build provides a matched API (for joining a match with an environment)."""

    CPU = "cpu"
    XPU = "xpu"
    ANY = "any"


MATCH_KINDS = ("symbols", "imports", "pattern", "text")
"""The ways a rule matches, in the order errors name them; a rule sets exactly one."""

PYTHON_KINDS = frozenset({FileKind.PYTHON, FileKind.NOTEBOOK, FileKind.SETUP})
"""The file kinds read as Python source (``setup`` means ``setup.py``; ``setup.cfg`` is text)."""

DEFAULT_APPLIES_TO = (FileKind.PYTHON, FileKind.NOTEBOOK, FileKind.SETUP)
"""The file kinds a rule applies to when it does not say (text rules must say)."""

PATTERNS: Mapping[str, str] = MappingProxyType(
    {
        "with-and": "a with statement whose single item is `a() and b()` (only b() is entered)",
        "half-spectral-norm": "a module converted with .half() in a file that applies spectral_norm",
        "optimize-bf16": "ipex.optimize(..., dtype=torch.bfloat16)",
        "ccl-backend": 'a process group created with backend "ccl" (or "ccl" kept as a backend)',
        "compile-ipex-backend": 'torch.compile(model, backend="ipex")',
        "ipex-backend-option": 'backend="ipex" given to anything but torch.compile (a library option)',
        "availability-probe": "a probe of whether a package is installed (find_spec, "
        "importlib.metadata, a helper or flag named in match.names, hasattr on an IPEX name)",
        "unbound-ipex-alias": "a chain on IPEX's usual alias (ipex.optimize) that no binding of "
        "the module gives a value (match.names: the aliases)",
        "ipex-switch": "an if on the project's own value named after IPEX whose branch holds "
        "another rule's finding (if args.use_ipex:)",
    }
)
"""The structural patterns the scanner implements, by id; a rule's ``match.pattern`` is one."""

LAUNCHER_COMMON_OPTIONS = (
    "-m",
    "--no-python",
    "--ninstances",
    "--ncores-per-instance",
    "--ncores_per_instance",
    "--latency-mode",
    "--throughput-mode",
    "--log-file-prefix",
)
"""The options IPEX 2.8's CPU launcher (``ipexrun cpu``, ``python -m
intel_extension_for_pytorch.cpu.launch``) and torch 2.8's ``python -m torch.backends.xeon.run_cpu``
both accept, read from both ``--help`` texts (``tests/test_code_rule_facts.py`` checks them
against the real modules). The ``launcher`` fix is mechanical only for a command line that uses
these alone; the others are spelled differently or do not exist upstream, and IPEX's
``--skip-cross-node-cores``, which both parse, is a deprecated spelling of its
``--bind-numa-node`` there."""

MAX_FILE_BYTES = 512 * 1024
"""A code-rules file larger than this is refused: the shipped one is about 60 KiB."""

SCHEMA_FILE = "knowledge/code_rules.schema.json"

_TIP = "fix that line; the format is ipex_doctor/knowledge/code_rules.schema.json"


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@dataclass(frozen=True)
class RuleMatch(JsonModel):
    """What a rule matches; exactly one kind is set."""

    symbols: tuple[str, ...] = ()
    """Resolved dotted names, whatever alias the code used; ``a.b.*`` matches every name under
    ``a.b`` (not ``a.b`` itself)."""
    unless_symbols: tuple[str, ...] = ()
    """With ``symbols``: names under the rule's that it does not mean (an overload the rule's
    rename does not reach): a chain that reaches one, or goes under it, is no match."""
    imports: tuple[str, ...] = ()
    """An import of one of these modules (or a submodule of one)."""
    pattern: str | None = None
    """A structural pattern the scanner implements, by id (``PATTERNS``)."""
    text: tuple[str, ...] = ()
    """For non-Python files: regular expressions, searched line by line. They are compiled as
    written (``(?i)`` makes one case-insensitive) and never match an empty line. A text rule
    whose ``applies_to`` names a Python kind is searched in the string literals and literal
    settings of Python source too (``scan.python_strings``: a command list, ``use_ipex=True``,
    a pip command kept in a variable)."""
    unless: tuple[str, ...] = ()
    """With ``text``: regular expressions that make a line that matches ``text`` no match (a
    mention that is not a use: ``pip uninstall intel-extension-for-pytorch``)."""
    when: tuple[str, ...] = ()
    """With ``text``: regular expressions one of which a line that matches ``text`` must also
    match (the context that makes a mention a use: a pip command, a version pin)."""
    in_files_with: tuple[str, ...] = ()
    """With ``text``: regular expressions one of which the file must contain for the rule to
    match there (a pitfall that needs its context: oneAPI's setvars beside torch or IPEX)."""
    names: tuple[str, ...] = ()
    """With ``pattern``: what the pattern looks for, as data (the packages, helpers and flags
    of ``availability-probe``)."""

    @property
    def kind(self) -> str:
        """Which of ``MATCH_KINDS`` this match sets (a loaded rule sets exactly one)."""
        return next((k for k in MATCH_KINDS if getattr(self, k) not in ((), None)), MATCH_KINDS[0])

    def matches_symbol(self, name: str) -> bool:
        """Whether the resolved dotted ``name`` is one of ``symbols`` (``a.b.*``: under ``a.b``)
        and neither one of ``unless_symbols`` nor under one."""
        if any(name == u or name.startswith(u + ".") for u in self.unless_symbols):
            return False
        for symbol in self.symbols:
            if symbol.endswith(".*"):
                if name.startswith(symbol[:-1]):
                    return True
            elif name == symbol:
                return True
        return False

    def matches_import(self, module: str) -> bool:
        """Whether importing ``module`` is an import of one of ``imports`` or of a submodule."""
        return any(module == m or module.startswith(m + ".") for m in self.imports)

    def text_patterns(self) -> tuple[re.Pattern[str], ...]:
        """``text`` compiled (once per process for each pattern)."""
        return tuple(_compiled(p) for p in self.text)


@dataclass(frozen=True)
class CodeRule(JsonModel):
    """One rule of ``code_rules.yaml``."""

    id: str
    title: str
    severity: Severity
    match: RuleMatch
    why: str
    replacement: str
    """The upstream replacement, as code or a sentence; ``none`` when upstream has none."""
    applies_to: tuple[FileKind, ...] = DEFAULT_APPLIES_TO
    needs_ipex: bool = False
    """The matched API exists only while IPEX is installed (``ipex.*``, the ``torch.xpu.*``
    aliases IPEX injects): without IPEX the code fails at run time."""
    ipex_build: IpexBuild = IpexBuild.ANY
    fix: str | None = None
    """The id of the mechanical rewrite ``scan --fix`` applies, when one is proven safe."""
    recipe: str = ""
    """What to do by hand when there is no mechanical fix."""
    kb: tuple[str, ...] = ()
    """Knowledge-base entries this code walks into (their verdict joins the match's)."""
    references: tuple[Reference, ...] = ()
    replacement_symbols: tuple[str, ...] = ()
    """Upstream dotted names the replacement relies on (``torch.amp.autocast``); the tests
    check each exists in a real torch 2.8 (or torchvision 0.23 for ``torchvision.*``)."""
    unverified: str = ""
    """What of this rule the tests could not check against real modules, and why (an XPU-only
    IPEX API: the test environments have IPEX's CPU build); empty when everything was."""


@dataclass(frozen=True)
class CodeRules:
    """The loaded rules, in file order, and where they came from."""

    rules: tuple[CodeRule, ...]
    sources: tuple[str, ...] = ()
    """The files read: the shipped one first, then each overlay in the order given."""
    overlaid: tuple[tuple[str, str], ...] = ()
    """(rule id, overlay file) for each rule an overlay added or replaced (``with_overlays``);
    empty for the shipped rules alone."""
    notes: tuple[str, ...] = ()
    """One line for each shipped (or earlier overlay's) rule an overlay replaced."""

    def get(self, rule_id: str) -> CodeRule | None:
        """The rule with ``rule_id``, or ``None``."""
        return next((r for r in self.rules if r.id == rule_id), None)

    def source_of(self, rule_id: str) -> str | None:
        """The overlay file the rule ``rule_id`` comes from; ``None`` for a shipped rule."""
        return dict(self.overlaid).get(rule_id)

    def for_kind(self, kind: FileKind) -> tuple[CodeRule, ...]:
        """The rules that apply to files of ``kind``, in file order."""
        return tuple(r for r in self.rules if kind in r.applies_to)


@functools.cache
def rules_schema() -> dict[str, Any]:
    """The code rules' JSON Schema (read once per process)."""
    loaded: dict[str, Any] = json.loads(resources.read_text(SCHEMA_FILE))
    return loaded


def shipped_path() -> Path:
    """Where the code rules shipped with the doctor live."""
    return resources.path("code_rules.yaml")


def load(
    path: Path | str | None = None,
    *,
    known_ids: Iterable[str] | None = None,
    known_fixes: Collection[str] | None = None,
) -> CodeRules:
    """The code rules of ``path`` (default: the shipped ``code_rules.yaml``), validated.

    ``known_ids`` are the knowledge-base ids a rule's ``kb`` may name and its ``id`` must not
    take (default: the shipped knowledge base's). ``known_fixes`` are the fix ids a rule's
    ``fix`` may name (``scan.fix.codemods.registry.FIX_CATALOGUE``; given where the fixes are loaded anyway,
    since this room never imports ``scan``); ``None`` leaves them unchecked. Raises the first error (by line) as a
    one-line ``KnowledgeBaseError`` naming the file, the line and the rule. A document seen
    valid before with the same ids comes from the cache (``knowledge.cache``): parsing the
    YAML is most of a small scan's start.
    """
    target = shipped_path() if path is None else Path(path)
    text = read_bounded(target, MAX_FILE_BYTES, KnowledgeBaseError, "code-rules")
    known = _known_ids(known_ids)
    context = "\0".join(sorted(known))
    hit = cache.get(str(target), text, cache.CODE_RULES, context)
    if hit is not None:
        try:
            cached = tuple(_rule(raw) for raw, _ in hit[0])
        except (KeyError, TypeError, ValueError, AttributeError, KnowledgeBaseError):
            cached = None  # NOTE: a cache file edited by hand is a miss, never a traceback
        if cached is not None and _fixes_known(cached, known_fixes):
            return CodeRules(rules=cached, sources=(str(target),))
    checked = check_document(str(target), text, known_ids=known, known_fixes=known_fixes)
    if checked.errors:
        raise checked.errors[0]
    raw_rules = [(raw, "") for raw in checked.raw]
    cache.put(str(target), text, raw_rules, (), cache.CODE_RULES, context)
    return CodeRules(rules=checked.rules, sources=(str(target),))


def with_overlays(
    base: CodeRules,
    overlays: Sequence[Path | str],
    *,
    known_ids: Iterable[str],
    known_fixes: Collection[str],
) -> CodeRules:
    """``base`` with the rules of each overlay file applied in order, as ``--kb`` overlays
    the knowledge base: a rule whose id ``base`` (or an earlier overlay) has replaces it in
    place, and ``notes`` says so; a new id is added after the others.

    Each overlay is read and validated exactly as the shipped file (``load``: the same schema,
    the same regular-expression guard, a rule id may not be a knowledge-base id of
    ``known_ids``), and its fixes are always checked against ``known_fixes``: a rule naming a
    rewrite the scanner does not have is refused, not left to do nothing. The first error of
    the first bad file is raised, before any rule is used (``KnowledgeBaseError``, one line).
    """
    rules = {rule.id: rule for rule in base.rules}
    origin = dict(base.overlaid)
    notes = list(base.notes)
    known = frozenset(known_ids)
    shipped = base.sources[0] if base.sources else "the shipped rules"
    for overlay in overlays:
        for rule in load(overlay, known_ids=known, known_fixes=known_fixes).rules:
            if rule.id in rules:
                before = origin.get(rule.id, shipped)
                notes.append(f"{overlay}: rule '{rule.id}' replaces the one of {before}")
            rules[rule.id] = rule
            origin[rule.id] = str(overlay)
    return CodeRules(
        rules=tuple(rules.values()),
        sources=(*base.sources, *(str(overlay) for overlay in overlays)),
        overlaid=tuple(origin.items()),
        notes=tuple(notes),
    )


def _fixes_known(rules: Iterable[CodeRule], known_fixes: Collection[str] | None) -> bool:
    """Whether every rule's fix is known (always, where none were given to check against)."""
    return known_fixes is None or all(r.fix is None or r.fix in known_fixes for r in rules)


def parse_document(
    name: str,
    text: str,
    *,
    known_ids: Iterable[str] | None = None,
    known_fixes: Collection[str] | None = None,
) -> tuple[CodeRule, ...]:
    """The rules of one document named ``name``; raises its first ``KnowledgeBaseError``."""
    checked = check_document(name, text, known_ids=known_ids, known_fixes=known_fixes)
    if checked.errors:
        raise checked.errors[0]
    return checked.rules


@dataclass(frozen=True)
class RulesCheck:
    """Everything validating one code-rules document found."""

    rules: tuple[CodeRule, ...]
    """The rules that are valid (all of them when ``errors`` is empty)."""
    raw: tuple[dict[str, Any], ...]
    """Those rules as parsed from the document (what the cache keeps)."""
    errors: tuple[KnowledgeBaseError, ...]
    """Every error in the order of their lines; each message is one line naming the file, the
    line and the rule."""


def check_document(
    name: str,
    text: str,
    *,
    known_ids: Iterable[str] | None = None,
    known_fixes: Collection[str] | None = None,
) -> RulesCheck:
    """Validate one code-rules document, collecting every error rather than the first
    (``known_fixes``: as ``load`` says).

    A document that is too large, is not YAML, uses an alias or is not a mapping has exactly
    one error. Unknown keys are errors (unlike in the knowledge base): a misspelt ``fix`` or
    ``recipe`` would otherwise silently drop what the rule is for.
    """
    from ipex_doctor.knowledge import schema  # NOTE: validation only (a cache miss)

    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        limit = MAX_FILE_BYTES // 1024
        too_big = f"{name}: larger than {limit} KiB; a code-rules file is a small text file"
        return RulesCheck((), (), (KnowledgeBaseError(too_big),))
    from ipex_doctor.knowledge import yamldoc  # NOTE: lazy; PyYAML costs ~15 ms to import

    try:
        data, tree = yamldoc.load(name, text, KnowledgeBaseError)
    except KnowledgeBaseError as exc:
        return RulesCheck((), (), (exc,))
    where = _where(name, tree, data)
    if not isinstance(data, dict):
        message = "the top level must be a mapping with 'schema_version' and 'rules'"
        return RulesCheck((), (), (where.error([], message),))
    located: list[tuple[int, KnowledgeBaseError]] = []
    broken: set[int] = set()
    for found in schema.errors(data, rules_schema()):
        path, message = _explain(data, list(found.path), found.message)
        if len(path) >= 2 and path[0] == "rules" and isinstance(path[1], int):
            broken.add(path[1])
        located.append((where.line(path) or 0, where.error(path, message)))
    entries = data.get("rules")
    rules: list[CodeRule] = []
    raws: list[dict[str, Any]] = []
    if isinstance(entries, list):
        known = _known_ids(known_ids)
        first: dict[str, int] = {}
        for index, raw in enumerate(entries):
            if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
                continue
            if raw["id"] in first:
                error = where.error(
                    ["rules", index, "id"],
                    f"duplicate id (first defined as rules[{first[raw['id']]}])",
                )
                located.append((where.line(["rules", index, "id"]) or 0, error))
                continue
            first[raw["id"]] = index
            if index in broken:
                continue
            problems = _check_rule(raw, known, known_fixes)
            for path, message in problems:
                full = ["rules", index, *path]
                located.append((where.line(full) or 0, where.error(full, message)))
            if not problems:
                rules.append(_rule(raw))
                raws.append(raw)
    located.sort(key=lambda pair: pair[0])
    return RulesCheck(tuple(rules), tuple(raws), tuple(error for _, error in located))


def _known_ids(given: Iterable[str] | None) -> frozenset[str]:
    if given is not None:
        return frozenset(given)
    from ipex_doctor.knowledge import known_issues  # NOTE: lazy; only reading a file needs it

    return frozenset(issue.id for issue in known_issues.load().issues)


def _where(name: str, tree: yaml.Node | None, data: Any) -> yamldoc.Located:
    """Where an error of a code-rules document is: its rule (or its index), else the field."""
    from ipex_doctor.knowledge import yamldoc

    return yamldoc.Located(
        name, tree, data, entries={"rules": "rule"}, whole="code rules", tip=_TIP,
        index_unnamed=True, whole_fields=True,
    )  # fmt: skip


def _value_at(data: Any, path: Sequence[str | int]) -> Any:
    node = data
    for step in path:
        if isinstance(node, dict) and isinstance(step, str):
            node = node.get(step)
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            node = node[step]
        else:
            return None
    return node


def _allowed_keys(path: Sequence[str | int]) -> tuple[str, ...]:
    """The keys the schema allows in the object at ``path`` (for naming a misspelt one)."""
    root = rules_schema()
    defs = root["$defs"]
    if not path:
        node = root
    elif len(path) == 2:
        node = defs["rule"]
    elif path[2] == "match":
        node = defs["match"]
    elif path[2] == "references":
        node = defs["rule"]["properties"]["references"]["items"]
    else:
        return ()
    return tuple(node.get("properties", {}))


def _explain(data: Any, path: list[str | int], message: str) -> tuple[list[str | int], str]:
    """A schema error in the words of this format, pointed at the line that is wrong: an
    unknown key at its own line (with the closest known one), a match that sets no kind or
    two kinds as such."""
    value = _value_at(data, path)
    if message.startswith("Additional properties are not allowed") and isinstance(value, dict):
        allowed = _allowed_keys(path)
        unknown = [k for k in value if isinstance(k, str) and k not in allowed]
        if unknown:
            close = _close(unknown[0], allowed)
            hint = f"; did you mean '{close}'?" if close else f" (known keys: {', '.join(allowed)})"
            return [*path, unknown[0]], f"unknown key '{unknown[0]}'{hint}"
    if path[-1:] == ["match"] and "the given schemas" in message and isinstance(value, dict):
        kinds = [k for k in MATCH_KINDS if k in value]
        found = ", ".join(kinds) if kinds else "none"
        return path, f"match needs exactly one of {', '.join(MATCH_KINDS)}; found {found}"
    return path, message


def _check_rule(
    raw: Mapping[str, Any], known: frozenset[str], known_fixes: Collection[str] | None
) -> list[tuple[list[str | int], str]]:
    """What the schema cannot say of one schema-valid rule, as (path in the rule, message)."""
    problems: list[tuple[list[str | int], str]] = []

    def add(path: list[str | int], message: str) -> None:
        problems.append((path, message))

    match = raw["match"]
    kind = next(k for k in MATCH_KINDS if k in match)
    if raw["id"] in known:
        add(["id"], "is also a knowledge-base id; a report names rules and issues side by side")
    for i, issue in enumerate(raw.get("kb") or ()):
        if issue not in known:
            add(["kb", i], f"unknown knowledge-base id '{issue}'{_closest(issue, known)}")
    fix = raw.get("fix")
    if fix is not None and known_fixes is not None and fix not in known_fixes:
        known_list = ", ".join(known_fixes)
        add(["fix"], f"unknown fix '{fix}'{_closest(fix, known_fixes)} (known: {known_list})")
    if fix is None and "recipe" not in raw:
        add([], "a rule without 'fix' needs a 'recipe' (what to do by hand)")
    if kind == "pattern" and match["pattern"] not in PATTERNS:
        name = match["pattern"]
        known_patterns = ", ".join(PATTERNS)
        add(["match", "pattern"], f"unknown pattern '{name}'{_closest(name, PATTERNS)} (known: {known_patterns})")  # fmt: skip
    owners = (("unless", "text"), ("when", "text"), ("in_files_with", "text"), ("names", "pattern"),
              ("unless_symbols", "symbols"))  # fmt: skip
    for field, owner in owners:
        if field in match and kind != owner:
            add(["match", field], f"'{field}' belongs to a {owner} rule; this is a {kind} rule")
    if kind == "text":
        if "applies_to" not in raw:
            add(["match", "text"], "a text rule needs 'applies_to': the file kinds whose lines it searches")  # fmt: skip
        for field in ("text", "unless", "when", "in_files_with"):
            for i, pattern in enumerate(match.get(field) or ()):
                problem = _regex_problem(pattern)
                if problem is not None:
                    add(["match", field, i], problem)
    elif "applies_to" in raw:
        # NOTE: a symbol, import or pattern rule is matched on Python's syntax tree; another
        # kind of file never reaches it, so naming one would be a rule that silently never fires
        outside = [k for k in raw["applies_to"] if FileKind(k) not in PYTHON_KINDS]
        if outside:
            add(["applies_to"], f"a {kind} rule reads Python source; {', '.join(outside)} files are not read as Python (use match.text)")  # fmt: skip
    return problems


def _close(word: str, choices: Iterable[str]) -> str | None:
    """The choice closest to a misspelt ``word``, if one is close."""
    import difflib  # NOTE: lazy, like everything only an invalid file needs

    close = difflib.get_close_matches(word, list(choices), n=1)
    return close[0] if close else None


def _closest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the choice closest to ``word``, or nothing."""
    close = _close(word, choices)
    return f" (did you mean '{close}'?)" if close else ""


def _regex_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a text rule's expression, or ``None`` when it can."""
    from ipex_doctor.knowledge.known_issues import _NESTED_QUANTIFIER  # NOTE: the KB's guard

    # NOTE: Python's re has no timeout, and the scanner runs every text rule on every line of
    # every Dockerfile and script in a project: a quantified group that is quantified again
    # ("(a+)+") can backtrack for minutes on one long line, so it is refused here.
    if _NESTED_QUANTIFIER.search(pattern):
        return "regular expression has a quantified group that is itself quantified (like '(a+)+'), which can backtrack for minutes on a long line; rewrite it"
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        return f"invalid regular expression: {exc}"
    if compiled.search("") is not None:
        return "regular expression matches an empty line, so it would match every line"
    return None


def _rule(raw: Mapping[str, Any]) -> CodeRule:
    """The ``CodeRule`` of a checked rule (see ``_check_rule``)."""
    match = raw["match"]
    applies_to = raw.get("applies_to")
    return CodeRule(
        id=raw["id"],
        title=raw["title"].strip(),
        severity=Severity(raw["severity"]),
        match=RuleMatch(
            symbols=tuple(match.get("symbols") or ()),
            unless_symbols=tuple(match.get("unless_symbols") or ()),
            imports=tuple(match.get("imports") or ()),
            pattern=match.get("pattern"),
            text=tuple(match.get("text") or ()),
            unless=tuple(match.get("unless") or ()),
            when=tuple(match.get("when") or ()),
            in_files_with=tuple(match.get("in_files_with") or ()),
            names=tuple(match.get("names") or ()),
        ),
        why=raw["why"].strip(),
        replacement=raw["replacement"].strip(),
        applies_to=DEFAULT_APPLIES_TO
        if applies_to is None
        else tuple(FileKind(k) for k in applies_to),
        needs_ipex=bool(raw.get("needs_ipex", False)),
        ipex_build=IpexBuild(raw.get("ipex_build", IpexBuild.ANY.value)),
        fix=raw.get("fix"),
        recipe=raw.get("recipe", "").strip(),
        kb=tuple(raw.get("kb") or ()),
        references=tuple(
            Reference(url=r["url"], title=r.get("title", "")) for r in raw["references"]
        ),
        replacement_symbols=tuple(raw.get("replacement_symbols") or ()),
        unverified=raw.get("unverified", "").strip(),
    )
