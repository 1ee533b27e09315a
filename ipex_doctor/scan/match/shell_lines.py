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

NOTE: hand-written: a shell parser (bashlex) would be a dependency for three rules of thumb,
and it refuses much of what real scripts contain (Dockerfile ``RUN`` lines, ``${{ }}`` CI
expressions, zsh); this reads any text and only ever blanks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ipex_doctor.scan.read.source import TextLine

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
