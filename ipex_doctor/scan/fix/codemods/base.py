"""What every codemod of ``scan --fix`` shares: the records, the plan-then-apply transformer,
name resolution through imports, and the removal and addition of imports.

A codemod is a LibCST transformer that works in two steps. ``plan`` runs once, on the
untouched tree with its metadata (scopes, from which qualified names are asked on demand;
positions; an index of nodes and parents): it decides every edit (keyed by the original node),
records a ``Rewrite`` for each and a ``Refusal`` for each place it recognises but cannot prove
equivalent. The traversal then only applies those edits, children first, so edits nest (a
rewritten call inside a rewritten ``with``). Deciding up front is what lets an import be
removed at the top of a file because every use of it further down is rewritten.

Positions in the records are those of the tree the codemod ran on; ``fix`` maps them back to
the user's original lines when several codemods run one after the other.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Container, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, cast

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    Assignment,
    GlobalScope,
    PositionProvider,
    QualifiedName,
    QualifiedNameSource,
    Scope,
    ScopeProvider,
)
from libcst.metadata.base_provider import ProviderT

from ipex_doctor.model.codec import JsonModel
from ipex_doctor.scan.fix.codemods.layout import (
    TreeIndex,
    last_without_semicolon,
    prune_block,
    torch_import_index,
)
from ipex_doctor.scan.fix.codemods.syntax import code_of, string_value, walk
from ipex_doctor.scan.match.fixable import IPEX_INJECTED, IPEX_PACKAGE, under

T = TypeVar("T")
NodeT = TypeVar("NodeT", bound=cst.CSTNode)

TORCH = QualifiedName("torch", QualifiedNameSource.IMPORT)

_IPEX_WORDS = frozenset(name.rsplit(".", 1)[-1] for name in IPEX_INJECTED)


def is_ipex_only(name: str) -> bool:
    """Whether dotted ``name`` exists only while IPEX is installed and imported."""
    return under(name, (*IPEX_INJECTED, IPEX_PACKAGE))


def _same_line(line: int) -> int:
    return line


Edit = Callable[[Any], "cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[Any]"]


@dataclass(frozen=True)
class Rewrite(JsonModel):
    """One rewrite that was applied: the 1-based line of the original text it starts on (and
    for a notebook the 1-based code cell, the line then counting within the cell), the fix id,
    and what changed."""

    fix_id: str
    line: int
    summary: str
    cell: int | None = None


@dataclass(frozen=True)
class Refusal(JsonModel):
    """A place a fix recognised and left alone because the rewrite could not be proven
    equivalent there (or could not be made at all); ``reason`` says why and what to do."""

    fix_id: str
    line: int
    reason: str
    cell: int | None = None


class Codemod(cst.CSTTransformer):
    """One fix id: subclasses set ``FIX_ID`` and implement ``plan``."""

    FIX_ID: ClassVar[str] = ""
    DESCRIPTION: ClassVar[str] = ""
    """What the fix rewrites, in one line (``kb``, the docs and the rules' errors show it): the
    catalogue of fixes is the codemods themselves (``codemods.FIX_CATALOGUE``)."""
    TRIGGERS: ClassVar[tuple[str, ...]] = ()
    """Words one of which the source must contain for the codemod to have anything to do (the
    last part of every name it rewrites appears as written, in a use or in the import that
    binds an alias), so a file without them skips the cost of LibCST's metadata."""
    REQUIRES: ClassVar[tuple[str, ...]] = ()
    """Words all of which the source must contain too (``xpu`` for an XPU name: it is spelled
    in the use or in the import)."""
    READS: ClassVar[tuple[str, ...]] = ()
    """What else this codemod's decisions read anywhere in the module (``__all__``, the
    builtins that reach names dynamically, string values): see ``relevant``."""
    METADATA_DEPENDENCIES: ClassVar[Collection[ProviderT]] = (PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.rewrites: list[Rewrite] = []
        self.refusals: list[Refusal] = []
        self._edits: dict[cst.CSTNode, Edit] = {}
        self._consumed: set[cst.CSTNode] = set()
        self._dropped: set[cst.CSTNode] = set()
        self._module: cst.Module | None = None
        self._index = TreeIndex()
        self._parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self._aliases: set[str] | None = None
        self._torch_alias_names: list[str] | None = None
        self._add_torch = False
        self._torch_needed_by: cst.CSTNode | None = None
        """The first module-level statement that runs a use of the added ``import torch``
        while the module is imported (the import must come before it)."""
        self.original_line: Callable[[int], int] = _same_line
        """Maps a line of the tree this codemod runs on to the user's original line (``fix``
        sets it when earlier codemods moved lines, or the tree is a slice): for the lines a
        reason names in its text (the records' own lines are mapped by ``fix``)."""

    # -- what subclasses implement ------------------------------------------------------------

    @classmethod
    def may_apply(cls, source: Container[str]) -> bool:
        """Whether ``source`` (text, or anything that says which words it holds) can hold
        anything this codemod rewrites or reports."""
        return any(word in source for word in cls.TRIGGERS) and all(
            word in source for word in cls.REQUIRES
        )

    @classmethod
    def relevant(cls) -> frozenset[str]:
        """What a top-level statement spells when this codemod may read it, besides an import
        and the names imports bind (``fix_slice`` keeps those): a name (matched as a whole
        word: the last part of every name it rewrites, its triggers, ``READS``) or other text
        (matched anywhere). A statement that spells none of them is nothing to this codemod:
        no decision of it changes whether the statement is there."""
        targets = (target.rsplit(".", 1)[-1] for target in cls().targets())
        return frozenset((*cls.TRIGGERS, *cls.REQUIRES, *cls.READS, *targets))

    def plan(self, module: cst.Module) -> None:
        """Decide every edit and record it (``rewrite`` / ``refuse``); called once."""
        raise NotImplementedError

    TARGETS: ClassVar[tuple[str, ...]] = ()
    """The qualified names a codemod of one old API rewrites (its spellings)."""

    def targets(self) -> Collection[str]:
        """The qualified names this codemod rewrites (for pruning their imports); by default
        ``TARGETS``."""
        return self.TARGETS

    def prunable(self, qualified: str) -> bool:
        """Whether an import binding ``qualified`` (a ``from M import X`` or ``import M as Y``)
        goes away once every use of it is rewritten: a name this codemod rewrites, or a module
        only IPEX provides that holds one."""
        targets = self.targets()
        if qualified in targets:
            return True
        # NOTE: the package itself is not pruned here: ``import intel_extension_for_pytorch``
        # is kept for its side effects, which is ipex-side-effect-import's judgement.
        return (
            qualified != IPEX_PACKAGE
            and is_ipex_only(qualified)
            and any(t.startswith(qualified + ".") for t in targets)
        )

    def keep_import_reason(self, module_name: str) -> str | None:
        """Why an import of ``module_name`` must stay although the name it binds is no longer
        used (``None``: it may go). An import from IPEX also loads IPEX, which installs names
        into ``torch``: it stays while the module still uses one of them."""
        if not under(module_name, (IPEX_PACKAGE,)):
            return None
        left = self.ipex_uses_left()
        if not left:
            return None
        return f"it also loads IPEX, which {left[0]} still needs"

    def ipex_uses_left(self) -> list[str]:
        """What in the module still needs IPEX imported once this codemod's edits are applied,
        as ``NAME (line N)``: the names IPEX installs into ``torch`` (``IPEX_INJECTED``), used
        or imported, and ``backend="ipex"`` (IPEX's ``torch.compile`` backend)."""
        assert self._module is not None
        left: list[str] = []
        for found in self.nodes(cst.Name, cst.Attribute, cst.ImportAlias, cst.Arg):
            if found in self._consumed or found in self._dropped:
                continue
            if isinstance(found, cst.ImportAlias):
                stmt = self.parent(found)
                if isinstance(stmt, cst.ImportFrom) and stmt.module is not None:
                    name = f"{code_of(stmt.module)}.{found.evaluated_name}"
                else:
                    name = found.evaluated_name
                if under(name, IPEX_INJECTED) and stmt not in self._dropped:
                    left.append(f"the import of {name} (line {self.user_line(found)})")
            elif isinstance(found, cst.Arg):
                if (
                    found.keyword is not None
                    and found.keyword.value == "backend"
                    and string_value(found.value) == "ipex"
                ):
                    left.append(f'backend="ipex" (line {self.user_line(found)})')
            elif (
                not isinstance(self.parent(found), cst.Attribute)
                and self.may_name(found, _IPEX_WORDS)
                and not self.in_import(found)
            ):
                hit = sorted(n for n in self.qualified_names(found) if under(n, IPEX_INJECTED))
                if hit:
                    left.append(f"{hit[0]} (line {self.user_line(found)})")
        return left

    # -- recording ----------------------------------------------------------------------------

    def line_of(self, node: cst.CSTNode) -> int:
        """The 1-based line ``node`` starts on."""
        return int(self.get_metadata(PositionProvider, node).start.line)

    def user_line(self, node: cst.CSTNode) -> int:
        """The line of the user's original text that ``node`` starts on, for a reason's text."""
        return self.original_line(self.line_of(node))

    def rewrite(
        self, node: cst.CSTNode, edit: Edit, summary: str, *, consumes: cst.CSTNode | None = None
    ) -> None:
        """Replace ``node`` by ``edit(node as updated by the edits inside it)``. ``consumes`` is
        the part of ``node`` whose names the new code no longer uses (a call's callee, not its
        arguments): an import whose every use is consumed may go."""
        self._edits[node] = edit
        if consumes is not None:
            self._consumed.update(walk(consumes))
        self.rewrites.append(Rewrite(self.FIX_ID, self.line_of(node), summary))

    def replace(self, node: cst.CSTNode, edit: Edit) -> None:
        """Replace ``node`` by ``edit(updated node)`` without recording (the caller records)."""
        self._edits[node] = edit

    def record(self, node: cst.CSTNode, summary: str) -> None:
        """Record a rewrite planned by other means (a removal) as starting at ``node``."""
        self.rewrites.append(Rewrite(self.FIX_ID, self.line_of(node), summary))

    def refuse(self, node: cst.CSTNode, reason: str) -> None:
        """Record that ``node`` is left alone, and why."""
        self.refusals.append(Refusal(self.FIX_ID, self.line_of(node), reason))

    # -- reading the tree ---------------------------------------------------------------------

    def nodes(self, *types: type[NodeT]) -> list[NodeT]:
        """The nodes of the original tree of exactly the given (concrete) types, in document
        order."""
        found = [n for t in types for n in self._index.by_type.get(t, ())]
        if len(types) > 1:
            found.sort(key=self._index.order.__getitem__)
        return cast("list[NodeT]", found)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The parent of ``node`` in the original tree (``None`` for the module)."""
        return self._parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """The parents of ``node``, nearest first."""
        current = self.parent(node)
        while current is not None:
            yield current
            current = self.parent(current)

    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        """Every dotted name ``node`` may refer to, through imports and aliases.

        Asked of the scope on demand: LibCST's QualifiedNameProvider answers the same question
        for every node of the file up front, which is most of a codemod's time."""
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return set()
        return {q.name for q in scope.get_qualified_names_for(node)}

    def renamed(self) -> set[str]:
        """The names imports bind under another name than the one imported (``as X``) or
        from a module (``from M import X``): a use of a name can only resolve to a dotted
        name whose parts it does not spell through one of these."""
        if self._aliases is None:
            self._aliases = {
                alias.evaluated_alias or alias.evaluated_name
                for alias in self.nodes(cst.ImportAlias)
                if alias.asname is not None or isinstance(self.parent(alias), cst.ImportFrom)
            }
        return self._aliases

    def may_name(self, node: cst.CSTNode, words: Collection[str]) -> bool:
        """Cheap test before resolving ``node``: whether it can refer to a dotted name with one
        of ``words`` as a part (it spells the word, or goes through a renaming import)."""
        full = get_full_name_for_node(node)
        if full is None:
            return False
        parts = set(full.split("."))
        return not parts.isdisjoint(words) or not parts.isdisjoint(self.renamed())

    def in_import(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is part of an import statement (a name being bound, not used)."""
        return any(isinstance(a, (cst.Import, cst.ImportFrom)) for a in self.ancestors(node))

    def references(
        self, module: cst.Module, targets: Mapping[str, T]
    ) -> Iterator[tuple[cst.BaseExpression, T]]:
        """The uses (names and attribute chains) that resolve to a key of ``targets``, with its
        value. A use that may also be something else (a name bound twice) is refused here."""
        words = {t.rsplit(".", 1)[-1] for t in targets}
        for node in self.nodes(cst.Name, cst.Attribute):
            key = node.value if isinstance(node, cst.Name) else cast(cst.Attribute, node).attr.value
            if key not in words and key not in self.renamed():
                continue
            names = self.qualified_names(node)
            hits = names & targets.keys()
            if not hits or self.in_import(node):
                continue
            if len(names) > 1:
                other = sorted(names - hits) or sorted(hits)[1:]
                self.refuse(
                    node,
                    f"{code_of(node)} may also be {other[0]} here (the name is bound more than "
                    "once): rewrite by hand",
                )
                continue
            yield node, targets[next(iter(hits))]

    def call_of(self, node: cst.CSTNode) -> cst.Call | None:
        """The call whose callee is ``node``, if ``node`` is called."""
        parent = self.parent(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            return parent
        return None

    def runs_at_import(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` runs while the module is imported (not inside a function)."""
        return not any(isinstance(a, (cst.FunctionDef, cst.Lambda)) for a in self.ancestors(node))

    def top_statement(self, node: cst.CSTNode) -> cst.CSTNode:
        """The module-level statement that contains ``node``."""
        chain = [node, *self.ancestors(node)]
        return chain[-2] if len(chain) >= 2 else node

    # -- torch by name ------------------------------------------------------------------------

    def torch_name(self, use: cst.CSTNode, hint: str | None = None) -> str | None:
        """A name that refers to module ``torch`` where ``use`` is, for code the fix writes.

        The module's own ``import torch`` (or ``import torch as t``) is used when it reaches
        ``use`` (and, for code that runs at import, comes before it). Otherwise ``import torch``
        is added to the module, when the name ``torch`` is free there. ``None`` when neither
        works; the caller refuses.
        """
        scope = self.get_metadata(ScopeProvider, use)
        assert scope is not None
        for name in dict.fromkeys([*([hint] if hint else []), *self._torch_aliases(), "torch"]):
            if scope.get_qualified_names_for(name) == {TORCH} and self._bound_before(
                name, use, scope
            ):
                return name
        module_scope = self._global_scope()
        if "torch" in scope or "torch" in module_scope.assignments:
            return None
        self._add_torch = True
        if self.runs_at_import(use):
            stmt = self.top_statement(use)
            if self._torch_needed_by is None or self.line_of(stmt) < self.line_of(
                self._torch_needed_by
            ):
                self._torch_needed_by = stmt
        return "torch"

    def _torch_aliases(self) -> list[str]:
        """The names the module binds to torch with ``import torch as NAME``."""
        if self._torch_alias_names is None:
            self._torch_alias_names = [
                alias.evaluated_alias or "torch"
                for alias in self.nodes(cst.ImportAlias)
                if isinstance(self.parent(alias), cst.Import)
                and alias.evaluated_name == "torch"
                and alias.asname is not None
            ]
        return self._torch_alias_names

    def _global_scope(self) -> Scope:
        assert self._module is not None
        scope = self.get_metadata(ScopeProvider, self._module)
        assert isinstance(scope, GlobalScope)
        return scope

    def _bound_before(self, name: str, use: cst.CSTNode, scope: Scope) -> bool:
        """For code that runs at import: an import binding ``name`` comes before ``use``."""
        if not self.runs_at_import(use):
            return True
        line = self.line_of(use)
        return any(
            isinstance(a, Assignment)
            and isinstance(a.node, (cst.Import, cst.ImportFrom))
            and self.line_of(a.node) < line
            for a in scope[name]
        )

    # -- removing statements ------------------------------------------------------------------

    def drop(self, small: cst.BaseSmallStatement) -> bool:
        """Plan to remove a small statement (an import); ``False`` (nothing planned) when that
        would leave an indented block or a one-line suite empty."""
        line = self.parent(small)
        if isinstance(line, cst.SimpleStatementSuite):
            if all(s in self._dropped or s is small for s in line.body):
                return False
        elif isinstance(line, cst.SimpleStatementLine):
            block = self.parent(line)
            if isinstance(block, cst.IndentedBlock) and all(
                isinstance(stmt, cst.SimpleStatementLine)
                and all(s in self._dropped or s is small for s in stmt.body)
                for stmt in block.body
            ):
                return False
        self._dropped.add(small)
        return True

    def drop_alias(self, alias: cst.ImportAlias) -> bool:
        """Plan to remove one name of an import (the whole statement when it was the last);
        ``False`` when that would empty a block."""
        stmt = self.parent(alias)
        assert isinstance(stmt, (cst.Import, cst.ImportFrom))
        names = stmt.names if not isinstance(stmt.names, cst.ImportStar) else ()
        if all(a in self._dropped or a is alias for a in names):
            if not self.drop(stmt):
                return False
        self._dropped.add(alias)
        return True

    # -- pruning the imports that the rewrites made unused ------------------------------------

    def _prune_imports(self, module: cst.Module) -> None:
        """Remove the import bindings of IPEX-only names whose every use was rewritten."""
        if not self.targets():
            return
        for alias in self.nodes(cst.ImportAlias):
            stmt = self.parent(alias)
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
            if not self.prunable(qualified):
                continue
            uses = self._uses_of(stmt, bound)
            if not uses or not all(use in self._consumed for use in uses):
                continue
            reason = self.keep_import_reason(base) if self._last_of_its_import(alias) else None
            if reason is not None:
                self.refuse(alias, f"the import of {qualified} stays: {reason}")
            elif self.drop_alias(alias):
                self.record(alias, f"removed the import of {qualified}")
            else:
                self.refuse(
                    alias,
                    f"the import of {qualified} is now unused but is the only statement of its "
                    "block: remove it by hand",
                )

    def _last_of_its_import(self, alias: cst.ImportAlias) -> bool:
        stmt = self.parent(alias)
        assert isinstance(stmt, (cst.Import, cst.ImportFrom))
        names = stmt.names if not isinstance(stmt.names, cst.ImportStar) else ()
        return all(a in self._dropped or a is alias for a in names)

    def _uses_of(self, stmt: cst.Import | cst.ImportFrom, bound: str) -> list[cst.CSTNode]:
        scope = self.get_metadata(ScopeProvider, stmt)
        assert scope is not None
        uses: list[cst.CSTNode] = []
        for assignment in scope.assignments[bound]:
            if isinstance(assignment, Assignment) and assignment.node is stmt:
                uses.extend(access.node for access in assignment.references)
        return uses

    # -- the traversal ------------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> bool:
        """Plan everything before the first edit is applied."""
        self._module = node
        node.visit(self._index)
        self._parents = self._index.parents
        self.plan(node)
        self._prune_imports(node)
        # NOTE: with nothing to change, the children are not visited (the costly part).
        return bool(self._edits or self._dropped or self._add_torch)

    def on_leave(self, original_node: Any, updated_node: Any) -> Any:
        """Apply the planned edit of ``original_node`` (if any) to its updated form, then the
        planned removals inside blocks and imports."""
        result = super().on_leave(original_node, updated_node)
        edit = self._edits.get(original_node)
        if edit is not None:
            result = edit(result)
        if isinstance(original_node, (cst.Import, cst.ImportFrom)) and isinstance(
            result, (cst.Import, cst.ImportFrom)
        ):
            result = self._prune_aliases(original_node, result)
        elif isinstance(original_node, cst.SimpleStatementSuite) and isinstance(
            result, cst.SimpleStatementSuite
        ):
            kept = [
                n
                for o, n in zip(original_node.body, result.body, strict=True)
                if o not in self._dropped
            ]
            result = result.with_changes(body=last_without_semicolon(kept))
        elif isinstance(original_node, cst.IndentedBlock) and isinstance(result, cst.IndentedBlock):
            body, carried = prune_block(original_node.body, result.body, self._dropped)
            result = result.with_changes(body=body, footer=[*carried, *result.footer])
        elif isinstance(original_node, cst.Module) and isinstance(result, cst.Module):
            result = self._finish_module(original_node, result)
        return result

    def _prune_aliases(
        self, original: cst.Import | cst.ImportFrom, updated: cst.Import | cst.ImportFrom
    ) -> cst.Import | cst.ImportFrom:
        if isinstance(original.names, cst.ImportStar) or isinstance(updated.names, cst.ImportStar):
            return updated
        names = updated.names
        kept = [n for o, n in zip(original.names, names, strict=True) if o not in self._dropped]
        if not kept or len(kept) == len(names):
            return updated
        if kept[-1] is not names[-1]:
            kept[-1] = kept[-1].with_changes(comma=names[-1].comma)
        return updated.with_changes(names=kept)

    def _finish_module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        body, carried = prune_block(original.body, updated.body, self._dropped)
        kept_originals = [
            o
            for o, n in zip(original.body, updated.body, strict=True)
            if not (
                isinstance(o, cst.SimpleStatementLine)
                and isinstance(n, cst.SimpleStatementLine)
                and all(s in self._dropped for s in o.body)
            )
        ]
        if self._add_torch:
            index = torch_import_index(body, kept_originals, self._torch_needed_by)
            line = (
                self.line_of(kept_originals[index])
                if index < len(kept_originals)
                else len(original.code.splitlines()) + 1
            )
            statement = cst.SimpleStatementLine(
                body=[cst.Import(names=[cst.ImportAlias(name=cst.Name("torch"))])]
            )
            body.insert(index, statement)
            self.rewrites.append(Rewrite(self.FIX_ID, line, "added `import torch`"))
        return updated.with_changes(body=body, footer=[*carried, *updated.footer])


class NameCodemod(Codemod):
    """A codemod that resolves names through imports and scopes (all but ``with-and``): the
    metadata that costs the most is computed only for these."""

    METADATA_DEPENDENCIES: ClassVar[Collection[ProviderT]] = (ScopeProvider,)
    READS: ClassVar[tuple[str, ...]] = ("torch", IPEX_PACKAGE, "backend", *sorted(_IPEX_WORDS))
    """``torch`` (where the name is bound decides how the fix writes it), and what
    ``ipex_uses_left`` reads: the names IPEX installs into torch and ``backend="ipex"``."""
