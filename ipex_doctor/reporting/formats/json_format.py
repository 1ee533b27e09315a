"""The JSON report (schema: ``docs/report.schema.json``)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ipex_doctor.model.codec import to_json
from ipex_doctor.model.findings import Report

if TYPE_CHECKING:
    from ipex_doctor.reporting.policy import Gate

T = TypeVar("T")


def render_json(report: Report, gate: Gate | None = None) -> str:
    """The report as indented JSON text ending in a newline (the statuses say what the gate
    decides by; ``gate`` is not written)."""
    return "".join(json_chunks(report, gate))


def json_chunks(report: Report, gate: Gate | None = None) -> Iterator[str]:
    """``render_json``'s text in pieces, each finding's JSON made when the encoder reaches it:
    a scan of 100,000 findings never holds their JSON data, nor the text, whole."""
    shell = dataclasses.replace(report, findings=()).to_dict()
    shell["findings"] = LazyArray(report.findings, to_json)
    shell["summary"] = to_json(report.summary)
    yield from indented_json(shell)


def indented_json(data: Any) -> Iterator[str]:
    """``json.dumps(data, indent=2, ensure_ascii=False) + "\\n"`` in pieces, where a lone
    surrogate (a file name that is not UTF-8, read with ``surrogateescape``) is written as its
    ``\\uXXXX`` escape: UTF-8 cannot encode it, and the escape reads back to the same string
    (``json.loads``), so the exact name is kept."""
    for chunk in json.JSONEncoder(indent=2, ensure_ascii=False).iterencode(data):
        # NOTE: a surrogate occurs only inside a JSON string, where its escape means it.
        yield _SURROGATE.sub(_escaped, chunk) if _SURROGATE.search(chunk) else chunk
    yield "\n"


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


class LazyArray(list[Any]):
    """A JSON array of ``convert(item)`` for each of ``items``, each made when the encoder
    reaches it and dropped after. Only for ``json.JSONEncoder.iterencode``."""

    # NOTE: ``iterencode`` (the pure-Python encoder: the C one serves only a one-shot
    # ``dumps`` without ``indent``) takes any ``list`` as an array, asks whether it is empty
    # and iterates it, never indexing it: a list subclass is the one way to hand it items made
    # on the way. The reports' tests hold the text to ``json.dumps`` of the whole data.

    def __init__(self, items: Sequence[T], convert: Callable[[T], Any]) -> None:
        super().__init__()
        self._items: Sequence[Any] = items
        self._convert: Callable[[Any], Any] = convert

    def __iter__(self) -> Iterator[Any]:
        return map(self._convert, self._items)

    def __len__(self) -> int:
        return len(self._items)
