"""Python that shell text runs from a here-document: the program of ``python - <<'EOF'``.

A here-document fed to a Python interpreter that is given no script is the program itself, as
a ``*.py`` file is: a Slurm script's ``python3 - <<'PY'`` that imports IPEX, finds its
library folder and calls ``ipex.optimize``; a Dockerfile's ``RUN python3 <<EOF``; a CI step's
``run: |`` block that pipes ``cat <<EOF | python``. ``python_documents`` finds each one in the
lines of a POSIX shell script, a Dockerfile or a CI file's commands, so that the Python rules
read its body (``readers``) beside the shell rules that read its lines as commands.

Which interpreters: a word ``python``, ``python3``, ``python3.11`` (any folder before it,
quoted or not) or a variable whose name holds ``PYTHON`` (``$PYTHON``, ``"${PYTHON_BIN}"``),
whatever runs it (``srun``, ``conda run -n env``, ``uv run``, ``env X=1``). Only options may
follow it before the ``<<`` (``-u``, ``-X utf8``, redirections), or ``-`` and the program's own
arguments. ``python train.py <<EOF`` hands the document to a script as its input, and ``-c``
and ``-m`` take the program from elsewhere: none of those is Python source.

A body is placed where it stands in the file: each line at its own number, and its columns
where they are (a CI block's indentation is taken off to parse it and put back on every place
found). Where the delimiter is unquoted the shell expands the body's variables first
(``acc >= ${THRESHOLD}``): each ``$NAME`` and ``${...}`` is read as a name of underscores of its
own length, what the shell puts there being unknown. A body that still does not parse as
Python (a command substitution, a shell loop) is left to the shell rules, which read its lines
as they always have.

NOTE: hand-written for the reason ``shell_lines`` gives (no shell parser reads what real
scripts hold); this only recognises the opener of a document and where it ends.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple, overload

from ipex_doctor.scan.read.source import TextLine

_OPENER = re.compile(r"(?<!<)<<(-?)\s*(['\"]?)([A-Za-z_][\w.-]*)\2")
"""A here-document's operator and delimiter (not a ``<<<`` here-string)."""
_COMMAND_START = re.compile(r"\$\(|(?<![<>&])&(?!>)|[;|(`]")
"""Where a command starts: after an operator or a subshell's opening (not the ``&`` of a
redirection: ``2>&1``, ``&>log``)."""
_INTERPRETER = re.compile(
    r"(?:[^\s\"'/]*/)*(?:python(?:\d+(?:\.\d+)*)?|\$\{?[A-Za-z_0-9]*PYTHON[A-Za-z_0-9]*"
    r"(?::-[^}]*)?\}?)",
    re.IGNORECASE,
)
"""A Python interpreter's word, quotes taken off: a path to ``python``, ``python3``,
``python3.11``, or a variable named for one (``$PYTHON``, ``${PYTHON_BIN:-python3}``)."""
_TAKES_ARGUMENT = frozenset("XWQ")
"""Options whose value is the next word (``-X utf8``, ``-W ignore``)."""
_NOT_A_PROGRAM = frozenset("cm")
"""Options after which the program comes from elsewhere (``-c CODE``, ``-m MODULE``)."""
_EXPANSION = re.compile(r"(?<!\\)\$(?:\{[^}\n]*\}|[A-Za-z_]\w*|[0-9@*#?$!-])")
"""A parameter expansion the shell makes in a document whose delimiter is unquoted."""
_PIPED_TO = re.compile(r"^[^|]*\|\s*(?P<command>[^|;&]*?)\s*(?:[;&|]|$)")
"""What the command the here-document feeds pipes into (``cat <<EOF | python3 -``)."""


class PythonDocument(NamedTuple):
    """One here-document that a Python interpreter runs as its program."""

    opener: int
    """The file's line of the command that opens it."""
    source: str
    """The body as Python source, its common indentation taken off; its line 1 is the file's
    line ``offset + 1``."""
    offset: int
    """The file's lines before the body's first: add it to a line of ``source``."""
    lines: Sequence[str]
    """The file's lines as the Python rules read them (``lines[n - 1]`` is line ``n``): the
    body's where it stands, nothing before it (``Placed``)."""
    indent: int
    """The columns taken off every line of the body."""

    def column(self, line: int, column: int) -> int:
        """The file's column of ``column`` on the body's ``line`` (a line of the file)."""
        return column + self.indent if line > self.opener else column


