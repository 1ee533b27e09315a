"""IPEX bound in one of a project's modules and imported by name from it in another.

Fooocus_Nex imports IPEX once, in ``backend/hardware.py`` (``import intel_extension_for_pytorch
as ipex_mod`` then ``ipex = ipex_mod``, inside a top-level ``try``), and its model loader
takes it from there (``from backend.hardware import ipex``) to call ``ipex.optimize``. Read
alone, the loader binds ``ipex`` to ``backend.hardware.ipex``, no name of IPEX, and every rule
misses its uses. Two halves, once every file is read, as ``own_flags`` does for probe flags:

* ``exported_aliases``: the names a Python file of the tree binds, at module level (its top
  level, or inside a top-level ``try`` or ``if``), to IPEX or a name of it: an import on
  a line where the scan found an IPEX import (``ALIAS_RULES``), or a plain assignment of a name
  bound so before it (``ipex = ipex_mod``). Only files with such a finding are parsed again,
  and only those from a module of whose last name some file of the tree imports a word that
  they bind as such a name is bound (``words_wanted``, ``may_export``): in IPEX's own
  repository, where hundreds of test files import IPEX and none re-exports it, the parse of
  them all took a second. What each file imports is read from its bytes when the file is read
  (``import_words``) and kept with its outcome, in the outcome cache too: a warm scan reads no
  file for it;
* ``imported_aliases``: the names a Python file imports by name from a module of the tree that
  exports them (relative to the file's package, or by the module's dotted path or its tail),
  each as the import statement's place and the name, with what it stands for. Only files that
  can hold such an import are parsed (``may_import_exported``: a ``from`` import of a module of
  the exporter's last name that lists the name). A file whose bytes hold no word of IPEX is
  not read by the scan, so it is no importer here either.

Each importer is then read again by every rule, its name table given those imports
(``NameTable.project``), without fixes (``alias_rules``): the rewrite of a use reached through
another module is not one ``--fix`` makes (its import names the project's module, which keeps
the binding), so such a finding says what to change and is never labelled mechanical. A module
read as an attribute of its module (``hardware.ipex``: a call through it is found by its name
alone where that is IPEX's usual alias, ``matches._object_alias``), an alias re-exported a
second time, or one bound inside a function is not followed. The exporter's IPEX imports are marked
(``CodeMatch.imported_by``, in ``engine``): ``--fix`` no longer removes one that its own module
does not use while the importer needs it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import NamedTuple

from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import CodeMatch
from ipex_doctor.scan.match.cross_file import ALIAS_RULES
from ipex_doctor.scan.match.own_flags import (
    exporting_modules,
    finding_lines,
    module_level,
    module_of,
    package_of,
    parsed_again,
    statements_in,
)
from ipex_doctor.scan.read.source import Unparsable, parse_python

IPEX_MODULE = "intel_extension_for_pytorch"
"""The package that an exported name must stand for, or a name of it."""

Exported = dict[tuple[str, ...], dict[str, str]]
"""By module (its dotted path as a tuple), each exported name and the name of IPEX it stands
for."""


def import_lines(matches: Iterable[CodeMatch]) -> dict[str, list[int]]:
    """The lines of each Python file's IPEX import findings (notebook cells and documents
    apart)."""
    return finding_lines(matches, ALIAS_RULES)


def exported_aliases(imports: Mapping[str, Iterable[int]], text_of: Mapping[str, str]) -> Exported:
    """By module, the names it binds at module level to IPEX or a name of it: for each file
    (``display``) with import findings on ``imports[display]`` lines, read again from
    ``text_of``."""
    exported: Exported = {}
    for display, tree, lines in parsed_again(imports, text_of):
        names = _bound_to_ipex(tree, lines)
        if names and (module := module_of(display)):
            exported[module] = names
    return exported


def _bound_to_ipex(tree: ast.Module, lines: frozenset[int]) -> dict[str, str]:
    """The module-level names of ``tree`` that stand for IPEX or a name of it, in order:
    imports on ``lines``, then plain assignments of a name bound so before."""
    bound: dict[str, str] = {}
    for statement in module_level(tree.body):
        if isinstance(statement, ast.Import | ast.ImportFrom) and lines.intersection(
            range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)
        ):
            bound.update(_imported_ipex(statement))
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Name)
            and statement.value.id in bound
        ):
            bound[statement.targets[0].id] = bound[statement.value.id]
    return bound


def _imported_ipex(statement: ast.Import | ast.ImportFrom) -> dict[str, str]:
    """The names ``statement`` binds to IPEX or a name of it, each with what it stands for:
    ``import intel_extension_for_pytorch as ipex`` binds ``ipex``, ``from
    intel_extension_for_pytorch import xpu`` binds ``xpu`` to ``intel_extension_for_pytorch.xpu``
    (a submodule, a function or a class alike: the dotted name is what the rules know)."""
    found: dict[str, str] = {}
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            if alias.name == IPEX_MODULE or alias.name.startswith(IPEX_MODULE + "."):
                if alias.asname:
                    found[alias.asname] = alias.name
                elif alias.name == IPEX_MODULE:
                    found[IPEX_MODULE] = IPEX_MODULE
        return found
    module = statement.module or ""
    if statement.level or not (module == IPEX_MODULE or module.startswith(IPEX_MODULE + ".")):
        return found
    for alias in statement.names:
        if alias.name != "*":
            found[alias.asname or alias.name] = f"{module}.{alias.name}"
    return found


# NOTE: a ``from`` import as written: its dots, its dotted module and what follows ``import``
# (a parenthesised list, or the rest of the logical line, backslashes continuing it). The
# pattern starts with its literal, which the regex engine finds fast (an anchor before it, a
# line start or a ``;``, took five times as long over IPEX's repository); a ``from`` inside a
# word or prose only adds words (a superset)
_FROM_IMPORT = re.compile(
    rb"from(?:[ \t]|\\\n)+(\.*)[ \t]*([\w.]*)(?:[ \t]|\\\n)+import[ \t]*"
    rb"(?:\(([^)]*)\)|((?:[^\n\\]|\\\n?)*))"
)
_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")
PACKAGE = ""
"""The module ``imported_names`` gives for ``from . import x`` and ``from .. import x``: the
names come from a package (an ``__init__.py``)."""
Wanted = dict[str, set[str]]
"""By a module's last name (or ``PACKAGE``), the words a file imports from such a module."""


