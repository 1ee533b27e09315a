"""``ImportEditor``: the imports a codemod removes (a name of an import, or the whole
statement) and the ``import torch`` it adds, planned on the original tree and applied as the
transformer leaves each statement, block and the module."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
from libcst.metadata import Assignment, Scope

from ipex_doctor.scan.fix.codemods.layout import (
    last_without_semicolon,
    prune_block,
    torch_import_index,
)
from ipex_doctor.scan.fix.codemods.names import TORCH, Names
from ipex_doctor.scan.fix.codemods.records import Records
from ipex_doctor.scan.fix.codemods.syntax import code_of


class ImportEditor:
    """Removals of imports (``dropped``: the small statements and aliases that go) and the
    addition of ``import torch``, for one codemod's run on one tree."""

    def __init__(self, names: Names, records: Records) -> None:
        self._names = names
        self._records = records
        self.dropped: set[cst.CSTNode] = set()
        self.adds_torch = False
        self._torch_needed_by: cst.CSTNode | None = None
        """The first module-level statement that runs a use of the added ``import torch``
        while the module is imported (the import must come before it)."""

    # -- planning -----------------------------------------------------------------------------

    def torch_name(self, use: cst.CSTNode, hint: str | None = None) -> str | None:
        """A name that refers to module ``torch`` where ``use`` is, for code the fix writes.

        The module's own ``import torch`` (or ``import torch as t``) is used when it reaches
        ``use`` (and, for code that runs at import, comes before it). Otherwise ``import torch``
        is added to the module, when the name ``torch`` is free there. ``None`` when neither
        works; the caller refuses.
        """
        names = self._names
        scope = names.scope_of(use)
        for name in dict.fromkeys([*([hint] if hint else []), *names.torch_aliases(), "torch"]):
            if scope.get_qualified_names_for(name) == {TORCH} and self._bound_before(
                name, use, scope
            ):
                return name
        if "torch" in scope or "torch" in names.global_scope().assignments:
            return None
        self.adds_torch = True
        if names.runs_at_import(use):
            stmt = names.top_statement(use)
            line_of = self._records.line_of
            if self._torch_needed_by is None or line_of(stmt) < line_of(self._torch_needed_by):
                self._torch_needed_by = stmt
        return "torch"

    def _bound_before(self, name: str, use: cst.CSTNode, scope: Scope) -> bool:
        """For code that runs at import: an import binding ``name`` comes before ``use``."""
        if not self._names.runs_at_import(use):
            return True
        line_of = self._records.line_of
        line = line_of(use)
        return any(
            isinstance(a, Assignment)
            and isinstance(a.node, (cst.Import, cst.ImportFrom))
            and line_of(a.node) < line
            for a in scope[name]
        )

    def drop(self, small: cst.BaseSmallStatement) -> bool:
        """Plan to remove a small statement (an import); ``False`` (nothing planned) when that
        would leave an indented block or a one-line suite empty."""
        line = self._names.parent(small)
        if isinstance(line, cst.SimpleStatementSuite):
            if all(s in self.dropped or s is small for s in line.body):
                return False
        elif isinstance(line, cst.SimpleStatementLine):
            block = self._names.parent(line)
            if isinstance(block, cst.IndentedBlock) and all(
                isinstance(stmt, cst.SimpleStatementLine)
                and all(s in self.dropped or s is small for s in stmt.body)
                for stmt in block.body
            ):
                return False
        self.dropped.add(small)
        return True

    def drop_alias(self, alias: cst.ImportAlias) -> bool:
        """Plan to remove one name of an import (the whole statement when it was the last);
        ``False`` when that would empty a block."""
        stmt = self._names.parent(alias)
        assert isinstance(stmt, (cst.Import, cst.ImportFrom))
        if self.last_of_its_import(alias):
            if not self.drop(stmt):
                return False
        self.dropped.add(alias)
        return True

    def last_of_its_import(self, alias: cst.ImportAlias) -> bool:
        """Whether every other name of ``alias``'s import is dropped already."""
        stmt = self._names.parent(alias)
        assert isinstance(stmt, (cst.Import, cst.ImportFrom))
        names = stmt.names if not isinstance(stmt.names, cst.ImportStar) else ()
        return all(a in self.dropped or a is alias for a in names)

    def prune_unused(
        self, prunable: Callable[[str], bool], keep_reason: Callable[[str], str | None]
    ) -> None:
        """Remove the import bindings of the names ``prunable`` accepts whose every use was
        rewritten (consumed); ``keep_reason`` says why the last name of an import from a
        module must stay all the same (``None``: it may go)."""
        names, records = self._names, self._records
        for alias in names.nodes(cst.ImportAlias):
            stmt = names.parent(alias)
            if isinstance(stmt, cst.ImportFrom):
                if stmt.relative or stmt.module is None:
                    continue
                base = code_of(stmt.module)
                qualified = f"{base}.{alias.evaluated_name}"
                bound = alias.evaluated_alias or alias.evaluated_name
            elif isinstance(stmt, cst.Import) and alias.asname is not None:
                base = qualified = alias.evaluated_name
                bound = alias.evaluated_alias or qualified
            else:
                continue
            if not prunable(qualified):
                continue
            uses = names.uses_of(stmt, bound)
            if not uses or not all(use in records.consumed for use in uses):
                continue
            reason = keep_reason(base) if self.last_of_its_import(alias) else None
            if reason is not None:
                records.refuse(alias, f"the import of {qualified} stays: {reason}")
            elif self.drop_alias(alias):
                records.record(alias, f"removed the import of {qualified}")
            else:
                records.refuse(
                    alias,
                    f"the import of {qualified} is now unused but is the only statement of its "
                    "block: remove it by hand",
                )

    # -- applying -----------------------------------------------------------------------------

    def changes_anything(self) -> bool:
        """Whether anything is planned (an import to drop or to add)."""
        return bool(self.dropped or self.adds_torch)

    def prune_aliases(
        self, original: cst.Import | cst.ImportFrom, updated: cst.Import | cst.ImportFrom
    ) -> cst.Import | cst.ImportFrom:
        """``updated`` without the names dropped from ``original``."""
        if isinstance(original.names, cst.ImportStar) or isinstance(updated.names, cst.ImportStar):
            return updated
        names = updated.names
        kept = [n for o, n in zip(original.names, names, strict=True) if o not in self.dropped]
        if not kept or len(kept) == len(names):
            return updated
        if kept[-1] is not names[-1]:
            kept[-1] = kept[-1].with_changes(comma=names[-1].comma)
        return updated.with_changes(names=kept)

    def prune_suite(
        self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite
    ) -> cst.SimpleStatementSuite:
        """``updated`` (``a; b`` after a colon) without the statements dropped."""
        kept = [
            n for o, n in zip(original.body, updated.body, strict=True) if o not in self.dropped
        ]
        return updated.with_changes(body=last_without_semicolon(kept))

    def prune_indented(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        """``updated`` without the statements dropped (their comments kept)."""
        body, carried = prune_block(original.body, updated.body, self.dropped)
        return updated.with_changes(body=body, footer=[*carried, *updated.footer])

    def finish_module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        """``updated`` without the statements dropped at the top level, with ``import torch``
        added where it is planned (recorded as a rewrite)."""
        body, carried = prune_block(original.body, updated.body, self.dropped)
        kept_originals = [
            o
            for o, n in zip(original.body, updated.body, strict=True)
            if not (
                isinstance(o, cst.SimpleStatementLine)
                and isinstance(n, cst.SimpleStatementLine)
                and all(s in self.dropped for s in o.body)
            )
        ]
        if self.adds_torch:
            index = torch_import_index(body, kept_originals, self._torch_needed_by)
            line = (
                self._records.line_of(kept_originals[index])
                if index < len(kept_originals)
                else len(original.code.splitlines()) + 1
            )
            statement = cst.SimpleStatementLine(
                body=[cst.Import(names=[cst.ImportAlias(name=cst.Name("torch"))])]
            )
            body.insert(index, statement)
            self._records.record_at(line, "added `import torch`")
        return updated.with_changes(body=body, footer=[*carried, *updated.footer])
