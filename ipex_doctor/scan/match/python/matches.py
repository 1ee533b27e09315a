"""The matches of ``symbols``, ``imports`` and ``pattern`` rules in a module read by ``python_names``.

* ``symbols``: each outermost name chain is reported once, at the longest part of it that some
  rule names (``torch.xpu.amp.autocast()`` is reported as ``torch.xpu.amp.autocast`` even when
  ``torch.xpu.amp`` is a rule too), for the most specific rules at that length (an exact name
  before a wildcard, a longer wildcard before a shorter one); a variable only assignments
  bind to such a name is reported at its assignment and where it is called, not where it is
  handed on. A bare name tested for being there (``if ipex:``, ``ipex is not None``) is a
  question, not a use: not reported as one. A name that exists without IPEX compared with a
  value (``func is torch.cpu.amp.autocast``, ``func in (torch.cpu.amp.autocast, ...)``: torch's
  own Dynamo recognising a deprecated context manager) is recognised, not used: only the rules
  of names that exist only with IPEX report it (looking one up fails without IPEX). A module's
  own dunder read through a name that may hold a module of another package too (a generic
  import helper's ``module.__version__``: torch or IPEX by its argument) is whichever module's:
  not reported. IPEX's bare module handed on (``module = ipex``, ``dict(ipex=ipex)``) is
  reported only on a line no other hit reports (it adds nothing there: ``ipex_xpu = ipex if
  ipex._C._has_xpu() else None`` is the probe's). ``getattr`` with a literal name on a module
  only IPEX or the oneCCL bindings have (``getattr(ccl, "__version__", "unknown")``) is read as
  that attribute, at the call (``_getattr_reads``). A read of a name the file's own assignment
  has set by then is marked with that assignment's line (``_after_own_assignments``);
* ``imports``: each module an import statement may load (``imported_modules``), for the rules
  of the longest listed module it is or is under; ``from m import n`` reports ``m``'s rules at
  the statement and a more specific rule for ``m.n`` at ``n``;
* ``pattern``: what ``patterns`` finds (a project's switch to its IPEX path after the rest, from
  their hits).

Every hit (and the text rules' hits in the same module, given by the reader) carries whether
``scan --fix`` rewrites it (``fixable``) and the probe or ``try`` that guards it, if any
(``python_probes``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import NamedTuple

from ipex_doctor.scan.match.fixable import (
    IPEX_PACKAGE,
    NO_KEEPERS,
    Keepers,
    Module,
    import_keepers,
    mechanical_use,
    removable_import,
    removed_with_uses,
)
from ipex_doctor.scan.match.patterns import (
    SPECTRAL_NORM,
    UNBOUND_ALIAS_PATTERN,
    Context,
    PatternHit,
    spectral_norm_of,
)
from ipex_doctor.scan.match.python.names import (
    Chain,
    Facts,
    NameTable,
    ProjectImports,
    Scope,
    imported_modules,
    keyed_name,
)
from ipex_doctor.scan.match.python.probes import (
    PROBE_PATTERN,
    Guard,
    Known,
    Probes,
    tested_names,
)
from ipex_doctor.scan.match.python.switches import SWITCH_PATTERN
from ipex_doctor.scan.match.ruleset import Best, ImportIndex, PythonRules, SymbolIndex
from ipex_doctor.scan.read.source import Hit, byte_column, char_column


class RunOf(NamedTuple):
    """What ``python_hits`` is given of a module of which it reads one run of statements
    (``readers``)."""

    imports: Facts
    """Its every import (what ``torch_writable`` reads)."""
    source: str
    probes: Known | None
    """Its probes' flags and the names its imports of a listed package bind, from every run
    (``FlagSources``); ``None`` when it spells no listed name."""
    spectral_norm: str | None
    """The spectral norm it applies (``SpectralNorms``)."""
    removals: dict[tuple[str, int, int], str]
    """Filled in: each ``import intel_extension_for_pytorch`` of the run that
    ``removable_import`` removes but for the other statements (rule, line and column of its
    hit: the name it binds); the reader decides them once every run is read
    (``decide_removals``)."""
    rewritten: dict[int, str]
    """Filled in: the rule of each use of the run labelled mechanical, by the id of its node,
    for the reader's ``import_keepers`` of the run."""


