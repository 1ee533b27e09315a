"""Reading YAML files that are data, never code: safe loader, no aliases, located errors.

Used by the knowledge base and the policy file. The C loader is used when PyYAML has it (5-10x
faster; light commands load the knowledge base on every run), and a document is parsed once:
the same node tree gives the data and the line of every error. Aliases are refused outright:
an alias bomb expands to gigabytes in anything that walks the document (validation, JSON).
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


def load(name: str, text: str, error: type[DoctorError]) -> tuple[Any, yaml.Node | None]:
    """Parse YAML safely, once: the data and the node tree (for ``line_of``).

    Aliases are refused: after composing (which links an alias to its anchor's node, without
    expanding anything), a node met twice in the tree is an alias. Errors name the file and
    line, as ``error``.
    """
    loader = safe_loader()(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _refuse_aliases(node, name, error)
        data = None if node is None else loader.construct_document(node)
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
    finally:
        loader.dispose()
    return data, node


def parse(name: str, text: str, error: type[DoctorError]) -> Any:
    """The data of a YAML document (see ``load``)."""
    return load(name, text, error)[0]


def _refuse_aliases(root: yaml.Node, name: str, error: type[DoctorError]) -> None:
    seen: set[int] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            raise error(
                f"{name}:{node.start_mark.line + 1}: YAML aliases are not allowed in a knowledge base",
                tip="write the value out in full",
            )
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                pending.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
