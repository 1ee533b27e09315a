"""The parts of shell text that run: what ``text`` rules read in scripts, Dockerfiles, notebook
shell lines and the commands of CI files.

A shell line can mention IPEX without running it: a help text printed with ``echo``, a usage
message in a ``cat <<EOF`` here-document, a comment after the command. ``command_lines``
hands the rules each line with those parts blanked (replaced by spaces, so every column stays
where it was):

* a comment: a ``#`` that starts a word outside quotes, to the end of the line (a whole-line
  comment is dropped);
* the arguments of ``echo`` / ``printf`` in command position, to the end of that command,
  unless its output goes to a file (``>``, ``>>``, ``| tee``): then the text is written
  somewhere (a requirements file, a startup script) and is read;
* the body of a here-document read by ``cat`` to the terminal (``cat <<EOF``, no ``>``); one
  fed to anything else (``python - <<EOF``, ``cat > setup.sh <<EOF``) is read.

A variable set to what a rule finds (``ARG IPEX_EXTRA_INDEX_URL="https://pytorch-extension.
intel.com/..."``) carries it to the install commands that read it (``pip install
--extra-index-url ${IPEX_EXTRA_INDEX_URL} ...``): ``through_variables`` reports the rule there
too, at the variable.

NOTE: hand-written: a shell parser (bashlex) would be a dependency for three rules of thumb,
and it refuses much of what real scripts contain (Dockerfile ``RUN`` lines, ``${{ }}`` CI
expressions, zsh); this reads any text and only ever blanks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from ipex_doctor.scan.read.source import Hit, TextLine

_PRINTER = re.compile(
    r"(?:^|(?<=[;&|(){`])|(?<=\bthen)|(?<=\bdo)|(?<=\belse)|(?<=\bRUN))\s*(?:echo|printf)\b"
)
"""``echo`` or ``printf`` where a command starts: at the line's start, after an operator, a
``then`` / ``do`` / ``else`` or a Dockerfile ``RUN``."""
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][\w.-]*)\1")
_CAT_TO_TERMINAL = re.compile(r"^\s*(?:RUN\s+)?cat\s+<<(?![^\n]*>)")
"""A ``cat <<EOF`` whose output is not redirected (it prints the document)."""


def command_lines(lines: Iterable[TextLine]) -> Iterator[TextLine]:
    """``lines`` as the rules read them (see the module): comments, printed messages and
    printed here-documents blanked; a line left with nothing to read is dropped."""
    ending: str | None = None
    for line in lines:
        if ending is not None:
            if line.text.strip() == ending:
                ending = None
            continue
        heredoc = _HEREDOC.search(line.text)
        if heredoc is not None and _CAT_TO_TERMINAL.match(line.text):
            ending = heredoc.group(2)
        text = _blank_messages(line.text)
        if text.strip():
            yield line._replace(text=text)


def _blank_messages(text: str) -> str:
    """``text`` with its comment and the arguments of its printing commands blanked."""
    cut = _comment_start(text)
    if cut is not None:
        text = text[:cut] + " " * (len(text) - cut)
    for printer in reversed(list(_PRINTER.finditer(text))):
        start = printer.end()
        end, redirected = _command_end(text, start)
        if not redirected:
            text = text[:start] + " " * (end - start) + text[end:]
    return text


def _comment_start(text: str) -> int | None:
    """Where a ``#`` comment starts outside quotes (at the start of a word), or ``None``."""
    quote = ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                continue
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in " \t;&|("):
            return index
    return None


def _command_end(text: str, start: int) -> tuple[int, bool]:
    """Where the command that starts at ``start`` ends (an unquoted ``;``, ``&``, ``|`` or
    the line's end), and whether its output is redirected to a file (``>``, ``| tee``)."""
    quote = ""
    index = start
    while index < len(text):
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char == ">":
            return index, True
        elif char == "|":
            return index, bool(re.match(r"\|\s*(?:sudo\s+)?tee\b", text[index:]))
        elif char in ";&)":
            return index, False
        index += 1
    return index, False


_DEFINITION = re.compile(
    r"^\s*(?:(?:RUN\s+)?(?:ARG|ENV|export|declare|local|readonly)\s+)?([A-Za-z_]\w*)=\S"
)
"""A line that sets a variable: ``NAME=value``, after a Dockerfile ``ARG`` / ``ENV`` or a
shell's ``export``, ``declare``, ``local``, ``readonly``."""
_INSTALL = re.compile(r"(?i)\b(?:pip3?|uv|conda|mamba|micromamba)\b[^;&|]*?\b(?:install|add)\b")
"""A command that installs packages (the variable it reads is a package or an index)."""


def through_variables(hits: Sequence[Hit], lines: Sequence[TextLine]) -> list[Hit]:
    """``hits`` and, for each hit in the value a line sets a variable to, a hit of the same rule
    at each later reading of the variable (``$NAME``, ``${NAME}``) in an install command (on the
    install's line or a line it continues onto with ``\\``); ``lines`` as ``command_lines``
    gives them (what only prints reads nothing)."""
    carried: dict[str, tuple[str, int]] = {}
    """Each variable set to a hit's text: (the rule, the line that sets it)."""
    by_line: dict[int, list[Hit]] = {}
    for hit in hits:
        by_line.setdefault(hit.line, []).append(hit)
    for line in lines:
        definition = _DEFINITION.match(line.text) if line.line in by_line else None
        if definition is None:
            continue
        for hit in by_line[line.line]:
            if hit.column - line.column >= definition.end(1):
                carried[definition.group(1)] = (hit.rule_id, line.line)
                break
    if not carried:
        return list(hits)
    names = "|".join(carried)
    reading = re.compile(r"\$(?:\{(" + names + r")\}|(" + names + r")\b)")
    found = list(hits)
    installing = False
    for line in lines:
        installing = installing or _INSTALL.search(line.text) is not None
        if installing:
            for use in reading.finditer(line.text):
                rule_id, set_at = carried[use.group(1) or use.group(2)]
                there = {hit.rule_id for hit in by_line.get(line.line, ())}
                if line.line > set_at and rule_id not in there:
                    start, end = line.column + use.start(), line.column + use.end()
                    found.append(Hit(rule_id, use.group(0), line.line, start, line.line, end))
                    break  # NOTE: one finding of a rule and line, as for its own regex
        installing = installing and line.text.rstrip().endswith("\\")
    return found
