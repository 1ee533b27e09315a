"""The ``ccl-to-xccl`` fix: oneCCL through torch-ccl -> PyTorch's built-in XCCL backend."""

from __future__ import annotations

from typing import cast

import libcst as cst

from ipex_doctor.scan.fix.codemods.base import CodemodContext, NameCodemod
from ipex_doctor.scan.fix.codemods.syntax import code_of, expr, quote_of, root_name, string_value

INIT_PROCESS_GROUP = (
    "torch.distributed.init_process_group",
    "torch.distributed.distributed_c10d.init_process_group",
)
CCL_BINDINGS = ("oneccl_bindings_for_pytorch", "torch_ccl")
"""torch-ccl's module (``torch_ccl`` is its name before 1.12); importing it registers the
``ccl`` backend."""
XCCL_PROBE = "is_xccl_available"


def xccl_available(torch: str, quote: str) -> str:
    """The test written into the user's code: true when this torch has the XCCL backend.

    Through ``getattr`` because ``torch.distributed.is_xccl_available`` came with the XCCL
    backend (it is in torch 2.7, IPEX issue #839; XCCL ships in the binary wheels from 2.8):
    on an older torch, where IPEX and torch-ccl still run, the name does not exist and the
    code must keep choosing ``ccl``."""
    return f"getattr({torch}.distributed, {quote}{XCCL_PROBE}{quote}, lambda: False)()"


