"""The ``ipex-side-effect-import`` fix: remove an ``import intel_extension_for_pytorch`` whose
name the module never uses."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ipex_doctor.scan.fix.codemods.base import CodemodContext, NameCodemod
from ipex_doctor.scan.fix.codemods.syntax import code_of, string_value
from ipex_doctor.scan.match.fixable import DYNAMIC_LOOKUPS, IPEX_PACKAGE, under

GUARDING_HANDLERS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
"""A ``try`` whose handler catches one of these (or everything) guards the imports in it."""


class IpexSideEffectImport(NameCodemod):
    """``ipex-side-effect-import``: removes ``import intel_extension_for_pytorch`` and ``import
    intel_extension_for_pytorch as NAME`` when the module never uses the name it binds.

    Such an import is kept for its side effects, which upstream torch no longer needs for
    its own XPU support (torch 2.5+). But IPEX also installs names into ``torch`` (``torch.xpu.
    amp``, ``torch.xpu.optimize``, ...) and a ``torch.compile`` backend (``"ipex"``): while
    the module still uses one of them, the import stays and the place is reported (run this
    fix after the others, which rewrite most of them; ``scan --fix`` does).

    Also kept (reported): a name listed in ``__all__`` (other modules may import it from
    here), a module that reaches names dynamically (``globals()``, ``eval``, ...), an import
    that is the only statement of its block, an import inside a ``try`` whose handler catches
    its ``ImportError`` (the handler decides what happens without IPEX, often a flag such as
    ``HAS_IPEX = False``: removing the import alone would change what the flag says, so the
    ``try`` statement is left to the author), an import whose name the module uses (its uses
    go first), and the other spellings (``import intel_extension_for_pytorch.x``, ``from
    intel_extension_for_pytorch... import y``: they import names for other uses). Every one
    of these is reported with the reason, so nothing this fix sees is left without one.
    Comments above a removed import move to the statement that follows.
    """

    FIX_ID = "ipex-side-effect-import"
    ORDER = 100
    DESCRIPTION = "remove an import of intel_extension_for_pytorch whose name is never used"
    TRIGGERS = (IPEX_PACKAGE,)
    READS = (*NameCodemod.READS, "__all__", *DYNAMIC_LOOKUPS)

    def plan(self, ctx: CodemodContext) -> None:
        """Plan the removal of each unused IPEX import; report every other IPEX import."""
        for stmt in ctx.names.nodes(cst.Import):
            for alias in stmt.names:
                if alias.evaluated_name == IPEX_PACKAGE:
                    self._plan_alias(ctx, stmt, alias)
                elif under(alias.evaluated_name, (IPEX_PACKAGE,)):
                    ctx.records.refuse(
                        alias, f"import {alias.evaluated_name} stays: {_OTHER_SPELLING}"
                    )
        for found in ctx.names.nodes(cst.ImportFrom):
            if found.module is not None and not found.relative:
                name = code_of(found.module)
                if under(name, (IPEX_PACKAGE,)):
                    ctx.records.refuse(found, f"from {name} import ... stays: {_OTHER_SPELLING}")

    def _plan_alias(self, ctx: CodemodContext, stmt: cst.Import, alias: cst.ImportAlias) -> None:
        bound = alias.evaluated_alias or alias.evaluated_name
        uses = ctx.names.uses_of(stmt, bound)
        if uses:
            first = min(ctx.records.user_line(use) for use in uses)
            ctx.records.refuse(
                alias,
                f"the import of {IPEX_PACKAGE} stays: the module uses {bound} (line {first}); "
                "replace its uses (the findings name them), then the import can go",
            )
            return
        guard = self._guarding_try(ctx, stmt)
        if guard is not None:
            ctx.records.refuse(
                alias,
                f"the import of {IPEX_PACKAGE} stays: the try statement at line "
                f"{ctx.records.user_line(guard)} catches its ImportError, and its handler decides what "
                "runs without IPEX (a flag, a fallback); remove the try statement by hand, "
                "keeping what the handler does",
            )
            return
        why = self._kept_because(ctx, bound)
        if why is None and not ctx.imports.drop_alias(alias):
            why = "it is the only statement of its block; remove the block by hand"
        if why is not None:
            ctx.records.refuse(alias, f"the import of {IPEX_PACKAGE} stays: {why}")
            return
        ctx.records.record(alias, f"removed the unused import of {IPEX_PACKAGE}")

    def _guarding_try(self, ctx: CodemodContext, stmt: cst.Import) -> cst.Try | None:
        """The ``try`` whose body holds ``stmt`` and whose handler catches its ImportError."""
        child: cst.CSTNode = stmt
        for ancestor in ctx.names.ancestors(stmt):
            if isinstance(ancestor, cst.Try) and child is ancestor.body:
                if any(_catches_import_error(handler) for handler in ancestor.handlers):
                    return ancestor
            child = ancestor
        return None

    def _dunder_all(self, ctx: CodemodContext) -> set[str]:
        """The strings listed in the module's ``__all__`` assignments."""
        names: set[str] = set()
        statements: list[cst.Assign | cst.AugAssign] = [
            *ctx.names.nodes(cst.Assign),
            *ctx.names.nodes(cst.AugAssign),
        ]
        for stmt in statements:
            targets = (
                [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
            )
            if any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets):
                names.update(
                    v for s in m.findall(stmt.value, m.SimpleString()) if (v := string_value(s))
                )
        return names

    def _kept_because(self, ctx: CodemodContext, bound: str) -> str | None:
        """Why the unused import must stay (``None``: it may go)."""
        left = ctx.ipex_uses_left()
        if left:
            return f"IPEX is still needed by {left[0]}"
        if bound in self._dunder_all(ctx):
            return f"{bound} is listed in __all__"
        for call in ctx.names.nodes(cst.Call):
            if isinstance(call.func, cst.Name) and call.func.value in DYNAMIC_LOOKUPS:
                return f"the module calls {call.func.value}(), which may reach the name"
        return None


_OTHER_SPELLING = (
    "the fix removes only an unused `import intel_extension_for_pytorch`; replace the names "
    "this imports (the findings at their uses), then remove it"
)


def _catches_import_error(handler: cst.ExceptHandler) -> bool:
    """Whether ``handler`` catches ImportError: bare, or naming it (or a base of it)."""
    if handler.type is None:
        return True
    caught = handler.type
    names = [e.value for e in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return any(code_of(n).rsplit(".", 1)[-1] in GUARDING_HANDLERS for n in names)
