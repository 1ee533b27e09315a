"""The parts of a Python module that ``text`` rules read: its string literals that can be a
command, a requirement or a setting, and the ``key=value`` pairs written with literals.

Installers build pip command lines in Python (``["intel-extension-for-pytorch==2.6.10+xpu",
"--extra-index-url", idx_url]``, ``f"pip install {pkg} -f https://pytorch-extension.intel.com
/..."``, an environment variable's default install command) and configure libraries with
literals (``TrainingArguments(use_ipex=True)``, ``torch.compile(m, backend="ipex")``, ``{
"ACCELERATE_USE_IPEX": "true"}``). The text rules of a Python file read exactly these
fragments, each at its own place in the source (``fragments``):

* every string literal (an f-string or an implicit concatenation is one literal, read as
  written; a ``+`` of them, a list or a tuple of them as a whole, a command line whose words
  a rule reads together), except those that run nothing: a string statement (a docstring), a message (the
  arguments of ``print``, a logging or warning call, an exception's constructor, ``raise``,
  an ``assert``'s message, a ``help=`` or ``description=`` keyword), the name of an option a
  parser defines (``add_argument("--use-ipex")`` is the project's own flag), a value a
  comparison tests (``backend == "ipex"``; a test's ``self.assertNotIn("pytorch-extension.
  intel.com", text)``, ``line.startswith("intel-extension")``: ``COMPARE_CALLS``), and the
  package name a probe asks about (``find_spec("intel_extension_for_pytorch")``: the probe
  rule reports it);
* a keyword argument whose value is a literal, ``name=value`` as written;
* a call of an install helper (its name says ``install``: nox's ``session.install``, a
  project's ``pip_install``) with a string argument, whole;
* a dictionary item whose key and value are literals, ``"key": value`` as written.

A comment is never read (``ast`` has none). Which calls are messages, option definitions and
probes is decided by the name the callee is written with (its last part), since loggers and
parsers are objects of any name (``log.warning``, ``self.parser.add_argument``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence

from ipex_doctor.scan.match.python.names import Facts
from ipex_doctor.scan.read.source import TextLine, char_column

MESSAGE_CALLS = frozenset(
    {"print", "echo", "secho", "info", "debug", "warning", "warn", "error", "exception"}
    | {"critical", "fatal", "log", "warning_once", "info_once", "warning_advice", "exit"}
    | {"skip", "skipTest", "skipIf", "skipUnless", "xfail", "fail", "abort", "status"}
)
"""Callees (by their last name) whose string arguments are shown to a person."""
MESSAGE_SUFFIXES = ("Error", "Exception", "Warning")
"""An exception or warning class called (``ImportError("pip install ...")``) makes a message."""
MESSAGE_KEYWORDS = frozenset(
    {"help", "description", "epilog", "usage", "msg", "message", "reason", "doc", "title"}
)
"""Keyword arguments whose value is a text for a person, whatever the call."""
OPTION_CALLS = frozenset({"add_argument", "add_option", "option", "Option", "argument"})
"""Callees whose positional strings name the options a parser defines (the project's own)."""
COMPARE_CALLS = frozenset(
    {"assertIn", "assertNotIn", "assertEqual", "assertNotEqual", "assertRegex"}
    | {"assertNotRegex", "startswith", "endswith", "find", "rfind"}
)
"""Callees whose positional strings are values a comparison tests, as the operands of ``in`` and
``==`` are: unittest's assertions of equality, membership and search, and ``str``'s searches
(a project's test that its requirements no longer name Intel's index installs nothing)."""
QUERY_CALLS = frozenset(
    {"find_spec", "find_loader", "import_module", "version", "distribution", "metadata"}
    | {"get_distribution", "require", "requires", "files"}
)
"""Callees whose first argument names a package whose presence or version is asked (also any
callee whose name says ``available`` or ``installed``: ``is_package_available``, or ends in
``_version``: ``get_library_version``)."""


def callee_name(call: ast.Call) -> str:
    """The last name of what ``call`` calls (``warning`` of ``log.warning(...)``), or ``""``."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def is_query(call: ast.Call) -> bool:
    """Whether ``call`` asks about a package named by its first argument (``find_spec``,
    ``importlib.metadata.version``, ``is_package_available``, ``sys.modules.get``...)."""
    name = callee_name(call)
    lowered = name.lower()
    if name == "get" and isinstance(call.func, ast.Attribute):
        owner = call.func.value
        return isinstance(owner, ast.Attribute) and owner.attr == "modules"
    return (
        name in QUERY_CALLS
        or "available" in lowered
        or "installed" in lowered
        or lowered.endswith("_version")
    )


def is_message(call: ast.Call) -> bool:
    """Whether ``call``'s arguments are text shown to a person."""
    name = callee_name(call)
    return name in MESSAGE_CALLS or name.endswith(MESSAGE_SUFFIXES)


def message_nodes(facts: Facts) -> Iterator[ast.AST]:
    """Every node inside a message of ``facts``: the arguments of a message call, a
    ``help=`` or ``description=`` keyword, what ``raise`` raises, an ``assert``'s message."""
    spoken: list[ast.AST] = list(facts.messages)
    for call, _ in facts.calls:
        if is_message(call):
            spoken.extend(call.args)
            spoken.extend(k.value for k in call.keywords)
        else:
            spoken.extend(k.value for k in call.keywords if k.arg in MESSAGE_KEYWORDS)
    for node in spoken:
        yield from ast.walk(node)


def quiet_strings(facts: Facts) -> set[int]:
    """The ids of the string literals of ``facts`` that run nothing (see the module)."""
    quiet = {id(node) for node in facts.docstrings}
    quiet.update(id(node) for node in message_nodes(facts) if _is_string(node))
    for call, _ in facts.calls:
        name = callee_name(call)
        if name in OPTION_CALLS or name in COMPARE_CALLS:
            quiet.update(id(a) for a in call.args if _is_string(a))
        elif call.args and _is_string(call.args[0]) and is_query(call):
            quiet.add(id(call.args[0]))
    for compare in facts.compares:
        quiet.update(id(o) for o in (compare.left, *compare.comparators) if _is_string(o))
    return quiet


def fragments(facts: Facts, lines: Sequence[str]) -> list[TextLine]:
    """The fragments of the module part ``facts`` (whose source ``lines`` they are) that text
    rules read, in source order; each a piece of one line, at its column."""
    quiet = quiet_strings(facts)
    found: list[TextLine] = []
    listed: set[int] = set()
    for sequence in facts.sequences:
        # NOTE: a command list is read whole, so a rule sees the words around a string
        # (["pip", "uninstall", "-y", "intel-extension-for-pytorch"] installs nothing)
        strings = [e for e in sequence.elts if _is_string(e)]
        if strings and any(id(e) not in quiet for e in strings):
            found.extend(_span(sequence, sequence, lines, whole=True))
            listed.update(id(e) for e in strings)
    inner = {id(side) for join in facts.concatenations for side in (join.left, join.right)}
    for join in facts.concatenations:
        pieces = [side for side in (join.left, join.right) if _is_string(side)]
        if id(join) not in inner and pieces and any(id(p) not in quiet for p in pieces):
            # NOTE: a string joined with +, read whole ("intel-extension-for-pytorch" +
            # "==2.8.10+xpu" is one requirement)
            found.extend(_span(join, join, lines, whole=True))
            listed.update(map(id, pieces))
    for node in facts.strings:
        if id(node) not in quiet and id(node) not in listed:
            found.extend(_span(node, node, lines))
    for call, _ in facts.calls:
        for keyword in call.keywords:
            if keyword.arg is not None and _is_literal(keyword.value):
                if keyword.arg not in MESSAGE_KEYWORDS:
                    found.extend(_span(keyword, keyword.value, lines, one_line=True))
        if "install" in callee_name(call).lower() and any(map(_is_string, call.args)):
            # NOTE: an install helper's call is read whole (session.install("pkg"),
            # pip_install("pkg")): its name is what makes a package name an install
            found.extend(_span(call, call, lines, whole=True))
    for mapping in facts.dicts:
        for key, value in zip(mapping.keys, mapping.values, strict=True):
            if key is not None and _is_string(key) and _is_literal(value):
                found.extend(_span(key, value, lines, one_line=True))
    found.sort(key=lambda fragment: (fragment.line, fragment.column))
    return found


def _is_string(node: ast.AST) -> bool:
    return type(node) is ast.JoinedStr or (
        type(node) is ast.Constant and isinstance(node.value, str)
    )


def _is_literal(node: ast.AST) -> bool:
    return type(node) is ast.JoinedStr or type(node) is ast.Constant


def _span(
    first: ast.AST,
    last: ast.AST,
    lines: Sequence[str],
    *,
    one_line: bool = False,
    whole: bool = False,
) -> Iterable[TextLine]:
    """The source from the start of ``first`` to the end of ``last``, line by line (nothing
    when ``one_line`` and it spans lines: a pair written over lines is not one setting).

    ``whole``: the span is one command or value (a list of a command's words, a joined
    string, an install helper's call), so each of its lines is judged in the context of all
    of them: ``"intel-extension-for-pytorch"`` alone on its line of a list that says
    ``"pip", "install"`` on another is an install, and one in ``"uninstall"``'s is not."""
    start: int = getattr(first, "lineno", 0)
    end: int = getattr(last, "end_lineno", None) or start
    if start < 1 or end > len(lines) or (one_line and end != start):
        return ()
    pieces = _pieces(
        lines, start, getattr(first, "col_offset", 0), end, getattr(last, "end_col_offset", 0)
    )
    if not whole or end == start:
        return pieces
    held = list(pieces)
    context = "\n".join(piece.text for piece in held)
    return [piece._replace(context=context) for piece in held]


def _pieces(
    lines: Sequence[str], start: int, start_byte: int, end: int, end_byte: int
) -> Iterator[TextLine]:
    for number in range(start, end + 1):
        text = lines[number - 1]
        begin = char_column(text, start_byte) if number == start else 0
        stop = char_column(text, end_byte) if number == end else len(text)
        if stop > begin:
            yield TextLine(number, text[begin:stop], begin)
