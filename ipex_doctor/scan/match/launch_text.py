"""IPEX's CPU launcher in text (shell scripts, Dockerfiles, command strings): where ``ipexrun``
and ``python -m intel_extension_for_pytorch.cpu.launch`` are run, and the rewrite to ``python
-m torch.backends.xeon.run_cpu`` where every option means the same to both launchers.

The ``launcher`` fix (``fix/codemods/launcher``) applies it to files and to the command
strings of Python; the scanner asks it, without LibCST, where that fix rewrites a launcher
command (a finding's "mechanical" label). ``fix/codemods/launcher``'s docstring says why only some options
move and how commands are recognised.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

RUN_CPU = "torch.backends.xeon.run_cpu"
# ipex-doctor: ignore[ipex-launcher] the launcher's names, as the fix looks for them
IPEX_LAUNCH = "intel_extension_for_pytorch.cpu.launch"
# ipex-doctor: ignore[ipex-launcher] the launcher's names, as the fix looks for them
IPEXRUN = "ipexrun"
NEW_COMMAND = f"python -m {RUN_CPU}"

LAUNCH_FLAGS = frozenset(
    {"-h", "--help", "-m", "--module", "--no-python", "--no_python"}
    | {"--latency-mode", "--latency_mode", "--throughput-mode", "--throughput_mode"}
)
"""Switches both launchers have, with the same meaning (read from both ``--help``)."""
LAUNCH_COUNTS = frozenset({"--ninstances", "--ncores-per-instance", "--ncores_per_instance"})
"""Counts both have: the same for a positive number only (IPEX reads ``0`` as "spread
evenly"; run_cpu's unset value is ``-1``)."""
LAUNCH_VALUES = frozenset({"--log-file-prefix", "--log_file_prefix"})
"""Options with a value both read the same way."""

_LEAD = (
    r"(?P<lead>(?:^|&&|\|\||[;|(`]|\$\()\s*"
    r"(?:(?:RUN|CMD|ENTRYPOINT)\s+)?"
    r"(?:(?:exec|nohup|time|sudo|env)\s+)*"
    r"(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*)"
)
_IPEXRUN_COMMAND = re.compile(_LEAD + IPEXRUN + r"(?=\s|$|[;&|)`])")
_MODULE_COMMAND = re.compile(r"(?P<lead>(?<![\w.-])-m\s+)" + re.escape(IPEX_LAUNCH) + r"(?![\w.])")
_CPU_SUBCOMMAND = re.compile(r"\s+cpu(?=\s|$)")
_EXEC_FORM = re.compile(r"^\s*(?:RUN|CMD|ENTRYPOINT)\s+\[")
MENTION = re.compile(r"(?<![\w./-])" + IPEXRUN + r"(?![\w-])|" + re.escape(IPEX_LAUNCH))


@dataclass(frozen=True)
class LaunchNote:
    """What happened at one place of a text: ``line`` is 1-based within the text."""

    line: int
    applied: bool
    message: str


def check_launch_args(tokens: Sequence[str | None], *, after_ipexrun: bool) -> str | None:
    """Why the launcher arguments ``tokens`` cannot move to run_cpu as they are (``None``:
    they can). A ``None`` token is one the code does not spell out (a variable)."""
    i = 0
    # ipex-doctor: ignore[ipex-path-switch] the fix's own test of what followed the launcher
    if after_ipexrun and tokens and tokens[0] == "xpu":
        # ipex-doctor: ignore[ipex-launcher] a reason the fix gives, naming the launcher
        return "`ipexrun xpu` is IPEX's XPU launcher, which has no upstream counterpart"
    if after_ipexrun and tokens and tokens[0] == "cpu":
        i = 1
    while i < len(tokens):
        token = tokens[i]
        if token is None:
            return (
                "an argument is not written out (a variable), so it may be a launcher option "
                "run_cpu lacks: check it and rewrite by hand"
            )
        if not token.startswith("-"):
            return None
        name, has_value, value = token.partition("=")
        if name in LAUNCH_FLAGS and not has_value:
            i += 1
            continue
        if name not in LAUNCH_COUNTS and name not in LAUNCH_VALUES:
            return f"launcher option {name} has no same-named equivalent in {RUN_CPU}"
        if not has_value:
            i += 1
            given = tokens[i] if i < len(tokens) else None
            if given is None:
                return f"the value of {name} is not written out"
            value = given
        if name in LAUNCH_COUNTS and not (value.isdigit() and int(value) > 0):
            return (
                f"{name} {value}: only a positive number means the same to both launchers "
                "(IPEX reads 0 as 'spread evenly')"
            )
        i += 1
    return "no program to launch is written out"


def _shell_tokens(text: str) -> list[str | None] | None:
    """The words of a shell command line (``None`` for a word with an expansion in it), up to
    the first operator; ``None`` when the line cannot be read (unbalanced quotes)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    words: list[str | None] = []
    try:
        for word in lexer:
            if word and set(word) <= set(";&|()<>"):
                break
            words.append(None if ("$" in word or "`" in word or "\x00" in word) else word)
    except ValueError:
        return None
    return words


def _logical_rest(lines: Sequence[str], index: int, start: int) -> str:
    """The text of line ``index`` from ``start`` on, with its ``\\`` continuation lines."""
    text = lines[index][start:]
    while text.rstrip("\r\n").endswith("\\") and index + 1 < len(lines):
        index += 1
        text = text.rstrip("\r\n")[:-1] + " " + lines[index]
    return text


def rewrite_launch_text(text: str) -> tuple[str, list[LaunchNote]]:
    """``text`` (a shell script, a Dockerfile, a command string) with each launcher command
    that can move rewritten, and a note for every launcher mention found."""
    lines = text.splitlines(keepends=True)
    notes: list[LaunchNote] = []
    for index, line in enumerate(lines):
        if line.lstrip().startswith("#") or not MENTION.search(line):
            continue
        new = _rewrite_line(lines, index, notes)
        if new is not None:
            lines[index] = new
        elif not any(n.line == index + 1 for n in notes):
            notes.append(
                LaunchNote(
                    index + 1,
                    False,
                    "the launcher is mentioned outside a command this fix recognises: "
                    "rewrite by hand if it is run",
                )
            )
    return "".join(lines), notes


def _rewrite_line(lines: list[str], index: int, notes: list[LaunchNote]) -> str | None:
    """Line ``index`` with its launcher commands rewritten, or ``None`` when none could be."""
    line = lines[index]
    if _EXEC_FORM.match(line):
        return _rewrite_exec_form(lines, index, notes)
    out: list[str] = []
    pos = 0
    changed = False
    matches = sorted(
        [(mt, True) for mt in _IPEXRUN_COMMAND.finditer(line)]
        + [(mt, False) for mt in _MODULE_COMMAND.finditer(line)],
        key=lambda pair: pair[0].start(),
    )
    for match, is_ipexrun in matches:
        tokens = _shell_tokens(_logical_rest(lines, index, match.end()))
        why = (
            "the command line cannot be read (unbalanced quotes)"
            if tokens is None
            else check_launch_args(tokens, after_ipexrun=is_ipexrun)
        )
        if why is not None:
            notes.append(LaunchNote(index + 1, False, why))
            continue
        end = match.end()
        if is_ipexrun and tokens and tokens[0] == "cpu":
            # NOTE: `ipexrun cpu ARGS` names IPEX's CPU launcher; run_cpu has no subcommand.
            subcommand = _CPU_SUBCOMMAND.match(line, end)
            if subcommand is None:
                notes.append(LaunchNote(index + 1, False, "`cpu` is not on the launcher's line"))
                continue
            end = subcommand.end()
        replacement = NEW_COMMAND if is_ipexrun else RUN_CPU
        out.append(line[pos : match.start()] + match.group("lead") + replacement)
        pos = end
        changed = True
        old = line[match.start() + len(match.group("lead")) : end].strip()
        # ipex-doctor: ignore[ipex-launcher] what the rewrite replaced, for its note
        old = " ".join(old.split()) if is_ipexrun else f"-m {IPEX_LAUNCH}"
        new = NEW_COMMAND if is_ipexrun else f"-m {RUN_CPU}"
        notes.append(LaunchNote(index + 1, True, f"{old} -> {new}"))
    if not changed:
        return None
    return "".join(out) + line[pos:]


def _rewrite_exec_form(lines: list[str], index: int, notes: list[LaunchNote]) -> str | None:
    """A Dockerfile ``CMD ["ipexrun", ...]`` (JSON exec form) on one line, rewritten."""
    line = lines[index]
    bracket = line.index("[")
    try:
        words = json.loads(_logical_rest(lines, index, bracket).strip())
    except ValueError:
        return None
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        return None
    # ipex-doctor: ignore[ipex-path-switch] the rewrite's own test for the launcher's word
    if IPEXRUN in words:
        at, after_ipexrun = words.index(IPEXRUN), True
        # ipex-doctor: ignore[ipex-launcher] the exec form's word the rewrite replaces
        old, new = f'"{IPEXRUN}"', f'"python", "-m", "{RUN_CPU}"'
        if words[at + 1 : at + 2] == ["cpu"]:
            old = _exec_form_pair(line, IPEXRUN, "cpu") or old
            if old == f'"{IPEXRUN}"':
                return None
    # ipex-doctor: ignore[ipex-path-switch] the rewrite's own test for the launcher's word
    elif IPEX_LAUNCH in words and words.index(IPEX_LAUNCH) > 0:
        at, after_ipexrun = words.index(IPEX_LAUNCH), False
        # ipex-doctor: ignore[ipex-launcher] the exec form's word the rewrite replaces
        old, new = f'"{IPEX_LAUNCH}"', f'"{RUN_CPU}"'
        if words[at - 1] != "-m":
            return None
    else:
        return None
    why = check_launch_args(words[at + 1 :], after_ipexrun=after_ipexrun)
    if why is not None:
        notes.append(LaunchNote(index + 1, False, why))
        return None
    if old not in line:
        return None
    notes.append(LaunchNote(index + 1, True, f"{old} -> {new}"))
    return line.replace(old, new, 1)


def _exec_form_pair(line: str, first: str, second: str) -> str | None:
    """The text of two adjacent JSON strings ``"first", "second"`` on ``line``, if there."""
    found = re.search(f'"{re.escape(first)}"\\s*,\\s*"{re.escape(second)}"', line)
    return found.group(0) if found else None
