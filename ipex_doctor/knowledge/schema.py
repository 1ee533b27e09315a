"""Validate a document against its JSON Schema, in a millisecond, without jsonschema.

The schemas (``knowledge/known_issues.schema.json``, the published ``report.schema.json`` and
the policy schema in ``reporting/policy.py``) stay the one description of each format; this
module interprets the part of JSON Schema they use (``type``, ``enum``, ``const``,
``required``, ``properties``, ``additionalProperties`` (false or a schema), ``items``,
``minItems``, ``uniqueItems``, ``minLength``, ``maxLength``, ``pattern``, ``minimum``,
``oneOf``, ``not`` of ``required``, local ``$ref``; ``format`` is an annotation, as in
jsonschema by default). A keyword outside the subset is refused at once, never ignored. One
deliberate difference: an ``integer`` is a number written without a fraction, so ``2.0`` is
refused where JSON Schema accepts it; the doctor writes integers so, and its report decoder
(``model.codec``) would refuse a float for an ``int`` field anyway.

Why hand-written: it is on the hot path of the light commands, which must answer in under
0.1 s (``benchmarks/light_commands.py``): a knowledge-base cache miss (a first run, an edited
``--kb`` overlay, ``kb validate``), a policy file, and every ``report FILE`` validate here.
Measured on the project's 2-core machine (jsonschema 4.26, Python 3.11, 15 runs): importing
jsonschema costs 47 to 72 ms (min to median) even after the doctor's own modules are loaded,
94 to 118 ms in a fresh interpreter, against 18 ms for Python's whole start-up; and checking
a saved report takes it 7 ms, this compiled subset 0.5 ms (a fleet merge checks thousands).
So jsonschema is no runtime dependency; it is the tests' reference instead: they validate the
shipped and mutated knowledge bases, saved and mutated reports and policies with both and
require the same verdict (``tests/knowledge/test_schema*.py``), that one difference aside.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ipex_doctor import resources

SCHEMA_FILE = "knowledge/known_issues.schema.json"
_ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description", "format"}
_KEYWORDS = {"type", "enum", "const", "required", "properties", "additionalProperties", "items",
             "minItems", "uniqueItems", "minLength", "maxLength", "pattern", "minimum", "oneOf",
             "not", "$ref"}  # fmt: skip
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
    found = _compiled(root)(data, ())
    return sorted(found, key=lambda e: [str(p) for p in e.path])


Reads = Mapping[str, "Reads | bool"]
"""What a reader of a document uses: property names, each ``True`` (the whole value) or the
``Reads`` of its own properties; an array's ``Reads`` apply to its items."""


def subset(root: Mapping[str, Any], reads: Reads) -> dict[str, Any]:
    """A schema that checks of a document only what ``reads`` names, as ``root`` describes it:
    each named property keeps its type, its checks and whether it is required; the others may
    hold anything. For a reader that uses a small part of each of many large documents (a
    fleet merge reads a node's fingerprint and its findings' identities, not their evidence):
    it validates what it uses, every time, for a fraction of the cost."""
    body = _prune(root, root, reads)
    return {**body, "$defs": root.get("$defs", {})}


def _prune(root: Mapping[str, Any], node: Mapping[str, Any], reads: Reads) -> dict[str, Any]:
    while "$ref" in node:
        node = _resolve(root, node["$ref"])
    kept: dict[str, Any] = {k: node[k] for k in ("type", "enum", "const") if k in node}
    if "oneOf" in node:
        kept["oneOf"] = [_prune(root, option, reads) for option in node["oneOf"]]
    if "items" in node:
        kept["items"] = _prune(root, node["items"], reads)
    properties = node.get("properties", {})
    if properties:
        kept["properties"] = {
            name: dict(sub) if want is True else _prune(root, sub, want)
            for name, sub in properties.items()
            if (want := reads.get(name, False))
        }
        kept["required"] = [name for name in node.get("required", ()) if name in reads]
    return kept


Location = tuple[str | int, ...]
Validator = Callable[[Any, Location], list[SchemaError]]
_COMPILED: dict[int, tuple[Mapping[str, Any], Validator]] = {}
"""Schemas compiled once per process; the schema is kept with its validator so its id stays
its own (the schemas used are few and live as long as the process anyway)."""


