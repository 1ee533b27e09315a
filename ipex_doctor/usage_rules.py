"""Which options a command refuses together, or without another, as data checked on a mapping.

A ``Refuse`` rule reads parameter names and the values parsed for them (name to value, as a
command line parser hands them over); it knows nothing of the parser, so the rules are
checked here without one and the command line only adapts its context to them (``cli/``:
which exception a broken rule is raised as, and that every name is one of the command's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple


class Refuse(NamedTuple):
    """One usage rule of a command: ``message`` when ``given`` was given (``None``: always)
    together with any of ``with_any``, or without every one of ``without``.

    Given means parsed to a value: a flag set, an option or argument with a non-empty value,
    a repeatable one given at least once, a count above 0.
    """

    # NOTE: a NamedTuple, not the house's frozen dataclass: this module is on every light
    # command's path, and building a dataclass costs about 2 ms at import on a busy 2-core
    # machine where a NamedTuple costs about 0.3 ms; it is as immutable and as typed.

    given: str | None
    message: str
    with_any: tuple[str, ...] = ()
    without: tuple[str, ...] = ()
    one_line: bool = False
    """Answered as the command's one-line error (exit 2) rather than a usage error with its
    usage line: for a rule the command has always answered so."""

    def broken(self, params: Mapping[str, Any]) -> bool:
        """Whether ``params`` (parameter name to parsed value) break this rule."""
        if self.given is not None and not _given(params.get(self.given)):
            return False
        if any(_given(params.get(name)) for name in self.with_any):
            return True
        return bool(self.without) and not any(_given(params.get(n)) for n in self.without)

    def names(self) -> set[str]:
        """The parameters this rule reads."""
        return {n for n in (self.given, *self.with_any, *self.without) if n is not None}


def first_broken(rules: Iterable[Refuse], params: Mapping[str, Any]) -> Refuse | None:
    """The first of ``rules``, in order, that ``params`` break; ``None`` when they break none."""
    return next((rule for rule in rules if rule.broken(params)), None)


def unknown_names(rules: Iterable[Refuse], declared: Iterable[str]) -> set[str]:
    """The names ``rules`` read that are not among ``declared`` (a typo in a rule)."""
    return set().union(*(rule.names() for rule in rules)) - set(declared)


def _given(value: Any) -> bool:
    # NOTE: a count of 0 equals False, so it is not given either.
    return value not in (None, False, (), "")
