"""The one way the model becomes JSON and comes back: generic, driven by the dataclass fields.

``to_json`` walks frozen dataclasses, enums (their value), tuples and mappings; ``from_json``
rebuilds a dataclass from the same shape using its type hints (``X | None``, ``tuple[X, ...]``,
nested dataclasses, enums, mappings of JSON). A field may carry a JSON name of its own
(``field(metadata={"json": "check"})``), and a class may list computed properties to write
(``JSON_EXTRAS = ("summary",)``): those are written and ignored when read back. A missing key
takes the field's default; a missing key without a default, or a value of the wrong shape, is
a ``ValueError`` naming the path. Shapes are checked against the published report schema
before a report is decoded (``reporting.saved_reports``), so this is the second line of defence.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib
import re
import sys
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from ipex_doctor.model.wording import Wording

T = TypeVar("T")


def to_json(value: Any) -> Any:
    """``value`` as plain JSON data (dicts, lists, strings, numbers, booleans, None)."""
    # NOTE: plain values first, by exact type (an enum of text is a str subclass and goes on):
    # a fleet report holds hundreds of thousands of node names.
    if value is None or type(value) in _PLAIN:
        return value
    if isinstance(value, Wording):
        return value.pattern  # NOTE: written as its text, as the knowledge base writes it
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {_json_name(f): to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
        for name in getattr(type(value), "JSON_EXTRAS", ()):
            out[name] = to_json(getattr(value, name))
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {
            (k.value if isinstance(k, enum.Enum) else str(k)): to_json(v) for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, re.Pattern):
        return value.pattern
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)  # NOTE: versions and paths read best as their text


_PLAIN = frozenset({str, int, float, bool})


def from_json(cls: type[T], data: Any, path: str = "$") -> T:
    """The dataclass ``cls`` rebuilt from ``to_json``'s shape; ``ValueError`` when it does not fit."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{path}: expected an object, got {type(data).__name__}")
    hints = _hints(cast(type, cls))
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        key = _json_name(f)
        if key not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueError(f"{path}: missing {key!r}")
            continue
        values[f.name] = _decode(hints[f.name], data[key], f"{path}.{key}")
    return cls(**values)


def _json_name(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata.get("json", f.name))


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """``cls``'s resolved type hints; the names its module lists in ``LATE_HINTS`` (a name and
    the module it comes from, left unimported there for what it costs) are imported now."""
    late: Mapping[str, str] = getattr(sys.modules.get(cls.__module__), "LATE_HINTS", {})
    if not late:
        return typing.get_type_hints(cls)
    names = {name: getattr(importlib.import_module(home), name) for name, home in late.items()}
    # NOTE: as locals, looked up before the module's own names; the class's own attributes
    # (the locals otherwise) are no hint of this model's
    return typing.get_type_hints(cls, localns=names)


def _decode(hint: Any, value: Any, path: str) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or hint is object:
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        return _decode(options[0], value, path) if len(options) == 1 else value
    if origin is tuple:
        if not isinstance(value, list):
            raise ValueError(f"{path}: expected a list, got {type(value).__name__}")
        item = args[0] if args else Any
        return tuple(_decode(item, v, f"{path}[{i}]") for i, v in enumerate(value))
    if origin in (dict, Mapping, typing.Mapping) or hint in (dict, Mapping):
        if not isinstance(value, Mapping):
            raise ValueError(f"{path}: expected an object, got {type(value).__name__}")
        key_type, value_type = args if args else (str, Any)
        return {
            _decode(key_type, k, path): _decode(value_type, v, f"{path}.{k}")
            for k, v in value.items()
        }
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            raise ValueError(f"{path}: {value!r} is not one of {[m.value for m in hint]}") from None
    if dataclasses.is_dataclass(hint):
        return from_json(hint, value, path)  # type: ignore[arg-type]
    if hint in (str, int, float, bool):
        if hint is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
            raise ValueError(f"{path}: expected {hint.__name__}, got {type(value).__name__}")
        return value
    return value


class JsonModel:
    """Mixin for the model's dataclasses: ``to_dict`` / ``from_dict`` through this codec."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of this object."""
        data: dict[str, Any] = to_json(self)
        return data

    @classmethod
    def from_dict(cls: type[T], data: Mapping[str, Any]) -> T:
        """Inverse of ``to_dict``; ``ValueError`` naming the path when ``data`` does not fit."""
        return from_json(cls, data)