def python_hits(
    parts: Sequence[Facts],
    table: NameTable,
    rules: PythonRules,
    lines: Mapping[int, Sequence[str]],
    text: Sequence[Hit] = (),
    *,
    run_of: RunOf | None = None,
    searched: Collection[str] | None = None,
    text_of: str | None = None,
) -> list[Hit]:
    """The hits of ``rules`` in the module whose parts are ``parts``, read into ``table``
    (finished), and ``text`` (the text rules' hits in it), each with its guard; ``lines``
    are each part's source lines, by part.

    ``run_of``: ``parts`` is one run of a module's statements, and this is what the module's
    other statements say. ``removable_import`` is then decided for the run's imports after
    every run (``RunOf.removals``).

    ``searched``: the ids of the pattern rules to search for (the reader's
    ``searched_patterns``: those that can match in this file); ``None``: every one.

    ``text_of``: the module's text, where the caller holds it as the words to search (a
    here-document's body, whose ``lines`` are mostly the empty lines before it); ``None``: the
    ``lines`` joined."""
    probe_names = next((n for _, p, n in rules.patterns if p.id == PROBE_PATTERN), ())
    source = run_of.source if run_of is not None else ""
    if run_of is None:
        source = (
            text_of
            if text_of is not None
            else "\n".join(line for part in lines.values() for line in part)
        )
        probes = Probes(parts, probe_names, rules.ipex_only_name, source)
    elif run_of.probes is None:
        probes = Probes(parts, probe_names, rules.ipex_only_name, run_of.source)
    else:
        # NOTE: the names the module spells, known: the run is not told the whole text again
        whole = run_of.probes
        probes = Probes(parts, whole.names, rules.ipex_only_name, None, whole)
    guards = probes.guards(parts)
    module = Module.of(parts, table, lines)
    if run_of is not None:
        module = module._replace(parts=[run_of.imports])
    spectral = run_of.spectral_norm if run_of is not None else None
    context = Context(
        probe_names, rules.ipex_only_name, probes, module, spectral_norm=spectral, source=source
    )
    known: list[Keepers] = []
    # NOTE: the rule of each use labelled mechanical (what the other fixes rewrite), by node id
    rewritten = run_of.rewritten if run_of is not None else {}
    rewritten.clear()

    def keepers() -> Keepers:
        # NOTE: what keeps an IPEX import is read from every part of the module: worked out
        # once, at the first import that asks (it was once per import: a walk of every chain)
        if not known:
            known.append(import_keepers(module.parts, rewritten))
        return known[0]

    by_part: list[list[Hit]] = []
    bare: list[Hit] = []
    """The symbol hits of IPEX's bare module (a text hit may have the same symbol: its text)."""
    # NOTE: every part's uses first, then the imports: whether an IPEX import goes depends on
    # which uses in any part the other fixes rewrite (``import_keepers``' ``rewritten``)
    bound = table.bound_names | table.receivers
    unbound_aliases = next((n for _, p, n in rules.patterns if p.id == UNBOUND_ALIAS_PATTERN), ())
    # NOTE: ``.ipex.`` is rare text: a module that never spells it has no chain through it
    on_objects = frozenset(a for a in unbound_aliases if f".{a}." in source)
    for facts in parts:
        named = []
        if rules.symbols:
            at_nodes = list(
                _symbol_hits(facts, bound, rules, lines[facts.part], module, on_objects)
            )
            rewritten.update((id(node), hit.rule_id) for hit, node in at_nodes if hit.mechanical)
            named = _after_own_assignments(at_nodes, facts)
            bare += (hit for hit in named if hit.symbol == IPEX_PACKAGE)
        by_part.append(named)
    hits: list[Hit] = []
    for facts, named in zip(parts, by_part, strict=True):
        hits += named
        if rules.imports.modules:
            hits += _import_hits(
                facts, rules, lines[facts.part], guards, module, run_of, keepers,
                bool(rewritten), table.project,
            )  # fmt: skip
    switches = []
    for rule_id, pattern, names in rules.patterns:
        if searched is not None and rule_id not in searched:
            continue
        if pattern.id == SWITCH_PATTERN:
            switches.append((rule_id, pattern, names))
            continue
        found = pattern.find(parts, context._replace(names=names))
        hits += (_pattern_hit(rule_id, hit, lines[hit.part]) for hit in found)
    hits += text
    for rule_id, pattern, names in switches:
        # NOTE: found from the other rules' hits (a switch is one only beside them)
        found = pattern.find(parts, context._replace(names=names, hits=tuple(hits)))
        hits += [_pattern_hit(rule_id, hit, lines[hit.part]) for hit in found]
    if bare:
        hits = _without_bare_module_beside_others(hits, bare)
    return [_guarded(hit, guards, lines) for hit in hits]