class Placed(Sequence[str]):
    """A body's lines at their numbers in the file, the lines before it empty and not stored:
    a list of them for every document made a script of thousands of documents quadratic in
    time and memory (8,000 one-line documents: 14 s and 1.2 GB)."""

    __slots__ = ("_body", "_offset")

    def __init__(self, offset: int, body: list[str]) -> None:
        self._offset = offset
        self._body = body

    def __len__(self) -> int:
        return self._offset + len(self._body)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._body[index - self._offset] if index >= self._offset else ""

    def __iter__(self) -> Iterator[str]:
        return itertools.chain(itertools.repeat("", self._offset), self._body)


def python_documents(lines: Iterable[TextLine]) -> list[PythonDocument]:
    """The here-documents in ``lines`` (a POSIX shell script's, a Dockerfile's or a CI file's
    commands, with their numbers in the file) that a Python interpreter runs (see the
    module). A document that never ends (its delimiter never comes) is none."""
    numbered = list(lines)
    found: list[PythonDocument] = []
    index = 0
    while index < len(numbered):
        line = numbered[index]
        index += 1
        if line.text.lstrip().startswith("#"):
            continue
        opened = _OPENER.search(line.text)
        if opened is None:
            continue
        ending, tabs, expands = opened.group(3), opened.group(1) == "-", not opened.group(2)
        close = _closing(numbered, index, ending, tabs)
        if close is None:
            continue
        body, index = numbered[index:close], close + 1
        if _runs_python(line.text, opened):
            found.append(_document(line.line, body, expands=expands))
    return found


def _closing(lines: Sequence[TextLine], start: int, ending: str, tabs: bool) -> int | None:
    """The index of the line that ends the document opened before ``start``, or ``None``."""
    for index in range(start, len(lines)):
        text = lines[index].text
        # NOTE: a CI block's lines keep the YAML indentation the shell never sees
        if (text.lstrip("\t") if tabs else text).strip() == ending:
            return index
    return None


def _runs_python(text: str, opened: re.Match[str]) -> bool:
    """Whether the document opened by ``opened`` on ``text`` is a Python interpreter's
    program: fed to one that has no script, directly or through a pipe."""
    before = text[: opened.start()]
    if before.count('"') % 2 or before.count("'") % 2:
        return False  # NOTE: "<<" inside a quoted string (a message) opens nothing
    starts = list(_COMMAND_START.finditer(before))
    command = before[starts[-1].end() :] if starts else before
    if _program_of(command.split()):
        return True
    piped = _PIPED_TO.match(text[opened.end() :])
    return piped is not None and _program_of(piped.group("command").split())


def _program_of(words: Sequence[str]) -> bool:
    """Whether ``words`` (a command, up to the ``<<``) run a Python interpreter whose program
    is its standard input: the interpreter, then only options (and redirections), or ``-``
    and the program's own arguments."""
    at = next(
        (i for i, word in enumerate(words) if _INTERPRETER.fullmatch(word.strip("\"'"))), None
    )
    if at is None:
        return False
    rest = iter(words[at + 1 :])
    for word in rest:
        if word == "-":
            return True
        if ">" in word or word.startswith("<"):
            continue  # a redirection (2>&1, >log)
        if word.startswith("--"):
            continue  # a long option (--check-hash-based-pycs always)
        if not word.startswith("-"):
            return False  # a script: the document is its input
        letters = word[1:]
        if _NOT_A_PROGRAM & set(letters):
            return False
        if letters[-1:] in _TAKES_ARGUMENT:
            next(rest, None)
    return True


def _document(opener: int, body: Sequence[TextLine], *, expands: bool) -> PythonDocument:
    """The document opened at line ``opener`` whose body is ``body``, its parameter expansions
    read as names when the shell ``expands`` them (see the module)."""
    if expands:
        body = [line._replace(text=_EXPANSION.sub(_unknown, line.text)) for line in body]
    texts = [line.text for line in body]
    widths = [len(text) - len(text.lstrip()) for text in texts if text.strip()]
    indent = min(widths, default=0)
    offset = body[0].line - 1 if body else opener
    lines: list[str] = []
    # NOTE: a line the reader left out inside the body (none is, today) keeps its place empty
    for line in body:
        while len(lines) < line.line - 1 - offset:
            lines.append("")
        lines.append(line.text[indent:])
    source = "\n".join(lines) + "\n"
    return PythonDocument(opener, source, offset, Placed(offset, lines), indent)


def _unknown(expansion: re.Match[str]) -> str:
    """A name as long as ``expansion``: what the shell puts there is not known here."""
    return "_" * len(expansion.group())
