"""The code blocks of a Markdown or reStructuredText document, read like notebook cells.

Documentation teaches: a README's ``import intel_extension_for_pytorch as ipex`` or its ``pip
install intel-extension-for-pytorch`` is copied by every reader after the code itself has
moved on. ``scan --docs`` reads the blocks whose language says what they are:

* Markdown fenced blocks (`````` ``` `````` or ``~~~``, up to three spaces before the fence, or
  under a list item's text or inside an MkDocs admonition or content tab; an unclosed one runs
  to the end, as CommonMark has it) and reST ``.. code-block::``,
  ``.. code::`` and ``.. sourcecode::`` directives (options, a blank line, then the indented
  content);
* Python (``python``, ``py``, ``python3``, ``ipython``, ``pycon``): read as a notebook cell is
  (an ``!pip`` line is a shell command), a block of ``>>>`` prompts as the doctest it is (the
  prompts' code, not the output);
* shell (``bash``, ``sh``, ``shell``, ``zsh``, ``console``, ``shell-session``): every line
  that is not a comment, or where any line has a ``$`` prompt, only what follows the prompts.
  Authors also write Python in such a block (``# In code:``, then ``import
  intel_extension_for_pytorch as ipex`` and ``model = ipex.optimize(model)``): in a POSIX
  shell block without prompts, a line that parses as a Python assignment or call statement and
  is no simple shell command (``_python_lines``) is read as Python, with the block's Python
  imports, and not as shell;

A fenced block (or a reST ``code-block``) without a language is read only where its lines say
what it is: ``>>>`` prompts are a Python session (read as ``pycon``), and lines that each start
a command a reader runs (``pip``, ``python``, ``conda``, ``docker``..., or after a ``$``
prompt; continued lines too) are shell; anything else (output, a listing, code of no stated
language) is not read. PowerShell and batch blocks are read as shell (their ``pip install`` is
one). Indented blocks and reST ``::`` literals are not read. Each block keeps where its lines
are in the document (its first line, and for each line the columns its text was moved by), so
a match points at the document's own line and column.

A hand-written reader, on purpose: a Markdown or reST library would build the whole document
tree to return the same few blocks, and would not keep the source columns.
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from ipex_doctor.lazy_pattern import LazyPattern
from ipex_doctor.scan.read.notebooks import Cell, read_cell
from ipex_doctor.scan.read.source import TextLine, Unparsable, parse_python, split_lines

PYTHON_LANGUAGES = frozenset({"python", "py", "python3", "py3", "ipython", "ipython3", "pycon"})
SHELL_LANGUAGES = frozenset(
    {"bash", "sh", "shell", "zsh", "console", "shell-session", "sh-session", "shellsession"}
    | {"powershell", "pwsh", "ps1", "bat", "batch", "cmd"}
)
POSIX_SHELL_LANGUAGES = frozenset(
    {"bash", "sh", "shell", "zsh", "console", "shell-session", "sh-session", "shellsession"}
)
"""The shell blocks whose lines may hold Python (``_python_lines``): a POSIX shell rejects
an unquoted parenthesis in a simple command, which a Python call has."""
COMMANDS = frozenset(
    {"pip", "pip3", "python", "python3", "py", "conda", "mamba", "micromamba", "uv", "docker"}
    | {"podman", "git", "source", "export", "sudo", "apt", "apt-get", "cd", "wget", "curl"}
    # ipex-doctor: ignore[ipex-launcher] a first word that makes a line a command
    | {"bash", "sh", "ipexrun", "torchrun", "accelerate", "deepspeed", "mpirun", "mpiexec"}
)
"""The first words that make an unlabelled block's line a command a reader runs."""
_CONTINUED = ("\\", "`")
_FENCE = LazyPattern(r"(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)")
_LIST_ITEM = LazyPattern(r"(?P<marker> *(?:[-*+]|\d{1,9}[.)]))(?P<gap> +)\S")
_CONTAINER = LazyPattern(r"(?P<marker> *(?:!!!|\?\?\?\+?|===))(?P<gap> +)\S")
"""An MkDocs (Python-Markdown) admonition, ``!!! note`` or a collapsible ``??? info "Title"``,
or a content tab, ``=== "Linux"``: its content is the lines indented four spaces under it."""
_DIRECTIVE = LazyPattern(
    r"(?P<indent>\s*)\.\.\s+(?:code-block|code|sourcecode)::\s*(?P<lang>\S*)\s*"
)
_PROMPT = LazyPattern(r"(?P<prompt>\s*\$\s+)\S")
_DOCTEST = (">>> ", "... ")
_REM = LazyPattern(r"(?i)rem(?:\s|$)")
_SHELL_ASSIGNMENT = LazyPattern(r"[A-Za-z_]\w*=")
"""A shell variable assignment (no space before ``=``), which Python parses too."""
REST_SUFFIXES = (".rst", ".rest")


