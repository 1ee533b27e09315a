"""The shell commands of CI and task-runner files, each at its own line and column.

``kinds`` names these files ``CI``: GitHub Actions workflows and actions, GitLab CI, Azure
Pipelines, CircleCI and Buildkite pipelines (YAML), and Makefiles, justfiles, ``tox.ini`` and
Jenkinsfiles. Their commands are shell, which the ``shell`` rules read (``scan.shell_lines``
blanks what only prints); every line of them is also read by the rules of kind ``ci``
(settings such as an index URL in ``env:``).

* In a YAML pipeline, the commands are the values of the keys that hold them (``run:``,
  ``script:``, ``before_script:``, ``bash:``, ``inlineScript:``...) and every input under a
  ``with:``: a plain or quoted value on the key's line, a block scalar (``|``, ``>``) on the
  lines indented under it, or a list of commands (``- pip install ...``) under it. A step's
  ``name:``, a path filter or a matrix value is not a command and is not read as one.
* A Makefile, a justfile, ``tox.ini`` (``commands`` and ``deps`` alike: a requirement line
  reads the same as an install argument) and a Jenkinsfile are commands from end to end: every
  line is read.

NOTE: YAML is read line by line rather than parsed: a parser gives values without the
columns (and a block scalar's lines) the findings need, and costs a full parse of every
workflow that merely mentions a trigger word; these keys are written one per line in every
pipeline format.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ipex_doctor.scan.read.source import TextLine

COMMAND_KEYS = frozenset(
    {"run", "script", "scripts", "before_script", "after_script", "bash", "sh", "pwsh"}
    | {"powershell", "inlineScript", "inline", "command", "commands", "cmd", "entrypoint"}
)
"""The keys whose value is a command, a list of commands or a script, in the pipeline formats
(GitHub ``run``, GitLab ``script`` / ``before_script``, Azure ``script`` / ``bash`` / ``pwsh``
/ ``inlineScript``, CircleCI ``command``, Buildkite ``command`` / ``commands``)."""
INPUTS_KEY = "with"
"""GitHub Actions' inputs of a step: each value may be a command line the action runs."""
YAML_SUFFIXES = (".yml", ".yaml")

_KEY = re.compile(r"^(?P<indent>\s*)(?:-\s+)?(?P<key>[A-Za-z_][\w.-]*)\s*:(?:\s+|$)(?P<rest>.*)$")
_BLOCK = re.compile(r"^[|>][-+0-9]*\s*(?:#.*)?$")
_ITEM = re.compile(r"^\s*-\s+(?P<rest>.*)$")


def is_yaml(name: str) -> bool:
    """Whether a CI file called ``name`` is a YAML pipeline (else: commands throughout)."""
    return name.lower().endswith(YAML_SUFFIXES)


def ci_commands(name: str, lines: Sequence[str]) -> Iterator[TextLine]:
    """The command text of the CI file ``name`` whose lines are ``lines``: the command values
    of a YAML pipeline, every line of any other (see the module)."""
    if not is_yaml(name):
        for number, text in enumerate(lines, start=1):
            yield TextLine(number, text)
        return
    index = 0
    while index < len(lines):
        found = _KEY.match(lines[index])
        index += 1
        if found is None:
            continue
        key, rest = found.group("key"), found.group("rest")
        indent = len(found.group("indent"))
        if key == INPUTS_KEY:
            continue  # NOTE: its inputs are keys of their own, read below as values
        if key not in COMMAND_KEYS and not _under_inputs(lines, index - 1, indent):
            continue
        if rest and not _BLOCK.match(rest):
            yield TextLine(index, *_unquoted(rest, found.start("rest")))
            continue
        block = list(_indented(lines, index, indent, lists=not rest))
        for number, text in block:
            if rest or _KEY.match(text) is None:
                # NOTE: a block scalar's lines are the script; under a list, each item is a
                # command and a line deeper than its item continues it (a mapping item is a
                # step whose own keys the loop reads)
                item = None if rest else _ITEM.match(text)
                if item is None:
                    yield TextLine(number, text)
                elif _BLOCK.match(item.group("rest")) is None:
                    yield TextLine(number, *_unquoted(item.group("rest"), item.start("rest")))
        if rest and block:
            index = block[-1][0]  # NOTE: a script's lines are never keys


def _under_inputs(lines: Sequence[str], position: int, indent: int) -> bool:
    """Whether the key on line ``position`` (0-based) is an input of a ``with:`` mapping: the
    nearest line above it indented less is ``with:``."""
    for above in range(position - 1, -1, -1):
        text = lines[above]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        depth = len(text) - len(text.lstrip())
        if depth < indent:
            found = _KEY.match(text)
            return found is not None and found.group("key") == INPUTS_KEY
    return False


def _indented(
    lines: Sequence[str], index: int, indent: int, *, lists: bool
) -> Iterator[tuple[int, str]]:
    """The lines from ``index`` on (0-based) indented deeper than ``indent`` (blank lines
    inside skipped), as (1-based number, text); with ``lists``, a list under the key may
    also start at the key's own indentation (``script:`` then ``- cmd``)."""
    for position in range(index, len(lines)):
        text = lines[position]
        if not text.strip():
            continue
        depth = len(text) - len(text.lstrip())
        if depth > indent or (lists and depth == indent and text.lstrip().startswith("- ")):
            yield position + 1, text
        else:
            return


def _unquoted(value: str, column: int) -> tuple[str, int]:
    """A YAML scalar written on one line without its quotes, with the column it starts at;
    escapes are left as written."""
    stripped = value.rstrip()
    if len(stripped) >= 2 and stripped[0] in "'\"" and stripped[-1] == stripped[0]:
        return stripped[1:-1], column + 1
    return stripped, column
