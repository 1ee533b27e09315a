"""The parts of shell text that run: what ``text`` rules read in scripts, Dockerfiles, notebook
shell lines and the commands of CI files.

A shell line can mention IPEX without running it: a help text printed with ``echo``, a usage
message in a ``cat <<EOF`` here-document, a comment after the command. ``command_lines``
hands the rules each line with those parts blanked (replaced by spaces, so every column stays
where it was):

* a comment: a ``#`` that starts a word outside quotes, to the end of the line (a whole-line
  comment is dropped);
* the arguments of ``echo`` / ``printf`` in command position, to the end of that command (and
  of the script's own functions that only print: ``fail() { echo "[FAIL] $1"; }``, whose
  every command is a console ``echo`` / ``printf``, an assignment, ``return`` or ``exit``),
  unless its output goes to a file that is read (``>``, ``>>``, ``| tee``: a list the script
  hands to pip, a requirement list, a script, a startup file; ``write_targets``): then the
  text is written somewhere that runs or installs it; to ``/dev/null``, the error stream, a
  log or a document it is a message;
* the body of a here-document that ``cat`` (or ``tee``) writes to the terminal (``cat <<EOF``)
  or to a file that is not read (``cat <<EOF >> install.log``); one fed to anything else
  (``python - <<EOF``) or written to a file that is read (``cat > setup.sh <<EOF``) is read.

A variable set to what a rule finds (``ARG IPEX_EXTRA_INDEX_URL="https://pytorch-extension.
intel.com/..."``) carries it to the install commands that read it (``pip install
--extra-index-url ${IPEX_EXTRA_INDEX_URL} ...``): ``through_variables`` reports the rule there
too, at the variable.

Windows installers (``kinds.ShellDialect``) are read the same way, in their own words:

* PowerShell: ``#`` comments and ``<# ... #>`` blocks; ``echo`` and any ``Write-*`` command
  (``Write-Host``, ``Write-Output``, an installer's own ``Write-Info``) print, unless piped to
  ``Out-File`` / ``Set-Content`` / ``Add-Content`` / ``Tee-Object`` or redirected (``>``,
  ``*>``) to a file that is read; a string or here-string (``@" ... "@``) piped or redirected
  to a file, the value of ``Set-Content`` / ``Add-Content`` and ``[IO.File]::WriteAllText``'s
  text are read where that file is, a message where it is not (a log, ``$null``,
  ``Out-Null``); a here-string given to a printer is a message; a backtick escapes inside
  double quotes and continues a line; variables are set with ``$NAME = ...`` / ``$env:NAME =
  ...``.
* batch: ``REM`` and ``::`` comments (``#`` is no comment there); ``echo`` prints, after
  ``&``, ``|``, ``(``, ``else``, ``do`` or an ``if`` condition, unless its output, or that of
  the ``(`` ... ``)`` group it is in (over as many lines as the group spans), goes to a file
  that is read: a list the script hands to pip (``-r``), or a file whose name the scan reads
  (``requirements-xpu.txt``, a script, a config); to the console, ``nul``, the error stream
  or a log it is a message; only ``"`` quotes and ``^`` escapes; ``^`` continues a line;
  ``set NAME=...`` / ``set "NAME=..."`` sets a variable, ``%NAME%`` / ``!NAME!`` reads it.

NOTE: hand-written: a shell parser (bashlex) would be a dependency for three rules of thumb,
and it refuses much of what real scripts contain (Dockerfile ``RUN`` lines, ``${{ }}`` CI
expressions, zsh); this reads any text and only ever blanks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from ipex_doctor.lazy_pattern import LazyPattern
from ipex_doctor.scan.match.write_targets import (
    ReadTargets,
    lists_handed_to_pip,
    written_for_reading,
)
from ipex_doctor.scan.read.kinds import ShellDialect
from ipex_doctor.scan.read.source import Hit, TextLine

_COMMAND_POSITION = r"(?:^|(?<=[;&|(){`])|(?<=\bthen)|(?<=\bdo)|(?<=\belse)|(?<=\bRUN))\s*"
"""Where a command starts: at the line's start, after an operator, a ``then`` / ``do`` /
``else`` or a Dockerfile ``RUN``."""
_PRINTER = re.compile(_COMMAND_POSITION + r"(?:echo|printf)\b")
"""``echo`` or ``printf`` where a command starts."""
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][\w.-]*)\1")
_DOCUMENT_READER = LazyPattern(r"^\s*(?:RUN\s+)?(?:sudo\s+)?(cat|tee)\b(?=[^\n]*<<)")
"""A here-document's reader that writes it out (``cat``, ``tee``): where it writes decides."""


