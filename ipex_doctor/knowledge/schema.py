"""Validate a knowledge-base document against its JSON Schema, in a millisecond.

The schema (``known_issues.schema.json``) stays the one description of the format; this module
interprets the part of JSON Schema it uses (``type``, ``enum``, ``const``, ``required``,
``properties``, ``additionalProperties``, ``items``, ``minItems``, ``uniqueItems``,
``minLength``, ``maxLength``, ``pattern``, ``not`` of ``required``, local ``$ref``). The
``jsonschema`` library costs about 50 ms to import, which light commands (``kb list``,
``explain``) cannot afford on every run; a test checks that both agree on generated documents,
and a keyword outside the subset is refused at once rather than ignored.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ipex_doctor import resources

SCHEMA_FILE = "knowledge/known_issues.schema.json"
_ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description"}
_KEYWORDS = {"type", "enum", "const", "required", "properties", "additionalProperties", "items",
             "minItems", "uniqueItems", "minLength", "maxLength", "pattern", "not", "$ref"}  # fmt: skip
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


@dataclass(frozen=True)
class SchemaError:
    """One place where a document breaks the schema."""

    path: tuple[str | int, ...]
    message: str


@functools.cache
def knowledge_base_schema() -> dict[str, Any]:
    """The knowledge base's schema (read once per process)."""
    schema: dict[str, Any] = json.loads(resources.read_text(SCHEMA_FILE))
    return schema


def issue_keys() -> frozenset[str]:
    """The keys an entry may have: the schema's, so the list is written down once."""
    return frozenset(knowledge_base_schema()["$defs"]["issue"]["properties"])


def range_keys() -> frozenset[str]:
    """The keys an affected range may have."""
    return frozenset(knowledge_base_schema()["$defs"]["range"]["properties"])


def errors(data: Any, schema: Mapping[str, Any] | None = None) -> list[SchemaError]:
    """Every place ``data`` breaks ``schema`` (default: the knowledge base's), in path order."""
    root = knowledge_base_schema() if schema is None else schema
    found = list(_check(root, root, data, ()))
    return sorted(found, key=lambda e: [str(p) for p in e.path])


def _check(
    root: Mapping[str, Any], node: Mapping[str, Any], value: Any, path: tuple[str | int, ...]
) -> Iterator[SchemaError]:
    unknown = set(node) - _KEYWORDS - _ANNOTATIONS
    if unknown:
        raise ValueError(f"schema keyword(s) {sorted(unknown)} are not supported here")
    if "$ref" in node:
        yield from _check(root, _resolve(root, node["$ref"]), value, path)
    if "type" in node:
        names = node["type"] if isinstance(node["type"], list) else [node["type"]]
        if not any(_is(value, name) for name in names):
            shown = names[0] if len(names) == 1 else names
            yield SchemaError(path, f"{value!r} is not of type {shown!r}")
            return
    if "const" in node and not _same(value, node["const"]):
        yield SchemaError(path, f"{node['const']!r} was expected")
    if "enum" in node and not any(_same(value, option) for option in node["enum"]):
        yield SchemaError(path, f"{value!r} is not one of {node['enum']!r}")
    if isinstance(value, str):
        yield from _string(node, value, path)
    if isinstance(value, list):
        yield from _array(root, node, value, path)
    if isinstance(value, dict):
        yield from _object(root, node, value, path)


def _same(a: Any, b: Any) -> bool:
    """JSON equality: unlike Python's, ``true`` is not ``1`` and ``1.0`` is ``1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b or _is(a, "number") and _is(b, "number") and a == b


def _is(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    return isinstance(value, _TYPES[name])


def _string(
    node: Mapping[str, Any], value: str, path: tuple[str | int, ...]
) -> Iterator[SchemaError]:
    if "minLength" in node and len(value) < node["minLength"]:
        yield SchemaError(path, f"{value!r} is too short")
    if "maxLength" in node and len(value) > node["maxLength"]:
        yield SchemaError(path, f"{value!r} is too long")
    if "pattern" in node and not re.search(node["pattern"], value):
        yield SchemaError(path, f"{value!r} does not match {node['pattern']!r}")


def _array(
    root: Mapping[str, Any], node: Mapping[str, Any], value: list[Any], path: tuple[str | int, ...]
) -> Iterator[SchemaError]:
    if "minItems" in node and len(value) < node["minItems"]:
        yield SchemaError(path, f"{value!r} should be non-empty" if node["minItems"] == 1
                          else f"{value!r} is too short")  # fmt: skip
    if node.get("uniqueItems"):
        seen: list[Any] = []
        for item in value:
            if any(_same(item, earlier) for earlier in seen):
                yield SchemaError(path, f"{value!r} has non-unique elements")
                break
            seen.append(item)
    if "items" in node:
        for index, item in enumerate(value):
            yield from _check(root, node["items"], item, (*path, index))


def _object(
    root: Mapping[str, Any],
    node: Mapping[str, Any],
    value: dict[Any, Any],
    path: tuple[str | int, ...],
) -> Iterator[SchemaError]:
    for name in node.get("required", ()):
        if name not in value:
            yield SchemaError(path, f"{name!r} is a required property")
    properties = node.get("properties", {})
    if node.get("additionalProperties") is False:
        extra = [k for k in value if k not in properties]
        if extra:
            listed = ", ".join(repr(k) for k in extra)
            verb = "was" if len(extra) == 1 else "were"
            yield SchemaError(
                path, f"Additional properties are not allowed ({listed} {verb} unexpected)"
            )
    for name, sub in properties.items():
        if name in value:
            yield from _check(root, sub, value[name], (*path, name))
    if "not" in node:
        required = node["not"].get("required", [])
        if set(node["not"]) != {"required"}:
            raise ValueError("only 'not' of 'required' is supported here")
        if all(name in value for name in required):
            yield SchemaError(path, f"{value!r} should not be valid under {dict(node['not'])!r}")


def _resolve(root: Mapping[str, Any], reference: str) -> Mapping[str, Any]:
    if not reference.startswith("#/"):
        raise ValueError(f"only local references are supported here, not {reference}")
    node: Any = root
    for part in reference[2:].split("/"):
        node = node[part]
    resolved: Mapping[str, Any] = node
    return resolved
