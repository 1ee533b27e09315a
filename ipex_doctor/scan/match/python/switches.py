"""A project's own switch to its IPEX path: an ``if`` (or ``elif``) whose condition reads a value
of the project's that names IPEX, and whose branch holds IPEX code the scan reports.

Projects select their IPEX path with values of their own: a command-line flag
(``if args.use_ipex:``), a setting (``if config.ENABLE_IPEX == 'True':``), an option
(``elif ipex_op:``), an enum member (``if runtime == Runtime.ipex:``), a string
(``if backend == "ipex":``), or a value of theirs compared with the name of one of IPEX's
packages (a debug script's ``elif module_name == "intel_extension_for_pytorch":`` before it
imports IPEX). Maintainers who move off IPEX delete the switch with the path it
selects. The switch itself breaks nothing, and a value named after IPEX often lives on as the
project's name for the Intel GPU (SD.Next's ``backend == "ipex"`` selects upstream ``torch.xpu``
code today), so a switch is reported only where the branch it selects holds a finding of
another rule (an import, a call, an install string...), and it is reported as information:
where the IPEX path starts, so the branch goes as a whole.

A condition that itself uses IPEX (a probe such as ``HAS_IPEX`` or ``is_ipex_available()``, a
version check of the module) is not a switch: the rule that matches it reports it. Nor is a
test of IPEX's module itself (``if ipex is not None:`` after an import that falls back to
``None``): the name is IPEX's, not the project's. Nor is a check of a value that names IPEX's
version (neural-compressor's ``if ipex_ver.release >= Version("2.1.1").release:``, its
``ipex_ver`` taken from a helper of its own): it asks which IPEX is installed, a probe, which
the probe rule reports where it follows the value to IPEX and nothing reports otherwise.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence

from ipex_doctor.scan.match.python.names import Facts, NameTable, Scope
from ipex_doctor.scan.read.source import Hit

SWITCH_PATTERN = "ipex-switch"
"""The id of the structural pattern that reports switches (``patterns``)."""
IPEX_PACKAGES = frozenset(
    {"intel_extension_for_pytorch", "intel_extension_for_deepspeed"}
    | {"oneccl_bindings_for_pytorch", "torch_ccl"}
)
"""Packages whose names, bound by an import, are IPEX's own (not a project's switch)."""
_PACKAGE_STRINGS = IPEX_PACKAGES | {"oneccl_bind_pt"}
"""IPEX's packages as a string names them (imported or installed, ``-`` read as ``_``): a
condition comparing a value with one asks for IPEX's path by its name."""
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
"""The words of a name: ``ipex_ver``, ``IPEX_VERSION``, ``ipexVersion`` (``ver`` of ``server`` or
``verbose`` is no word of its own)."""
_VERSION_WORDS = frozenset({"ver", "vers", "version", "versions"})


def switch_nodes(parts: Sequence[Facts], hits: Sequence[Hit]) -> Iterator[tuple[int, ast.expr]]:
    """(part, condition) of each ``if`` of ``parts`` whose condition names IPEX by a value of
    the project's, on lines no hit of ``hits`` lies on, and whose branch holds a hit."""
    lines: dict[int, list[int]] = {}
    for hit in hits:
        lines.setdefault(hit.part, []).append(hit.line)
    if not lines:
        return
    for facts in parts:
        found = lines.get(facts.part)
        if not found:
            continue
        for node, scope in facts.branches:
            if type(node) is not ast.If or not _names_ipex(node.test, scope):
                continue
            test_end = node.test.end_lineno or node.test.lineno
            if any(node.test.lineno <= line <= test_end for line in found):
                continue  # NOTE: the condition uses IPEX itself (a probe): its rule says so
            first = node.body[0].lineno
            last = max(statement.end_lineno or statement.lineno for statement in node.body)
            if any(first <= line <= last for line in found):
                yield facts.part, node.test


def _names_ipex(test: ast.expr, scope: Scope) -> bool:
    """Whether ``test`` reads a name, an attribute or a string of the project's that names
    IPEX (``use_ipex``, ``Runtime.ipex``, ``ENABLE_IPEX``, ``"ipex"``, the name of one of
    IPEX's packages), not IPEX's own module bound by an import."""
    for node in ast.walk(test):
        if isinstance(node, ast.Name):
            text = node.id
        elif isinstance(node, ast.Attribute):
            text = node.attr
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if text.lower().replace("-", "_") in _PACKAGE_STRINGS:
                return True
        else:
            continue
        if "ipex" in text.lower() and not _ipex_version(text) and not _ipex_itself(node, scope):
            return True
    return False


def _ipex_version(text: str) -> bool:
    """Whether the name ``text`` (one that names IPEX) holds IPEX's version: one of its words is
    ``ver`` or ``version`` (``ipex_ver``, ``get_ipex_version``, ``IPEX_VERSION``)."""
    return any(word.lower() in _VERSION_WORDS for word in _WORDS.findall(text))


def _ipex_itself(node: ast.AST, scope: Scope) -> bool:
    """Whether ``node`` is a name bound by an import of one of IPEX's packages."""
    return any(name.split(".", 1)[0] in IPEX_PACKAGES for name in NameTable.resolve(node, scope))
