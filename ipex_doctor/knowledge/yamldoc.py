"""Reading YAML files that are data, never code: safe loader, no aliases, located errors.

Used by the knowledge base and the policy file. The C loader is used when PyYAML has it (5-10x
faster; light commands load the knowledge base on every run), and a document is parsed once:
the same node tree gives the data and the line of every error. Aliases are refused outright:
an alias bomb expands to gigabytes in anything that walks the document (validation, JSON).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from ipex_doctor.errors import DoctorError, KnowledgeBaseError


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


class Located:
    """Errors that name the file, the line and the entry of a path in one YAML document, from
    the node tree of its one parse: ``FILE:LINE: SUBJECT: MESSAGE``, one line whatever the
    message quotes. One for every document of entries the doctor reads (the knowledge base,
    the code rules); each says how its entries and its whole are named.

    ``entries`` maps a top-level list to the word for one of its items (``issues`` ->
    ``issue``): a path inside an item reads ``issue 'ID', field 'a.b'``; an item without an id
    reads ``issues[3]`` when ``index_unnamed``, else as the whole. Any other path reads as
    ``whole`` (``knowledge base``), with its field when ``whole_fields``. ``warnings`` collects
    what is not an error but is worth saying.
    """

    def __init__(
        self,
        name: str,
        tree: yaml.Node | None,
        data: Any,
        *,
        entries: Mapping[str, str],
        whole: str,
        tip: str,
        index_unnamed: bool = False,
        whole_fields: bool = False,
    ) -> None:
        self.name, self.tree, self.data = name, tree, data
        self.entries, self.whole, self.tip = entries, whole, tip
        self.index_unnamed, self.whole_fields = index_unnamed, whole_fields
        self.warnings: list[str] = []

    def line(self, path: Sequence[str | int]) -> int | None:
        """The 1-based line of ``path`` in the document, best effort."""
        return line_of(self.tree, path)

    def entry_id(self, path: Sequence[str | int]) -> str | None:
        """The id of the entry ``path`` lies in, if it lies in one that has an id."""
        if len(path) < 2 or path[0] not in self.entries or not isinstance(path[1], int):
            return None
        items = self.data.get(path[0]) if isinstance(self.data, dict) else None
        if isinstance(items, list) and path[1] < len(items):
            entry = items[path[1]]
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                return str(entry["id"])
        return None

    def error(self, path: Sequence[str | int], message: str) -> KnowledgeBaseError:
        """The error at ``path``, as the class docstring says."""
        line = self.line(path)
        where = self.name if line is None else f"{self.name}:{line}"
        flat = " ".join(message.split())
        return KnowledgeBaseError(f"{where}: {self._subject(path)}: {flat}", tip=self.tip)

    def _subject(self, path: Sequence[str | int]) -> str:
        entry = self.entry_id(path)
        in_an_entry = len(path) >= 2 and path[0] in self.entries and isinstance(path[1], int)
        if entry is not None or (in_an_entry and self.index_unnamed):
            kind = self.entries[str(path[0])]
            subject = f"{kind} '{entry}'" if entry is not None else f"{path[0]}[{path[1]}]"
            field = ".".join(str(p) for p in path[2:])
            return subject + (f", field '{field}'" if field else "")
        if self.whole_fields and path:
            return f"{self.whole}, field '{'.'.join(str(p) for p in path)}'"
        return self.whole