class DocBlock(NamedTuple):
    """One code block, as a notebook cell (numbered by its place among the blocks read), and
    where its lines are in the document."""

    cell: Cell
    first_line: int
    """The document's 1-based line of the block's first line."""
    shifts: list[int]
    """Per block line, the columns its text was moved left by (indentation, a prompt)."""

    def place(self, line: int, column: int) -> tuple[int, int]:
        """The document's line and column of the block's ``line`` and ``column``."""
        shift = self.shifts[line - 1] if 0 < line <= len(self.shifts) else 0
        return self.first_line + line - 1, column + shift


class _Raw(NamedTuple):
    language: str
    first_line: int
    lines: list[str]
    indent: int


def code_blocks(text: str, *, rest: bool) -> list[DocBlock]:
    """The Python and shell blocks of a document (reST when ``rest``, else Markdown)."""
    lines = split_lines(text)
    raw = _rest_blocks(lines) if rest else _markdown_blocks(lines)
    blocks: list[DocBlock] = []
    for item in raw:
        block = _block(len(blocks) + 1, item)
        if block is not None:
            blocks.append(block)
    return blocks


def _language(info: str) -> str:
    """The first word of a fence's info string, as Pandoc and GitHub write it too
    (``{python}``, ``{.python}``, ``python title="x"``)."""
    word = (info.strip().split() or [""])[0]
    return word.strip("{}").lstrip(".").lower()


def _markdown_blocks(lines: list[str]) -> list[_Raw]:
    found: list[_Raw] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.fullmatch(lines[index])
        if (
            opening is None
            or (opening["fence"][0] == "`" and "`" in opening["info"])
            or (len(opening["indent"]) > 3 and not _in_container(lines, index))
        ):
            index += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        closing = re.compile(rf" {{0,{indent + 3}}}{re.escape(fence[0])}{{{len(fence)},}}\s*")
        end = index + 1
        # NOTE: a tab indents to the next multiple of four columns (CommonMark and MkDocs's
        # Python-Markdown alike): a closing fence indented by spaces and a tab, as editors
        # write them inside admonitions, closes the block; read as one character, it did not,
        # and the block ran on over the rest of the document, hiding its later blocks.
        while end < len(lines) and not closing.fullmatch(lines[end].expandtabs(4)):
            end += 1
        content = [_dedent(line, indent) for line in lines[index + 1 : end]]
        found.append(_Raw(_language(opening["info"]), index + 2, content, indent))
        index = end + 1
    return found


def _in_container(lines: list[str], index: int) -> bool:
    """Whether the fence at ``index``, indented four spaces or more, opens a block inside a list
    item (``1. Install:`` then the fence under it, as GitHub renders it) or an MkDocs container
    (``??? info "Title"`` then the fence four spaces in, as MkDocs renders it): the nearest line
    above it that is indented less is a list item whose content starts at most three columns
    before the fence, or a container whose content (four columns in) does. Elsewhere such a
    line is an indented block's text, not a fence."""
    indent = len(lines[index]) - len(lines[index].lstrip(" "))
    for above in reversed(lines[:index]):
        if not above.strip() or len(above) - len(above.lstrip(" ")) >= indent:
            continue
        if item := _LIST_ITEM.match(above):
            content = len(item["marker"]) + len(item["gap"])
        elif _CONTAINER.match(above):
            content = len(above) - len(above.lstrip(" ")) + 4
        else:
            return False
        return 0 <= indent - content <= 3
    return False


