"""A Python module parsed only where the scan can find something: the top-level statements that
spell a word the rules read, and those the names they bind reach.

``ast`` builds a tree of a few hundred bytes a node: a 10 MiB module of generated tables is
more than a gigabyte of tree, though a handful of its statements can match a rule. The scan
reads a module through ``NameTable`` (``names``), which needs the trees of the
statements that can hold a finding or decide one, and nothing else. ``parse_relevant`` cuts
the module into its top-level statements (``top_level``: lexically, without parsing), keeps

* every statement that spells a word of a prefilter trigger that holds for the file (a
  ``Trigger``'s words: every match of a rule lies in one statement and spells them there;
  ``folded`` words in any case), or the names of ``ALWAYS_READ``: ``import`` (every import:
  what names stand for), ``torch``, ``__all__`` and the builtins that reach names
  dynamically (``--fix``'s conditions read them anywhere in the module);
* every statement that spells, as a whole word, a name a kept statement binds in the module
  (an import's alias, a flag a probe sets, ``x = torch.xpu``, a ``global`` name, a function's
  name: what the name tracking follows), until no new name appears;
* every statement that could spell a word without writing it: a backslash (an escape in a
  string), two string literals side by side (implicit concatenation), a character beyond
  ASCII (identifiers are NFKC-normalised: ``ｔｏｒｃｈ`` is ``torch``);

and parses only those, each run of consecutive kept statements at once, at its own line. The
trees, joined in order into one ``ast.Module``, are what ``ast.parse`` of the whole module
gives for those statements; a statement left out binds nothing a kept one reads and spells
nothing a rule matches, so the scan's findings are the whole module's (a property test holds
the two to each other on generated modules, and ``benchmarks/scan_removals.py`` on real ones).

What changes: a syntax error in a statement left out is not seen, since nothing there is
parsed (a file is unparsable when a statement the scan reads is; what could not be read
cannot hold a finding). A module that cannot be split with confidence (``top_level``), a
prefilter trigger that holds with no word to look for, or a kept statement that does not
parse alone, is parsed whole, as before: the error a file is skipped with is ``ast``'s on the
whole module.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import NamedTuple

from ipex_doctor.scan.match.fixable import DYNAMIC_LOOKUPS
from ipex_doctor.scan.match.triggers import FOLDED_TO_ASCII, Prefilter, Probe
from ipex_doctor.scan.read.source import Unparsable, parse_python
from ipex_doctor.scan.read.top_level import Statement, top_level

ALWAYS_READ = ("import", "torch", "__all__", *DYNAMIC_LOOKUPS)
"""Names a statement is kept for whatever the rules: what ``--fix``'s conditions read anywhere
in the module (``fixable``), and the imports."""

_FOLD = str.maketrans(FOLDED_TO_ASCII)
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_ADJACENT_STRINGS = re.compile(
    r"[\"'][ \t\f\r\n\\]*(?:#[^\r\n]*[\r\n][ \t\f\r\n\\]*)*[rRbBuUfF]{0,2}[\"']"
)
"""A closing quote, then (across blanks, line breaks and comments) an opening one: two string
literals side by side, read as one (or an empty string: either way kept)."""
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_FEW_NAMES = 16
"""Up to this many names, each is searched for in the whole text (a fast ``str.find``)."""


def written_as_read(data: bytes, text: str) -> bool:
    """Whether every word of the module ``text``, decoded from ``data``, is in ``data`` as
    Python reads it: the bytes are ASCII and read as themselves (no coding cookie of another
    alphabet), and nothing spells a word without writing it (what ``parse_relevant`` keeps
    for that reason: a backslash, two string literals side by side; text beyond ASCII is
    ruled out already). Then a string literal's value is written in the bytes between its
    quotes, and a name as it is read: what the prefilter's triggers look for
    (``readers.searched_patterns``)."""
    return (
        data.isascii()
        and "\\" not in text
        and _ADJACENT_STRINGS.search(text) is None
        and text == data.decode("ascii")
    )


class Words(NamedTuple):
    """What makes a top-level statement worth parsing (see the module)."""

    anywhere: tuple[str, ...]
    """Text matched anywhere, case-sensitively."""
    folded: tuple[str, ...]
    """Text in lower case, matched anywhere in any case (as ``re.IGNORECASE`` would)."""
    names: tuple[str, ...]
    """Names matched as whole words."""


def relevant_words(prefilter: Prefilter, probe: Probe) -> Words | None:
    """The words of ``prefilter``'s triggers that hold for the file behind ``probe``, with
    ``ALWAYS_READ``; ``None`` when a trigger that holds has no word (a rule that reads every
    file: then every statement may match)."""
    anywhere: set[str] = set()
    folded: set[str] = set()
    for trigger in prefilter.triggers:
        if not probe.holds(trigger):
            continue
        if not trigger.words:
            return None
        words = (word.decode("utf-8") for word in trigger.words)
        (folded if trigger.folded else anywhere).update(words)
    return Words(tuple(sorted(anywhere)), tuple(sorted(folded)), ALWAYS_READ)


def parse_relevant(text: str, words: Words | None) -> ast.Module:
    """The statements of ``text`` the scan reads, parsed (see the module); the whole module
    when ``words`` is ``None`` or the text cannot be cut with confidence. ``Unparsable`` as
    ``parse_python``."""
    trees: dict[int, list[ast.stmt]] = {}

    def keep(first: int, body: list[ast.stmt]) -> None:
        trees[first] = body

    if select_relevant(text, words, keep) is None:
        return parse_python(text)
    return ast.Module(
        body=[node for first in sorted(trees) for node in trees[first]], type_ignores=[]
    )


OnRun = Callable[[int, list[ast.stmt]], None]
"""Given each run of statements as it is parsed: the index of its first statement, its trees."""
Defer = Callable[[str], bool]
"""Given a run's text: whether its parse may wait (``select_relevant``)."""


