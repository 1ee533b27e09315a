"""Statement-level layout for the codemods: which statements are imports, docstrings or
``__future__`` imports, where an added ``import torch`` goes, and how a block loses the
statements a codemod removes without losing a comment or a page break."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TypeVar, cast

import libcst as cst

NodeT = TypeVar("NodeT", bound=cst.CSTNode)


def is_import_line(stmt: cst.CSTNode) -> bool:
    """A line of import statements only."""
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body
    )


def is_future_import(stmt: cst.CSTNode) -> bool:
    """``from __future__ import ...`` (which must stay first)."""
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.ImportFrom)
        and isinstance(stmt.body[0].module, cst.Name)
        and stmt.body[0].module.value == "__future__"
    )


def is_docstring(stmt: cst.CSTNode) -> bool:
    """A statement that is only a string literal (a module docstring when first)."""
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _worth_keeping(lines: Sequence[cst.EmptyLine]) -> bool:
    """Whether the lines above a statement hold a comment or a page break (a form feed, which
    editors and ``pr`` read as a new page), which must survive the statement's removal."""
    return any(line.comment is not None or "\f" in line.whitespace.value for line in lines)


class TreeIndex(cst.CSTVisitor):
    """Every node of a tree in document order, and each node's parent, in one traversal
    (cheaper than LibCST's ParentNodeProvider, and shared by all queries)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_type: dict[type[cst.CSTNode], list[cst.CSTNode]] = {}
        self.order: dict[cst.CSTNode, int] = {}
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self._stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        """Record ``node`` and its parent; visit its children."""
        if self._stack:
            self.parents[node] = self._stack[-1]
        self._stack.append(node)
        self.by_type.setdefault(type(node), []).append(node)
        self.order[node] = len(self.order)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        """Back to the parent."""
        self._stack.pop()


def last_without_semicolon(smalls: list[NodeT]) -> list[NodeT]:
    """Small statements of one line, the last without the ``;`` that separated it."""
    if smalls and not isinstance(getattr(smalls[-1], "semicolon", None), cst.MaybeSentinel):
        smalls[-1] = smalls[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return smalls


def prune_block(
    original: Sequence[cst.BaseStatement],
    updated: Sequence[cst.BaseStatement],
    dropped: Collection[cst.CSTNode],
) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
    """The statements left after the planned removals. Comments and page breaks above a
    removed line move to the next statement (blank lines alone go with it), so none is lost."""
    out: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []
    for orig, new in zip(original, updated, strict=True):
        if isinstance(orig, cst.SimpleStatementLine) and isinstance(new, cst.SimpleStatementLine):
            kept = [n for o, n in zip(orig.body, new.body, strict=True) if o not in dropped]
            if not kept:
                if _worth_keeping(new.leading_lines):
                    carried.extend(new.leading_lines)
                continue
            if len(kept) != len(new.body):
                new = new.with_changes(body=last_without_semicolon(kept))
        if carried:
            lines = cast("cst.SimpleStatementLine | cst.BaseCompoundStatement", new).leading_lines
            new = new.with_changes(leading_lines=[*carried, *lines])
            carried = []
        out.append(new)
    return out, carried


def torch_import_index(
    body: Sequence[cst.BaseStatement],
    originals: Sequence[cst.CSTNode],
    needed_by: cst.CSTNode | None,
) -> int:
    """Where ``import torch`` goes: after the module's first run of imports (after its
    docstring and ``__future__`` imports when it has none), and before the first statement
    that uses it while the module is imported."""
    start = 0
    if start < len(body) and is_docstring(body[start]):
        start += 1
    while start < len(body) and is_future_import(body[start]):
        start += 1
    index = next((i for i in range(start, len(body)) if is_import_line(body[i])), None)
    if index is None:
        index = start
    else:
        while index < len(body) and is_import_line(body[index]):
            index += 1
    if needed_by is not None and needed_by in originals:
        index = min(index, max(start, list(originals).index(needed_by)))
    return index
