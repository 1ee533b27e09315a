"""Python that shell text runs from a here-document or a ``-c`` string: the program of
``python - <<'EOF'`` and of ``python -c "..."``.

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

The same goes for the program a ``-c`` option gives in quotes, on one line or over many
(``python3 -c "`` on a line of its own, then the verification code, then the closing quote: a
common way to check an install). In double quotes the shell takes the backslash off ``\\"``,
``\\\\``, ``\\$`` and ``\\```, and expands ``$NAME``; in single quotes nothing. ``-c "$CODE"``
reads as a name and matches nothing.

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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple, overload

from ipex_doctor.scan.read.source import TextLine, escaped

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


_C_OPTION = re.compile(r"(?<![^\s;&|(`])-c\s*([\"'])")
"""A ``-c`` option whose program follows in quotes (a word of its own: not ``--check``)."""
_COMMAND_WINDOW = 512
"""How far back from a ``-c`` its interpreter and options are looked for: farther than any
real command's interpreter path and options reach."""
_DOUBLE_QUOTED_ESCAPES = frozenset('"\\$`')
"""What a backslash escapes inside double quotes (it stays before anything else)."""
_NO_ESCAPES: Mapping[int, tuple[int, ...]] = MappingProxyType({})


class PythonDocument(NamedTuple):
    """One program a Python interpreter runs from shell text: a here-document or a ``-c``
    string."""

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
    """The columns taken off every line of the body after the opener's."""
    start: int = 0
    """Where a ``-c`` program starts on the opener's line (a here-document's starts on the next
    line)."""
    escapes: Mapping[int, tuple[int, ...]] = _NO_ESCAPES
    """By line of the file, the columns of the body's line (before ``indent`` is taken off) of
    each character whose backslash the shell took off (a double-quoted ``-c`` program's
    ``\\"``)."""

    def column(self, line: int, column: int) -> int:
        """The file's column of ``column`` on the body's ``line`` (a line of the file)."""
        if line > self.opener:
            column += self.indent
        column += sum(1 for at in self.escapes.get(line, ()) if at <= column)
        return column + self.start if line == self.opener else column


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
            program = _c_program(numbered, index - 1)
            if program is not None:
                document, index = program
                found.extend(document)
            continue
        ending, tabs, expands = opened.group(3), opened.group(1) == "-", not opened.group(2)
        close = _closing(numbered, index, ending, tabs)
        if close is None:
            continue
        body, index = numbered[index:close], close + 1
        if _runs_python(line.text, opened):
            found.append(_document(line.line, body, expands=expands))
    return found


def _c_program(lines: Sequence[TextLine], at: int) -> tuple[list[PythonDocument], int] | None:
    """The ``-c`` programs that start on ``lines[at]`` (see the module) and the index of the
    line to read next: the one after the last program's closing quote. ``None`` when the line
    gives none; a quote that never closes gives none either, and reading goes on at the next
    line."""
    text = lines[at].text
    found: list[PythonDocument] = []
    search_from = 0
    # NOTE: what lies before each option is read once, not again for every option after it,
    # and a command is read back from its -c at most _COMMAND_WINDOW characters: a hostile
    # line of many thousand "-c" options would cost the square of its length
    read_to = doubles = singles = command = 0
    while (option := _C_OPTION.search(text, search_from)) is not None:
        doubles += text.count('"', read_to, option.start())
        singles += text.count("'", read_to, option.start())
        for start in _COMMAND_START.finditer(text, read_to, option.start()):
            command = start.end()
        read_to, search_from = option.start(), option.end()
        words = text[max(command, option.start() - _COMMAND_WINDOW) : option.start()]
        if doubles % 2 or singles % 2 or not _runs_c(words):
            continue  # NOTE: a -c inside quotes (a message) or given to another program
        closed = _closing_quote(lines, at, option.end(), option.group(1))
        if closed is None:
            break
        end_at, end_column = closed
        found.append(_c_document(lines, at, option.end(), closed, option.group(1)))
        if end_at != at:
            return found, end_at + 1
        search_from = end_column + 1
    return (found, at + 1) if found else None


