"""Saved JSON read back within limits: the one reader of every JSON file a user hands the doctor.

Reports (``report``, ``merge``, ``--baseline``, ``explain --report``, ``fix --report``),
snapshots (``fix --undo``) and ``scan --fix`` records (``scan --undo``) are files anyone can
write. Python's ``json`` reads whatever it is
given: a 100,000-digit number is a ``ValueError`` of ``int`` (or seconds of work below the
interpreter's digit limit), a document nested 100,000 levels deep a ``RecursionError``, and one
nested 900 levels is read but breaks every recursive walk after it (the schema check, the
decoder). So a saved file is refused, in one line naming it, when it is larger than its kind
allows, has a number literal longer than ``max_number_chars``, is nested deeper than
``max_depth`` or holds more than ``max_values`` values. The defaults are far above what the
doctor writes: a 10,624-node fleet report is 7.5 MB, 11 levels deep, 352,761 values, and its
longest number has 22 characters (a float's ``repr``).

Why by hand: the standard library's parser has hooks for number literals but no limit on depth
or size, and no maintained parser for Python takes all three limits (orjson's depth limit is a
fixed 1,024, which the walks after it cannot take). The count is bounded on the text before
parsing (so a file of a million empty lists never becomes a million lists), the digits by the
parser's own hooks, the depth by a walk of the parsed value, level by level (no recursion).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ipex_doctor.errors import DoctorError, read_bounded


@dataclass(frozen=True)
class JsonLimits:
    """What a saved JSON file may hold; anything beyond is refused before it is used."""

    max_bytes: int
    max_depth: int = 64
    """Nesting of arrays and objects (a report of the doctor is at most 12 deep)."""
    max_values: int = 4_194_304
    """Values in all, each member and item counted (a 10,624-node fleet report has 352,761)."""
    max_number_chars: int = 50
    """Characters of one number literal (a float's repr has at most 24)."""


class _NumberTooLong(Exception):
    """Raised by the parser's number hooks; carries the literal's length."""


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def read_json(path: Path, limits: JsonLimits, error: type[DoctorError], what: str) -> Any:
    """The JSON value in ``path``, refused as ``error`` (one line naming the file) when it is
    missing, unreadable, not UTF-8, not JSON, or beyond ``limits``. ``what`` names the kind of
    file (``report``, ``snapshot``)."""
    text = read_bounded(path, limits.max_bytes, error, what)
    return parse_json(text, path, limits, error, what)


def parse_json(text: str, path: Path, limits: JsonLimits, error: type[DoctorError], what: str) -> Any:  # fmt: skip
    """The JSON value of ``text``, read from ``path`` by a reader that checks the file itself
    (its owner, its size) before it is parsed; refused as in ``read_json`` when it is not JSON
    or beyond ``limits`` (all but ``max_bytes``, the reader's to check)."""
    beyond = f"; refused (an ipex-doctor {what} never is)"
    # NOTE: each value takes a character at least: a text no longer than the limit is counted
    # no further (a node's report, 45 kB, never is; a fleet's, 6 MB, is).
    too_many = len(text) > limits.max_values and _value_bound(text) > limits.max_values
    if too_many and _values(text) > limits.max_values:
        raise error(f"{path}: holds more than {limits.max_values:,} values{beyond}")

    longest = limits.max_number_chars

    # NOTE: one function a type, no lambda around a shared one: the decoder calls it for every
    # number, and a second Python call each doubled what the hooks cost a fleet's merge.
    def integer(literal: str) -> int:
        if len(literal) > longest:
            raise _NumberTooLong(len(literal))
        return int(literal)

    def real(literal: str) -> float:
        if len(literal) > longest:
            raise _NumberTooLong(len(literal))
        return float(literal)

    try:
        data = json.loads(text, parse_int=integer, parse_float=real)
    except json.JSONDecodeError as exc:
        raise error(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    except _NumberTooLong as exc:
        raise error(
            f"{path}: holds a number of {exc.args[0]:,} characters, more than "
            f"{limits.max_number_chars}{beyond}"
        ) from None
    except RecursionError:
        raise error(f"{path}: nested deeper than {limits.max_depth} levels{beyond}") from None
    if _depth_beyond(data, limits.max_depth):
        raise error(f"{path}: nested deeper than {limits.max_depth} levels{beyond}")
    return data


def _value_bound(text: str) -> int:
    """At least the number of values in ``text``: each follows an opening bracket or a comma,
    or is the document itself (commas inside strings only make it larger)."""
    return 1 + text.count(",") + text.count("[") + text.count("{")


def _values(text: str) -> int:
    """The number of values in ``text``, its strings left out (asked only when the quick bound
    is over the limit)."""
    return _value_bound(_STRING.sub('""', text))


_CONTAINERS = frozenset({dict, list})
"""The types ``json`` builds for arrays and objects (never a subclass)."""


def _depth_beyond(data: Any, limit: int) -> bool:
    """Whether ``data`` nests arrays and objects more than ``limit`` deep (``[1]`` is 1)."""
    # NOTE: ``type(x) in`` a frozenset, not ``isinstance``: this runs on every value of every
    # report a fleet's merge reads, and took half again the time with ``isinstance``.
    level = [data] if type(data) in _CONTAINERS else []
    for _ in range(limit):
        level = [
            child
            for container in level
            for child in (container.values() if type(container) is dict else container)
            if type(child) in _CONTAINERS
        ]
        if not level:
            return False
    return True