def select_relevant(
    text: str,
    words: Words | None,
    on_run: OnRun,
    run_size: int | None = None,
    defer: Defer | None = None,
) -> Relevant | None:
    """The statements of ``text`` the scan reads (see the module), each parsed once on the
    way, in runs of consecutive statements of up to about ``run_size`` characters (a longer statement
    is a run of its own; ``None``: runs as long as they come), given to ``on_run`` (which
    need not keep them); ``None`` when the module is to be parsed whole instead (``words`` is
    ``None``, the text cannot be cut with confidence, a kept statement does not parse alone).

    ``defer``: where every statement is kept (no name a statement binds can add another), a
    run whose text it accepts is not parsed here, nor given to ``on_run``: the caller parses
    it later (``Relevant.deferred``; ``runs`` parses it like any other). Its syntax is then
    not checked here: a later parse that fails says so."""
    statements = top_level(text) if words is not None else None
    if words is None or statements is None or len(statements) < 2:
        return None
    kept = _Kept(text, statements)
    if not kept.mark_text(words):
        return None
    kept.mark_names(words.names)
    parsed = bytearray(len(statements))
    bound: set[str] = set(words.names)
    if 0 in kept.flags:
        defer = None  # NOTE: what a run binds may keep another statement: every run is read
    deferred: set[int] = set()
    while True:
        pending = [i for i in range(len(statements)) if kept.flags[i] and not parsed[i]]
        if not pending:
            break
        new: set[str] = set()
        for first, last in _runs(pending, statements, run_size):
            if defer is not None and defer(text[statements[first].start : statements[last].end]):
                parsed[first : last + 1] = b"\1" * (last + 1 - first)
                deferred.add(first)
                continue
            body = _parse_run(text, statements, first, last, kept.lines)
            if body is None:
                return None
            parsed[first : last + 1] = b"\1" * (last + 1 - first)
            if 0 in kept.flags:  # NOTE: a name matters only while a statement is left out
                for node in body:
                    new.update(module_bindings(node))
            on_run(first, body)
        new -= bound
        bound |= new
        kept.mark_names(sorted(new))
    kept_indexes = [i for i, f in enumerate(kept.flags) if f]
    return Relevant(text, statements, kept.lines, kept_indexes, frozenset(deferred))


class Relevant(NamedTuple):
    """The statements of a module the scan reads (``select_relevant``)."""

    text: str
    statements: list[Statement]
    lines: list[int]
    """The 1-based line each statement starts at."""
    kept: list[int]
    """The indexes of the statements read, in order."""
    deferred: frozenset[int] = frozenset()
    """The first statement of each run ``select_relevant`` did not parse (its ``defer``)."""

    def runs(self, run_size: int | None) -> Iterator[list[ast.stmt] | None]:
        """The kept statements parsed again, in runs of consecutive statements cut as
        ``select_relevant`` cuts them, in the module's order; ``None`` for a run that does not
        parse alone (each statement did in ``select_relevant``, maybe beside others)."""
        for _, body in self.runs_marked(run_size):
            yield body

    def runs_marked(self, run_size: int | None) -> Iterator[tuple[bool, list[ast.stmt] | None]]:
        """``runs``, each with whether ``select_relevant`` deferred it (parsed here first)."""
        for first, last in _runs(self.kept, self.statements, run_size):
            body = _parse_run(self.text, self.statements, first, last, self.lines)
            yield first in self.deferred, body