def _without_bare_module_beside_others(hits: list[Hit], bare: list[Hit]) -> list[Hit]:
    """``hits`` less those of ``bare`` (IPEX's bare module, among them) on a line another hit
    reports (see the module)."""
    dropped = {id(hit) for hit in bare}
    others = {
        (hit.part, line)
        for hit in hits
        if id(hit) not in dropped
        for line in range(hit.line, hit.end_line + 1)
    }
    return [hit for hit in hits if id(hit) not in dropped or (hit.part, hit.line) not in others]


def decide_removals(
    hits: list[Hit], removals: Mapping[tuple[str, int, int], str], keepers: Keepers
) -> list[Hit]:
    """``hits`` of a module read in runs, each import in ``removals`` (``RunOf``) labelled
    mechanical only where ``keepers`` (what every run says, ``import_keepers``) lets it go."""
    if not removals:
        return hits
    return [
        hit._replace(mechanical=not keepers.kept and bound not in keepers.read)
        if (bound := removals.get((hit.rule_id, hit.line, hit.column))) is not None
        else hit
        for hit in hits
    ]


class SpectralNorms:
    """The spectral norms a module read in runs of statements applies (``readers``):
    ``half-spectral-norm`` names the first in the module's order at each conversion, in any
    run. In a module that spells ``spectral_norm`` and whose rules look for it, the calls that
    may apply one (by a name, or by an attribute of that name) are kept while each run is
    read for its names (``add``: the callee and its scope, never the run's trees) and
    resolved once the table is finished (``named``)."""

    def __init__(self, rules: PythonRules, source: str) -> None:
        spectral = any(p.id == "half-spectral-norm" for _, p, _ in rules.patterns)
        last = {name.rpartition(".")[2] for name in SPECTRAL_NORM}
        self._on = spectral and any(name in source for name in last)
        self._last = frozenset(last)
        self._calls: list[tuple[ast.Call, Scope]] = []

    @property
    def looked_for(self) -> bool:
        """Whether the module's calls are kept at all (it spells a spectral norm's name)."""
        return self._on

    @property
    def kept(self) -> int:
        """How many calls are kept so far."""
        return len(self._calls)

    def add(self, facts: Facts) -> None:
        """Keep the calls of the part ``facts`` that may apply a spectral norm."""
        if self._on:
            for call, scope in facts.calls:
                func = call.func
                if type(func) is ast.Name or (
                    isinstance(func, ast.Attribute) and func.attr in self._last
                ):
                    self._calls.append((ast.Call(func, [], []), scope))

    def named(self) -> tuple[bool, str | None]:
        """Whether the module can be matched in runs, and the spectral norm it applies: the
        first in the module's order is the one when all are one; when they are several, the
        module is read whole (its order is the whole module's reading's own)."""
        names = {name for call, scope in self._calls if (name := spectral_norm_of(call, scope))}
        if len(names) > 1:
            return False, None
        return True, next(iter(names), None)


REMOVED_IMPORT = "ipex-side-effect-import"
"""The fix whose condition (``removable_import``) reads every statement of the module."""


def _guarded(hit: Hit, guards: Sequence[Guard], lines: Mapping[int, Sequence[str]]) -> Hit:
    """``hit`` with the guard it sits under (the innermost: the last span that covers it)."""
    if not guards:
        return hit
    column = byte_column(_line(lines.get(hit.part, ()), hit.line), hit.column)
    covering = [g for g in guards if g.covers(hit.part, hit.line, column)]
    if not covering:
        return hit
    innermost = max(covering, key=lambda g: g.start)
    return hit._replace(guard=innermost.what)