def _dedent(line: str, indent: int) -> str:
    """The line without up to ``indent`` leading spaces (the fence's own indentation)."""
    spaces = len(line) - len(line.lstrip(" "))
    return line[min(spaces, indent) :]


def _rest_blocks(lines: list[str]) -> list[_Raw]:
    found: list[_Raw] = []
    index = 0
    while index < len(lines):
        directive = _DIRECTIVE.fullmatch(lines[index])
        index += 1
        if directive is None:
            continue
        outer = len(directive["indent"])
        # the directive's options (":linenos:") and the blank line before the content
        while index < len(lines):
            stripped = lines[index].strip()
            if stripped and not (stripped.startswith(":") and _indent(lines[index]) > outer):
                break
            index += 1
        start = index
        while index < len(lines) and (not lines[index].strip() or _indent(lines[index]) > outer):
            index += 1
        body = lines[start:index]
        while body and not body[-1].strip():
            body.pop()
        if not body:
            continue
        inner = min(_indent(line) for line in body if line.strip())
        found.append(_Raw(directive["lang"].lower(), start + 1, [ln[inner:] for ln in body], inner))
    return found


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _unlabelled(lines: list[str]) -> str:
    """The language an unlabelled block's lines show (see the module), or ``""``."""
    code = [line.strip() for line in lines if line.strip() and not _comment(line)]
    if any(line.startswith(">>> ") for line in code):
        return "pycon"
    prompted = [line[m.end("prompt") :].strip() for line in lines if (m := _PROMPT.match(line))]
    commands = prompted or code
    continued = False
    for line in commands:
        word = line.split(maxsplit=1)[0] if line.split() else ""
        if not continued and word.lower() not in COMMANDS:
            return ""
        continued = line.endswith(_CONTINUED)
    return "sh" if commands else ""


def _block(number: int, raw: _Raw) -> DocBlock | None:
    shifts = [raw.indent] * len(raw.lines)
    if not raw.language:
        raw = raw._replace(language=_unlabelled(raw.lines))
    if raw.language in PYTHON_LANGUAGES:
        source = list(raw.lines)
        first = next((line.lstrip() for line in source if line.strip()), "")
        if raw.language == "pycon" or first.startswith(">>>"):
            source, extra = _doctest(source)
            shifts = [s + e for s, e in zip(shifts, extra, strict=True)]
        # NOTE: the cell's lines are the code as read (prompts off, output blanked), so
        # every column of a hit, Python or text rule, moves by the same shift
        cell = read_cell(number, "\n".join(source))
        return DocBlock(Cell(number, source, cell.python, cell.shell), raw.first_line, shifts)
    if raw.language in SHELL_LANGUAGES:
        shell = _shell(raw.lines)
        python = _python_lines(raw.lines) if raw.language in POSIX_SHELL_LANGUAGES else {}
        if not python:
            return DocBlock(Cell(number, raw.lines, "", shell), raw.first_line, shifts)
        # NOTE: the Python lines leave the shell reading (one finding a line, by the Python
        # rules that know what the line is); the others are blank in the Python source, so its
        # line numbers are the block's, and a line's indentation joins its shift.
        source = [python[n].lstrip() if n in python else "" for n in range(1, len(raw.lines) + 1)]
        shifts = [s + len(python.get(n, "")) - len(python.get(n, "").lstrip())
                  for n, s in enumerate(shifts, start=1)]  # fmt: skip
        commands = [command for command in shell if command.line not in python]
        cell = Cell(number, raw.lines, "\n".join(source), commands)
        return DocBlock(cell, raw.first_line, shifts)
    return None


