"""``Names``: what a codemod reads of the original tree: its nodes by type, their parents, and
the dotted names a use may refer to through imports and aliases (asked of LibCST's scopes on
demand)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any, TypeVar, cast

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    Assignment,
    GlobalScope,
    QualifiedName,
    QualifiedNameSource,
    Scope,
    ScopeProvider,
)

from ipex_doctor.scan.fix.codemods.layout import TreeIndex

NodeT = TypeVar("NodeT", bound=cst.CSTNode)

TORCH = QualifiedName("torch", QualifiedNameSource.IMPORT)


class Names:
    """The nodes and names of one module's original tree (``module``, indexed by ``index``)."""

    def __init__(self, module: cst.Module, index: TreeIndex, metadata: Callable[..., Any]) -> None:
        """``metadata``: the ``get_metadata`` of the transformer that runs the codemod."""
        self.module = module
        self._index = index
        self._metadata = metadata
        self._aliases: set[str] | None = None
        self._torch_alias_names: list[str] | None = None

    def nodes(self, *types: type[NodeT]) -> list[NodeT]:
        """The nodes of the original tree of exactly the given (concrete) types, in document
        order."""
        found = [n for t in types for n in self._index.by_type.get(t, ())]
        if len(types) > 1:
            found.sort(key=self._index.order.__getitem__)
        return cast("list[NodeT]", found)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The parent of ``node`` in the original tree (``None`` for the module)."""
        return self._index.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """The parents of ``node``, nearest first."""
        current = self.parent(node)
        while current is not None:
            yield current
            current = self.parent(current)

    def scope(self, node: cst.CSTNode) -> Scope | None:
        """The scope ``node`` is in (``None`` where LibCST gives none)."""
        return cast("Scope | None", self._metadata(ScopeProvider, node, None))

    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The scope ``node`` is in (LibCST raises where it gives none)."""
        scope = self._metadata(ScopeProvider, node)
        assert scope is not None
        return cast(Scope, scope)

    def global_scope(self) -> GlobalScope:
        """The module's own scope."""
        scope = self._metadata(ScopeProvider, self.module)
        assert isinstance(scope, GlobalScope)
        return scope

    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        """Every dotted name ``node`` may refer to, through imports and aliases.

        Asked of the scope on demand: LibCST's QualifiedNameProvider answers the same question
        for every node of the file up front, which is most of a codemod's time."""
        scope = self.scope(node)
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

    def uses_of(self, stmt: cst.Import | cst.ImportFrom, bound: str) -> list[cst.CSTNode]:
        """The uses of the name ``bound`` that the import ``stmt`` binds."""
        # NOTE: under ``global NAME`` (or ``nonlocal``) the import binds the name of an
        # enclosing scope. LibCST records it there when the declaration comes first, and in
        # the function when it comes after (Python reads the declaration for the whole
        # body): looked up in the import's own scope alone, a global that other functions
        # use was "never used", and the import was removed from under them.
        own = self.scope_of(stmt)
        scope: Scope | None = own
        uses: list[cst.CSTNode] = []
        while scope is not None:
            for assignment in scope.assignments[bound]:
                if isinstance(assignment, Assignment) and assignment.node is stmt:
                    uses.extend(access.node for access in assignment.references)
            scope = None if isinstance(scope, GlobalScope) else scope.parent
        if not isinstance(own, GlobalScope) and self._declared_outer(own, bound):
            # NOTE: every other reading of the name counts (a use anywhere may be this one)
            uses += [n for n in self.nodes(cst.Name) if n.value == bound and self._read(n, stmt)]
        return list(dict.fromkeys(uses))

    def _declared_outer(self, scope: Scope, name: str) -> bool:
        """Whether ``scope`` declares ``name`` ``global`` or ``nonlocal``."""
        declarations: list[cst.Global | cst.Nonlocal] = [
            *self.nodes(cst.Global),
            *self.nodes(cst.Nonlocal),
        ]
        return any(
            any(item.name.value == name for item in found.names) and self.scope_of(found) is scope
            for found in declarations
        )

    def _read(self, name: cst.Name, stmt: cst.CSTNode) -> bool:
        """Whether ``name`` may read a variable: not the binding of ``stmt``, a declaration, an
        attribute or a keyword."""
        parent = self.parent(name)
        if isinstance(parent, cst.NameItem | cst.AsName | cst.ImportAlias | cst.Param):
            return False
        if isinstance(parent, cst.Attribute) and parent.attr is name:
            return False
        if isinstance(parent, cst.Arg) and parent.keyword is name:
            return False
        return stmt not in self.ancestors(name)

    def torch_aliases(self) -> list[str]:
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
