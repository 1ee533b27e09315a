"""The structural patterns a rule can name (``match.pattern``), each with its prefilter triggers.

* ``with-and``: a ``with A and B:`` item whose operands are calls. ``and`` evaluates to its
  last truthy operand, so only ``B`` is entered (``with torch.cpu.amp.autocast() and
  torch.no_grad():`` runs without autocast). Reported at the ``A and B`` expression.
* ``half-spectral-norm``: a module that applies ``spectral_norm`` (``torch.nn.utils`` or its
  ``parametrizations``) and converts to half precision: ``.half()``, or ``.to(...)`` with
  ``torch.float16`` / ``torch.half`` as an argument or ``dtype=``. Reported at each conversion
  (from its ``.``), since the conversion is what breaks the spectral-normed layers.
* ``optimize-bf16``: ``intel_extension_for_pytorch.optimize`` or ``torch.xpu.optimize`` called
  with ``dtype=torch.bfloat16`` (or as its second positional argument, which is ``dtype``).
  Reported at the call.
* ``ccl-backend``: a call with ``backend="ccl"``, or ``torch.distributed.init_process_group``
  with ``"ccl"`` as its first argument. Reported at the string.
* ``unbound-ipex-alias``: a chain on IPEX's usual alias (the rule's ``names``: ``ipex``) that
  no binding of the module can give a value: no import, assignment, parameter, definition or
  loop of any scope binds the name, and the module neither star-imports nor writes names
  dynamically (``exec``, ``globals()``, ``setattr`` on ``builtins`` or an assignment to an
  attribute of it). Unless another module puts the name among the builtins, such a chain
  raises ``NameError``, with or without IPEX: it is IPEX code whose import was removed or
  commented out (``# import ipex`` above ``ipex.optimize(model)``), or a snippet that assumes
  it. Reported at the chain, as the IPEX name it spells.
* ``ipex-switch``: an ``if`` on a project's own value that names IPEX whose branch holds a hit
  of another rule (``python_switches``). Reported at the condition; found after every other
  rule, from their hits (``Context.hits``).

Names resolve as everywhere (``python_names``): ``dtype=bf16`` after ``from torch import
bfloat16 as bf16`` counts, a dtype passed through a variable of another function does not.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from ipex_doctor.scan.match.fixable import IPEX_PACKAGE, Module
from ipex_doctor.scan.match.python.names import Facts, NameTable, Scope
from ipex_doctor.scan.match.python.probes import PROBE_PATTERN, Probes
from ipex_doctor.scan.match.python.switches import SWITCH_PATTERN, switch_nodes
from ipex_doctor.scan.match.triggers import Trigger, combined, name_trigger
from ipex_doctor.scan.read.source import Hit

SPECTRAL_NORM = (
    "torch.nn.utils.spectral_norm",
    "torch.nn.utils.spectral_norm.spectral_norm",
    "torch.nn.utils.parametrizations.spectral_norm",
)
HALF_DTYPES = ("torch.float16", "torch.half")
OPTIMIZE = ("intel_extension_for_pytorch.optimize", "torch.xpu.optimize")
BFLOAT16 = ("torch.bfloat16",)
INIT_PROCESS_GROUP = (
    "torch.distributed.init_process_group",
    "torch.distributed.distributed_c10d.init_process_group",
)
TORCH_COMPILE = ("torch.compile", "torch._dynamo.optimize")


class PatternHit(NamedTuple):
    """Where a pattern matched: a span in ``ast`` terms (1-based lines, UTF-8 byte columns)."""

    part: int
    line: int
    column: int
    end_line: int
    end_column: int
    symbol: str
    mechanical: bool = False
    """``scan --fix`` rewrites this place (the rule's fix applies to this form of it)."""
    set_at: int = 0
    """A flag's read: the line whose assignment makes it a probe's answer (``ProbeHit``)."""


class Context(NamedTuple):
    """What a pattern is given besides the module: its rule's data and the rules' knowledge."""

    names: tuple[str, ...] = ()
    """The rule's ``match.names``."""
    ipex_only: Callable[[str], bool] = lambda name: False
    """Whether a resolved dotted name exists only with IPEX (a ``needs_ipex`` rule names it)."""
    probes: Probes | None = None
    """The module's availability probes, found once for the reader and the pattern alike."""
    module: Module | None = None
    """The whole module, for the fixes' conditions (``fixable``)."""
    hits: Sequence[Hit] = ()
    """The other rules' hits in the module, for a pattern found after them (``ipex-switch``)."""
    spectral_norm: str | None = None
    """The spectral norm the module applies, when the parts are one run of its statements
    (``readers``): ``half-spectral-norm`` names it at each conversion of every run."""
    source: str = ""
    """The whole module's text (of every part, when the parts are one run of its statements)."""


Find = Callable[[Sequence[Facts], Context], Iterator[PatternHit]]


class Pattern(NamedTuple):
    """A structural pattern: its id, what a file must contain (given the rule's ``names``),
    and the search itself."""

    id: str
    triggers: Callable[[tuple[str, ...]], tuple[Trigger, ...]]
    find: Find


def _resolves_to(node: ast.AST, scope: Scope, names: tuple[str, ...]) -> str | None:
    """The first of ``names`` that ``node`` may stand for, or ``None``."""
    if isinstance(node, ast.Attribute) and node.attr not in _last_parts(names):
        return None  # NOTE: an alias can rename a module, never an attribute: a cheap "no"
    return next((n for n in NameTable.resolve(node, scope) if n in names), None)


@functools.cache
def _last_parts(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(name.rsplit(".", 1)[-1] for name in names)


def _hit(part: int, node: ast.expr, symbol: str, set_at: int = 0) -> PatternHit:
    end_line = node.end_lineno if node.end_lineno is not None else node.lineno
    end_column = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    return PatternHit(
        part, node.lineno, node.col_offset, end_line, end_column, symbol, set_at=set_at
    )


# --- with-and ---------------------------------------------------------------------------------

_WITH = re.compile(rb"with[ \t(\\]")
_WITH_GOES_ON = re.compile(
    rb"(?=(?P<same_line>[^\n]*\)[ \t]*and\b)|[^\n]*[(\[{,\\][ \t]*(?:#[^\n]*)?\r?$)",
    re.MULTILINE,
)
"""After a ``with``: ``) and`` on its line, or an open bracket, a comma or a backslash at the
line's end (the header goes on)."""
_AND_BEFORE_COLON = re.compile(rb"[^:]*?\)\s*(?:\\\s*)?and\b")
_STATEMENT_LEAD = re.compile(rb"[ \t]*(?:async[ \t]+)?")


def _maybe_with_and(data: bytes) -> bool:
    """Whether some ``with`` starts its line (after indentation and ``async``, as a ``with``
    statement always does) and has ``) and`` after it: on its line, or, when the line goes on
    (it ends in an open bracket, a comma or a backslash), before the header's first colon.

    The one form this misses: a header over several lines with a colon (a slice, a dict, a
    lambda) before a ``) and`` on a later line. The search is one regex led by the literal
    ``with`` (fast in ``re``); the line-start test runs in Python on the few it finds, before
    the rest of the line is read.
    """
    # NOTE: the line-start test comes first: the look at the rest of the line costs the line's
    # length, and prose strings hold "with " many times on lines of many kilobytes (a prompt
    # in a benchmark script of ipex-llm took half a second when it came second)
    for found in _WITH.finditer(data):
        if not _starts_statement(data, found.start()):
            continue
        rest = _WITH_GOES_ON.match(data, found.end())
        if rest is not None and (
            rest.group("same_line") is not None or _AND_BEFORE_COLON.match(data, found.end())
        ):
            return True
    return False


def _starts_statement(data: bytes, start: int) -> bool:
    line_start = max(data.rfind(b"\n", 0, start), data.rfind(b"\r", 0, start)) + 1
    return _STATEMENT_LEAD.fullmatch(data, line_start, start) is not None


def _call_name(call: ast.Call, scope: Scope) -> str:
    names = NameTable.resolve(call.func, scope)
    if names:
        return names[0]
    text = ast.unparse(call.func)
    return text if len(text) <= 60 else text[:57] + "..."


def _find_with_and(parts: Sequence[Facts], context: Context) -> Iterator[PatternHit]:
    for facts in parts:
        lines = context.module.lines.get(facts.part, ()) if context.module else ()
        for item, scope in facts.withs:
            expr = item.context_expr
            if (
                isinstance(expr, ast.BoolOp)
                and isinstance(expr.op, ast.And)
                and all(isinstance(value, ast.Call) for value in expr.values)
            ):
                calls = [v for v in expr.values if isinstance(v, ast.Call)]
                symbol = " and ".join(f"{_call_name(c, scope)}()" for c in calls)
                # NOTE: the fix leaves an `and` in parentheses (the item's or the statement's)
                opened = _text_before(lines, expr).endswith("(")
                yield _hit(facts.part, expr, symbol)._replace(mechanical=not opened)


def _text_before(lines: Sequence[str], node: ast.expr) -> str:
    """The source of ``node``'s first line before it, without trailing blanks."""
    line = lines[node.lineno - 1] if 0 < node.lineno <= len(lines) else ""
    return line.encode("utf-8")[: node.col_offset].decode("utf-8", "ignore").rstrip()


# --- half-spectral-norm -----------------------------------------------------------------------


def spectral_norm_of(call: ast.Call, scope: Scope) -> str | None:
    """The spectral norm ``call`` applies, or ``None``."""
    return _resolves_to(call.func, scope, SPECTRAL_NORM)


def _half_conversion(call: ast.Call, scope: Scope) -> str | None:
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "half" and not call.args and not call.keywords:
        return ".half()"
    if func.attr == "to":
        arguments = [*call.args, *(k.value for k in call.keywords if k.arg == "dtype")]
        for argument in arguments:
            dtype = _resolves_to(argument, scope, HALF_DTYPES)
            if dtype is not None:
                return f".to({dtype})"
    return None


def _find_half_spectral_norm(parts: Sequence[Facts], context: Context) -> Iterator[PatternHit]:
    spectral = context.spectral_norm or next(
        (
            name
            for facts in parts
            for call, scope in facts.calls
            if (name := spectral_norm_of(call, scope)) is not None
        ),
        None,
    )
    if spectral is None:
        return
    for facts in parts:
        for call, scope in facts.calls:
            conversion = _half_conversion(call, scope)
            if conversion is not None:
                func = call.func
                assert isinstance(func, ast.Attribute)  # _half_conversion checked it
                value = func.value
                end = _hit(facts.part, call, "")
                yield PatternHit(
                    facts.part,
                    value.end_lineno or value.lineno,
                    value.end_col_offset if value.end_col_offset is not None else 0,
                    end.end_line,
                    end.end_column,
                    f"{spectral} + {conversion}",
                )


# --- optimize-bf16 ----------------------------------------------------------------------------


def _find_optimize_bf16(parts: Sequence[Facts], context: Context) -> Iterator[PatternHit]:
    for facts in parts:
        for call, scope in facts.calls:
            optimize = _resolves_to(call.func, scope, OPTIMIZE)
            if optimize is None:
                continue
            dtypes = [k.value for k in call.keywords if k.arg == "dtype"] + call.args[1:2]
            if any(_resolves_to(dtype, scope, BFLOAT16) for dtype in dtypes):
                yield _hit(facts.part, call, f"{optimize}(dtype=torch.bfloat16)")


# --- ccl-backend ------------------------------------------------------------------------------


def _is_ccl(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == "ccl"


def _find_ccl_backend(parts: Sequence[Facts], context: Context) -> Iterator[PatternHit]:
    """``backend="ccl"`` passed to a call, ``init_process_group("ccl")``, and ``"ccl"`` kept
    for later as a backend (``backend = "ccl"``, ``self.dist_backend = "ccl"``, ``{"backend":
    "ccl"}``). Mechanical only where ``ccl-to-xccl`` rewrites: an ``init_process_group`` (one
    import binds it) given the literal, where the fix can write ``torch``."""
    for facts in parts:
        for call, scope in facts.calls:
            keyword = next((k.value for k in call.keywords if k.arg == "backend"), None)
            literal = keyword if keyword is not None else (call.args[0] if call.args else None)
            if literal is None or not _is_ccl(literal):
                continue  # NOTE: most calls; resolving the callee costs more
            group = _resolves_to(call.func, scope, INIT_PROCESS_GROUP)
            if keyword is None and group is None:
                continue  # NOTE: a first argument "ccl" is a backend to init_process_group only
            yield _hit(facts.part, literal, 'backend="ccl"')._replace(
                mechanical=group is not None and _fixable_group(call, scope, facts, context)
            )
        for assign, _ in facts.assigns:
            targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
            if assign.value is not None and _is_ccl(assign.value) and any(map(_backend, targets)):
                yield _hit(facts.part, assign.value, 'backend = "ccl"')
        for mapping in facts.dicts:
            for key, value in zip(mapping.keys, mapping.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "backend" and _is_ccl(value):
                    yield _hit(facts.part, value, '"backend": "ccl"')


def _backend(target: ast.expr) -> bool:
    """Whether an assignment target names a backend (``backend``, ``self.dist_backend``)."""
    name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
    return isinstance(name, str) and name.lower().endswith("backend")


def _fixable_group(call: ast.Call, scope: Scope, facts: Facts, context: Context) -> bool:
    base: ast.expr = call.func
    while isinstance(base, ast.Attribute):
        base = base.value
    if context.module is None or not isinstance(base, ast.Name):
        return False
    if not scope.unambiguous(base.id) or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    return context.module.torch_writable(scope, facts.part, call.lineno)


# --- backend="ipex" ---------------------------------------------------------------------------


def _ipex_backend_calls(
    parts: Sequence[Facts], *, compile_calls: bool
) -> Iterator[tuple[int, ast.expr, str]]:
    """``backend="ipex"`` (or ``torch._dynamo.optimize("ipex")``): given to ``torch.compile``
    when ``compile_calls``, to anything else otherwise; (part, the string, what is called)."""
    for facts in parts:
        for call, scope in facts.calls:
            keyword = next((k.value for k in call.keywords if k.arg == "backend"), None)
            literal = keyword if keyword is not None else (call.args[0] if call.args else None)
            if not (isinstance(literal, ast.Constant) and literal.value == "ipex"):
                continue  # NOTE: most calls; the names below cost an unparse
            compiling = _resolves_to(call.func, scope, TORCH_COMPILE) is not None or (
                not NameTable.resolve(call.func, scope)
                and isinstance(call.func, ast.Attribute | ast.Name)
                and _call_name(call, scope).rsplit(".", 1)[-1] == "compile"
            )
            if keyword is None and not compiling:
                continue  # NOTE: a first argument "ipex" is a backend to compile only
            if compiling == compile_calls:
                yield facts.part, literal, _call_name(call, scope)


def _find_compile_ipex_backend(parts: Sequence[Facts], context: Context) -> Iterator[PatternHit]:
    for part, literal, called in _ipex_backend_calls(parts, compile_calls=True):
        yield _hit(part, literal, f'{called}(backend="ipex")')


def _find_ipex_backend_option(parts: Sequence[Facts], context: Context) -> Iterator[PatternHit]:
    for part, literal, called in _ipex_backend_calls(parts, compile_calls=False):
        yield _hit(part, literal, f'{called}(backend="ipex")')


# --- availability-probe -----------------------------------------------------------------------


def _find_probes(parts: Sequence[Facts], context: Context) -> Iterator[PatternHit]:
    probes = context.probes
    if probes is None:
        probes = Probes(parts, context.names, context.ipex_only)
    for found in probes.hits():
        node = found.node
        assert isinstance(node, ast.expr)
        yield _hit(found.part, node, found.symbol, found.set_at)


# --- unbound-ipex-alias -----------------------------------------------------------------------

UNBOUND_ALIAS_PATTERN = "unbound-ipex-alias"
"""Its names are watched (``NameTable.watched``): whether any scope binds one decides it."""

_BINDS_DYNAMICALLY = re.compile(
    r"\bimport\s*\*"
    r"|\b(?:exec|globals)\s*\("
    r"|\b(?:builtins|__builtins__)\s*\.\s*\w+\s*[:=](?!=)"
    r"|\bsetattr\s*\(\s*(?:builtins|__builtins__)\b"
)
"""What binds a name no statement spells: a star import, ``exec("import ...")``,
``globals()["ipex"] = ...``, ``builtins.ipex = ipex`` (ipex-llm's importer makes every
module's ``ipex`` so), ``setattr(builtins, "ipex", ...)``. Searched in the module's whole text
(a comment or a string that spells one counts too: quiet is the safe side), so that a module
read in runs of statements gives the answer its whole reading gives."""


def _find_unbound_ipex_alias(parts: Sequence[Facts], context: Context) -> Iterator[PatternHit]:
    module = context.module
    if module is None or _BINDS_DYNAMICALLY.search(context.source):
        return
    table = module.table
    aliases = [alias for alias in context.names if not table.declares(alias)]
    for facts in parts:
        for chain, scope in facts.chains:
            if type(chain) is not ast.Attribute:
                continue  # NOTE: a bare name (``if ipex:``) asks; it calls nothing
            base: ast.expr = chain
            attributes: list[str] = []
            while isinstance(base, ast.Attribute):
                attributes.append(base.attr)
                base = base.value
            if not isinstance(base, ast.Name) or base.id not in aliases:
                continue
            if not scope.sees_binding(base.id):
                symbol = ".".join([IPEX_PACKAGE, *reversed(attributes)])
                yield _hit(facts.part, chain, symbol)


# --- ipex-switch ------------------------------------------------------------------------------


def _find_switches(parts: Sequence[Facts], context: Context) -> Iterator[PatternHit]:
    for part, test in switch_nodes(parts, context.hits):
        yield _hit(part, test, ast.unparse(test))


# --- the registry -----------------------------------------------------------------------------


def _names_with(first: Sequence[str], second: Sequence[Trigger]) -> tuple[Trigger, ...]:
    """A call resolved to one of ``first`` with one of ``second``: as a rule's ``symbols``,
    resolved names are written as whole identifiers (``triggers`` says why)."""
    return tuple(combined(name_trigger(a, whole=True), b) for a in first for b in second)


def _fixed(*triggers: Trigger) -> Callable[[tuple[str, ...]], tuple[Trigger, ...]]:
    """The triggers of a pattern that takes no ``names``."""
    return lambda names: triggers


def _alias_triggers(names: tuple[str, ...]) -> tuple[Trigger, ...]:
    """A chain on an alias spells the alias as a word; so does every binding of it, which a
    module read by its relevant statements must read too (``ipex = None`` before
    ``ipex.optimize``)."""
    return tuple(Trigger((name.encode(),), whole=True) for name in names)


def _probe_triggers(names: tuple[str, ...]) -> tuple[Trigger, ...]:
    """A probe names what it asks about: one of ``names`` is in the file (``hasattr`` on an
    IPEX object needs IPEX's name too, through its import or the name it checks)."""
    return tuple(Trigger((name.encode(),)) for name in names)


def _quoted(word: str) -> tuple[Trigger, Trigger]:
    """The triggers of a string literal ``word`` in either quote."""
    return Trigger((f'"{word}"'.encode(),)), Trigger((f"'{word}'".encode(),))


PATTERNS: dict[str, Pattern] = {
    pattern.id: pattern
    for pattern in (
        Pattern(
            "with-and",
            _fixed(
                Trigger(
                    (b"with", b"and"),
                    confirm=_maybe_with_and,
                    grep=r"^[[:space:]]*(async[[:space:]]+)?with[[:space:](\\].*\)[[:space:]]*and\b",
                ),
            ),
            _find_with_and,
        ),
        Pattern(
            "half-spectral-norm",
            _fixed(
                *_names_with(
                    SPECTRAL_NORM,
                    [
                        Trigger((b"half",), whole=True),  # NOTE: the attribute of ``.half()``
                        *(name_trigger(n, whole=True) for n in HALF_DTYPES),
                    ],
                )
            ),
            _find_half_spectral_norm,
        ),
        Pattern(
            "optimize-bf16",
            _fixed(*_names_with(OPTIMIZE, [name_trigger(n, whole=True) for n in BFLOAT16])),
            _find_optimize_bf16,
        ),
        Pattern("ccl-backend", _fixed(*_quoted("ccl")), _find_ccl_backend),
        Pattern("compile-ipex-backend", _fixed(*_quoted("ipex")), _find_compile_ipex_backend),
        Pattern("ipex-backend-option", _fixed(*_quoted("ipex")), _find_ipex_backend_option),
        Pattern(PROBE_PATTERN, _probe_triggers, _find_probes),
        Pattern(UNBOUND_ALIAS_PATTERN, _alias_triggers, _find_unbound_ipex_alias),
        # NOTE: a switch matters only beside another rule's hit, so its trigger is one that
        # every IPEX import holds already: it never makes the prefilter parse another file
        Pattern(
            SWITCH_PATTERN,
            _fixed(Trigger((b"intel_extension_for_pytorch", b"ipex"))),
            _find_switches,
        ),
    )
}
"""Every structural pattern, by the id a rule names."""
