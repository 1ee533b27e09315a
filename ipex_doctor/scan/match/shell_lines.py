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

Windows installers (``kinds.ShellDialect``) are read the same way, in their own words:

* PowerShell: ``#`` comments and ``<# ... #>`` blocks; ``echo`` and any ``Write-*`` command
  (``Write-Host``, ``Write-Output``, an installer's own ``Write-Info``) print, unless piped to
  ``Out-File`` / ``Set-Content`` / ``Add-Content`` / ``Tee-Object`` or redirected; a here-string
  (``@" ... "@``) given to a printer is a message; a backtick escapes inside double quotes and
  continues a line; variables are set with ``$NAME = ...`` / ``$env:NAME = ...``.
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

from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.read.kinds import ShellDialect, classify
from ipex_doctor.scan.read.source import Hit, TextLine

_PRINTER = re.compile(
    r"(?:^|(?<=[;&|(){`])|(?<=\bthen)|(?<=\bdo)|(?<=\belse)|(?<=\bRUN))\s*(?:echo|printf)\b"
)
"""``echo`` or ``printf`` where a command starts: at the line's start, after an operator, a
``then`` / ``do`` / ``else`` or a Dockerfile ``RUN``."""
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][\w.-]*)\1")
_CAT_TO_TERMINAL = re.compile(r"^\s*(?:RUN\s+)?cat\s+<<(?![^\n]*>)")
"""A ``cat <<EOF`` whose output is not redirected (it prints the document)."""


def command_lines(
    lines: Iterable[TextLine], dialect: ShellDialect = ShellDialect.POSIX
) -> Iterator[TextLine]:
    """``lines`` as the rules read them (see the module): comments, printed messages and
    printed here-documents blanked; a line left with nothing to read is dropped."""
    if dialect is ShellDialect.POWERSHELL:
        yield from _powershell_lines(lines)
        return
    if dialect is ShellDialect.BATCH:
        yield from _batch_lines(lines)
        return
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
    return _blanked(text, _comment_start(text), _PRINTER, _command_end)


def _blanked(
    text: str,
    cut: int | None,
    printer: re.Pattern[str],
    command_end: Callable[[str, int], tuple[int, bool]],
) -> str:
    """``text`` blanked from ``cut`` (its comment) on, and in the arguments of every command
    ``printer`` finds up to where ``command_end`` says it ends, unless its output goes to a file
    (what is written there is read): one way for every dialect, each with its own grammar."""
    if cut is not None:
        text = text[:cut] + " " * (len(text) - cut)
    for found in reversed(list(printer.finditer(text))):
        start = found.end()
        end, redirected = command_end(text, start)
        if not redirected:
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


# -- PowerShell ------------------------------------------------------------------------------

_PS_PRINTER = re.compile(r"(?i)(?:^|(?<=[;|({}&]))\s*(?:echo|write(?:-\w+)?)(?![\w-])")
"""A PowerShell command that prints: ``echo``, ``Write`` or any ``Write-*`` (the standard
``Write-Host`` / ``Write-Output`` / ``Write-Warning``..., and an installer's own ``Write-Info``,
which by PowerShell's verb convention writes to the user), where a command starts."""
_PS_TO_FILE = re.compile(r"(?i)\|\s*(?:out-file|set-content|add-content|tee-object|tee)\b")
_PS_WORD_START = " \t;&|({"
"""What a ``#`` follows where it starts a comment (at a token's start)."""
_PS_HERE_STRING = re.compile(r"@([\"'])\s*$")
"""A here-string opens at the end of a line (``@"`` or ``@'``); its closing quote and ``@``
start a line of their own."""


def _powershell_lines(lines: Iterable[TextLine]) -> Iterator[TextLine]:
    """PowerShell's ``command_lines``: block comments and printed here-strings dropped, each
    line's comment and printed arguments blanked."""
    in_block = False
    closing: str | None = None
    """The line that closes the here-string being read (``"@`` or ``'@``)."""
    printed = False
    """Whether that here-string is a printer's argument (a message: not read)."""
    for line in lines:
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
            printed = _PS_PRINTER.search(text[: opening.start()]) is not None and (
                _PS_TO_FILE.search(text) is None and ">" not in text[: opening.start()]
            )
        text = _blank_powershell(text)
        if text.strip():
            yield line._replace(text=text)


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


def _blank_powershell(text: str) -> str:
    """A PowerShell line with its ``#`` comment and printed arguments blanked."""
    cut = _comment_start(text, escape="`", after=_PS_WORD_START)
    return _blanked(text, cut, _PS_PRINTER, _powershell_command_end)


def _powershell_command_end(text: str, start: int) -> tuple[int, bool]:
    """Where the PowerShell command at ``start`` ends (an unquoted ``;``, ``|``, ``}``, ``)``
    or the line's end), and whether its output goes to a file (``>``, ``| Out-File``...)."""
    quote = ""
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
        elif char == ">":
            return index, True
        elif char == "|":
            return index, _PS_TO_FILE.match(text, index) is not None
        elif char in ";})":
            return index, False
        index += 1
    return index, False


# -- batch -----------------------------------------------------------------------------------

