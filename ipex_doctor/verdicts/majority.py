"""The one rule for "differs from its peers", shared by device and fleet comparisons.

When a value is held by a strict majority of the members, the members with another value are
the odd ones; when no value is (two devices that disagree, three nodes all different), every
member is odd, since each differs from the others. Values are counted once, so comparing N
members costs time linear in N.
"""

from __future__ import annotations

import collections
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

V = TypeVar("V", bound=Hashable)


@dataclass(frozen=True)
class Odd:
    """A member whose value is not the majority's, and how the other members' values spread."""

    value: Hashable
    others: Mapping[Hashable, int]
    """Every other value and how many members hold it."""
    majority: Hashable | None
    """The value a strict majority holds, if one does."""


def majority_of(counts: Mapping[V, int]) -> V | None:
    """The value more than half the members hold, given how many hold each; ``None`` if none.
    (Counts may be weights: a fleet weighs a group of identical nodes by its size.)"""
    if not counts:
        return None
    top = max(counts, key=lambda value: counts[value])
    return top if counts[top] * 2 > sum(counts.values()) else None


def odd_members(values: Mapping[str, Hashable]) -> dict[str, Odd]:
    """The odd members of ``values`` (member -> its value), by the rule of this module."""
    counts = collections.Counter(values.values())
    if len(counts) < 2:
        return {}
    majority = majority_of(counts)
    odd = {}
    for member, value in values.items():
        if value == majority:
            continue
        others = {v: n for v, n in counts.items() if v != value}
        odd[member] = Odd(value=value, others=others, majority=majority)
    return odd