def _runs_c(command: str) -> bool:
    """Whether ``command`` (up to a ``-c``; its first word may be cut) is a Python interpreter
    given only options up to there."""
    rest = _after_interpreter(command.split())
    if rest is None:
        return False
    for word in rest:
        if not word.startswith("-") or word == "-" or _NOT_A_PROGRAM & set(word[1:]):
            return False  # NOTE: a script, or -m: the -c after it is that program's
        if word[-1:] in _TAKES_ARGUMENT:
            next(rest, None)
    return True


def _closing_quote(
    lines: Sequence[TextLine], at: int, column: int, quote: str
) -> tuple[int, int] | None:
    """Where the quote opened before ``column`` on ``lines[at]`` closes: the index of its line
    and its column there, or ``None`` when it never does."""
    for index in range(at, len(lines)):
        text = lines[index].text
        position = column if index == at else 0
        while (position := text.find(quote, position)) != -1:
            if quote == "'" or not escaped(text, position):
                return index, position
            position += 1
    return None


def _c_document(
    lines: Sequence[TextLine], at: int, column: int, closed: tuple[int, int], quote: str
) -> PythonDocument:
    """The ``-c`` program whose quote opens before ``column`` on ``lines[at]`` and closes at
    ``closed``, its escapes and expansions read as the shell reads them in double quotes."""
    end_at, end_column = closed
    texts: list[str] = []
    escapes: dict[int, tuple[int, ...]] = {}
    for index in range(at, end_at + 1):
        raw = lines[index].text
        raw = raw[column if index == at else 0 : end_column if index == end_at else len(raw)]
        if quote == '"':
            raw, removed = _unescaped(raw)
            if removed:
                escapes[lines[index].line] = removed
        texts.append(raw)
    widths = [len(text) - len(text.lstrip()) for text in texts[1:] if text.strip()]
    indent = min(widths, default=0)
    body = [texts[0], *(text[indent:] for text in texts[1:])]
    opener = lines[at].line
    source = "\n".join(body) + "\n"
    return PythonDocument(
        opener,
        source,
        opener - 1,
        Placed(opener - 1, body),
        indent,
        lines[at].column + column,
        MappingProxyType(escapes) if escapes else _NO_ESCAPES,
    )


def _unescaped(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` (a line of a double-quoted string) as the shell hands it on: each escaped
    character without its backslash, each expansion a name of its own length; and the columns
    (in the result) of the characters whose backslash was taken off."""
    out: list[str] = []
    removed: list[int] = []
    position = 0
    while position < len(text):
        character = text[position]
        if character == "\\" and text[position + 1 : position + 2] in _DOUBLE_QUOTED_ESCAPES:
            removed.append(len(out))
            out.append(text[position + 1])
            position += 2
            continue
        if character == "$":
            expansion = _EXPANSION.match(text, position)
            if expansion is not None:
                out.append(_unknown(expansion))
                position = expansion.end()
                continue
        out.append(character)
        position += 1
    return "".join(out), tuple(removed)


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
    if _program_of(_last_command(before).split()):
        return True
    piped = _PIPED_TO.match(text[opened.end() :])
    return piped is not None and _program_of(piped.group("command").split())


def _program_of(words: Sequence[str]) -> bool:
    """Whether ``words`` (a command, up to the ``<<``) run a Python interpreter whose program
    is its standard input: the interpreter, then only options (and redirections), or ``-``
    and the program's own arguments."""
    rest = _after_interpreter(words)
    if rest is None:
        return False
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


def _last_command(before: str) -> str:
    """The last command that ``before`` (a line up to some place) holds: what follows its last
    operator or subshell opening."""
    starts = list(_COMMAND_START.finditer(before))
    return before[starts[-1].end() :] if starts else before


def _after_interpreter(words: Sequence[str]) -> Iterator[str] | None:
    """The words after the first that names a Python interpreter (quotes taken off), or
    ``None`` when none does."""
    at = next(
        (i for i, word in enumerate(words) if _INTERPRETER.fullmatch(word.strip("\"'"))), None
    )
    return None if at is None else iter(words[at + 1 :])


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
