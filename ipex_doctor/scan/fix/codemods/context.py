"""``CodemodContext``: what a codemod's ``plan`` is given, as LibCST's codemods are given
theirs: the module's names (``Names``), the record keeper of what it rewrites and refuses
(``Records``) and an import editor (``ImportEditor``). A codemod owns none of this data; it
declares what it rewrites and decides, from the context, how."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeVar, cast

import libcst as cst

from ipex_doctor.scan.fix.codemods.import_editor import ImportEditor
from ipex_doctor.scan.fix.codemods.names import Names
from ipex_doctor.scan.fix.codemods.records import Records
from ipex_doctor.scan.fix.codemods.syntax import code_of, string_value
from ipex_doctor.scan.match.fixable import IPEX_INJECTED, under

T = TypeVar("T")

IPEX_WORDS = frozenset(name.rsplit(".", 1)[-1] for name in IPEX_INJECTED)
"""The last parts of the names IPEX installs into ``torch``."""


class CodemodContext:
    """One codemod's run on one module: ``names`` to read it, ``records`` to decide (and
    record) each edit, ``imports`` to remove and add imports."""

    def __init__(self, names: Names, records: Records, imports: ImportEditor) -> None:
        self.names = names
        self.records = records
        self.imports = imports

    @property
    def module(self) -> cst.Module:
        """The original tree."""
        return self.names.module

    def references(self, targets: Mapping[str, T]) -> Iterator[tuple[cst.BaseExpression, T]]:
        """The uses (names and attribute chains) that resolve to a key of ``targets``, with its
        value. A use that may also be something else (a name bound twice) is refused here."""
        names = self.names
        words = {t.rsplit(".", 1)[-1] for t in targets}
        for node in names.nodes(cst.Name, cst.Attribute):
            key = node.value if isinstance(node, cst.Name) else cast(cst.Attribute, node).attr.value
            if key not in words and key not in names.renamed():
                continue
            resolved = names.qualified_names(node)
            hits = resolved & targets.keys()
            if not hits or names.in_import(node):
                continue
            if len(resolved) > 1:
                other = sorted(resolved - hits) or sorted(hits)[1:]
                self.records.refuse(
                    node,
                    f"{code_of(node)} may also be {other[0]} here (the name is bound more than "
                    "once): rewrite by hand",
                )
                continue
            yield node, targets[next(iter(hits))]

    def ipex_uses_left(self) -> list[str]:
        """What in the module still needs IPEX imported once the planned edits are applied,
        as ``NAME (line N)``: the names IPEX installs into ``torch`` (``IPEX_INJECTED``), used
        or imported, and ``backend="ipex"`` (IPEX's ``torch.compile`` backend)."""
        names, records, dropped = self.names, self.records, self.imports.dropped
        left: list[str] = []
        for found in names.nodes(cst.Name, cst.Attribute, cst.ImportAlias, cst.Arg):
            if found in records.consumed or found in dropped:
                continue
            if isinstance(found, cst.ImportAlias):
                stmt = names.parent(found)
                if isinstance(stmt, cst.ImportFrom) and stmt.module is not None:
                    name = f"{code_of(stmt.module)}.{found.evaluated_name}"
                else:
                    name = found.evaluated_name
                if under(name, IPEX_INJECTED) and stmt not in dropped:
                    left.append(f"the import of {name} (line {records.user_line(found)})")
            elif isinstance(found, cst.Arg):
                if (
                    found.keyword is not None
                    and found.keyword.value == "backend"
                    and string_value(found.value) == "ipex"
                ):
                    left.append(f'backend="ipex" (line {records.user_line(found)})')
            elif (
                not isinstance(names.parent(found), cst.Attribute)
                and names.may_name(found, IPEX_WORDS)
                and not names.in_import(found)
            ):
                hit = sorted(n for n in names.qualified_names(found) if under(n, IPEX_INJECTED))
                if hit:
                    left.append(f"{hit[0]} (line {records.user_line(found)})")
        return left
