"""Whether ``scan --fix`` rewrites a match, read from the ``ast`` the scanner already has: what
makes a finding's "mechanical" label true.

Each fix (a LibCST codemod, ``fix/codemods/``) rewrites only the forms it can prove
equivalent and refuses the rest with a reason. The scan cannot run the codemods (LibCST's metadata costs more
than the whole scan), so ``mechanical`` checks each fix's conditions on the scanner's own
reading, and answers yes only where they all hold; where it cannot tell, it answers no: a
finding then says what to do by hand, and ``--fix`` may still rewrite it. A label therefore
never promises a rewrite ``--fix`` does not make (``tests/scan/match/test_fixable.py`` holds
the two to each other on real snippets); a fix with no conditions here is never labelled.
The conditions:

* the name is bound once, by one import, in the scope that binds it (the codemods refuse a
  name that may be two things);
* the call has the arguments the fix maps (``autocast``: no ``*``/``**``, at most three
  positional, only ``enabled``/``dtype``/``cache_enabled``; ``GradScaler``: no ``device=``;
  the device queries: at most the device; ``qconv2d_pointwise``: an explicit same-schema
  overload, or exactly 17 arguments), and a use that must be a call is one;
* the fix can write ``torch``: an import binds ``torch`` where the use is, and nothing else
  does (for a use that runs at import, a top-level ``import torch`` before it), or the module
  binds the name nowhere (the fix adds ``import torch``);
* ``ipex-side-effect-import``: ``import intel_extension_for_pytorch [as x]`` whose name the
  module never reads, not named in ``__all__``, in a module that reaches no name dynamically
  (``globals()``, ``eval``...) and uses nothing IPEX installs into torch, not alone in its
  block, and not guarded by ``try`` / ``except ImportError`` (removing a guarded import would
  change what the handler's flag means: the codemod refuses it).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import NamedTuple

from ipex_doctor.scan.match.python.names import Facts, NameTable, Scope

IPEX_PACKAGE = "intel_extension_for_pytorch"
IPEX_INJECTED = (
    "torch.xpu.amp",
    "torch.xpu.optimize",
    "torch.xpu.has_fp64_dtype",
    "torch.xpu.has_xmx",
    "torch.xpu.has_2d_block_array",
    "torch.xpu.has_onemkl",
    "torch.xpu.has_channels_last_1d",
    "torch.xpu.get_autocast_xpu_dtype",
    "torch.xpu.is_autocast_xpu_enabled",
    "torch.xpu.set_autocast_xpu_enabled",
    "torch.xpu.set_autocast_xpu_dtype",
    "torch.xpu.set_fp32_math_mode",
    "torch.xpu.get_fp32_math_mode",
    "torch.xpu.FP32MathMode",
    "torch.xpu.set_onednn_verbose",
    "torch.xpu.set_onemkl_verbose",
    "torch.xpu.enable_onednn_deterministic",
    "torch.xpu.disable_onednn_deterministic",
    "torch.xpu.enable_onednn_layout",
    "torch.xpu.disable_onednn_layout",
    "torch.xpu.using_onednn_layout",
    "torch.xpu.intrinsic",
    "torch.xpu.cpp_extension",
    "torch.ops.torch_ipex",
)
"""What exists in ``torch`` only after ``import intel_extension_for_pytorch`` (IPEX installs
these aliases and modules; upstream torch has none of them: torch-xpu-ops #2509 for
``torch.xpu.amp``, IPEX #816 and #831 for ``has_2d_block_array``)."""
DYNAMIC_LOOKUPS = ("globals", "locals", "vars", "eval", "exec", "__import__")
"""Builtins through which a module can reach a name without naming it."""

AUTOCAST_PARAMETERS = ("enabled", "dtype", "cache_enabled")
AUTOCAST_STATE_PARAMETER = {
    "get_autocast_xpu_dtype": None,
    "is_autocast_xpu_enabled": None,
    "set_autocast_xpu_enabled": "enabled",
    "set_autocast_xpu_dtype": "dtype",
}
QCONV_SAME_SCHEMA = ("default", "tensor")
QCONV_ARITY = 17


def under(name: str, prefixes: Collection[str]) -> bool:
    """Whether dotted ``name`` is one of ``prefixes`` or inside one."""
    # NOTE: ``name`` is inside ``p`` when it is ``p`` and a dot on: each of its few prefixes that
    # end before a dot is looked up, where a generator over every prefix was a hot spot
    # (asked for each chain from torch, each against every name IPEX installs)
    if name in prefixes:
        return True
    dot = name.find(".")
    while dot >= 0:
        if name[:dot] in prefixes:
            return True
        dot = name.find(".", dot + 1)
    return False


class Module(NamedTuple):
    """What the conditions need of the whole module (all its parts)."""

    parts: Sequence[Facts]
    table: NameTable
    lines: Mapping[int, Sequence[str]]
    calls: Mapping[int, ast.Call]
    """Each call by the id of its callee node."""

    @classmethod
    def of(
        cls, parts: Sequence[Facts], table: NameTable, lines: Mapping[int, Sequence[str]]
    ) -> Module:
        calls = {id(call.func): call for facts in parts for call, _ in facts.calls}
        return cls(parts, table, lines, calls)

    def torch_writable(self, scope: Scope, part: int, line: int) -> bool:
        """Whether a fix can write ``torch`` for code at (``part``, ``line``) in ``scope``: an
        import alone binds it there (for code that runs at import, a top-level ``import
        torch`` that comes first), or the name is bound nowhere (the fix adds the import)."""
        if "torch" not in self.table.bound_names:
            # NOTE: the fix adds ``import torch`` unless the name is taken where it writes it
            # or at the top; any binding elsewhere is read as taking it (the safe side)
            return not self.table.binds_otherwise("torch")
        # NOTE: an import binds it: ``scope`` resolves the name where the use is, as the fix
        # does (a parameter ``torch`` of another function does not stop it)
        if scope.lookup("torch") != {"torch"} or not scope.unambiguous("torch"):
            return False
        at_import = scope.runs_at_import()
        if not at_import:
            return True  # NOTE: the import that binds it there (a function's own) has run
        for facts in self.parts:
            for statement in facts.imports:
                if (
                    isinstance(statement, ast.Import)
                    and statement.col_offset == 0
                    and any(
                        a.name.split(".")[0] == "torch" and not a.asname for a in statement.names
                    )
                    and (not at_import or (facts.part, statement.lineno) < (part, line))
                ):
                    return True
        return False


def mechanical_use(
    fix_id: str, name: str, node: ast.expr, scope: Scope, part: int, module: Module
) -> bool:
    """Whether ``--fix``'s ``fix_id`` rewrites the use ``node`` of the resolved ``name``."""
    base: ast.expr = node
    while isinstance(base, ast.Attribute):
        base = base.value
    if not isinstance(base, ast.Name) or not scope.unambiguous(base.id):
        return False
    if isinstance(node, ast.Attribute | ast.Name) and not isinstance(node.ctx, ast.Load):
        return False
    call = module.calls.get(id(node))
    line = getattr(node, "lineno", 0)
    if fix_id == "qconv-op-rename":
        return _qconv(name, call)
    if fix_id == "mem-get-info":
        return module.torch_writable(scope, part, line)
    if call is None or any(_starred(call)):
        return False
    if fix_id in ("autocast-xpu", "autocast-cpu"):
        fits = len(call.args) <= len(AUTOCAST_PARAMETERS) and all(
            k.arg in AUTOCAST_PARAMETERS for k in call.keywords
        )
    elif fix_id == "autocast-xpu-state":
        parameter = AUTOCAST_STATE_PARAMETER.get(name.rsplit(".", 1)[-1], "")
        given = [*call.args, *call.keywords]
        fits = parameter != "" and len(given) == (0 if parameter is None else 1)
        fits = fits and all(k.arg == parameter for k in call.keywords)
    elif fix_id == "grad-scaler-xpu":
        fits = all(k.arg != "device" for k in call.keywords)
    elif fix_id == "device-properties":
        fits = len(call.args) + len(call.keywords) <= 1
        fits = fits and all(k.arg == "device" for k in call.keywords)
        if fits and isinstance(node, ast.Attribute):
            if NameTable.resolve(node.value, scope) == ("torch.xpu",):
                return True
    else:
        return False
    return fits and module.torch_writable(scope, part, line)


def _qconv(name: str, call: ast.Call | None) -> bool:
    overload = name.rsplit(".", 1)[-1]
    if overload in QCONV_SAME_SCHEMA:
        return True
    if not name.endswith("qconv2d_pointwise") or call is None:
        return False
    return not any(_starred(call)) and len(call.args) + len(call.keywords) == QCONV_ARITY


def _starred(call: ast.Call) -> list[bool]:
    return [isinstance(a, ast.Starred) for a in call.args] + [k.arg is None for k in call.keywords]


def removable_import(
    statement: ast.Import,
    alias: ast.alias,
    guarded: bool,
    module: Module,
    part: int,
    keepers: Keepers | None = None,
) -> bool:
    """Whether ``ipex-side-effect-import`` removes this ``import intel_extension_for_pytorch``
    (see the module); ``guarded``: it sits in a ``try`` that catches ``ImportError``.
    ``keepers``: what the module's parts say (``import_keepers``), when they are not all in
    ``module`` (a module read in runs of statements)."""
    if alias.name != IPEX_PACKAGE or guarded:
        return False
    if keepers is None:
        keepers = import_keepers(module.parts)
    if keepers.kept or (alias.asname or IPEX_PACKAGE) in keepers.read:
        return False
    return not _alone_in_block(statement, module.lines.get(part, ()))


class Keepers(NamedTuple):
    """What in a module keeps its ``import intel_extension_for_pytorch`` (``removable_import``)."""

    read: frozenset[str]
    """The names its chains start from: an import whose name is read stays (only complete
    when ``kept`` is false: then nothing else matters)."""
    kept: bool
    """Something keeps any such import: a use of what IPEX installs into ``torch``, a dynamic
    lookup, ``backend="ipex"``, ``__all__``, a ``from`` import of what IPEX installs."""
    rewritten: frozenset[tuple[str, str]] = frozenset()
    """The names the uses that other fixes rewrite start from, each with the rule of that
    use (``import_keepers``' ``rewritten``): a name read only so goes with those uses."""

    def joined(self, other: Keepers) -> Keepers:
        """What this and ``other`` (another part's) say together."""
        return Keepers(
            self.read | other.read, self.kept or other.kept, self.rewritten | other.rewritten
        )


NO_KEEPERS = Keepers(frozenset(), False)
KEPT = Keepers(frozenset(), True)
"""An IPEX import something keeps (``import_keepers``: what is read then is not needed)."""


def import_keepers(parts: Iterable[Facts], rewritten: Mapping[int, str] | None = None) -> Keepers:
    """What in ``parts`` (read into a finished table) keeps an IPEX import (``Keepers``).
    Where something keeps it, ``read`` and ``rewritten`` are left incomplete: every reader of a
    ``Keepers`` asks ``kept`` first.

    ``rewritten``: the rule of each use the other fixes rewrite (labelled mechanical,
    ``mechanical_use``), by the id of its node. A chain through one of them keeps nothing:
    ``ipex-side-effect-import`` runs after the other fixes and judges the code they leave
    (``torch.xpu.has_fp64_dtype()`` rewritten, ``ipex.xpu.mem_get_info`` rewritten to
    ``torch.xpu``'s), so the label must too."""
    parts = list(parts)
    # NOTE: the keepers that need no walk of the chains first: where one holds, the walk of
    # every chain (most of this function's time in a module that imports ``torch.xpu.amp``)
    # would change nothing that is read
    if any(_keeps_outside_chains(facts) for facts in parts):
        return KEPT
    rewritten = rewritten or {}
    read: set[str] = set()
    gone: set[tuple[str, str]] = set()
    from_torch: dict[tuple[int, str], bool] = {}
    """Whether a base name in a scope may stand for torch (or a module under it)."""
    for facts in parts:
        for chain, chain_scope in facts.chains:
            root: ast.expr = chain
            rule = rewritten.get(id(root))
            while rule is None and isinstance(root, ast.Attribute):
                root = root.value
                rule = rewritten.get(id(root))
            if rule is not None:
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name):
                    gone.add((root.id, rule))
                continue
            if not isinstance(root, ast.Name):
                continue
            read.add(root.id)
            key = (id(chain_scope), root.id)
            torch = from_torch.get(key)
            if torch is None:
                torch = from_torch[key] = any(
                    t.partition(".")[0] == "torch" for t in chain_scope.lookup(root.id)
                )
            # NOTE: what IPEX injects is under torch: only a chain from torch is resolved
            if torch and any(
                under(n, IPEX_INJECTED) for n in NameTable.resolve(chain, chain_scope)
            ):
                return KEPT
    return Keepers(frozenset(read), False, frozenset(gone))