def module_bindings(statement: ast.stmt) -> set[str]:
    """The names ``statement`` (top-level) binds that another statement's reading can depend
    on: the names its imports bind and the functions and classes it defines, outside any
    function or class body; the names of a ``global`` declaration; and, anywhere in it, the
    name a plain assignment sets (``names`` resolves ``x = torch.xpu``, and a probe's
    flag is known by its name wherever it is set: ``probes``). Any other binding only
    hides a name, which the statement then spells.

    Only statements are walked, never expressions (no assignment is inside one)."""
    names: set[str] = set()
    stack: list[tuple[ast.AST, bool]] = [(statement, False)]
    while stack:
        node, nested = stack.pop()
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if type(t) is ast.Name)
        elif isinstance(node, ast.AnnAssign):
            if type(node.target) is ast.Name:
                names.add(node.target.id)
        elif isinstance(node, ast.Global):
            names.update(node.names)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            if not nested:
                names.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if not nested:
                names.add(node.name)
            nested = True  # NOTE: a body binds in its own scope
        for field in _BLOCKS:
            block = getattr(node, field, None)
            if type(block) is list:
                stack.extend((child, nested) for child in block)
    return names


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields that hold statements (an ``except`` clause and a ``case`` hold a ``body``)."""


class _Kept:
    """Which statements of ``text`` are kept, and where each starts (its first line)."""

    def __init__(self, text: str, statements: list[Statement]) -> None:
        self.text = text
        self.statements = statements
        self.starts = [s.start for s in statements]
        self.flags = bytearray(len(statements))
        self.lines: list[int] = []
        """The 1-based line each statement starts at."""
        line, pos = 1, 0
        for statement in statements:
            line += _breaks(text, pos, statement.start)
            self.lines.append(line)
            pos = statement.start

    def mark_text(self, words: Words) -> bool:
        """Keep the statements that spell ``words.anywhere`` or ``words.folded`` or could
        spell a word without writing it; ``False`` when the text cannot be folded in place."""
        text = self.text
        for word in words.anywhere:
            self._mark_all(text, word)
        if words.folded:
            folded = text.translate(_FOLD).lower()
            if len(folded) != len(text):
                return False  # NOTE: offsets would move; the caller parses the whole module
            for word in words.folded:
                self._mark_all(folded, word)
        self._mark_all(text, "\\")
        self._mark_matches(_ADJACENT_STRINGS)
        if not text.isascii():
            self._mark_matches(_NOT_ASCII)
        return True

    def mark_names(self, names: Collection[str]) -> None:
        """Keep the statements that spell one of ``names`` as a whole word."""
        text = self.text
        if len(names) > _FEW_NAMES:
            # NOTE: one search of the text per name would cost names x text; the identifiers
            # of the statements not kept yet are read once instead
            wanted = set(names)
            for index, statement in enumerate(self.statements):
                if not self.flags[index] and any(
                    found.group() in wanted
                    for found in _IDENTIFIER.finditer(text, statement.start, statement.end)
                ):
                    self.flags[index] = 1
            return
        for name in names:
            size = len(name)
            pos = text.find(name)
            while pos >= 0:
                after = pos + size
                if not _word_char(text, pos - 1) and not _word_char(text, after):
                    after = self._mark(pos)
                pos = text.find(name, after)

    def _mark_all(self, text: str, word: str) -> None:
        pos = text.find(word)
        while pos >= 0:
            pos = text.find(word, self._mark(pos))

    def _mark_matches(self, pattern: re.Pattern[str]) -> None:
        found = pattern.search(self.text)
        while found is not None:
            found = pattern.search(self.text, self._mark(found.start()))

    def _mark(self, pos: int) -> int:
        """Keep the statement ``pos`` is in, if any; where to search on (past it)."""
        index = bisect.bisect_right(self.starts, pos) - 1
        if index < 0:
            return pos + 1
        statement = self.statements[index]
        if pos >= statement.end:
            return pos + 1  # a blank or comment line between statements
        self.flags[index] = 1
        return statement.end


def _parse_run(
    text: str, statements: list[Statement], first: int, last: int, lines: list[int]
) -> list[ast.stmt] | None:
    """The trees of statements ``first`` to ``last`` (consecutive), at their lines; ``None``
    when they do not parse alone."""
    source = text[statements[first].start : statements[last].end]
    offset = lines[first] - 1
    # NOTE: line breaks before the text put it at its line for the cost of the parser skipping
    # blank lines (about 40 ns each); far down a module, moving the tree's line numbers is
    # cheaper for a short run (``increment_lineno`` walks the tree in Python: microseconds a
    # node, and a node comes every few characters), never for a long one.
    padded = offset <= 256 + 4 * len(source)
    try:
        tree = parse_python("\n" * offset + source if padded else source)
    except Unparsable:
        return None
    if offset and not padded:
        ast.increment_lineno(tree, offset)
    return tree.body


def _runs(
    indexes: list[int], statements: list[Statement], run_size: int | None = None
) -> Iterable[tuple[int, int]]:
    """``indexes`` (sorted) as runs of consecutive numbers: (first, last) each; with
    ``run_size``, a run ends once its statements hold that many characters or more."""
    if not indexes:
        return
    first = previous = indexes[0]
    held = 0
    for index in indexes[1:]:
        if run_size is not None:
            held += statements[previous].end - statements[previous].start
        if index != previous + 1 or (run_size is not None and held >= run_size):
            yield first, previous
            first, held = index, 0
        previous = index
    yield first, previous


def _word_char(text: str, at: int) -> bool:
    if at < 0 or at >= len(text):
        return False
    char = text[at]
    return char == "_" or char.isalnum()


def _breaks(text: str, start: int, end: int) -> int:
    """The line breaks in ``text[start:end]`` (``\\r\\n`` is one)."""
    return (
        text.count("\n", start, end) + text.count("\r", start, end) - text.count("\r\n", start, end)
    )