def _symbol_hits(
    facts: Facts,
    bound: frozenset[str],
    rules: PythonRules,
    lines: Sequence[str],
    module: Module,
    on_objects: frozenset[str] = frozenset(),
) -> Iterator[tuple[Hit, ast.expr]]:
    """Each symbol rule's hit in ``facts``, with the node it is at; with ``on_objects`` (IPEX's
    usual aliases), also each call through an attribute of that name on an object the module
    cannot resolve (``_object_alias``)."""
    called: set[int] | None = None
    tested: set[int] | None = None
    compared: set[int] | None = None
    read_by_name: dict[int, ast.Attribute] | None = None
    for chain, scope in facts.chains:
        base: ast.expr = chain
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Subscript):
            if keyed_name(base) not in bound:
                continue  # NOTE: a key read where it is taken: no assignment to skip
        elif not isinstance(base, ast.Name) or base.id not in bound:
            if on_objects and type(chain) is ast.Attribute:
                if called is None:
                    called = {id(call.func) for call, _ in facts.calls}
                if id(chain) in called:
                    yield from _object_alias_hits(chain, on_objects, rules, lines, facts.part)
            continue  # NOTE: most chains start at a local (self, x): no lookup needed
        elif chain is base:
            if not isinstance(base.ctx, ast.Load):
                continue  # NOTE: ``del ipex`` uses nothing
            if scope.assigned_only(base.id):
                # NOTE: a variable an assignment bound to an IPEX name is reported at that
                # assignment; handed on (``quantization_config=qconfig``) it would repeat the
                # finding on an argument line. Called, it is a use of its own.
                if called is None:
                    called = {id(call.func) for call, _ in facts.calls}
                if id(chain) not in called:
                    continue
            if tested is None:
                tested = tested_names(facts)
            if id(chain) in tested:
                continue
        elif type(chain) is ast.Attribute and chain.value is base and not scope.lookup(base.id):
            # NOTE: ``self.ipex`` alone, the receiver's attribute (``Scope.instance``): as a
            # name an assignment bound, it is reported at that assignment (``self.ipex =
            # ipex``); set, tested or handed on again, it would repeat that finding. Called, it
            # is a use of its own.
            if called is None:
                called = {id(call.func) for call, _ in facts.calls}
            if id(chain) not in called:
                continue
        if read_by_name is None:
            read_by_name = _getattr_reads(facts)
        read = read_by_name.get(id(chain))
        if read is not None:
            by_name = _best_in_chain(read, scope, rules.symbols)
            if by_name is not None and by_name[0] is read:
                if _whichever_modules_own(read, by_name[1], scope):
                    continue
                if by_name[1].partition(".")[0] in _PACKAGE_MODULES:
                    for rule_id in by_name[2].rule_ids:
                        yield _hit(rule_id, by_name[1], read, lines, facts.part), read
                    continue
        found = _best_in_chain(chain, scope, rules.symbols)
        if found is None and on_objects and type(chain) is ast.Attribute:
            # NOTE: a module of the project's own, imported (``hardware.ipex.optimize(m)``)
            if called is None:
                called = {id(call.func) for call, _ in facts.calls}
            if id(chain) in called:
                yield from _object_alias_hits(chain, on_objects, rules, lines, facts.part)
        elif found is not None:
            node, name, best = found
            if _whichever_modules_own(node, name, scope):
                continue
            rule_ids = best.rule_ids
            if facts.compares and not rules.ipex_only.issuperset(rule_ids):
                if compared is None:
                    compared = _compared_values(facts)
                if id(chain) in compared:
                    rule_ids = tuple(r for r in rule_ids if r in rules.ipex_only)
            for rule_id in rule_ids:
                fix = rules.fixes.get(rule_id)
                mechanical = fix is not None and mechanical_use(
                    fix, name, node, scope, facts.part, module
                )
                yield _hit(rule_id, name, node, lines, facts.part, mechanical), node