def command_lines(
    lines: Iterable[TextLine], dialect: ShellDialect = ShellDialect.POSIX
) -> Iterator[TextLine]:
    """``lines`` as the rules read them (see the module): comments, printed messages and
    printed here-documents blanked; a line left with nothing to read is dropped.

    Reads the whole file first: whether a written file is read may depend on a later line
    (``pip install -r req.txt`` after the ``echo`` that writes it)."""
    numbered = list(lines)
    if dialect is ShellDialect.POWERSHELL:
        yield from _powershell_lines(numbered)
        return
    if dialect is ShellDialect.BATCH:
        yield from _batch_lines(numbered)
        return
    reads = ReadTargets([line.text for line in numbered], ShellDialect.POSIX, _uncommented)
    printer = _printer_with(_printing_functions(numbered))
    ending: str | None = None
    for line in numbered:
        if ending is not None:
            if line.text.strip() == ending:
                ending = None
            continue
        heredoc = _HEREDOC.search(line.text)
        if heredoc is not None and _prints_document(line.text, reads):
            ending = heredoc.group(2)
        text = _blank_messages(line.text, reads, printer)
        if text.strip():
            yield line._replace(text=text)


def _uncommented(text: str, escape: str = "", after: str = " \t;&|(") -> str:
    """``text`` without its ``#`` comment."""
    cut = _comment_start(text, escape, after)
    return text if cut is None else text[:cut]


def _prints_document(text: str, reads: ReadTargets) -> bool:
    """Whether the here-document opened on ``text`` is a message: read by ``cat`` (or
    ``tee``) whose output goes to the console (``cat <<EOF``, ``cat <<EOF | ...``), or only
    to files that are not read (``cat <<EOF >> install.log``, ``cat <<EOF | tee setup.log``).
    One fed to anything else (``python - <<EOF``) or written to a file that is read (``cat >
    requirements.txt <<EOF``) is read."""
    reader = _DOCUMENT_READER.match(text)
    if reader is None:
        return False
    _, targets = _command_end(text, reader.end())
    if reader.group(1).lower() == "tee":
        targets += _tee_files(text, reader.end())
    elif not targets and _HEREDOC_PIPED.search(text) and not _TEE.search(text):
        return True  # NOTE: piped to another program: as this reader has always read it
    return not reads(targets)


def _blank_messages(text: str, reads: ReadTargets, printer: re.Pattern[str] = _PRINTER) -> str:
    """``text`` with its comment and the arguments of its printing commands blanked."""
    return _blanked(
        text,
        _comment_start(text),
        printer,
        _command_end,
        reads,
    )