def imported_names(data: bytes, wanted: Wanted) -> None:
    """Add to ``wanted`` what the Python file ``data`` imports by name: by the last name of
    the module (``from backend.hardware import ipex`` gives ``hardware``: ``ipex``), every
    identifier of the import's list (``as`` and the alias too, and a comment's words). A
    superset of what ``imported_aliases`` reads: a line that only looks like an import (in a
    string) adds words, never hides one."""
    if b"import" not in data:
        return
    for dots, module, listed, rest in _FROM_IMPORT.findall(data):
        if module:
            key = module.rsplit(b".", 1)[-1].decode("ascii", "replace")
        elif dots:
            key = PACKAGE
        else:
            continue
        words = wanted.setdefault(key, set())
        words.update(w.decode("ascii") for w in _IDENTIFIER.findall(listed or rest))


def import_words(data: bytes) -> tuple[str, ...]:
    """``imported_names`` of ``data`` as ``module:word`` strings, sorted (what an
    ``Outcome`` keeps)."""
    own: Wanted = {}
    imported_names(data, own)
    return tuple(sorted(f"{module}:{word}" for module, words in own.items() for word in words))


def wanted_of(words: Iterable[str]) -> Wanted:
    """``import_words``' strings back as ``Wanted``."""
    wanted: Wanted = {}
    for entry in words:
        module, _, word = entry.partition(":")
        wanted.setdefault(module, set()).add(word)
    return wanted


