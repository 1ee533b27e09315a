"""An f-string that joins variables holding what a text rule found is found by that rule too.

Installers keep each wheel or requirement in a variable of its own and join them later:

    ipex_pip = "https://.../intel_extension_for_pytorch-2.1.10+xpu-cp311-cp311-win_amd64.whl"
    torch_command = os.environ.get("TORCH_COMMAND", f"{pytorch_pip} {torchvision_pip} {ipex_pip}")

The assignment is found (its string is a wheel of IPEX); the f-string that joins it into the
install command is the line that runs it, and maintainers removed both. ``joined_hits`` gives
each such f-string the hits of the rules that matched the strings assigned to the names it
formats: one module's names, by name (an installer's variables are plain names), only strings
a text rule read (a message, a docstring or an option name is never read, so it never joins).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ipex_doctor.scan.match.python.names import Facts
from ipex_doctor.scan.match.python.strings import quiet_strings
from ipex_doctor.scan.read.source import Hit, char_column


def joined_hits(facts: Facts, hits: Sequence[Hit], lines: Sequence[str]) -> list[Hit]:
    """The hits of f-strings of ``facts`` that format a name assigned a string on which
    ``hits`` (the module's text hits) lie; ``[]`` for almost every module (no such name)."""
    by_line: dict[int, set[str]] = {}
    for hit in hits:
        by_line.setdefault(hit.line, set()).add(hit.rule_id)
    assigned: dict[str, set[str]] = {}
    for assign, _ in facts.assigns:
        value = assign.value
        if value is None or not _is_string(value):
            continue
        last = value.end_lineno or value.lineno
        rules = set().union(*(by_line.get(n, ()) for n in range(value.lineno, last + 1)))
        targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
        for target in targets:
            if rules and isinstance(target, ast.Name):
                assigned.setdefault(target.id, set()).update(rules)
    if not assigned:
        return []
    quiet = quiet_strings(facts)
    joined: list[Hit] = []
    for node in facts.strings:
        if type(node) is not ast.JoinedStr or id(node) in quiet:
            continue
        names = [
            part.value.id
            for part in node.values
            if isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name)
        ]
        rules = set().union(*(assigned.get(name, ()) for name in names))
        if not rules or not 0 < node.lineno <= len(lines):
            continue
        line = lines[node.lineno - 1]
        start = char_column(line, node.col_offset)
        same = node.end_lineno == node.lineno
        end_line = node.end_lineno or node.lineno
        end = char_column(lines[end_line - 1], node.end_col_offset or 0)
        symbol = line[start:end] if same else line[start:]
        joined.extend(
            Hit(rule, symbol, node.lineno, start, end_line, end) for rule in sorted(rules)
        )
    return joined


def _is_string(node: ast.AST) -> bool:
    return type(node) is ast.JoinedStr or (
        type(node) is ast.Constant and isinstance(node.value, str)
    )
