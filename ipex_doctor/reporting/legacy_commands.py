"""Reports written before schema 1.9 carry their remedies as shell text only; this reads them.

A finding of such a report has ``commands`` (strings) and no ``actions``. Each string that is a
pip command of the two shapes remedies ever had (``PYTHON -m pip install REQUIREMENT...
[--index-url URL] [--extra-index-url URL]...``, ``PYTHON -m pip uninstall -y NAME...``) becomes a
``PipAction`` with exactly the words it names; any other string stays a manual command. Nothing
is judged here: what this yields goes through the same repair policy as the actions of a new
report (``knowledge.remedy_policy``), so a string can never say more than a typed action could.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, MutableMapping
from typing import Any

from ipex_doctor.model.remedy import PipAction
from ipex_doctor.model.terms import StepKind

FIRST_TYPED = (1, 9)
"""The report schema that carries ``actions``: older reports are read through this module."""

_INDEX_OPTIONS = {"--index-url": "index", "--extra-index-url": "extra"}


def parse_command(command: str) -> PipAction | None:
    """The action ``command`` spells, word for word; ``None`` when it is not one of the two
    shapes (another program, another verb, an option remedies never had, a shell operator)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 5 or not words[0] or words[1:3] != ["-m", "pip"]:
        return None
    python, verb, rest = words[0], words[3], words[4:]
    if verb == "uninstall":
        names = [word for word in rest if word != "-y"]
        if "-y" not in rest or not names or any(name.startswith("-") for name in names):
            return None
        return PipAction(python, StepKind.UNINSTALL, tuple(names))
    if verb != "install":
        return None
    requirements: list[str] = []
    index: str | None = None
    extra: list[str] = []
    remaining = iter(rest)
    for word in remaining:
        option, _, attached = word.partition("=")
        if option in _INDEX_OPTIONS:
            value = attached if attached else next(remaining, None)
            if not value:
                return None
            if _INDEX_OPTIONS[option] == "extra":
                extra.append(value)
            elif index is None:
                index = value
            else:
                return None
        elif word.startswith("-"):
            return None
        else:
            requirements.append(word)
    if not requirements:
        return None
    return PipAction(python, StepKind.INSTALL, tuple(requirements), index, tuple(extra))


def split_commands(commands: Iterable[str]) -> tuple[list[PipAction], list[str]]:
    """The actions among ``commands``, and the commands that are none (in their order)."""
    actions: list[PipAction] = []
    manual: list[str] = []
    for command in commands:
        action = parse_command(command)
        if action is None:
            manual.append(command)
        else:
            actions.append(action)
    return actions, manual


def upgrade_findings(findings: Iterable[MutableMapping[str, Any]]) -> None:
    """Give each finding of an old report (JSON, already checked against the schema) the
    ``actions`` and ``manual_commands`` its ``commands`` spell, as a 1.9 report has them."""
    for finding in findings:
        actions, manual = split_commands(str(c) for c in finding.get("commands") or ())
        finding["actions"] = [action.to_dict() for action in actions]
        finding["manual_commands"] = manual