def _keeps_outside_chains(facts: Facts) -> bool:
    """Whether ``facts`` reach a name without a chain (a dynamic lookup, ``backend="ipex"``,
    ``__all__``) or import one of what IPEX injects into torch."""
    for call, _ in facts.calls:
        if isinstance(call.func, ast.Name) and call.func.id in DYNAMIC_LOOKUPS:
            return True
        if any(
            k.arg == "backend" and isinstance(k.value, ast.Constant) and k.value.value == "ipex"
            for k in call.keywords
        ):
            return True
    for assign, _ in facts.assigns:
        targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return True
    return any(
        isinstance(other, ast.ImportFrom)
        and other.module
        and not other.level
        and any(under(f"{other.module}.{a.name}", IPEX_INJECTED) for a in other.names)
        for other in facts.imports
    )


def removed_with_uses(
    statement: ast.ImportFrom, keepers: Keepers, module: Module, part: int
) -> str | None:
    """The rule whose fix removes names of ``from intel_extension_for_pytorch... import ...``
    (``None``: none does). The fix that rewrites every use of a name it imports drops that
    name (``ImportEditor.prune_unused``), and the whole statement with its last name, unless
    IPEX is still needed or the statement is alone in its block. ``keepers``: the whole
    module's, with the uses the other fixes rewrite (``import_keepers``)."""
    if statement.level or not statement.module or not under(statement.module, (IPEX_PACKAGE,)):
        return None
    if keepers.kept:
        return None  # NOTE: then ``read`` is not complete: any name may be read further on
    rules = []
    for alias in statement.names:
        bound = alias.asname or alias.name
        if alias.name == "*" or bound in keepers.read:
            continue
        rules += sorted(rule for name, rule in keepers.rewritten if name == bound)[:1]
    if not rules:
        return None
    if len(rules) == len(statement.names) and _alone_in_block(
        statement, module.lines.get(part, ())
    ):
        return None  # NOTE: the last name stays, and with it the line
    return rules[0]


def _alone_in_block(statement: ast.stmt, lines: Sequence[str]) -> bool:
    """Whether ``statement`` (indented) is the only statement of its block: the code line
    before it opens the block and the next one is not as deep."""
    if statement.col_offset == 0:
        return False
    indent = statement.col_offset

    def code(number: int) -> str | None:
        text = lines[number - 1] if 0 < number <= len(lines) else None
        if text is None:
            return None
        stripped = text.strip()
        return text if stripped and not stripped.startswith("#") else ""

    before = statement.lineno - 1
    while before > 0 and code(before) == "":
        before -= 1
    opens = code(before)
    if opens is None or not opens.rstrip().endswith(":"):
        return False
    after = (statement.end_lineno or statement.lineno) + 1
    while code(after) == "":
        after += 1
    following = code(after)
    if following is None:
        return True
    return len(following) - len(following.lstrip()) < indent