def _compiled(root: Mapping[str, Any]) -> Validator:
    kept = _COMPILED.get(id(root))
    if kept is None or kept[0] is not root:
        kept = (root, _compile(root, root, {}))
        _COMPILED[id(root)] = kept
    return kept[1]


def _compile(
    root: Mapping[str, Any], node: Mapping[str, Any], memo: dict[int, Validator]
) -> Validator:
    """``node`` as one function of (value, path) -> errors. Reading a document then costs a
    walk of the document, not of the schema's keywords at every value (3x faster)."""
    if id(node) in memo:
        return memo[id(node)]
    cell: list[Validator] = []
    memo[id(node)] = lambda value, path: cell[0](value, path)  # NOTE: recursive $refs
    unknown = set(node) - _KEYWORDS - _ANNOTATIONS
    if unknown:
        raise ValueError(f"schema keyword(s) {sorted(unknown)} are not supported here")
    ref = _compile(root, _resolve(root, node["$ref"]), memo) if "$ref" in node else None
    names = node.get("type")
    types = None if names is None else (names if isinstance(names, list) else [names])
    shown = None if types is None else (types[0] if len(types) == 1 else types)
    python_types = None if types is None else tuple(t for n in types for t in _TYPES[n])
    numeric = types is not None and bool({"integer", "number"} & set(types))
    general = _general_checks(root, node, memo)
    string = _string_checks(node)
    array = _array_check(root, node, memo)
    mapping = _object_check(root, node, memo)

    def validate(value: Any, path: Location) -> list[SchemaError]:
        found = ref(value, path) if ref is not None else []
        # NOTE: the fast test first (most values have the type), the exact one when it fails
        # or a bool may pass as a number
        if (
            python_types is not None
            and (not isinstance(value, python_types) or (numeric and isinstance(value, bool)))
            and not any(_is(value, name) for name in types or ())
        ):
            found.append(SchemaError(path, f"{value!r} is not of type {shown!r}"))
            return found
        for check in general:
            found.extend(check(value, path))
        if isinstance(value, str):
            for check in string:
                found.extend(check(value, path))
        elif isinstance(value, list) and array is not None:
            found.extend(array(value, path))
        elif isinstance(value, dict) and mapping is not None:
            found.extend(mapping(value, path))
        return found

    cell.append(validate)
    return validate


def _general_checks(
    root: Mapping[str, Any], node: Mapping[str, Any], memo: dict[int, Validator]
) -> list[Validator]:
    checks: list[Validator] = []
    if "const" in node:
        const = node["const"]
        checks.append(
            lambda v, p: [] if _same(v, const) else [SchemaError(p, f"{const!r} was expected")]
        )
    if "enum" in node:
        options = node["enum"]
        # NOTE: for a string, JSON equality is Python's: a set lookup (status enums are read
        # tens of times per report, thousands of reports per fleet merge)
        words = frozenset(o for o in options if isinstance(o, str))
        checks.append(
            lambda v, p: (
                []
                if (v in words if isinstance(v, str) else any(_same(v, o) for o in options))
                else [SchemaError(p, f"{v!r} is not one of {options!r}")]
            )
        )
    if "oneOf" in node:
        alternatives = [_compile(root, option, memo) for option in node["oneOf"]]
        kinds = [_declared_types(root, option) for option in node["oneOf"]]

        def one_of(value: Any, path: Location) -> list[SchemaError]:
            # NOTE: an alternative that declares other types than the value's cannot pass;
            # skipping it spares walking the value ({"type": "null"} or an object: once)
            tried = [
                option
                for option, kind in zip(alternatives, kinds, strict=True)
                if kind is None or any(_is(value, name) for name in kind)
            ]
            passing = sum(1 for option in tried if not option(value, path))
            if passing == 1:
                return []
            said = (
                "is not valid under any of" if passing == 0 else "is valid under more than one of"
            )
            return [SchemaError(path, f"{_short(value)} {said} the given schemas")]

        checks.append(one_of)
    if "minimum" in node:
        low = node["minimum"]
        checks.append(
            lambda v, p: (
                [SchemaError(p, f"{v!r} is less than the minimum of {low!r}")]
                if _is(v, "number") and v < low
                else []
            )
        )
    return checks