_BATCH_CONDITION = (
    r"\bif\s+(?:/i\s+)?(?:not\s+)?(?:errorlevel\s+\S+|exist\s+(?:\"[^\"]*\"|\S+)"
    r"|defined\s+\S+|(?:\"[^\"]*\"|\S+)\s*(?:==|\s(?:equ|neq|lss|leq|gtr|geq)\s)\s*"
    r"(?:\"[^\"]*\"|\S+))\s+"
)
"""An ``if`` condition of cmd.exe (what its command follows on the same line)."""
_BATCH_PRINTER = re.compile(
    r"(?i)(?:(?:^|(?<=[&|(])|(?<=\belse)|(?<=\bdo))\s*|" + _BATCH_CONDITION + r")@?"
    r"(?P<command>echo)(?=[\s.:,;=(/\\\[\]+]|$)"
)
"""``echo`` (``@echo``, ``echo.``) where a command starts, after an operator, ``else``, a
``for``'s ``do`` or an ``if`` condition."""
_BATCH_REMARK = re.compile(r"(?i)(?:^|(?<=[&|(]))\s*@?(?:rem(?=[\s.:,;=/\\]|$)|::)")
"""A ``REM`` (or ``::``, a label no ``goto`` can reach) where a command starts."""


def _batch_lines(lines: Iterable[TextLine]) -> Iterator[TextLine]:
    """Batch's ``command_lines``: each line's remark blanked, and the arguments of each
    ``echo`` unless what it writes goes to a file that is read (``_written_for_reading``): by
    its own redirection (``echo x >> req.txt``) or its group's (``( echo x & echo y ) >
    req.txt``, over as many lines as the group spans; the innermost group that redirects).

    Reads the whole file first: a group's redirection follows its last line."""
    numbered = list(lines)
    texts = [_blank_batch_remark(line.text) for line in numbered]
    named = _lists_handed_to_pip(texts)
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
        if target is None or not _written_for_reading(target, named):
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


_BATCH_REDIRECT = re.compile(r'\s*([0-9]?)>>?\s*(&[0-9]|"[^"]*"|[^\s&|()<>"]+)')
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


_DEVICES = frozenset({"nul", "con", "prn", "aux", "&1", "&2"})
"""Targets that are no file: the console, its error stream, nothing."""
_BATCH_VARIABLE = re.compile(r"%~[a-zA-Z]*[0-9]|%[^%\s]+%|![^!\s]+!")
_LIST_OPTION = re.compile(
    r'(?i)(?:^|(?<=[\s"]))(?:-r|-c|--requirement|--constraint)(?:=|\s+)("[^"]*"|[^\s&|()<>]+)'
)
_PIP_LINE = re.compile(r"(?i)\b(?:pip\w*|uv)\b")


def _components(path: str) -> list[str]:
    """The components of a batch file's ``path`` (quotes dropped), in lower case."""
    return re.split(r"[\\/]", path.replace('"', "").lower())


def _lists_handed_to_pip(texts: Sequence[str]) -> frozenset[str]:
    """The last components of the files a batch file's pip lines take as lists (``-r``,
    ``-c``...), as written (``%REQS%`` too: the same variable names the same file)."""
    return frozenset(
        _components(option.group(1))[-1]
        for text in texts
        if _PIP_LINE.search(text) is not None
        for option in _LIST_OPTION.finditer(text)
    )


def _written_for_reading(target: str, named: frozenset[str]) -> bool:
    """Whether what an ``echo`` writes to ``target`` is read: a file pip takes as a list in the
    same script, or one whose name makes it a kind the scan reads (``requirements-xpu.txt``, a
    ``*.py``, a ``*.bat``, a config...). Not the console, ``nul``, the error stream, a log."""
    components = _components(target)
    if components[-1] in _DEVICES:
        return False
    if components[-1] in named:
        return True
    known = [_BATCH_VARIABLE.sub("", part) for part in components]
    parent = known[-2] if len(known) > 1 else ""
    kind = classify(known[-1], parent, "/".join(known[:-1]))
    return kind is not None and kind is not FileKind.DOCS


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
_INSTALL = re.compile(r"(?i)\b(?:pip3?|uv|conda|mamba|micromamba)\b[^;&|]*?\b(?:install|add)\b")
"""A command that installs packages (the variable it reads is a package or an index)."""


@dataclass(frozen=True)
class _Variables:
    """How a dialect sets and reads a variable."""

    definition: re.Pattern[str]
    """A line that sets one (its name the first group)."""
    reading: Callable[[str], re.Pattern[str]]
    """A reading of any of the names of an alternation (the name in a group of its own)."""
    continuation: str
    """What ends a line that goes on onto the next."""
    folded: bool
    """Whether names are the same whatever their case (PowerShell's and cmd.exe's are)."""


_VARIABLES = {
    ShellDialect.POSIX: _Variables(
        _DEFINITION,
        lambda names: re.compile(r"\$(?:\{(" + names + r")\}|(" + names + r")\b)"),
        "\\",
        folded=False,
    ),
    ShellDialect.POWERSHELL: _Variables(
        re.compile(r"(?i)^\s*\$(?:env:|script:|global:)?([A-Za-z_]\w*)\s*=\s*\S"),
        lambda names: re.compile(
            r"(?i)\$(?:\{(?:env:)?(" + names + r")\}|(?:env:|script:|global:)?(" + names + r")\b)"
        ),
        "`",
        folded=True,
    ),
    ShellDialect.BATCH: _Variables(
        re.compile(r'(?i)^\s*@?set\s+"?([A-Za-z_][\w.-]*)=\S'),
        lambda names: re.compile(r"(?i)%(" + names + r")%|!(" + names + r")!"),
        "^",
        folded=True,
    ),
}


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
