"""A project's own IPEX flags, set in one of its modules and imported by name in another.

bitsandbytes sets ``ipex_xpu = ipex if ipex._C._has_xpu() else None`` in its
``backends/utils.py`` and asks it in ``backends/xpu/ops.py`` (``from ..utils import
ipex_xpu``, then ``if ... or (ipex_xpu and torch.__version__ >= (2, 7)):``): a probe of IPEX,
removed with the IPEX path it selects, that reads nothing of IPEX where it is asked. Within one
module a flag set from a probe is followed (``python.probes``); across modules, two halves,
once every file is read:

* ``exported_flags``: the names a Python file of the tree assigns, at module level (its top
  level, or inside a top-level ``try`` or ``if``), from a value on whose lines the scan found a
  probe (``PROBE_RULES``: ``find_spec``, ``ipex._C._has_xpu()``, ``ipex.__version__``...), one
  name to one assignment. Only files with such a finding are parsed again;
* ``imported_flags``: the names a Python file imports by name from a module of the tree that
  exports them (``from ..utils import ipex_xpu``, relative to the file's package, or
  ``from pkg.backends.utils import ipex_xpu``, the module's dotted path from the scanned root or
  its tail, for a ``src/`` layout or a script beside it), as bound (``as`` included). Only files
  whose bytes spell an exported name are parsed.

Each importer is then read again with the probe rule alone, its names the imported flags
(``flag_rules``): a read of the flag is a probe there, as a listed flag's is. A flag read as an
attribute of its module (``utils.ipex_xpu``) or imported from a module the tree does not hold
is not followed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace

from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import CodeMatch
from ipex_doctor.scan.read.source import Unparsable, parse_python

PROBE_RULES = frozenset({"ipex-probe", "ipex-build-probe"})
"""The rules whose finding in a module-level assignment's value makes the name a flag."""
FLAG_RULE = "ipex-probe"
"""The rule that reads the imported flags (its names replaced by them)."""


def module_of(display: str) -> tuple[str, ...]:
    """The dotted path of the Python file at ``display`` (relative to the scanned root), as a
    tuple: ``pkg/utils.py`` is ``("pkg", "utils")``, ``pkg/__init__.py`` is ``("pkg",)``."""
    parts = display.removesuffix(".py").split("/")
    return tuple(parts[:-1] if parts[-1] == "__init__" else parts)


def exported_flags(
    probes: Mapping[str, Sequence[int]], text_of: Mapping[str, str]
) -> dict[tuple[str, ...], frozenset[str]]:
    """By module, the flags it exports: for each file (``display``) with probe findings on
    ``probes[display]`` lines, the names assigned at module level from a value on one of them
    (``text_of``: the file's source, read again)."""
    exported: dict[tuple[str, ...], frozenset[str]] = {}
    for display, lines in probes.items():
        source = text_of.get(display)
        if source is None:
            continue
        try:
            tree = parse_python(source)
        except Unparsable:
            continue
        found = set(lines)
        names = {
            statement.targets[0].id
            for statement in _module_level(tree.body)
            if isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and found.intersection(_lines_of(statement.value))
        }
        if names:
            exported[module_of(display)] = frozenset(names)
    return exported


def imported_flags(
    display: str, source: str, exported: Mapping[tuple[str, ...], frozenset[str]]
) -> frozenset[str]:
    """The names the Python file ``display`` (its ``source``) binds by importing an exported
    flag from the module that exports it."""
    try:
        tree = parse_python(source)
    except Unparsable:
        return frozenset()
    package = module_of(display)[:-1] if not display.endswith("__init__.py") else module_of(display)
    bound: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        for module in _modules(node, package, exported):
            bound.update(a.asname or a.name for a in node.names if a.name in exported[module])
    return frozenset(bound)


def flag_rules(rules: CodeRules, flags: Iterable[str]) -> CodeRules:
    """The probe rule of ``rules`` reading only ``flags`` (no fix: a probe has none)."""
    names = tuple(sorted(flags))
    return CodeRules(
        rules=tuple(
            replace(rule, match=replace(rule.match, names=names), fix=None)
            for rule in rules.rules
            if rule.id == FLAG_RULE
        )
    )


def probe_lines(matches: Iterable[CodeMatch]) -> dict[str, list[int]]:
    """The lines of each Python file's probe findings (notebook cells and documents apart)."""
    lines: dict[str, list[int]] = {}
    for match in matches:
        at = match.location
        if match.rule_id in PROBE_RULES and at.cell is None and at.path.endswith(".py"):
            lines.setdefault(at.path, []).append(at.line)
    return lines


def _module_level(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run when the module is imported: the top level, and inside its ``try``
    and ``if`` statements (not functions or classes)."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.Try):
            handlers = [s for handler in statement.handlers for s in handler.body]
            yield from _module_level(
                [*statement.body, *handlers, *statement.orelse, *statement.finalbody]
            )
        elif isinstance(statement, ast.If):
            yield from _module_level([*statement.body, *statement.orelse])


def _lines_of(node: ast.expr) -> range:
    return range(node.lineno, (node.end_lineno or node.lineno) + 1)


def _modules(
    node: ast.ImportFrom,
    package: tuple[str, ...],
    exported: Mapping[tuple[str, ...], frozenset[str]],
) -> Iterator[tuple[str, ...]]:
    """The exporting modules ``node`` imports from: relative to ``package``, or a module whose
    dotted path is the absolute name or ends with it."""
    named = tuple(node.module.split(".")) if node.module else ()
    if node.level:
        up = node.level - 1
        if up > len(package):
            return
        target = package[: len(package) - up] + named
        if target in exported:
            yield target
        return
    if named:
        yield from (module for module in exported if module[-len(named) :] == named)
