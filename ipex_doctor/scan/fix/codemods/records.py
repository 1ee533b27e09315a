"""What one codemod's plan decided, kept by ``Records``: the rewrites it records, the places
it refuses with a reason, and the edit planned for each node of the original tree.

Positions in the records are those of the tree the codemod ran on; ``fix.rewrite`` maps them
back to the user's original lines when several codemods run one after the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from ipex_doctor.model.codec import JsonModel
from ipex_doctor.scan.fix.codemods.syntax import walk

Edit = Callable[[Any], "cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[Any]"]
"""A planned edit: the node as updated by the edits inside it, to what replaces it."""


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


class Records:
    """The record keeper of one codemod's run on one tree: ``rewrites`` and ``refusals`` in
    the order they were decided, ``edits`` by original node, and ``consumed``: the nodes whose
    names the new code no longer uses (an import whose every use is consumed may go)."""

    def __init__(
        self,
        fix_id: str,
        line_of: Callable[[cst.CSTNode], int],
        original_line: Callable[[int], int],
    ) -> None:
        self.fix_id = fix_id
        self.rewrites: list[Rewrite] = []
        self.refusals: list[Refusal] = []
        self.edits: dict[cst.CSTNode, Edit] = {}
        self.consumed: set[cst.CSTNode] = set()
        self.line_of = line_of
        """The 1-based line a node of the tree starts on."""
        self.original_line = original_line
        """Maps a line of the tree to the user's original line (``fix.rewrite`` composes it
        when earlier codemods moved lines, or the tree is a slice): for the lines a reason
        names in its text (the records' own lines are mapped by ``fix.rewrite``)."""

    def user_line(self, node: cst.CSTNode) -> int:
        """The line of the user's original text that ``node`` starts on, for a reason's text."""
        return self.original_line(self.line_of(node))

    def rewrite(
        self, node: cst.CSTNode, edit: Edit, summary: str, *, consumes: cst.CSTNode | None = None
    ) -> None:
        """Replace ``node`` by ``edit(node as updated by the edits inside it)``. ``consumes`` is
        the part of ``node`` whose names the new code no longer uses (a call's callee, not its
        arguments): an import whose every use is consumed may go."""
        self.edits[node] = edit
        if consumes is not None:
            self.consumed.update(walk(consumes))
        self.rewrites.append(Rewrite(self.fix_id, self.line_of(node), summary))

    def replace(self, node: cst.CSTNode, edit: Edit) -> None:
        """Replace ``node`` by ``edit(updated node)`` without recording (the caller records)."""
        self.edits[node] = edit

    def record(self, node: cst.CSTNode, summary: str) -> None:
        """Record a rewrite planned by other means (a removal) as starting at ``node``."""
        self.record_at(self.line_of(node), summary)

    def record_at(self, line: int, summary: str) -> None:
        """Record a rewrite that starts on ``line`` of the tree."""
        self.rewrites.append(Rewrite(self.fix_id, line, summary))

    def refuse(self, node: cst.CSTNode, reason: str) -> None:
        """Record that ``node`` is left alone, and why."""
        self.refuse_at(self.line_of(node), reason)

    def refuse_at(self, line: int, reason: str) -> None:
        """Record that what starts on ``line`` of the tree is left alone, and why."""
        self.refusals.append(Refusal(self.fix_id, line, reason))