_PACKAGE_MODULES = frozenset({IPEX_PACKAGE, "oneccl_bindings_for_pytorch", "torch_ccl"})
"""Modules that exist only with IPEX or the oneCCL bindings: ``getattr`` of a literal name on
one is a read of that name (``_getattr_reads``). On ``torch.xpu`` the same call with a default
asks whether IPEX added the name (a probe's, ``probes``): torch.xpu is there either way."""


def _getattr_reads(facts: Facts) -> dict[int, ast.Attribute]:
    """For each first argument of a builtin ``getattr`` call with a literal name (``getattr(ccl,
    "__version__", "unknown")``), by the argument's id, the attribute it reads, placed at the
    call: the name chain ``ccl.__version__`` as written with a dot. The default changes
    nothing: the object must be there to be asked."""
    reads: dict[int, ast.Attribute] = {}
    for call, scope in facts.calls:
        func, args = call.func, call.args
        if (
            type(func) is ast.Name
            and func.id == "getattr"
            and len(args) in (2, 3)
            and not call.keywords
            and type(args[1]) is ast.Constant
            and isinstance(args[1].value, str)
            and args[1].value.isidentifier()
            and not scope.sees_binding("getattr")  # NOTE: the builtin, not a name of the file
        ):
            read = ast.Attribute(value=args[0], attr=args[1].value, ctx=ast.Load())
            reads[id(args[0])] = ast.copy_location(read, call)
    return reads


def _object_alias_hits(
    chain: ast.Attribute,
    aliases: frozenset[str],
    rules: PythonRules,
    lines: Sequence[str],
    part: int,
) -> Iterator[tuple[Hit, ast.expr]]:
    """The hits of ``_object_alias`` for the called ``chain``: never mechanical (the object is
    not one the module binds, so no fix can rewrite through it)."""
    through = _object_alias(chain, aliases, rules.symbols)
    if through is not None:
        node, name, best = through
        for rule_id in best.rule_ids:
            yield _hit(rule_id, name, node, lines, part, False), node


def _object_alias(
    chain: ast.Attribute, aliases: frozenset[str], symbols: SymbolIndex
) -> tuple[ast.expr, str, Best] | None:
    """IPEX's name that a called chain spells through an attribute named as IPEX's usual alias
    (``config.ipex.optimize``, ``self.ipex.llm.optimize`` where the class that set
    ``self.ipex`` is not this one, ``hardware.ipex.optimize`` where ``hardware`` is the
    project's own module): the object is another module's or a base class's, but
    the attribute's name and what is called on it together are IPEX's API (``optimize`` on
    ``ipex``), as a rule names it (its own name, ``_names_an_api``, not IPEX's catch-all); at
    least one attribute after the alias must be IPEX's (``args.ipex`` alone is a project's
    flag). The node reported and the rules, as
    ``_best_in_chain`` gives them."""
    links: list[ast.Attribute] = [chain]
    while isinstance(inner := links[-1].value, ast.Attribute):
        links.append(inner)
    for at in range(len(links) - 1, 0, -1):
        if links[at].attr in aliases:
            attributes = [link.attr for link in reversed(links[:at])]
            found = symbols.longest(IPEX_PACKAGE, attributes)
            # NOTE: IPEX's catch-all (``intel_extension_for_pytorch.*``) names any attribute:
            # ``env.runtime.ipex.get("version")`` on a dict of the project's is no IPEX API
            if found is not None and found[0] >= 1 and _names_an_api(found[2]):
                count, name, best = found
                return links[at - count], name, best
    return None


def _names_an_api(best: Best) -> bool:
    """Whether ``best`` is a rule's own name for an API: an exact name, or a wildcard under a
    part of IPEX (``intel_extension_for_pytorch.xpu.*``), not the catch-all of the package."""
    exact, length = best.score
    return bool(exact) or length > len(IPEX_PACKAGE)


def _whichever_modules_own(node: ast.expr, name: str, scope: Scope) -> bool:
    """Whether ``node`` reads a module's own dunder (``module.__version__``) through a name that
    may hold a module of another package than the one ``name`` is under: a generic import
    helper's ``module``, bound to torch in one branch and to IPEX in another, has the version
    of whichever it holds; asking it is no question about IPEX (as ``hasattr`` on it is not,
    ``probes``). Through a name that holds IPEX alone, it is IPEX's."""
    if type(node) is not ast.Attribute or not (
        node.attr.startswith("__") and node.attr.endswith("__")
    ):
        return False
    package = name.partition(".")[0]
    owners = NameTable.resolve(node.value, scope)
    return any(owner.partition(".")[0] != package for owner in owners)