_FUNCTION_OPENS = re.compile(
    r"^\s*(?:function\s+(?P<keyword>[A-Za-z_][\w-]*)\s*(?:\(\s*\))?|(?P<name>[A-Za-z_][\w-]*)\s*\(\s*\))"
    r"\s*\{(?P<body>.*)$"
)
"""A function definition's opening: ``name() {`` or ``function name {``, and what follows."""
_QUIET_COMMAND = re.compile(r"(?:[A-Za-z_]\w*=\S*|return(?:\s+\S+)?|exit(?:\s+\S+)?|:)")
"""A command of a printing function that prints nothing and runs nothing: an assignment (a
failure counter), ``return``, ``exit``, ``:``."""
_CONSOLE = frozenset({"&1", "&2", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/null"})
"""Where a printing function's ``echo`` may write and still only print."""
_FUNCTION_LINES = 12
"""How many lines a printing function's body may have (a helper's few ``echo`` lines)."""
_PRINTING_FUNCTIONS = 64
"""How many printing functions a script's are taken as (a real script has a few): a hostile
one of thousands would make every line's search try each name."""


def _printing_functions(numbered: Sequence[TextLine]) -> frozenset[str]:
    """The names of the script's functions that only print to the console (see the module):
    a call of one is a message, as ``echo`` is."""
    names: set[str] = set()
    for index, line in enumerate(numbered):
        opened = _FUNCTION_OPENS.match(_uncommented(line.text))
        if opened is None:
            continue
        body, rest = opened.group("body"), numbered[index + 1 : index + 1 + _FUNCTION_LINES]
        if "}" not in body:
            closing = next((i for i, later in enumerate(rest) if later.text.strip() == "}"), None)
            if closing is None:
                continue
            body = "; ".join(_uncommented(later.text) for later in rest[:closing]) + "}"
        body = body[: body.rfind("}")]
        if _only_prints(body, names):
            names.add(opened.group("keyword") or opened.group("name"))
            if len(names) == _PRINTING_FUNCTIONS:
                break  # NOTE: a call of a later one is read as a command: reported, not lost
    return frozenset(names)


def _only_prints(body: str, printers: set[str]) -> bool:
    """Whether every command of ``body`` (a function's, on one line) prints to the console or
    is quiet (``_QUIET_COMMAND``), and one prints."""
    prints = False
    for command in _commands_of(body):
        word = command.split(None, 1)[0]
        if word in ("echo", "printf") or word in printers:
            _, targets = _command_end(command, 0)
            if not _CONSOLE.issuperset(targets) or _OPERATOR.search(_unquoted(command)):
                return False  # NOTE: written to a file (which may be read), or piped on
            prints = True
        elif not _QUIET_COMMAND.fullmatch(command):
            return False
    return prints


_OPERATOR = re.compile(r"\||(?<![<>])&(?!>)")
"""A pipe or a list operator (``|``, ``&&``, ``&``), not a redirection's ``>&2`` or ``&>``."""


def _unquoted(command: str) -> str:
    """``command`` with what its quotes hold taken out."""
    return re.sub(r"'[^']*'|\"(?:\\.|[^\"\\])*\"", "", command)


def _commands_of(body: str) -> Iterator[str]:
    """The commands of ``body`` split at each ``;`` outside quotes and parentheses (a failure
    counter's ``$((n+1))``), stripped, empty ones left out."""
    depth, quote, start = 0, "", 0
    for index, char in enumerate(body):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == ";" and depth == 0:
            if body[start:index].strip():
                yield body[start:index].strip()
            start = index + 1
    if body[start:].strip():
        yield body[start:].strip()


def _printer_with(functions: frozenset[str]) -> re.Pattern[str]:
    """``_PRINTER``, with the script's own printing ``functions`` as printing commands."""
    if not functions:
        return _PRINTER
    names = "|".join(re.escape(name) for name in sorted(functions, key=len, reverse=True))
    return re.compile(_COMMAND_POSITION + rf"(?:(?:echo|printf)\b|(?:{names})(?![\w-]))")


def _blanked(
    text: str,
    cut: int | None,
    printer: re.Pattern[str] | LazyPattern[str],
    command_end: Callable[[str, int], tuple[int, tuple[str, ...]]],
    reads: Callable[[tuple[str, ...]], bool],
) -> str:
    """``text`` blanked from ``cut`` (its comment) on, and in the arguments of every command
    ``printer`` finds up to where ``command_end`` says it ends, unless its output goes to a file
    that ``reads`` says is read (what is written there is): one way for every dialect, each
    with its own grammar."""
    if cut is not None:
        text = text[:cut] + " " * (len(text) - cut)
    for found in reversed(list(printer.finditer(text))):
        start = found.end()
        end, targets = command_end(text, start)
        if not reads(targets):
            text = text[:start] + " " * (end - start) + text[end:]
    return text


def _comment_start(text: str, escape: str = "", after: str = " \t;&|(") -> int | None:
    """Where a ``#`` comment starts outside quotes (at the start of a word: the line's start or
    after one of ``after``), or ``None``; ``escape`` (PowerShell's backtick) escapes a quote
    inside double quotes (none for POSIX shell, as this reader has always read it)."""
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
            elif char == escape and quote == '"':
                index += 1
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in after):
            return index
        index += 1
    return None


_POSIX_REDIRECT = LazyPattern(r">>?\|?\s*(&[0-9-]|\"[^\"]*\"|'[^']*'|[^\s;&|<>()]+)")
"""A redirection from its ``>``, and its target (a file, or ``&2``: another stream)."""
_TEE = LazyPattern(r"\|\s*(?:sudo\s+(?:-\S+\s+)*)?tee\b")
_HEREDOC_PIPED = LazyPattern(r"<<[^|]*\|")
_WORD = LazyPattern(r"\s*(\"[^\"]*\"|'[^']*'|[^\s;&|<>()]+)")


def _command_end(text: str, start: int) -> tuple[int, tuple[str, ...]]:
    """Where the command that starts at ``start`` ends (an unquoted ``;``, ``&``, ``|`` or the
    line's end; its first output redirection ends its arguments), and the files its output
    goes to (``> file``, ``>> file``, ``| tee file``; ``>&2`` is the error stream; ``2>`` sends
    only errors elsewhere): none, the console."""
    quote = ""
    index = start
    end: int | None = None
    targets: list[str] = []
    while index < len(text):
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char == ">":
            stream = text[index - 1] if index > start and text[index - 1].isdigit() else ""
            redirect = _POSIX_REDIRECT.match(text, index)
            if redirect is not None:
                if stream in ("", "1"):
                    targets.append(redirect.group(1))
                    end = index - len(stream) if end is None else end
                index = redirect.end()
                continue
        elif char == "|":
            if (tee := _TEE.match(text, index)) is not None:
                targets += _tee_files(text, tee.end())
            return (index if end is None else end), tuple(targets)
        elif char in ";&)":
            return (index if end is None else end), tuple(targets)
        index += 1
    return (index if end is None else end), tuple(targets)


def _tee_files(text: str, start: int) -> tuple[str, ...]:
    """The files of a ``tee`` whose arguments start at ``start`` (its options left out)."""
    files: list[str] = []
    while (word := _WORD.match(text, start)) is not None:
        if not word.group(1).startswith("-"):
            files.append(word.group(1))
        start = word.end()
    return tuple(files)


# -- PowerShell ------------------------------------------------------------------------------

_PS_PRINTER = LazyPattern(r"(?i)(?:^|(?<=[;|({}&]))\s*(?:echo|write(?:-\w+)?)(?![\w-])")
"""A PowerShell command that prints: ``echo``, ``Write`` or any ``Write-*`` (the standard
``Write-Host`` / ``Write-Output`` / ``Write-Warning``..., and an installer's own ``Write-Info``,
which by PowerShell's verb convention writes to the user), where a command starts."""
_PS_WRITER = LazyPattern(r"(?i)\|\s*(out-file|set-content|add-content|tee-object|tee|out-null)\b")
"""A pipe into a command that writes what it is given to a file (or throws it away)."""
_PS_WRITE_COMMAND = LazyPattern(
    r"(?i)(?:^|(?<=[;({}&]))\s*(?:set-content|add-content|out-file|tee-object)(?![\w-])"
)
"""A command that writes its own ``-Value`` / ``-InputObject`` to a file, where a command
starts (after a pipe it writes what it is given: ``_PS_WRITER``)."""
_PS_STRING_STATEMENT = LazyPattern(r"(?:^|(?<=[;({]))\s*(?=[\"'])")
"""A statement that is a string (its value goes to the output, or where a pipe sends it)."""
_PS_FILE_API = LazyPattern(r"(?i)\[(?:System\.)?IO\.File\]::(?:Write|Append)All(?:Text|Lines)\s*\(")
""".NET's own file writers: ``[IO.File]::WriteAllLines(path, lines)`` and its kin."""
_PS_PATH_PARAMETERS = frozenset({"filepath", "path", "literalpath", "pspath"})
_PS_SWITCHES = frozenset(
    {"append", "force", "noclobber", "nonewline", "passthru", "whatif", "confirm", "asbytestream"}
)
"""The writers' parameters that take no value."""
_PS_WORD_START = " \t;&|({"
"""What a ``#`` follows where it starts a comment (at a token's start)."""
_PS_HERE_STRING = LazyPattern(r"@([\"'])\s*$")
"""A here-string opens at the end of a line (``@"`` or ``@'``); its closing quote and ``@``
start a line of their own."""


def _powershell_lines(numbered: Sequence[TextLine]) -> Iterator[TextLine]:
    """PowerShell's ``command_lines``: block comments and printed here-strings dropped, each
    line's comment and printed arguments blanked, and what is written to a file that is not
    read (a log, ``$null``) blanked too. Reads the whole file first: a here-string's file is
    named on its closing line, a list is handed to pip after it is written."""
    reads = ReadTargets(
        [line.text for line in numbered],
        ShellDialect.POWERSHELL,
        lambda text: _uncommented(text, "`", _PS_WORD_START),
    )
    in_block = False
    closing: str | None = None
    """The line that closes the here-string being read (``"@`` or ``'@``)."""
    printed = False
    """Whether that here-string is a message (printed, or written where nothing reads it)."""
    for index, line in enumerate(numbered):
        text = line.text
        if closing is not None:
            if text.startswith(closing):
                closing = None
            elif not printed:
                yield line
            continue
        text, in_block = _blank_block_comments(text, in_block)
        opening = _PS_HERE_STRING.search(text)
        if (
            opening is not None
            and _quote_state(text[: opening.start()], "`") == ""
            and _comment_start(text[: opening.start()], escape="`", after=_PS_WORD_START) is None
        ):
            closing = opening.group(1) + "@"
            after = next(
                (
                    later.text[2:]
                    for later in numbered[index + 1 :]
                    if later.text.startswith(closing)
                ),
                "",
            )
            printed = _here_string_is_message(text[: opening.start()], after, reads)
        text = _blank_powershell(text, reads)
        if text.strip():
            yield line._replace(text=text)


def _here_string_is_message(before: str, after: str, reads: ReadTargets) -> bool:
    """Whether a here-string opened after ``before`` and closed before ``after`` (the rest of
    its closing line) is a message: a printer's argument or a string statement whose output
    goes nowhere that is read, or the value a writer puts in a file that is not read. One
    assigned (``$req = @"``) or handed to a program (``python -c @"``) is read."""
    _, targets = _powershell_command_end(after, 0)
    if _PS_PRINTER.search(before) is not None:
        return not reads(targets)
    writer = _PS_WRITE_COMMAND.search(before)
    if writer is not None:
        targets += _powershell_path(before, writer.end())
        return bool(targets) and not reads(targets)
    if before.strip() in ("", "("):
        return bool(targets) and not reads(targets)
    return False


def _blank_block_comments(text: str, in_block: bool) -> tuple[str, bool]:
    """``text`` with the parts of ``<# ... #>`` comments on it blanked, and whether a block
    comment is still open at its end (``in_block``: one was open at its start)."""
    index = 0
    while True:
        if in_block:
            search_from = index
        else:
            start = text.find("<#", index)
            if start < 0 or _quote_state(text[:start], "`") != "":
                return text, False
            if _comment_start(text[:start], escape="`", after=_PS_WORD_START) is not None:
                return text, False  # NOTE: "<#" inside a line comment opens nothing
            index, search_from = start, start + 2
        end = text.find("#>", search_from)
        stop = len(text) if end < 0 else end + 2
        text = text[:index] + " " * (stop - index) + text[stop:]
        if end < 0:
            return text, True
        in_block, index = False, stop


def _blank_powershell(text: str, reads: ReadTargets) -> str:
    """A PowerShell line with its ``#`` comment and printed arguments blanked, and what it
    writes to a file that is not read: a string piped or redirected there, a writer's value,
    ``[IO.File]::WriteAllText``'s text."""
    cut = _comment_start(text, escape="`", after=_PS_WORD_START)
    text = _blanked(text, cut, _PS_PRINTER, _powershell_command_end, reads)
    # NOTE: a string statement with no file after it is read as before (an array's item, a
    # function's value): only one sent to a file that is not read is a message
    text = _blanked(
        text, None, _PS_STRING_STATEMENT, _powershell_command_end, lambda t: not t or reads(t)
    )
    text = _blanked(text, None, _PS_WRITE_COMMAND, _powershell_writer_end, reads)
    return _blanked(text, None, _PS_FILE_API, _file_api_end, reads)


def _powershell_command_end(text: str, start: int) -> tuple[int, tuple[str, ...]]:
    """Where the PowerShell command at ``start`` ends (an unquoted ``;``, ``|``, ``}``, ``)``
    or the line's end; its first output redirection ends its arguments), and the files its
    output goes to (``> file``, ``*> $null``, ``| Out-File file``, ``| Out-Null``; ``2>``
    sends only errors elsewhere): none, the console or another command."""
    quote = ""
    index = start
    end: int | None = None
    targets: list[str] = []
    while index < len(text):
        char = text[index]
        if char == "`":
            index += 2
            continue
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == ">":
            stream = text[index - 1] if index > start and text[index - 1] in "0123456*" else ""
            redirect = _PS_REDIRECT.match(text, index)
            if redirect is not None:
                if stream in ("", "1", "*"):
                    targets.append(redirect.group(1))
                    end = index - len(stream) if end is None else end
                index = redirect.end()
                continue
        elif char == "|":
            writer = _PS_WRITER.match(text, index)
            if writer is not None:
                if writer.group(1).lower() == "out-null":
                    targets.append("$null")
                else:
                    targets += _powershell_path(text, writer.end())
            return (index if end is None else end), tuple(targets)
        elif char in ";})":
            return (index if end is None else end), tuple(targets)
        index += 1
    return (index if end is None else end), tuple(targets)


_PS_REDIRECT = LazyPattern(r">>?\s*(&[0-9]|\"(?:[^\"`]|`.)*\"|'[^']*'|[^\s;|<>(){}]+)")
_PS_TOKEN = LazyPattern(r"\s*(\"(?:[^\"`]|`.)*\"|'[^']*'|\((?:[^()]|\([^()]*\))*\)|[^\s;|(){}]+)")
"""An argument: a quoted string, a parenthesised expression, a bare word."""


def _powershell_path(text: str, start: int) -> tuple[str, ...]:
    """The file a writer's arguments at ``start`` name: ``-FilePath`` / ``-Path`` /
    ``-LiteralPath``, or its first positional argument (none: ``()``)."""
    positional: str | None = None
    while (token := _PS_TOKEN.match(text, start)) is not None:
        word = token.group(1)
        start = token.end()
        if word.startswith("-") and len(word) > 1 and word[1].isalpha():
            name = word[1:].rstrip(":").lower()
            if name in _PS_SWITCHES:
                continue
            value = _PS_TOKEN.match(text, start)
            if value is None:
                break
            start = value.end()
            if name in _PS_PATH_PARAMETERS:
                return (value.group(1),)
        elif positional is None:
            positional = word
    return () if positional is None else (positional,)


def _powershell_writer_end(text: str, start: int) -> tuple[int, tuple[str, ...]]:
    """Where a writer command's arguments end, and the file they name."""
    end, _ = _powershell_command_end(text, start)
    return end, _powershell_path(text[:end], start)


def _file_api_end(text: str, start: int) -> tuple[int, tuple[str, ...]]:
    """The span of ``[IO.File]::WriteAllText(path, text)``'s arguments from ``start`` (after
    its ``(``) to its ``)`` or the line's end, and the path (its first argument)."""
    quote = ""
    depth = 0
    comma: int | None = None
    index = start
    while index < len(text):
        char = text[index]
        if char == "`":
            index += 2
            continue
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0 and comma is None:
            comma = index
        index += 1
    path = text[start : index if comma is None else comma].strip()
    return index, (path,) if path else ()


# -- batch -----------------------------------------------------------------------------------

_BATCH_CONDITION = (
    r"\bif\s+(?:/i\s+)?(?:not\s+)?(?:errorlevel\s+\S+|exist\s+(?:\"[^\"]*\"|\S+)"
    r"|defined\s+\S+|(?:\"[^\"]*\"|\S+)\s*(?:==|\s(?:equ|neq|lss|leq|gtr|geq)\s)\s*"
    r"(?:\"[^\"]*\"|\S+))\s+"
)
"""An ``if`` condition of cmd.exe (what its command follows on the same line)."""
_BATCH_PRINTER = LazyPattern(
    r"(?i)(?:(?:^|(?<=[&|(])|(?<=\belse)|(?<=\bdo))\s*|" + _BATCH_CONDITION + r")@?"
    r"(?P<command>echo)(?=[\s.:,;=(/\\\[\]+]|$)"
)
"""``echo`` (``@echo``, ``echo.``) where a command starts, after an operator, ``else``, a
``for``'s ``do`` or an ``if`` condition."""
_BATCH_REMARK = LazyPattern(r"(?i)(?:^|(?<=[&|(]))\s*@?(?:rem(?=[\s.:,;=/\\]|$)|::)")
"""A ``REM`` (or ``::``, a label no ``goto`` can reach) where a command starts."""


def _batch_lines(lines: Iterable[TextLine]) -> Iterator[TextLine]:
    """Batch's ``command_lines``: each line's remark blanked, and the arguments of each
    ``echo`` unless what it writes goes to a file that is read (``write_targets.written_for_reading``): by
    its own redirection (``echo x >> req.txt``) or its group's (``( echo x & echo y ) >
    req.txt``, over as many lines as the group spans; the innermost group that redirects).

    Reads the whole file first: a group's redirection follows its last line."""
    numbered = list(lines)
    texts = [_blank_batch_remark(line.text) for line in numbered]
    named = lists_handed_to_pip(texts)
    open_groups: list[_BatchGroup] = []
    echoes: list[tuple[int, int, int, str | None, tuple[_BatchGroup, ...]]] = []
    """Each echo: its line's index, its arguments' span, its own target, its groups."""
    for index, text in enumerate(texts):
        cursor = 0
        while True:
            printer = _BATCH_PRINTER.search(text, cursor)
            stop = printer.start("command") if printer is not None else len(text)
            _follow_parens(text, cursor, stop, open_groups)
            if printer is None:
                break
            start = printer.end("command")
            end, target = _batch_echo_end(text, start, in_group=bool(open_groups))
            echoes.append((index, start, end, target, tuple(open_groups)))
            cursor = max(end, start)
    for index, start, end, target, groups in reversed(echoes):
        if target is None:
            target = next((g.target for g in reversed(groups) if g.target is not None), None)
        if target is None or not written_for_reading(target, named, ShellDialect.BATCH):
            text = texts[index]
            texts[index] = text[:start] + " " * (end - start) + text[end:]
    for line, text in zip(numbered, texts, strict=True):
        if text.strip():
            yield line._replace(text=text)


def _blank_batch_remark(text: str) -> str:
    """A batch line with its remark (``REM``, ``::``) blanked."""
    for remark in _BATCH_REMARK.finditer(text):
        if _quote_state(text[: remark.start()], "^", quotes='"') == "":
            return text[: remark.start()] + " " * (len(text) - remark.start())
    return text


class _BatchGroup:
    """A ``(`` ... ``)`` of a batch file, and where its output goes once it is closed."""

    __slots__ = ("target",)

    def __init__(self) -> None:
        self.target: str | None = None
        """The file (or ``nul``, ``&2``...) its ``)`` redirects its output to; ``None``: the
        console, or not closed yet."""


_BATCH_REDIRECT = LazyPattern(r'\s*([0-9]?)>>?\s*(&[0-9]|"[^"]*"|[^\s&|()<>"]+)')
"""A redirection: the stream (``""``/``1``: the output; ``2``: errors) and its target."""


def _follow_parens(text: str, start: int, stop: int, groups: list[_BatchGroup]) -> None:
    """Open and close ``groups`` by the unquoted, unescaped parentheses of ``text[start:stop]``
    (a part outside any ``echo``'s arguments), setting each closed group's ``target``."""
    quote = False
    index = start
    while index < stop:
        char = text[index]
        if char == "^" and not quote:
            index += 2
            continue
        if char == '"':
            quote = not quote
        elif quote:
            pass
        elif char == "(":
            groups.append(_BatchGroup())
        elif char == ")" and groups:
            groups.pop().target = _output_target(text, index + 1)
        index += 1


def _output_target(text: str, start: int) -> str | None:
    """Where the redirections at ``start`` send a command's output (``None``: nowhere new)."""
    while (redirect := _BATCH_REDIRECT.match(text, start)) is not None:
        if redirect.group(1) in ("", "1"):
            return redirect.group(2)
        start = redirect.end()
    return None


def _batch_echo_end(text: str, start: int, *, in_group: bool) -> tuple[int, str | None]:
    """Where the ``echo`` whose arguments start at ``start`` ends (an unquoted, unescaped
    ``&``, ``|``, the line's end, or a ``)`` that closes the group it is in), and the target of
    its own output redirection, if any (``2>`` sends only errors elsewhere)."""
    quote = False
    target: str | None = None
    index = start
    while index < len(text):
        char = text[index]
        if char == "^" and not quote:
            index += 2
            continue
        if char == '"':
            quote = not quote
        elif quote:
            pass
        elif char == ">":
            stream = text[index - 1] if index > start and text[index - 1].isdigit() else ""
            redirect = _BATCH_REDIRECT.match(text, index - len(stream))
            if redirect is not None:
                if target is None and stream in ("", "1"):
                    target = redirect.group(2)
                index = redirect.end()
                continue
        elif char in "&|" or (char == ")" and in_group):
            return index, target
        index += 1
    return min(index, len(text)), target


def _quote_state(text: str, escape: str, quotes: str = "'\"") -> str:
    """The quote still open at the end of ``text`` (``""``: none), ``escape`` escaping the
    next character outside single quotes."""
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if char == escape and quote != "'":
            index += 2
            continue
        if quote:
            if char == quote:
                quote = ""
        elif char in quotes:
            quote = char
        index += 1
    return quote


_DEFINITION = re.compile(
    r"^\s*(?:(?:RUN\s+)?(?:ARG|ENV|export|declare|local|readonly)\s+)?([A-Za-z_]\w*)=\S"
)
"""A line that sets a variable: ``NAME=value``, after a Dockerfile ``ARG`` / ``ENV`` or a
shell's ``export``, ``declare``, ``local``, ``readonly``."""
_INSTALL = LazyPattern(r"(?i)\b(?:pip3?|uv|conda|mamba|micromamba)\b[^;&|]*?\b(?:install|add)\b")
"""A command that installs packages (the variable it reads is a package or an index)."""


@dataclass(frozen=True)
class Variables:
    """How a dialect sets and reads a variable."""

    definition: re.Pattern[str] | LazyPattern[str]
    """A line that sets one (its name the first group)."""
    reading: Callable[[str], re.Pattern[str]]
    """A reading of any of the names of an alternation (the name in a group of its own)."""
    continuation: str
    """What ends a line that goes on onto the next."""
    folded: bool
    """Whether names are the same whatever their case (PowerShell's and cmd.exe's are)."""


_VARIABLES = {
    ShellDialect.POSIX: Variables(
        _DEFINITION,
        lambda names: re.compile(r"\$(?:\{(" + names + r")\}|(" + names + r")\b)"),
        "\\",
        folded=False,
    ),
    ShellDialect.POWERSHELL: Variables(
        LazyPattern(r"(?i)^\s*\$(?:env:|script:|global:)?([A-Za-z_]\w*)\s*=\s*\S"),
        lambda names: re.compile(
            r"(?i)\$(?:\{(?:env:)?(" + names + r")\}|(?:env:|script:|global:)?(" + names + r")\b)"
        ),
        "`",
        folded=True,
    ),
    ShellDialect.BATCH: Variables(
        LazyPattern(r'(?i)^\s*@?set\s+"?([A-Za-z_][\w.-]*)=\S'),
        lambda names: re.compile(r"(?i)%(" + names + r")%|!(" + names + r")!"),
        "^",
        folded=True,
    ),
}


def variable_grammar(dialect: ShellDialect) -> Variables:
    """How ``dialect`` sets a variable (``definition``: its name the first group) and reads one
    (``reading``)."""
    return _VARIABLES[dialect]


def through_variables(
    hits: Sequence[Hit], lines: Sequence[TextLine], dialect: ShellDialect = ShellDialect.POSIX
) -> list[Hit]:
    """``hits`` and, for each hit in the value a line sets a variable to, a hit of the same rule
    at each later reading of the variable (``$NAME``, ``${NAME}``; PowerShell's ``$env:NAME``,
    batch's ``%NAME%``) in an install command (on the install's line or a line it continues
    onto); ``lines`` as ``command_lines`` gives them (what only prints reads nothing)."""
    grammar = _VARIABLES[dialect]

    def key(name: str) -> str:
        return name.lower() if grammar.folded else name

    carried: dict[str, tuple[str, int]] = {}
    """Each variable set to a hit's text: (the rule, the line that sets it)."""
    by_line: dict[int, list[Hit]] = {}
    for hit in hits:
        by_line.setdefault(hit.line, []).append(hit)
    for line in lines:
        definition = grammar.definition.match(line.text) if line.line in by_line else None
        if definition is None:
            continue
        for hit in by_line[line.line]:
            if hit.column - line.column >= definition.end(1):
                carried[key(definition.group(1))] = (hit.rule_id, line.line)
                break
    if not carried:
        return list(hits)
    reading = grammar.reading("|".join(re.escape(name) for name in carried))
    found = list(hits)
    installing = False
    for line in lines:
        installing = installing or _INSTALL.search(line.text) is not None
        if installing:
            for use in reading.finditer(line.text):
                rule_id, set_at = carried[key(use.group(1) or use.group(2))]
                there = {hit.rule_id for hit in by_line.get(line.line, ())}
                if line.line > set_at and rule_id not in there:
                    start, end = line.column + use.start(), line.column + use.end()
                    found.append(Hit(rule_id, use.group(0), line.line, start, line.line, end))
                    break  # NOTE: one finding of a rule and line, as for its own regex
        installing = installing and line.text.rstrip().endswith(grammar.continuation)
    return found
