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
  whose bytes can hold such an import are parsed (``may_import``): an exported name and its
  module's last name, each as an identifier of its own. A common word exported (a docs
  ``conf.py``'s ``version`` set from ``ipex.__version__``) made every file that spells it be
  parsed and walked again: on intel/intel-extension-for-pytorch 89 files (3 now), about 30 % of
  the scan's CPU.

Each importer is then read again with the probe rule alone, its names the imported flags
(``flag_rules``): a read of the flag is a probe there, as a listed flag's is. A flag read as an
attribute of its module (``utils.ipex_xpu``) or imported from a module the tree does not hold
is not followed.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace

from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import CodeMatch
from ipex_doctor.scan.match.cross_file import PROBE_RULES
from ipex_doctor.scan.match.triggers import Probe
from ipex_doctor.scan.read.source import Unparsable, parse_python

FLAG_RULE = "ipex-probe"
"""The rule that reads the imported flags (its names replaced by them)."""


def module_of(display: str) -> tuple[str, ...]:
    """The dotted path of the Python file at ``display`` (relative to the scanned root), as a
    tuple: ``pkg/utils.py`` is ``("pkg", "utils")``, ``pkg/__init__.py`` is ``("pkg",)``; a
    file without the suffix (a script run by its ``#!`` line) is no module an import finds:
    ``()``."""
    if not display.endswith(".py"):
        return ()
    parts = display.removesuffix(".py").split("/")
    return tuple(parts[:-1] if parts[-1] == "__init__" else parts)


def exported_flags(
    probes: Mapping[str, Sequence[int]], text_of: Mapping[str, str]
) -> dict[tuple[str, ...], frozenset[str]]:
    """By module, the flags it exports: for each file (``display``) with probe findings on
    ``probes[display]`` lines, the names assigned at module level from a value on one of them
    (``text_of``: the file's source, read again)."""
    exported: dict[tuple[str, ...], frozenset[str]] = {}
    for display, tree, found in parsed_again(probes, text_of):
        names = {
            statement.targets[0].id
            for statement in module_level(tree.body)
            if isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and found.intersection(_lines_of(statement.value))
        }
        if names and (module := module_of(display)):
            exported[module] = frozenset(names)
    return exported


def may_import(
    display: str, data: bytes, exported: Mapping[tuple[str, ...], frozenset[str]]
) -> bool:
    """Whether the bytes ``data`` of the Python file ``display`` can hold an import that
    ``imported_flags`` finds; where not, it finds none, and the file need not be parsed.

    Such an import spells the flag's name, and the exporting module's last name too: in its
    module path (``from ..utils import``, ``from pkg.backends.utils import``), unless it is
    relative and names no module (``from . import``, ``from .. import``), which reaches only
    the file's own package or one above it. Each as a whole identifier (``Probe``: a byte
    beyond ASCII beside it lets the file through)."""
    probe = Probe(data)
    package: tuple[str, ...] | None = None
    for module, names in exported.items():
        if not any(probe.has_identifier(name.encode()) for name in names):
            continue
        if module and probe.has_identifier(module[-1].encode()):
            return True
        if package is None:
            package = package_of(display)
        if package[: len(module)] == module:
            return True
    return False


def imported_flags(
    display: str, source: str, exported: Mapping[tuple[str, ...], frozenset[str]]
) -> frozenset[str]:
    """The names the Python file ``display`` (its ``source``) binds by importing an exported
    flag from the module that exports it."""
    try:
        tree = parse_python(source)
    except Unparsable:
        return frozenset()
    package = package_of(display)
    bound: set[str] = set()
    for node in statements_in(tree.body):
        if not isinstance(node, ast.ImportFrom):
            continue
        for module in exporting_modules(node, package, exported):
            bound.update(a.asname or a.name for a in node.names if a.name in exported[module])
    return frozenset(bound)


def package_of(display: str) -> tuple[str, ...]:
    """The package a relative import of the file ``display`` is relative to."""
    return module_of(display)[:-1] if not display.endswith("__init__.py") else module_of(display)


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields that hold statements (an ``except`` handler's and a ``case``'s, through their
``body``): an import is a statement, and only ever in one of them."""


def statements_in(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The statements of ``body`` and of every block inside it, at any depth (and the handlers
    and cases that hold blocks). Expressions are not entered: a walk of every node (``ast.walk``)
    took fifteen times as long (0.87 s against 0.06 s for 85 files of
    intel/intel-extension-for-pytorch)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        for field in _BLOCKS:
            children = getattr(node, field, None)
            if type(children) is list:
                stack.extend(children)


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
    return finding_lines(matches, PROBE_RULES)


def finding_lines(matches: Iterable[CodeMatch], rule_ids: Collection[str]) -> dict[str, list[int]]:
    """The lines of each Python file's findings of ``rule_ids`` (notebook cells and documents
    apart), by the file's display path."""
    lines: dict[str, list[int]] = {}
    for match in matches:
        at = match.location
        if match.rule_id in rule_ids and at.cell is None and at.path.endswith(".py"):
            lines.setdefault(at.path, []).append(at.line)
    return lines


def parsed_again(
    found: Mapping[str, Iterable[int]], text_of: Mapping[str, str]
) -> Iterator[tuple[str, ast.Module, frozenset[int]]]:
    """Each file of ``found`` (its display path and its findings' lines) whose source
    ``text_of`` holds and that parses: the path, its tree and the lines."""
    for display, lines in found.items():
        source = text_of.get(display)
        if source is None:
            continue
        try:
            tree = parse_python(source)
        except Unparsable:
            continue
        yield display, tree, frozenset(lines)


def module_level(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run when the module is imported: the top level, and inside its ``try``
    and ``if`` statements (not functions or classes)."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.Try):
            handlers = [s for handler in statement.handlers for s in handler.body]
            yield from module_level(
                [*statement.body, *handlers, *statement.orelse, *statement.finalbody]
            )
        elif isinstance(statement, ast.If):
            yield from module_level([*statement.body, *statement.orelse])


def _lines_of(node: ast.expr) -> range:
    return range(node.lineno, (node.end_lineno or node.lineno) + 1)


def exporting_modules(
    node: ast.ImportFrom,
    package: tuple[str, ...],
    exported: Collection[tuple[str, ...]],
) -> Iterator[tuple[str, ...]]:
    """The modules of ``exported`` (dotted paths as tuples; a mapping's keys) that ``node``
    imports from: relative to ``package``, or a module whose dotted path is the absolute name
    or ends with it."""
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
