"""Availability probes and the code they guard: where a module asks whether IPEX (or the oneCCL
bindings) is there, and which of its lines run only when the answer is yes.

A probe (``find_probes``) is, for the names a rule lists (``match.names``: packages as imported
or installed, the helpers and flags projects name after them):

* a call that asks about a listed package by name, as its first argument: ``importlib.util.
  find_spec("intel_extension_for_pytorch")``, ``importlib.metadata.version("oneccl_bind_pt")``,
  ``importlib.import_module(...)``, ``is_package_available(...)`` (``python_strings.
  is_query``), a submodule of one included; also ``"intel_extension_for_pytorch" in
  sys.modules``;
* a call of a listed helper, by the name it is called with (``is_ipex_available()``,
  ``utils.is_ipex_version("<", "2.3")``): a project's own helper is imported relatively and
  resolves to nothing, so the name is what there is;
* a test whether a name the module binds by importing a listed package is defined:
  ``"ipex" in globals()`` (also ``locals()``, ``dir()``, ``vars()``) after a guarded
  ``import intel_extension_for_pytorch as ipex``;
* a read of a flag: a listed name (``HAS_IPEX``), or one the module sets from a probe
  (``_ipex_available = find_spec(...) is not None``) or to ``True`` / ``False`` around an
  import of a listed package (``try: import intel_extension_for_pytorch; HAS_IPEX = True
  except ImportError: HAS_IPEX = False``); a listed name bound by ``import`` to the module of
  that name is the module, not a flag;
* a test (``if ipex:``, ``ipex is not None``, ``not ipex``, an operand of ``and``) of a name
  that stands only for a listed package as the module's imports bind it (``try: import
  intel_extension_for_pytorch as ipex / except ImportError: ipex = None``), or of a
  receiver's attribute the class assigns it (``if self.ipex:``): true only where the import
  ran;
* ``hasattr(X, "name")`` where ``X`` is a listed package (or under one) or ``X.name`` exists
  only with IPEX (``hasattr(torch.xpu, "has_fp64_dtype")``: ``ipex_only``), whatever ``X``
  may stand for (a helper's ``module``, bound to torch in one branch and to IPEX in another,
  asks about either).

What a probe guards (``guards``) runs only where the probe said yes: the body of an ``if`` (or
the ``else`` of an ``if not ...``), the chosen value of a conditional expression, what follows
a probe in an ``and``; and the body of a ``try`` whose handlers catch ``ImportError`` (or
``AttributeError``, ``Exception``, everything): there a missing IPEX is caught, not fatal. A
use of IPEX read from a name under a listed package (``ipex.__version__ < "2.6"``,
``ipex._C._has_xpu()``) guards the same way.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple, TypeGuard

from ipex_doctor.scan.match.python.names import Facts, NameTable, Scope
from ipex_doctor.scan.match.python.strings import callee_name, is_query, message_nodes

GUARDING_HANDLERS = frozenset(
    {"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"}
)
"""Exceptions whose handler makes a missing IPEX (or IPEX-only name) caught, not fatal."""
MODULE_QUERIES = frozenset({"import_module", "get", "__import__"})
"""Probes that return the module they ask for (``importlib.import_module``,
``sys.modules.get``): the name they are assigned to is the module, not a flag."""
PROBE_PATTERN = "availability-probe"
"""The id of the structural pattern that reports probes (``patterns``)."""
NAMESPACE_CALLS = frozenset({"globals", "locals", "dir", "vars"})
"""Builtins whose result, tested with ``in``, says whether a name is defined."""
_REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_FLAG_ROUNDS = 3
"""A flag set from a flag set from a probe is followed this many steps deep."""
Origin = tuple[int, int]
"""(part, line) of an assignment that makes a name a flag."""
_SAYS_IPEX = re.compile(r"(?i)ipex|ccl")
"""A flag named after IPEX or oneCCL (``use_ipex``, ``HAS_IPEX``, ``ccl_ok``)."""


class ProbeHit(NamedTuple):
    """A probe: the node to report, what it asks, in which part of the module."""

    part: int
    node: ast.AST
    symbol: str
    set_at: int = 0
    """A flag's read: the line of the same part whose assignment makes it a probe's answer
    (the cause the read points to); 0: none, or not in this part."""


class Guard(NamedTuple):
    """A span of one part of the module that runs only where a probe said yes."""

    part: int
    start: tuple[int, int]
    """(line, byte column) where the guarded code starts."""
    end: tuple[int, int]
    what: str
    """The guard as the finding names it: its code and line."""
    caught: bool = False
    """A ``try`` whose handler catches the failure (not a test that avoids it)."""

    def covers(self, part: int, line: int, column: int) -> bool:
        """Whether the place (``column`` in bytes, as ``ast`` gives it) is guarded."""
        return part == self.part and self.start <= (line, column) <= self.end


class Known(NamedTuple):
    """What every part of a module says, for the probes of one run of its statements
    (``Probes(..., known=...)``)."""

    flags: frozenset[str]
    imported: frozenset[str]
    """The names the module binds by importing a listed package."""
    names: frozenset[str]
    """The listed names the module spells (searched for once, not in every run)."""
    origins: Mapping[str, Origin] = {}
    """Where each flag is first set from a probe (``Probes._origins``)."""


class Answer(NamedTuple):
    """A place in an assigned value that would make it a probe's answer (``Probes._answers``):
    ``probe`` (a probe call: it does), ``flag`` (a name: if it is a flag), ``hasattr`` (if it
    asks about an IPEX object) or ``defined`` (``"x" in globals()``: if an import of a listed
    package binds ``x``). Its node is small: a name, a ``hasattr`` call, a comparison."""

    kind: str
    node: ast.AST
    scope: Scope


class Probes:
    """The probes of one module (its parts read into one ``NameTable``) and what they guard."""

    def __init__(
        self,
        parts: Sequence[Facts],
        names: Collection[str],
        ipex_only: Callable[[str], bool] = lambda name: False,
        text: str | None = None,
        whole: Known | None = None,
    ) -> None:
        """The probes of ``parts`` for the listed ``names``; ``text``, the module's source,
        narrows them to the names it spells (a name it never writes cannot be asked about,
        so a module that spells none is only searched for ``hasattr`` on IPEX-only names).

        ``whole``: ``parts`` are one run of a module's statements, and this is what the whole
        module's parts say (``FlagSources.known``): its flags and the names its imports of a
        listed package bind."""
        self._names = frozenset(n for n in names if text is None or n in text)
        self._tops = frozenset(name.partition(".")[0] for name in self._names)
        self._ipex_only = ipex_only
        self._found: dict[int, ProbeHit] = {}
        self._flags = {name for name in self._names if name.isidentifier()}
        self._helper_names: frozenset[str] = frozenset()
        """The module's own functions whose call answers as a probe does (``_helpers``)."""
        self._reads: set[int] = set()
        """Chains that read a name under a listed package (``ipex.__version__``)."""
        self._imported = frozenset(
            bound for facts in parts for bound in self._bound_by_listed_imports(facts)
        )
        """The names the module binds by importing a listed package (``ipex``)."""
        if not self._names:
            for facts in parts:
                self._find_hasattr(facts)
            return
        self._origins: Mapping[str, Origin] = {}
        """Where each flag is first set from a probe: the earliest (part, line) of the
        assignments that make it one, the same whichever order the parts are read in."""

        if whole is not None:
            self._flags, self._imported = set(whole.flags), whole.imported
            self._origins = whole.origins
            for facts in parts:
                self._find(facts)
            return
        listed_flags = frozenset(self._flags)
        others = [source for facts in parts for source in self._other_sources(facts)]
        mixed: set[str] = set()
        while True:
            self._flags = set(listed_flags)
            for _ in range(_FLAG_ROUNDS):
                known = len(self._flags)
                for facts in parts:
                    self._derive_flags(facts, mixed)
                if len(self._flags) == known:
                    break
            more = self._mixed(others)
            if more <= mixed:
                break
            mixed |= more
        self._origins = self._first_sets(
            source for facts in parts for source in self._flag_sources(facts)
        )
        for facts in parts:
            self._find(facts)

    def hits(self) -> list[ProbeHit]:
        """Every probe, in no particular order."""
        return list(self._found.values())

    def guards(self, parts: Sequence[Facts]) -> list[Guard]:
        """The spans the probes (and ``try`` / ``except ImportError``) guard; a call of the
        module's own helper that answers as a probe does (``_helpers``) guards as one."""
        for _ in range(2):  # NOTE: a helper that calls a helper is seen on the second pass
            self._helper_names = self._helpers(parts)
        spans: list[Guard] = []
        for facts in parts:
            for node, _ in facts.branches:
                spans.extend(self._guarded_by(node, facts.part))
        return spans

    # -- what is a probe ----------------------------------------------------------------------

    def _listed(self, package: str) -> bool:
        if package.partition(".")[0] not in self._tops:
            return False  # NOTE: most names (torch, json); the full test below is rarer
        return any(package == n or package.startswith(n + ".") for n in self._names)

    def _under_listed(self, node: ast.AST, scope: Scope) -> str | None:
        """A resolved name of ``node`` under a listed package, or ``None``."""
        return next((n for n in NameTable.resolve(node, scope) if self._listed(n)), None)

    def _only_listed(self, node: ast.AST, scope: Scope) -> bool:
        """Whether every name ``node`` may stand for is under a listed package (a name bound to
        IPEX in one branch and to torch in another asks about whichever it holds)."""
        resolved = NameTable.resolve(node, scope)
        return bool(resolved) and all(map(self._listed, resolved))

    def _roots_listed(self, chain: ast.expr, scope: Scope) -> bool:
        """A cheap "maybe": the chain's base name is bound to a listed package or under one
        (most chains start at a local or at another module: no name is built for them)."""
        base: ast.expr = chain
        while isinstance(base, ast.Attribute):
            base = base.value
        return isinstance(base, ast.Name) and any(map(self._listed, scope.lookup(base.id)))

    def _asked(self, call: ast.Call) -> str | None:
        """The listed package ``call`` asks about by name, or ``None``."""
        first = call.args[0] if call.args else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and is_query(call):
            # NOTE: a version helper takes a requirement ("intel-extension-for-pytorch>=2.5"):
            # the package is the name it starts with
            package = _REQUIREMENT_NAME.match(first.value)
            if package is not None and self._listed(package.group()):
                return first.value
        return None

    def _hasattr(self, call: ast.Call, scope: Scope) -> str | None:
        """``hasattr(X, "name")`` on an IPEX object, as ``X.name``, or ``None``."""
        if not (isinstance(call.func, ast.Name) and call.func.id == "hasattr"):
            return None
        if len(call.args) != 2 or not isinstance(call.args[1], ast.Constant):
            return None
        attribute = call.args[1].value
        if not isinstance(attribute, str):
            return None
        bases = NameTable.resolve(call.args[0], scope)
        ipex = [b for b in bases if self._listed(b) or self._ipex_only(f"{b}.{attribute}")]
        if not ipex or len(ipex) < len(bases):
            # NOTE: a name that may also be another module (a generic import helper's
            # ``module``, torch or IPEX by its argument) asks about whichever it holds
            return None
        return f"{ipex[0]}.{attribute}"

    def _probe_call(self, call: ast.Call, scope: Scope) -> str | None:
        """What ``call`` asks, when it is a probe."""
        asked = self._asked(call)
        if asked is not None:
            return f'{callee_name(call)}("{asked}")'
        name = callee_name(call)
        if name in self._names and isinstance(call.func, ast.Name | ast.Attribute):
            return f"{name}()"
        tested = self._hasattr(call, scope)
        if tested is not None:
            owner, _, attribute = tested.rpartition(".")
            return f'hasattr({owner}, "{attribute}")'
        return None

    def _bound_by_listed_imports(self, facts: Facts) -> Iterator[str]:
        for statement in facts.imports:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if self._listed(alias.name):
                        yield alias.asname or alias.name.partition(".")[0]
            elif statement.module and not statement.level and self._listed(statement.module):
                yield from (alias.asname or alias.name for alias in statement.names)

    def _defined_test(self, compare: ast.Compare) -> str | None:
        """``"ipex" in globals()`` on a name bound by an import of a listed package, as that
        text, or ``None``."""
        if self._defined_shape(compare):
            left, right = compare.left, compare.comparators[0]
            assert isinstance(left, ast.Constant) and isinstance(right, ast.Call)
            assert isinstance(right.func, ast.Name)  # NOTE: _defined_shape checked both
            if left.value in self._imported:
                return f'"{left.value}" in {right.func.id}()'
        return None

    @staticmethod
    def _defined_shape(compare: ast.Compare) -> bool:
        """Whether ``compare`` is ``"name" in globals()`` (or ``locals()``, ``dir()``,
        ``vars()``), whatever the name."""
        left, right = compare.left, compare.comparators[0]
        return (
            isinstance(left, ast.Constant)
            and isinstance(left.value, str)
            and isinstance(compare.ops[0], ast.In | ast.NotIn)
            and isinstance(right, ast.Call)
            and isinstance(right.func, ast.Name)
            and right.func.id in NAMESPACE_CALLS
            and not right.args
        )

    def _is_flag(self, node: ast.Name, scope: Scope) -> bool:
        if node.id not in self._flags:
            return False
        # NOTE: a listed name bound by `import` to itself is the module, not a flag
        return NameTable.resolve(node, scope) != (node.id,)

    def _derive_flags(self, facts: Facts, mixed: Collection[str] = ()) -> None:
        """Add to the flags the names this part sets from a probe, or around an import of a
        listed package, but those ``mixed`` (``_mixed``)."""
        found = {
            name
            for names, answers, _ in self._flag_sources(facts)
            if answers is None or any(map(self._holds, answers))
            for name in names
        }
        self._flags.update(found.difference(mixed))

    def _flag_sources(
        self, facts: Facts
    ) -> Iterator[tuple[tuple[str, ...], list[Answer] | None, Origin]]:
        """What in this part may make a name a flag, with its place: an assignment and the
        places in its value that would make it a probe's answer, or a name set around an
        import of a listed package (``None``: nothing more)."""
        for assign, scope in facts.assigns:
            targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
            names = tuple(t.id for t in targets if isinstance(t, ast.Name))
            if names and assign.value is not None:
                answers = list(self._answers(assign.value, scope))
                if answers:
                    yield names, answers, (facts.part, assign.lineno)
        for name, line in self._try_flags(facts):
            yield (name,), None, (facts.part, line)

    def _first_sets(
        self, sources: Iterable[tuple[tuple[str, ...], list[Answer] | None, Origin]]
    ) -> dict[str, Origin]:
        """For each flag, the earliest place of ``sources`` that makes it one (with the flags
        as they are now)."""
        origins: dict[str, Origin] = {}
        for names, answers, at in sources:
            if answers is None or any(map(self._holds, answers)):
                for name in names:
                    if name in self._flags and at < origins.get(name, (1 << 62, 0)):
                        origins[name] = at
        return origins

    def _other_sources(self, facts: Facts) -> Iterator[tuple[tuple[str, ...], list[Answer]]]:
        """The assignments of this part that may set a name to something else than a probe's
        answer: a value that is not a constant (``True``, ``False``, ``None``, a number),
        outside the ``try`` of an import of a listed package (there IPEX is what answers), with
        the places that would make it an answer after all (``_answers``)."""
        tried = [
            (branch.body[0].lineno, branch.body[-1].end_lineno or branch.body[-1].lineno)
            for branch, _ in facts.branches
            if isinstance(branch, ast.Try) and branch.body and self._imports_listed(branch.body)
        ]
        for assign, scope in facts.assigns:
            value = assign.value
            if value is None or (
                isinstance(value, ast.Constant)
                and (value.value is None or isinstance(value.value, int))
            ):
                continue
            if any(first <= assign.lineno <= last for first, last in tried):
                continue
            targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
            names = tuple(t.id for t in targets if isinstance(t, ast.Name))
            if names:
                yield names, list(self._answers(value, scope))

    def _mixed(self, sources: Iterable[tuple[tuple[str, ...], list[Answer]]]) -> set[str]:
        """The flags that are not IPEX's alone: set elsewhere from what holds no probe's answer
        (sdbx's ``has_gpu``, set by the MPS, IPEX and CUDA checks in turn, says a GPU, not
        IPEX). A name that says IPEX (``use_ipex = args.ipex``, then ``False`` where the
        import fails) and a listed one stay flags: they are the project's switch to its IPEX
        path."""
        return {
            name
            for names, answers in sources
            for name in names
            if name in self._flags
            and name not in self._names
            and not _SAYS_IPEX.search(name)
            and not any(map(self._holds, answers))
        }

    def _try_flags(self, facts: Facts) -> Iterator[tuple[str, int]]:
        """The names this part sets to ``True`` / ``False`` around an import of a listed
        package (``try: import ipex; HAS_IPEX = True except ImportError: HAS_IPEX = False``),
        each with the line of the assignment."""
        for branch, _ in facts.branches:
            if isinstance(branch, ast.Try) and self._imports_listed(branch.body):
                handlers = [s for h in branch.handlers for s in h.body]
                for statement in _nested([*branch.body, *handlers]):
                    if (
                        isinstance(statement, ast.Assign)
                        and isinstance(statement.value, ast.Constant)
                        and isinstance(statement.value.value, bool)
                    ):
                        for target in statement.targets:
                            if isinstance(target, ast.Name):
                                yield target.id, statement.lineno

    def _answers(self, node: ast.expr, scope: Scope) -> Iterator[Answer]:
        """The places in the value ``node`` that would make it a probe's answer: it is one
        when any of them holds (a probe call or a flag, tested, negated or combined,
        ``find_spec(...) is not None``, or passed through one call, ``version.parse(
        metadata.version(...))``; a container or a string that holds one, a table of checks
        or a message, is not an answer). What they hold on is left to
        ``_holds``: whether a name is a flag, what a ``hasattr`` asks about, which names the
        module's imports bind; so that a module read in runs of statements can keep them
        (``FlagSources``) until every run is read and its names are known."""
        if isinstance(node, ast.Call):
            if callee_name(node) in MODULE_QUERIES:
                return  # NOTE: the module itself, not an answer (its uses are the rules')
            yield from self._call_answers(node, scope)
            for argument in node.args:
                if isinstance(argument, ast.Call):
                    yield from self._call_answers(argument, scope)
                elif isinstance(argument, ast.Name):
                    yield Answer("flag", argument, scope)
        elif isinstance(node, ast.Name):
            yield Answer("flag", node, scope)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield from self._answers(node.operand, scope)
        elif isinstance(node, ast.BoolOp):
            for value in node.values:
                yield from self._answers(value, scope)
        elif isinstance(node, ast.Compare):
            if self._defined_shape(node):
                yield Answer("defined", node, scope)
            for operand in (node.left, *node.comparators):
                yield from self._answers(operand, scope)

    def _call_answers(self, call: ast.Call, scope: Scope) -> Iterator[Answer]:
        """``_probe_call``'s tests of ``call``, as ``Answer``s."""
        if self._asked(call) is not None:
            yield Answer("probe", call, scope)
        elif callee_name(call) in self._names and isinstance(call.func, ast.Name | ast.Attribute):
            yield Answer("probe", call, scope)
        elif isinstance(call.func, ast.Name) and call.func.id == "hasattr":
            yield Answer("hasattr", call, scope)

    def _holds(self, answer: Answer) -> bool:
        """Whether ``answer`` makes its value a probe's answer (``_answers``)."""
        kind, node, scope = answer
        if kind == "probe":
            return True
        if kind == "flag":
            return isinstance(node, ast.Name) and self._is_flag(node, scope)
        if kind == "hasattr":
            return isinstance(node, ast.Call) and self._hasattr(node, scope) is not None
        return isinstance(node, ast.Compare) and self._defined_test(node) is not None

    def _imports_listed(self, body: Sequence[ast.stmt]) -> bool:
        for statement in body:
            if isinstance(statement, ast.Import):
                if any(self._listed(alias.name) for alias in statement.names):
                    return True
            elif isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
                if self._listed(statement.module):
                    return True
        return False

    def _find_hasattr(self, facts: Facts) -> None:
        for call, scope in facts.calls:
            if isinstance(call.func, ast.Name) and call.func.id == "hasattr":
                tested = self._hasattr(call, scope)
                if tested is not None:
                    owner, _, attribute = tested.rpartition(".")
                    symbol = f'hasattr({owner}, "{attribute}")'
                    self._found[id(call)] = ProbeHit(facts.part, call, symbol)

    def _find(self, facts: Facts) -> None:
        called: set[int] = set()
        for call, scope in facts.calls:
            asked = self._probe_call(call, scope)
            if asked is not None:
                self._found[id(call)] = ProbeHit(facts.part, call, asked)
                called.add(id(call.func))
        for compare in facts.compares:
            left = compare.left
            if (
                isinstance(left, ast.Constant)
                and isinstance(left.value, str)
                and self._listed(left.value)
                and isinstance(compare.ops[0], ast.In | ast.NotIn)
                and ast.unparse(compare.comparators[0]).endswith("modules")
            ):
                self._found[id(compare)] = ProbeHit(
                    facts.part, compare, f'"{left.value}" in sys.modules'
                )
            defined = self._defined_test(compare)
            if defined is not None:
                self._found[id(compare)] = ProbeHit(facts.part, compare, defined)
        flags: list[ast.Name] = []
        tested: set[int] | None = None
        tested_at: set[tuple[int, str]] = set()
        for chain, scope in facts.chains:
            module = None
            if isinstance(chain, ast.Name):
                if id(chain) not in called and self._is_flag(chain, scope):
                    flags.append(chain)
                elif self._roots_listed(chain, scope) and self._only_listed(chain, scope):
                    module = chain.id
            elif self._roots_listed(chain, scope) and self._under_listed(chain, scope):
                self._reads.add(id(chain))
            elif _on_receiver(chain, scope) and self._only_listed(chain, scope):
                module = ast.unparse(chain)
            if module is not None:
                # NOTE: the module a guarded import bound, tested (``if ipex:``, ``ipex is not
                # None``, ``if self.ipex:``): true only where the import ran, so it guards as a
                # read of IPEX's version does, and the test is the probe of the IPEX path
                if tested is None:
                    tested = tested_names(facts)
                if id(chain) in tested:
                    self._reads.add(id(chain))
                    if (chain.lineno, module) not in tested_at:
                        # NOTE: one finding per line (``ipex is not None and not ipex``)
                        tested_at.add((chain.lineno, module))
                        self._found[id(chain)] = ProbeHit(facts.part, chain, module)
        if flags:
            # NOTE: a flag named in a message (an f-string of the error raised when IPEX is
            # missing) asks nothing; the messages are walked only when there is a flag
            spoken = {id(n) for n in message_nodes(facts) if isinstance(n, ast.Name)}
            for flag in flags:
                if id(flag) not in spoken:
                    part, line = self._origins.get(flag.id, (facts.part, 0))
                    set_at = line if part == facts.part and line != flag.lineno else 0
                    self._found[id(flag)] = ProbeHit(facts.part, flag, flag.id, set_at)

    # -- what a probe guards ------------------------------------------------------------------

    def _polarity(self, node: ast.expr) -> int:
        """+1 when ``node`` true means the probe said yes, -1 when false means it, else 0."""
        if id(node) in self._found:
            return 1
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return -self._polarity(node.operand)
        if isinstance(node, ast.BoolOp):
            signs = [self._polarity(value) for value in node.values]
            if isinstance(node.op, ast.And):
                return 1 if 1 in signs else 0
            return -1 if -1 in signs else 0
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            sign = self._polarity(node.left)
            right = node.comparators[0]
            negative = isinstance(right, ast.Constant) and right.value in (None, False)
            if isinstance(node.ops[0], ast.Is | ast.Eq) and negative:
                return -sign
            if isinstance(node.ops[0], ast.IsNot | ast.NotEq) and negative:
                return sign
            return 1 if sign == 1 else 0
        if isinstance(node, ast.Call):
            if (
                isinstance(node.func, ast.Name)
                and node.func.id in self._helper_names
                and not node.args
                and not node.keywords
            ):
                return 1
            return self._polarity(node.func) if node.func is not node else 0
        if isinstance(node, ast.Attribute | ast.Name) and id(node) in self._reads:
            return 1
        return 0

    def _helpers(self, parts: Sequence[Facts]) -> frozenset[str]:
        """The module's own functions (at its top level, called with no argument) whose every
        truthy return says the probe said yes: the flag itself (``return HAS_IPEX``), or
        ``True`` under a test of it (Forge's ``is_intel_xpu()``: ``if xpu_available: return
        True``, then ``return False``, where ``xpu_available`` is set only after the IPEX
        import). Their callers' branches run only where IPEX is; the calls are no probes of
        their own (a dozen device checks would be a dozen findings of one cause)."""
        found: set[str] = set()
        for facts in parts:
            for body, scope in facts.bodies:
                if scope.parent is not None:
                    continue
                for statement in body:
                    if _callable_bare(statement) and self._answers_as_probe(statement):
                        found.add(statement.name)
        return frozenset(found)

    def _answers_as_probe(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        truthy = False
        for returned, tests in _returns(function.body, ()):
            value = returned.value
            if value is None or (isinstance(value, ast.Constant) and not value.value):
                continue
            if isinstance(value, ast.Constant) and value.value is True:
                if not any(self._polarity(test) == (1 if taken else -1) for test, taken in tests):
                    return False
            elif self._polarity(value) != 1:
                return False
            truthy = True
        return truthy

    def _guarded_by(self, node: ast.AST, part: int) -> Iterator[Guard]:
        if isinstance(node, ast.Try):
            if any(_catches_missing(handler) for handler in node.handlers) and node.body:
                what = f"try/except ImportError (line {node.lineno}{_fallbacks(node)})"
                yield _span(part, node.body[0], node.body[-1], what)._replace(caught=True)
            return
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                for index, value in enumerate(node.values[:-1]):
                    if self._polarity(value) == 1:
                        what = _describe(value)
                        yield _span(part, node.values[index + 1], node.values[-1], what)
                        return
            return
        if not isinstance(node, ast.If | ast.IfExp):
            return
        sign = self._polarity(node.test)
        if sign == 0:
            return
        what = _describe(node.test)
        chosen = node.body if sign == 1 else node.orelse
        if isinstance(chosen, list):
            if chosen:
                yield _span(part, chosen[0], chosen[-1], what)
        else:
            yield _span(part, chosen, chosen, what)


def tested_names(facts: Facts) -> set[int]:
    """The ids of the bare names (and attribute chains: ``self.ipex``) ``facts`` tests for
    being there: a condition (``if ipex:``, ``not ipex``, an operand of ``and`` / ``or``) or
    compared with ``None`` (``ipex is not None``)."""
    tests: list[ast.expr] = []
    for node, _ in facts.branches:
        if isinstance(node, ast.If | ast.IfExp):
            tests.append(node.test)
        elif isinstance(node, ast.BoolOp):
            tests.extend(node.values)
    for compare in facts.compares:
        operands = [compare.left, *compare.comparators]
        if any(isinstance(o, ast.Constant) and o.value is None for o in operands):
            tests.extend(operands)
    names: set[int] = set()
    for test in tests:
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        if isinstance(test, ast.Name | ast.Attribute):
            names.add(id(test))
    return names


def _on_receiver(chain: ast.expr, scope: Scope) -> bool:
    """A cheap "maybe" for a chain on a method's receiver (``self.ipex``): its class assigns
    some attribute through the receiver (``Scope.instance``)."""
    if not isinstance(chain, ast.Attribute):
        return False
    base: ast.expr = chain
    while isinstance(base, ast.Attribute):
        base = base.value
    if not isinstance(base, ast.Name):
        return False
    owner = scope.class_of(base.id)
    return owner is not None and bool(owner.instance)


def _nested(statements: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """``statements`` and those inside their blocks (Forge sets ``xpu_available = True`` under
    ``if torch.xpu.is_available():`` after the IPEX import), not inside a function or class
    they define."""
    for statement in statements:
        yield statement
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(statement, field, None)
            if isinstance(block, list):
                yield from _nested(block)
        for handler in getattr(statement, "handlers", ()):
            yield from _nested(handler.body)


def _may_answer(facts: Facts) -> bool:
    """Whether the part ``facts`` defines, at the module's top level, a function that may
    answer as a probe (``Probes._helpers``, whatever the flags): callable with no argument,
    returning ``True``, a name or a test of one."""
    return any(
        _callable_bare(statement)
        and any(
            isinstance(returned.value, ast.Name | ast.BoolOp | ast.UnaryOp | ast.Compare)
            or (isinstance(returned.value, ast.Constant) and returned.value.value is True)
            for returned, _ in _returns(statement.body, ())
        )
        for body, scope in facts.bodies
        if scope.parent is None
        for statement in body
    )


def _callable_bare(statement: ast.stmt) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Whether ``statement`` defines a function that can be called with no argument."""
    if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    arguments = statement.args
    positional = [*arguments.posonlyargs, *arguments.args]
    return len(arguments.defaults) == len(positional) and all(
        default is not None for default in arguments.kw_defaults
    )


def _returns(
    statements: Sequence[ast.stmt], tests: tuple[tuple[ast.expr, bool], ...]
) -> Iterator[tuple[ast.Return, tuple[tuple[ast.expr, bool], ...]]]:
    """The ``return`` statements of a function body (not of the functions and classes it
    defines), each with the ``if`` tests it lies under and whether in their body (``True``)
    or their ``else``."""
    for statement in statements:
        if isinstance(statement, ast.Return):
            yield statement, tests
        elif isinstance(statement, ast.If):
            yield from _returns(statement.body, (*tests, (statement.test, True)))
            yield from _returns(statement.orelse, (*tests, (statement.test, False)))
        elif isinstance(statement, ast.For | ast.AsyncFor | ast.While):
            yield from _returns(statement.body, tests)
            yield from _returns(statement.orelse, tests)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            yield from _returns(statement.body, tests)
        elif isinstance(statement, ast.Try):
            for block in (statement.body, statement.orelse, statement.finalbody):
                yield from _returns(block, tests)
            for handler in statement.handlers:
                yield from _returns(handler.body, tests)


def _catches_missing(handler: ast.ExceptHandler) -> bool:
    """Whether ``handler`` catches a missing module or attribute (bare, or one of
    ``GUARDING_HANDLERS``, alone or in a tuple)."""
    caught = handler.type
    if caught is None:
        return True
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any(
        (n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else "")
        in GUARDING_HANDLERS
        for n in names
    )


def _fallbacks(node: ast.Try) -> str:
    """``"; its handler sets ipex = None at line 6"`` where a handler of ``node`` that catches a
    missing module gives a name the ``try`` imports a fallback value: that line goes with the
    import, and the finding of the import names it (one cause, one finding); ``""`` else."""
    imported = {
        (alias.asname or alias.name).partition(".")[0]
        for statement in node.body
        if isinstance(statement, ast.Import | ast.ImportFrom)
        for alias in statement.names
    }
    said: list[str] = []
    for handler in node.handlers:
        if not _catches_missing(handler):
            continue
        for statement in handler.body:
            if (
                isinstance(statement, ast.Assign)
                and all(isinstance(t, ast.Name) and t.id in imported for t in statement.targets)
                and len(said) < 2
            ):
                said.append(f"{_short(statement)} at line {statement.lineno}")
    return f"; its handler sets {' and '.join(said)}" if said else ""


def _describe(test: ast.expr) -> str:
    return f"`{_short(test)}` (line {test.lineno})"


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 70 else text[:67] + "..."


def _span(part: int, first: ast.AST, last: ast.AST, what: str) -> Guard:
    start = (getattr(first, "lineno", 0), getattr(first, "col_offset", 0))
    end_line = getattr(last, "end_lineno", None) or start[0]
    end_column = getattr(last, "end_col_offset", None) or 0
    return Guard(part, start, (end_line, end_column), what)


class FlagSources:
    """The flags of a module read in runs of statements (``readers``), whose parts are never
    all held: what each run's assignments and ``try`` statements could make a flag of is
    kept while the run is read for its names (``add``: the small nodes of ``Answer``, not the
    run's trees), and decided once the name table is finished (``known``).

    ``Probes`` derives flags in rounds, each over every part in the module's order, a flag
    found in one part seen by the parts after it; a chain of flags deeper than the rounds
    (a flag set from a flag set from a flag ... from a probe) could then end where the order
    says. Here each round sees only the flags of the rounds before: what it finds does not
    depend on the order, and when nothing more is found after ``_FLAG_ROUNDS`` rounds, every
    order finds exactly that (the rounds in order find at least as much, and never more than
    there is); else ``known`` says ``None`` and the module is read whole."""

    def __init__(self, names: Collection[str], ipex_only: Callable[[str], bool], text: str):
        self._probes = Probes((), names, ipex_only, text)
        self._listed_flags = frozenset(self._probes._flags)
        self._others: list[tuple[tuple[str, ...], list[Answer]]] = []
        """What each part's assignments set that may not be a probe's answer (``Probes.
        _other_sources``): a flag set so is not IPEX's alone."""
        self._sources: list[tuple[tuple[str, ...], list[Answer] | None, Origin]] = []
        """The names each assignment or ``try`` sets, what makes them flags (``None``:
        nothing more, a ``try`` around an import of a listed package) and where
        (``Probes._flag_sources``)."""
        self._may_help = False
        """A part defines a function that may answer as a probe (``Probes._helpers``): its
        callers in other runs are guarded by it, so the module is read whole."""

    def adds(self, facts: Facts) -> bool:
        """Whether the part ``facts``, read once ``known`` has answered without it (a run
        bound late, ``readers``), would have made a flag there, or unmade one: it sets names
        around an import of a listed package, or from a value that holds with the flags
        known, or sets a flag from what holds none (``Probes._mixed``). What
        holds only grows with the flags (a name is a flag or not; the other answers do not
        read them), so a part that makes none with every flag known made none in any round:
        ``known`` answered as it would have with it. Nothing is kept."""
        probes = self._probes
        if not probes._names:
            return False
        before, others = len(self._sources), len(self._others)
        self.add(facts)
        added, self._sources = self._sources[before:], self._sources[:before]
        other, self._others = self._others[others:], self._others[:others]
        # NOTE: a part may also unmake a flag, setting it from what answers no probe (``_mixed``),
        # or define a helper that guards its callers (``_may_answer``)
        return (
            _may_answer(facts)
            or bool(probes._mixed(other))
            or any(answers is None or any(map(probes._holds, answers)) for _, answers, _ in added)
        )

    def add(self, facts: Facts) -> None:
        """Keep what the part ``facts`` (read into a table not yet finished) may flag."""
        probes = self._probes
        if not probes._names:
            return  # NOTE: no flag without a listed name spelled (``Probes``)
        self._sources.extend(probes._flag_sources(facts))
        self._others.extend(probes._other_sources(facts))
        self._may_help = self._may_help or _may_answer(facts)

    def known(self, imports: Facts) -> Known | None:
        """The module's flags, once its name table is finished (``imports``: its every import
        statement); ``None`` when the order of its parts could decide them (see the class)."""
        probes = self._probes
        probes._imported = frozenset(probes._bound_by_listed_imports(imports))
        if self._may_help:
            return None
        mixed: set[str] = set()
        while True:
            flags = probes._flags = set(self._listed_flags)
            for _ in range(_FLAG_ROUNDS + 1):
                found = {
                    name
                    for names, answers, _ in self._sources
                    if answers is None or any(map(probes._holds, answers))
                    for name in names
                }.difference(mixed)
                if found <= flags:
                    break
                flags |= found
            else:
                return None
            more = probes._mixed(self._others)
            if more <= mixed:
                origins = probes._first_sets(self._sources)
                return Known(frozenset(flags), probes._imported, probes._names, origins)
            mixed |= more