def _python_lines(lines: list[str]) -> dict[int, str]:
    """The lines of a shell block that are Python its author wrote there, by 1-based line.

    A line is Python when it parses alone as Python statements, each an assignment or a call
    (``model = ipex.optimize(model)``, ``ipex.optimize(model)``), and is no simple shell
    command: it holds a call (an unquoted parenthesis, a syntax error to a POSIX shell) or
    assigns with a space before ``=`` (``a = b`` runs a command named ``a``; the shell's own
    assignment is ``a=b``, which stays shell). A command line (``pip install ...``, ``python -c
    "..."``, ``export X=1``, ``python train.py``) does not parse as Python; a bare word
    (``ls``) is no assignment or call. Where there is such a line, the block's import
    statements are Python too (they bind the names it uses). A block with ``$`` prompts is
    commands and their output, and a line continuing a command (after a ``\\``) is part of it:
    neither is read so.
    """
    if any(_PROMPT.match(line) for line in lines):
        return {}
    found: dict[int, str] = {}
    imports: dict[int, str] = {}
    continued = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        after_continuation, continued = continued, stripped.endswith("\\")
        if after_continuation or not stripped or _comment(line):
            continue
        # NOTE: every statement Python holds on a line has "(" or "=" or is an import;
        # the rest of a shell block (most of it) is not parsed at all.
        if not ("(" in stripped or "=" in stripped or stripped.startswith(("import ", "from "))):
            continue
        try:
            statements = parse_python(stripped).body
        except Unparsable:
            continue
        if statements and all(isinstance(s, ast.Import | ast.ImportFrom) for s in statements):
            imports[number] = line
        elif statements and all(_python_statement(s, stripped) for s in statements):
            found[number] = line
    return {**found, **imports} if found else {}


def _python_statement(statement: ast.stmt, line: str) -> bool:
    """Whether ``statement`` (of ``line``) is an assignment or a call no shell would run."""
    if isinstance(statement, ast.Expr):
        return isinstance(statement.value, ast.Call)
    if isinstance(statement, ast.Assign | ast.AugAssign) or (
        isinstance(statement, ast.AnnAssign) and statement.value is not None
    ):
        calls = any(isinstance(node, ast.Call) for node in ast.walk(statement))
        return calls or _SHELL_ASSIGNMENT.match(line) is None
    return False


def _doctest(lines: list[str]) -> tuple[list[str], list[int]]:
    """The code of ``>>>`` / ``...`` lines (the prompts taken off); output lines become empty,
    so the block keeps its line numbers."""
    code: list[str] = []
    shifts: list[int] = []
    for line in lines:
        stripped = line.lstrip()
        lead = len(line) - len(stripped)
        if stripped.startswith(_DOCTEST) or stripped in (">>>", "..."):
            code.append(stripped[4:])
            shifts.append(lead + 4)
        else:
            code.append("")
            shifts.append(0)
    return code, shifts


def _shell(lines: list[str]) -> list[TextLine]:
    """The commands of a shell block: after the ``$`` prompts where it has any (the other
    lines are output), else every line that is not a comment."""
    prompted = [(n, _PROMPT.match(line)) for n, line in enumerate(lines, start=1)]
    if any(match for _, match in prompted):
        return [
            TextLine(n, lines[n - 1][match.end("prompt") :], match.end("prompt"))
            for n, match in prompted
            if match is not None
        ]
    return [TextLine(n, line) for n, line in enumerate(lines, start=1) if not _comment(line)]


def _comment(line: str) -> bool:
    """Whether a shell block's line is a comment: ``#``, or a batch file's ``::`` or ``REM``
    (neither runs anything in a POSIX shell either)."""
    stripped = line.lstrip()
    return stripped.startswith(("#", "::")) or _REM.match(stripped) is not None