def _declared_types(root: Mapping[str, Any], node: Mapping[str, Any]) -> frozenset[str] | None:
    """The types a schema node admits, when it says (following a ``$ref``); ``None`` if any."""
    while "$ref" in node and "type" not in node:
        node = _resolve(root, node["$ref"])
    names = node.get("type")
    if names is None:
        return None
    return frozenset(names if isinstance(names, list) else [names])


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


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


def _string_checks(node: Mapping[str, Any]) -> list[Validator]:
    checks: list[Validator] = []
    if "minLength" in node:
        shortest = node["minLength"]
        checks.append(
            lambda v, p: [SchemaError(p, f"{v!r} is too short")] if len(v) < shortest else []
        )
    if "maxLength" in node:
        longest = node["maxLength"]
        checks.append(
            lambda v, p: [SchemaError(p, f"{v!r} is too long")] if len(v) > longest else []
        )
    if "pattern" in node:
        pattern, compiled = node["pattern"], re.compile(node["pattern"])
        checks.append(
            lambda v, p: (
                [] if compiled.search(v) else [SchemaError(p, f"{v!r} does not match {pattern!r}")]
            )
        )
    return checks


def _array_check(
    root: Mapping[str, Any], node: Mapping[str, Any], memo: dict[int, Validator]
) -> Validator | None:
    if not {"minItems", "uniqueItems", "items"} & set(node):
        return None
    fewest = node.get("minItems")
    unique = bool(node.get("uniqueItems"))
    items = _compile(root, node["items"], memo) if "items" in node else None

    def check(value: list[Any], path: Location) -> list[SchemaError]:
        found = []
        if fewest is not None and len(value) < fewest:
            said = "should be non-empty" if fewest == 1 else "is too short"
            found.append(SchemaError(path, f"{value!r} {said}"))
        if unique:
            seen: list[Any] = []
            for item in value:
                if any(_same(item, earlier) for earlier in seen):
                    found.append(SchemaError(path, f"{value!r} has non-unique elements"))
                    break
                seen.append(item)
        if items is not None:
            for index, item in enumerate(value):
                found.extend(items(item, (*path, index)))
        return found

    return check


def _object_check(
    root: Mapping[str, Any], node: Mapping[str, Any], memo: dict[int, Validator]
) -> Validator | None:
    keys = {"required", "properties", "additionalProperties", "not"}
    if not keys & set(node):
        return None
    required = tuple(node.get("required", ()))
    properties = {
        name: _compile(root, sub, memo) for name, sub in node.get("properties", {}).items()
    }
    additional = node.get("additionalProperties", True)
    extra_schema = _compile(root, additional, memo) if isinstance(additional, dict) else None
    forbidden: tuple[str, ...] | None = None
    if "not" in node:
        if set(node["not"]) != {"required"}:
            raise ValueError("only 'not' of 'required' is supported here")
        forbidden = tuple(node["not"]["required"])
    shown_not = dict(node["not"]) if "not" in node else None

    def check(value: dict[Any, Any], path: Location) -> list[SchemaError]:
        found = [SchemaError(path, f"{name!r} is a required property")
                 for name in required if name not in value]  # fmt: skip
        if additional is False:
            extra = [k for k in value if k not in properties]
            if extra:
                listed = ", ".join(repr(k) for k in extra)
                verb = "was" if len(extra) == 1 else "were"
                found.append(SchemaError(
                    path, f"Additional properties are not allowed ({listed} {verb} unexpected)"
                ))  # fmt: skip
        for name, item in value.items():
            validator = properties.get(name)
            if validator is not None:
                found.extend(validator(item, (*path, name)))
            elif extra_schema is not None:
                found.extend(extra_schema(item, (*path, name)))
        if forbidden is not None and all(name in value for name in forbidden):
            found.append(SchemaError(path, f"{value!r} should not be valid under {shown_not!r}"))
        return found

    return check


def _resolve(root: Mapping[str, Any], reference: str) -> Mapping[str, Any]:
    if not reference.startswith("#/"):
        raise ValueError(f"only local references are supported here, not {reference}")
    node: Any = root
    for part in reference[2:].split("/"):
        node = node[part]
    resolved: Mapping[str, Any] = node
    return resolved