_Place = tuple[int, int]
"""A line and a UTF-8 byte column, as ``ast`` gives them."""


def _after_own_assignments(found: Sequence[tuple[Hit, ast.expr]], facts: Facts) -> list[Hit]:
    """The hits of ``found``, each read of a name that the file's own assignment has set by
    the time it runs marked with that assignment's line (``Hit.assigned_at``).

    An IPEX-era shim assigns the name a rule reports (``torch.xpu.amp.GradScaler = ipex.cpu.
    autocast._grad_scaler.GradScaler``) and then reads it (``torch.xpu.amp.GradScaler.update =
    update``): the read finds what the assignment set, so the assignment is the one cause; the
    read only depends on it. "Has set by the time it runs" is read exactly: the assignment is a
    statement of a function's body or of the module's (not under an ``if``, ``try`` or loop of
    its own), and the read comes after it in that body, in any statement after it (a function
    defined there runs after it too); no ``del`` of the name comes between. A read anywhere
    else (before it, in another function, after a conditional assignment) stays as it was."""
    stores = {id(node): hit for hit, node in found if type(getattr(node, "ctx", None)) is ast.Store}
    if not stores:
        return [hit for hit, _ in found]
    # NOTE: (where what runs after it starts, where its body ends, the line reported) by name
    after: dict[str, list[tuple[_Place, _Place, int]]] = {}
    for assign, scope in facts.assigns:
        targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
        if isinstance(assign, ast.AnnAssign) and assign.value is None:
            continue  # NOTE: an annotation alone sets nothing
        stored = [stores[id(t)] for t in targets if id(t) in stores]
        if not stored:
            continue
        body = next(
            (b for b, s in facts.bodies if s is scope and any(st is assign for st in b)), None
        )
        if body is None:
            continue
        start = (assign.end_lineno or assign.lineno, assign.end_col_offset or 0)
        last = body[-1]
        end = (last.end_lineno or last.lineno, last.end_col_offset or 0)
        for hit in stored:
            after.setdefault(hit.symbol, []).append((start, end, hit.line))
    if not after:
        return [hit for hit, _ in found]
    deleted: dict[str, list[_Place]] = {}
    for hit, node in found:
        if type(getattr(node, "ctx", None)) is ast.Del:
            deleted.setdefault(hit.symbol, []).append((node.lineno, node.col_offset))
    marked = []
    for hit, node in found:
        spans = after.get(hit.symbol)
        if spans and type(getattr(node, "ctx", None)) is ast.Load:
            at = (node.lineno, node.col_offset)
            gone = deleted.get(hit.symbol, ())
            latest = max(
                (
                    (start, line)
                    for start, end, line in spans
                    if start <= at <= end and not any(start <= d < at for d in gone)
                ),
                default=None,
            )
            if latest is not None:
                hit = hit._replace(assigned_at=latest[1])
        marked.append(hit)
    return marked


def _compared_values(facts: Facts) -> set[int]:
    """The ids of the expressions ``facts`` compares as values: an operand of a comparison, or
    an element of a list, tuple or set written as the container of ``in`` / ``not in``."""
    values: set[int] = set()
    for compare in facts.compares:
        values.update(map(id, (compare.left, *compare.comparators)))
        for op, container in zip(compare.ops, compare.comparators, strict=True):
            if isinstance(op, ast.In | ast.NotIn) and isinstance(
                container, ast.List | ast.Tuple | ast.Set
            ):
                values.update(map(id, container.elts))
    return values


