"""A remedy's pip command, typed: what a finding proposes to run, before anyone decides it may.

A finding carries its pip remedies as ``PipAction`` values (``Finding.actions``): the
interpreter the command names, pip's verb, the requirement specifiers and the index options,
each a field of its own. The text people paste (``Finding.commands``) is rendered from them;
nothing reads that text back to decide what runs. Whether an action may run is the repair
policy's decision (``knowledge.remedy_policy``), taken on these fields. Frozen, no I/O.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from ipex_doctor.model.codec import JsonModel
from ipex_doctor.model.terms import StepKind


@dataclass(frozen=True)
class PipAction(JsonModel):
    """``<python> -m pip install REQUIREMENTS [--index-url URL] [--extra-index-url URL]...`` or
    ``<python> -m pip uninstall -y NAMES``, as fields."""

    python: str
    """The interpreter whose pip the command runs: the examined one, never a bare ``python``."""
    verb: StepKind
    requirements: tuple[str, ...]
    """Requirement specifiers as pip reads them (``torchvision==0.23.*``); names to uninstall."""
    index_url: str | None = None
    """``--index-url``: the index that replaces pip's default one (installs only)."""
    extra_index_urls: tuple[str, ...] = ()
    """``--extra-index-url``, each: indexes pip looks in besides its default one."""

    @property
    def argv(self) -> tuple[str, ...]:
        """The command as an argument vector, in the order people read it: the requirements,
        then where they come from."""
        head = (self.python, "-m", "pip", self.verb.value)
        if self.verb is StepKind.UNINSTALL:
            return (*head, "-y", *self.requirements)
        index = ("--index-url", self.index_url) if self.index_url else ()
        extra = tuple(word for url in self.extra_index_urls for word in ("--extra-index-url", url))
        return (*head, *self.requirements, *index, *extra)

    def render(self) -> str:
        """The command quoted for a POSIX shell, to paste."""
        return shell_line(self.argv)


def shell_line(words: Iterable[str]) -> str:
    """``words`` quoted for a POSIX shell, to paste."""
    return " ".join(shlex.quote(word) for word in words)
