"""Reading YAML files that are data, never code: safe loader, no aliases, located errors.

Used by the knowledge base and the policy file. The C loader is used when PyYAML has it (5-10x
faster; light commands load the knowledge base on every run). Aliases are refused outright: an
alias bomb expands to gigabytes in anything that walks the document (validation, JSON).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from ipex_doctor.errors import DoctorError


def safe_loader() -> type[yaml.SafeLoader]:
    # NOTE: the C loader is 5-10x faster; light commands (`kb list`) load the KB on every run.
    loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return loader


def compose(text: str) -> yaml.Node | None:
    """The node tree of ``text`` (for ``line_of``), or ``None`` if it does not compose."""
    try:
        node: yaml.Node | None = yaml.compose(text, Loader=safe_loader())
    except yaml.YAMLError:
        return None
    return node


def line_of(tree: str | yaml.Node | None, path: Sequence[str | int]) -> int | None:
    """The 1-based line of the YAML node at ``path`` (keys and indexes), best effort.

    ``tree`` is the document's text or, cheaper when asked many times, its ``compose`` result.
    """
    node = compose(tree) if isinstance(tree, str) else tree
    line = None if node is None else node.start_mark.line + 1
    for step in path:
        if isinstance(node, yaml.MappingNode) and isinstance(step, str):
            match = next((v for k, v in node.value if getattr(k, "value", None) == step), None)
            if match is None:
                break
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            if step >= len(node.value):
                break
            node = node.value[step]
        else:
            break
        line = node.start_mark.line + 1
    return line


def parse(name: str, text: str, error: type[DoctorError]) -> Any:
    """Parse YAML safely; aliases refused; errors name the file and line, as ``error``."""
    loader = safe_loader()
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.AliasEvent):
                line = event.start_mark.line + 1 if event.start_mark else "?"
                raise error(
                    f"{name}:{line}: YAML aliases are not allowed in a knowledge base",
                    tip="write the value out in full",
                )
        return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader, see _yaml_loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or "invalid YAML"
        raise error(
            f"{name}{line}: malformed YAML: {problem}",
            tip="check the indentation and quoting around that line",
        ) from None
    except yaml.YAMLError as exc:
        raise error(f"{name}: malformed YAML: {exc}") from None