def words_wanted(display: str, wanted: Wanted) -> set[str]:
    """The words some file imports from a module that may be the Python file ``display``'s
    (one of its last name, or a package for an ``__init__.py``), given what every file imports
    (``imported_names``); none for a module of IPEX's own package (see ``may_export``)."""
    module = module_of(display)
    if not module or IPEX_MODULE in module:
        return set()
    words = set(wanted.get(module[-1], ()))
    if display.endswith("__init__.py"):
        words |= wanted.get(PACKAGE, set())
    return words


def may_export(display: str, data: bytes, wanted: Wanted) -> bool:
    """Whether the Python file ``display`` (its bytes ``data``) can export to some file a name
    bound to IPEX, given what every file imports (``imported_names``): a word imported from a
    module of its last name (or from a package, for an ``__init__.py``) that ``data`` binds as
    ``_bound_to_ipex`` reads a binding (IPEX imported as it, listed in an import from IPEX,
    assigned a name alone, or ``intel_extension_for_pytorch`` itself imported). A module of
    IPEX's own package (a tree that holds ``intel_extension_for_pytorch/``, IPEX's repository
    or a copy of it) is IPEX itself: what it re-exports is imported by IPEX's names already."""
    words = words_wanted(display, wanted)
    if not words:
        return False
    if IPEX_MODULE in words and re.search(rb"\bimport[ \t]+intel_extension_for_pytorch\b", data):
        return True
    alternatives = b"|".join(re.escape(word.encode()) for word in sorted(words))
    # NOTE: the forms ``_bound_to_ipex`` reads: IPEX imported as the name, the name in a list
    # imported from IPEX (on the line, or in parentheses over several), the name assigned
    # another name alone
    binding = re.compile(
        rb"\bimport[ \t]+intel_extension_for_pytorch[\w.]*[ \t]+as[ \t]+(?:"
        + alternatives
        + rb")\b"
        rb"|\bfrom[ \t]+intel_extension_for_pytorch[\w.]*[ \t]+import[ \t]*(?:\([^)]*?|[^\n]*?)"
        rb"(?<![\w.])(?:" + alternatives + rb")\b"
        rb"|^[ \t]*(?:" + alternatives + rb")[ \t]*=[ \t]*\w+[ \t]*(?:#|;|\r?$)",
        re.MULTILINE,
    )
    return binding.search(data) is not None


def may_import_exported(wanted: Wanted, exported: Exported) -> bool:
    """Whether a Python file that imports ``wanted`` (``imported_names`` of its bytes) can
    import an exported name from the module that exports it: one of its ``from`` imports names
    a module of that last name (or, relative with no module, a package) and lists the name.
    Where none does, ``imported_aliases`` finds nothing, and the file need not be parsed."""
    from_package = wanted.get(PACKAGE, set())
    for module, names in exported.items():
        if not wanted.get(module[-1], set()).isdisjoint(names):
            return True
        if not from_package.isdisjoint(names):
            return True
    return False


class Imported(NamedTuple):
    """What one file imports of the exported names."""

    project: dict[tuple[int, int, str], str]
    """By the statement's line and column and the name, the name of IPEX it stands for
    (``NameTable.project``)."""
    exporters: dict[tuple[str, ...], tuple[int, str]]
    """By exporting module, the first line that imports from it and the first name."""


def imported_aliases(display: str, source: str, exported: Exported) -> Imported:
    """The imports of the Python file ``display`` (its ``source``) that take an exported name
    from the module that exports it."""
    found = Imported({}, {})
    try:
        tree = parse_python(source)
    except Unparsable:
        return found
    package = package_of(display)
    for node in statements_in(tree.body):
        if not isinstance(node, ast.ImportFrom):
            continue
        for module in exporting_modules(node, package, exported):
            for alias in node.names:
                outer = exported[module].get(alias.name)
                if outer is not None:
                    found.project[(node.lineno, node.col_offset, alias.name)] = outer
                    found.exporters.setdefault(module, (node.lineno, alias.name))
    return found


def alias_rules(rules: CodeRules) -> CodeRules:
    """Every rule of ``rules``, without its fix (see the module)."""
    return CodeRules(rules=tuple(replace(rule, fix=None) for rule in rules.rules))
