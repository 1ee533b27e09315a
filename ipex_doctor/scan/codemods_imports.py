"""The ``ipex-side-effect-import`` fix: remove an ``import intel_extension_for_pytorch`` whose
name the module never uses."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from ipex_doctor.scan.codemods_base import IPEX_PACKAGE, NameCodemod
from ipex_doctor.scan.codemods_syntax import string_value

DYNAMIC_LOOKUPS = ("globals", "locals", "vars", "eval", "exec", "__import__")
"""Builtins through which a module can reach a name without naming it."""


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
    that is the only statement of its block, and ``import intel_extension_for_pytorch.x``
    forms (they bind the package for other uses and are not the side-effect spelling).
    Comments above a removed import move to the statement that follows.
    """

    FIX_ID = "ipex-side-effect-import"
    TRIGGERS = (IPEX_PACKAGE,)
    READS = (*NameCodemod.READS, "__all__", *DYNAMIC_LOOKUPS)

    def plan(self, module: cst.Module) -> None:
        """Plan the removal of each unused IPEX import."""
        for stmt in self.nodes(cst.Import):
            for alias in stmt.names:
                if alias.evaluated_name == IPEX_PACKAGE:
                    self._plan_alias(module, stmt, alias)

    def _plan_alias(self, module: cst.Module, stmt: cst.Import, alias: cst.ImportAlias) -> None:
        bound = alias.evaluated_alias or alias.evaluated_name
        if self._uses_of(stmt, bound):
            return
        why = self._kept_because(module, bound)
        if why is None and not self.drop_alias(alias):
            why = "it is the only statement of its block; remove the block by hand"
        if why is not None:
            self.refuse(alias, f"the import of {IPEX_PACKAGE} stays: {why}")
            return
        self.record(alias, f"removed the unused import of {IPEX_PACKAGE}")

    def _dunder_all(self) -> set[str]:
        """The strings listed in the module's ``__all__`` assignments."""
        names: set[str] = set()
        statements: list[cst.Assign | cst.AugAssign] = [
            *self.nodes(cst.Assign),
            *self.nodes(cst.AugAssign),
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

    def _kept_because(self, module: cst.Module, bound: str) -> str | None:
        """Why the unused import must stay (``None``: it may go)."""
        left = self.ipex_uses_left()
        if left:
            return f"IPEX is still needed by {left[0]}"
        if bound in self._dunder_all():
            return f"{bound} is listed in __all__"
        for call in self.nodes(cst.Call):
            if isinstance(call.func, cst.Name) and call.func.value in DYNAMIC_LOOKUPS:
                return f"the module calls {call.func.value}(), which may reach the name"
        return None
