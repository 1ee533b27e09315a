"""Node lists written the way cluster schedulers write them: ``node[0001-0999,1003]``.

A fleet of a thousand nodes cannot be named one by one in a report people read. Names that
share a prefix and end in a number of one width fold into ranges (zero padding kept, as Slurm
does); other names stay as they are. ``compress`` and ``expand`` are inverses for names of that shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NUMBERED = re.compile(r"^(.*?)(\d+)$")
_GROUP = re.compile(r"^(.*)\[([\d,\-]+)\]$")


def compress(names: Iterable[str]) -> str:
    """``["n01", "n02", "n03", "x"]`` -> ``"n[01-03],x"``; order: by prefix, then number."""
    plain: list[str] = []
    numbered: dict[tuple[str, int], set[int]] = {}
    for name in dict.fromkeys(names):
        match = _NUMBERED.match(name)
        if match is None:
            plain.append(name)
            continue
        prefix, digits = match.groups()
        # NOTE: n7 and n07 are different names, so the width is part of the group
        width = len(digits)
        numbered.setdefault((prefix, width), set()).add(int(digits))
    parts = [((name, 0), name) for name in plain]
    for (prefix, width), numbers in numbered.items():
        texts = [_range_text(low, high, width) for low, high in _ranges(sorted(numbers))]
        text = f"{prefix}{texts[0]}" if len(numbers) == 1 else f"{prefix}[{','.join(texts)}]"
        parts.append(((prefix, width), text))
    return ",".join(text for _, text in sorted(parts))


def expand(text: str) -> list[str]:
    """The names ``compress`` folded into ``text`` (for tests and for users' scripts)."""
    names: list[str] = []
    for part in _split_top_level(text):
        match = _GROUP.match(part)
        if match is None:
            names.append(part)
            continue
        prefix, body = match.groups()
        for piece in body.split(","):
            low, _, high = piece.partition("-")
            width = len(low)
            names.extend(f"{prefix}{n:0{width}d}" for n in range(int(low), int(high or low) + 1))
    return names


def _ranges(numbers: list[int]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for number in numbers:
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], number)
        else:
            ranges.append((number, number))
    return ranges


def _range_text(low: int, high: int, width: int) -> str:
    first = f"{low:0{width}d}"
    return first if low == high else f"{first}-{high:0{width}d}"


def _split_top_level(text: str) -> list[str]:
    """Split on the commas outside brackets."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += {"[": 1, "]": -1}.get(char, 0)
        current.append(char)
    if current:
        parts.append("".join(current))
    return [p for p in parts if p]