class CclToXccl(NameCodemod):
    """``ccl-to-xccl``: ``backend="ccl"`` in ``torch.distributed.init_process_group(...)`` (as
    a keyword or the first positional argument) -> ``backend="xccl" if <torch has XCCL> else
    "ccl"``, so the same code uses XCCL on a torch that has it and torch-ccl on one that does
    not (see ``xccl_available`` for the test). This follows IPEX 2.8.10's release notes, which
    retire torch-ccl: use ``xccl`` when ``torch.distributed.is_xccl_available()``, else import
    ``oneccl_bindings_for_pytorch`` and use ``ccl``.

    The side-effect ``import oneccl_bindings_for_pytorch`` (its name otherwise unused) then
    becomes ``if not <torch has XCCL>: import oneccl_bindings_for_pytorch``: the import exists
    only to register ``ccl``, and it is kept exactly where ``ccl`` is still chosen. Removing
    it would break the older torch; leaving it would make every run on a new torch import
    torch-ccl, which is discontinued and built against old torch releases (so it may fail to
    load, or load against the wrong torch), for a backend no longer used. Wrapping it in
    ``try/except ImportError`` was rejected too: on the older torch it would hide a broken
    torch-ccl until ``init_process_group`` fails with a less clear error.

    The import is guarded only when that is provably all it serves: this module rewrote an
    ``init_process_group(backend="ccl")``, has no ``init_process_group`` whose backend is not
    a literal, and uses the string ``"ccl"`` nowhere else (a ``new_group(backend="ccl")`` still
    needs torch-ccl). Otherwise it is left as is and reported. A non-literal backend is left
    alone. Every other ``"ccl"`` chosen as a backend (given to another call, such as a
    library's process group or ``super().__init__(backend="ccl")``, or kept in a variable or a
    dict for later) is reported, never changed: where it ends up is not this module's to see.
    """

    FIX_ID = "ccl-to-xccl"
    ORDER = 40
    DESCRIPTION = 'backend="ccl" -> "xccl", guarded by torch.distributed.is_xccl_available()'
    TRIGGERS = ("init_process_group", *CCL_BINDINGS, '"ccl"', "'ccl'")
    REQUIRES = ("ccl",)
    # NOTE: every "ccl" string counts (another use keeps the import), and a backslash can
    # spell one ("\x63cl", a line continuation inside the string).
    READS = (*NameCodemod.READS, "\\", XCCL_PROBE)

    def plan(self, ctx: CodemodContext) -> None:
        """Plan the backend arguments, then the import."""
        rewritten: set[cst.CSTNode] = set()
        handled: set[cst.CSTNode] = set()
        opaque: list[cst.CSTNode] = []
        for node, _ in ctx.references(dict.fromkeys(INIT_PROCESS_GROUP)):
            call = ctx.names.call_of(node)
            if call is None:
                continue
            backend = _backend_arg(call)
            if backend is None:
                continue
            if string_value(backend.value) != "ccl":
                if not isinstance(backend.value, (cst.SimpleString, cst.IfExp)):
                    opaque.append(call)
                continue
            handled.add(backend.value)
            torch = ctx.imports.torch_name(call, root_name(node))
            if torch is None:
                ctx.records.refuse(
                    call, "the name torch means something else here: rewrite by hand"
                )
                continue
            self._plan_backend(ctx, cast(cst.SimpleString, backend.value), torch)
            rewritten.add(backend.value)
        self._report_other_ccl(ctx, handled)
        for stmt in ctx.names.nodes(cst.Import):
            self._plan_import(ctx, stmt, rewritten, opaque)

    def _report_other_ccl(self, ctx: CodemodContext, handled: set[cst.CSTNode]) -> None:
        """Report every other ``"ccl"`` chosen as a backend (scan reports them all): given to
        another call (a library's own process group, ``super().__init__(backend="ccl")``),
        or kept for later (``backend = "ccl"``, ``{"backend": "ccl"}``)."""
        why = (
            'stays: the fix rewrites only torch.distributed.init_process_group(backend="ccl"); '
            'where this value reaches a process group, choose "xccl" there when '
            "torch.distributed.is_xccl_available()"
        )
        for arg in ctx.names.nodes(cst.Arg):
            if (
                arg.keyword is not None
                and arg.keyword.value == "backend"
                and arg.value not in handled
                and string_value(arg.value) == "ccl"
            ):
                ctx.records.refuse(arg, f'backend="ccl" {why}')
        for assign in ctx.names.nodes(cst.Assign):
            if string_value(assign.value) == "ccl" and any(
                _names_backend(target.target) for target in assign.targets
            ):
                ctx.records.refuse(assign, f'"ccl" kept as a backend {why}')
        for element in ctx.names.nodes(cst.DictElement):
            if string_value(element.key) == "backend" and string_value(element.value) == "ccl":
                ctx.records.refuse(element, f'"backend": "ccl" {why}')

    def _plan_backend(self, ctx: CodemodContext, literal: cst.SimpleString, torch: str) -> None:
        quote = quote_of(literal)
        new = f"{quote}xccl{quote} if {xccl_available(torch, quote)} else {code_of(literal)}"

        def edit(updated: cst.SimpleString) -> cst.BaseExpression:
            return expr(new).with_changes(lpar=updated.lpar, rpar=updated.rpar)

        ctx.records.rewrite(
            literal, edit, 'backend="ccl" -> backend="xccl" if XCCL is available else "ccl"'
        )

    def _plan_import(
        self,
        ctx: CodemodContext,
        stmt: cst.Import,
        rewritten: set[cst.CSTNode],
        opaque: list[cst.CSTNode],
    ) -> None:
        if not any(a.evaluated_name in CCL_BINDINGS for a in stmt.names):
            return
        line = ctx.names.parent(stmt)
        if self._already_guarded(ctx, line):
            return
        name = stmt.names[0].evaluated_name
        if (
            len(stmt.names) != 1
            or not isinstance(line, cst.SimpleStatementLine)
            or len(line.body) != 1
        ):
            ctx.records.refuse(stmt, f"import {name} shares its line: guard it by hand")
            return
        why = self._still_needed(ctx, stmt, rewritten, opaque)
        if why is not None:
            ctx.records.refuse(stmt, f"import {name} stays: {why}")
            return
        torch = ctx.imports.torch_name(line)
        if torch is None:
            ctx.records.refuse(stmt, "the name torch means something else here: guard it by hand")
            return
        test = expr("not " + xccl_available(torch, '"'))

        def edit(updated: cst.SimpleStatementLine) -> cst.If:
            return cst.If(
                test=test,
                body=cst.IndentedBlock(body=[updated.with_changes(leading_lines=[])]),
                leading_lines=updated.leading_lines,
            )

        ctx.records.rewrite(
            line, edit, f"import {name} -> imported only when XCCL is not available"
        )

    def _still_needed(
        self,
        ctx: CodemodContext,
        stmt: cst.Import,
        rewritten: set[cst.CSTNode],
        opaque: list[cst.CSTNode],
    ) -> str | None:
        """Why torch-ccl's import may serve more than the rewritten backends."""
        alias = stmt.names[0]
        bound = alias.evaluated_alias or alias.evaluated_name
        if self._is_used(ctx, stmt, bound):
            return f"the module uses the name {bound}"
        if not rewritten:
            return 'no init_process_group(backend="ccl") in this module; it may serve another'
        if opaque:
            return f"the backend at line {ctx.records.user_line(opaque[0])} is not a literal"
        for found in ctx.names.nodes(cst.SimpleString):
            if found in rewritten or string_value(found) != "ccl":
                continue
            if not self._inside_guard(ctx, found):
                return f'"ccl" is still used at line {ctx.records.user_line(found)}'
        return None

    def _is_used(self, ctx: CodemodContext, stmt: cst.Import, bound: str) -> bool:
        return bool(ctx.names.uses_of(stmt, bound))

    def _already_guarded(self, ctx: CodemodContext, line: cst.CSTNode | None) -> bool:
        """Whether the import already sits under this fix's ``if not ...:`` (a second run)."""
        block = ctx.names.parent(line) if line is not None else None
        guard = ctx.names.parent(block) if block is not None else None
        return isinstance(guard, cst.If) and XCCL_PROBE in code_of(guard.test)

    def _inside_guard(self, ctx: CodemodContext, node: cst.CSTNode) -> bool:
        return any(
            isinstance(a, cst.IfExp) and XCCL_PROBE in code_of(a.test)
            for a in ctx.names.ancestors(node)
        )


def _backend_arg(call: cst.Call) -> cst.Arg | None:
    """The argument that is ``init_process_group``'s ``backend`` (keyword or first positional)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "backend":
            return arg
    first = call.args[0] if call.args else None
    if first is not None and first.keyword is None and not first.star:
        return first
    return None


def _names_backend(target: cst.BaseExpression) -> bool:
    """Whether an assignment target names a backend (``backend``, ``self.dist_backend``)."""
    name = target.value if isinstance(target, cst.Name) else ""
    if isinstance(target, cst.Attribute):
        name = target.attr.value
    return name.lower().endswith("backend")