def _import_hits(
    facts: Facts,
    rules: PythonRules,
    lines: Sequence[str],
    guards: Sequence[Guard],
    module: Module,
    run_of: RunOf | None,
    keepers: Callable[[], Keepers],
    uses_rewritten: bool = False,
    project: ProjectImports | None = None,
) -> Iterator[Hit]:
    """The import rules' hits of ``facts``; ``keepers()`` is what keeps an IPEX import in the
    whole module (``import_keepers``), asked only where ``removable_import`` reads it, or
    ``removed_with_uses`` where some use is rewritten (``uses_rewritten``); ``project``: the
    project's own imports of an outer module (``NameTable.project``)."""
    imports: ImportIndex = rules.imports
    for statement in facts.imports:
        reported: set[str] = set()
        for module_name, node in imported_modules(statement, project):
            best = imports.best(module_name)
            for rule_id in best.rule_ids if best is not None else ():
                if rule_id not in reported:
                    reported.add(rule_id)
                    mechanical = False
                    if rules.fixes.get(rule_id) == REMOVED_IMPORT and isinstance(
                        statement, ast.Import
                    ):
                        assert isinstance(node, ast.alias)
                        caught = any(
                            g.caught
                            and g.covers(facts.part, statement.lineno, statement.col_offset)
                            for g in guards
                        )
                        kept = NO_KEEPERS if run_of is not None else None
                        if kept is None and node.name == IPEX_PACKAGE and not caught:
                            kept = keepers()  # NOTE: elsewhere removable_import reads none
                        mechanical = removable_import(
                            statement, node, caught, module, facts.part, kept
                        )
                    hit = _hit(rule_id, module_name, node, lines, facts.part, mechanical)
                    if (
                        rules.fixes.get(rule_id) == REMOVED_IMPORT
                        and isinstance(statement, ast.ImportFrom)
                        and uses_rewritten
                        and run_of is None
                    ):
                        # NOTE: not this rule's fix, but the one of the uses of what it imports
                        hit = hit._replace(
                            rewritten_for=removed_with_uses(
                                statement, keepers(), module, facts.part
                            )
                            or ""
                        )
                    if mechanical and run_of is not None:
                        assert isinstance(node, ast.alias)
                        key = (hit.rule_id, hit.line, hit.column)
                        run_of.removals[key] = node.asname or IPEX_PACKAGE
                    yield hit


def _pattern_hit(rule_id: str, found: PatternHit, lines: Sequence[str]) -> Hit:
    return Hit(
        rule_id,
        found.symbol,
        found.line,
        char_column(_line(lines, found.line), found.column),
        found.end_line,
        char_column(_line(lines, found.end_line), found.end_column),
        found.part,
        found.mechanical,
        set_at=found.set_at,
    )


def _best_in_chain(
    node: Chain, scope: Scope, symbols: SymbolIndex
) -> tuple[ast.expr, str, Best] | None:
    """The longest part of the chain ``node`` that a rule names: (that node, its resolved
    name, the rules); of several bindings of its base, the most specific match."""
    chain: list[ast.expr] = [node]
    while isinstance(chain[-1], ast.Attribute):
        chain.append(chain[-1].value)
    bases = NameTable.resolve(chain[-1], scope)
    if not bases and len(chain) > 1:
        # NOTE: ``self.ipex.optimize``: the receiver's attribute is the base, as ``resolve``
        # reads it (``Scope.instance``)
        bases = NameTable.resolve(chain[-2], scope)
        if bases:
            chain.pop()
    attributes = [link.attr for link in reversed(chain[:-1]) if isinstance(link, ast.Attribute)]
    found: tuple[int, str, Best] | None = None
    for base in bases:
        candidate = symbols.longest(base, attributes)
        if candidate is not None and (
            found is None or (candidate[0], candidate[2].score) > (found[0], found[2].score)
        ):
            found = candidate
    if found is None:
        return None
    count, name, best = found
    return chain[len(attributes) - count], name, best


def _line(lines: Sequence[str], number: int) -> str:
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _hit(
    rule_id: str,
    symbol: str,
    node: ast.AST,
    lines: Sequence[str],
    part: int,
    mechanical: bool = False,
) -> Hit:
    line: int = getattr(node, "lineno", 1)
    column: int = getattr(node, "col_offset", 0)
    end_line: int = getattr(node, "end_lineno", None) or line
    end_column: int = getattr(node, "end_col_offset", None) or column
    return Hit(
        rule_id,
        symbol,
        line,
        char_column(_line(lines, line), column),
        end_line,
        char_column(_line(lines, end_line), end_column),
        part,
        mechanical,
    )
