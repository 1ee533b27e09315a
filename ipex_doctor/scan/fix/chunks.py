"""A module whose every statement a fix reads, cut into chunks that LibCST reads one at a time.

Where nearly every top-level statement uses IPEX (generated code, a file of small functions
each with an ``autocast``), ``fix.slice`` leaves nothing out, and LibCST on the whole module
costs tens of microseconds a node and about 0.8 GiB a MiB (a 10 MiB file: several GiB). But
most of what a codemod decides about a statement reads only that statement and what the
module binds the names it uses to. So ``split`` gives:

* the *context*: the top-level statements every chunk holds, because a decision about some
  other statement may read them: the first statement (its line sets the line ending LibCST
  writes), every statement that spells ``import``, every statement that may bind at module
  level a name some fix resolves (a target's last part, a trigger, ``torch``, a name the
  imports bind; ``global`` counts, and ``del``), and every statement that spells a name read
  across the module (``__all__``, ``globals`` and the other dynamic lookups);
* the *chunks*: runs of the other statements, each at most about ``chunk_bytes`` long and
  never across a context statement.

Each chunk's text (``Chunk.text``) is the context and the chunk's own statements, in the
module's order, every other run left out behind one placeholder statement (``pass`` with a
comment, as ``fix.slice`` does: it binds, uses and says nothing), so what comes before a use
at import time still comes before it, and where an added ``import torch`` would go does not
move. ``fix.rewrite`` runs every codemod on every chunk, pass by pass, and takes a chunk's
outcome only when everything outside its own statements came back byte for byte and no
record was made there: a decision that reads the whole module (an import that goes once all
its uses are rewritten, an IPEX import kept for a use elsewhere) is made on an import, which
is context, so it is either the same in every chunk or the module is fixed whole.

Cuts are made only where ``fix.slice`` may cut (a gap of column-0 lines), so LibCST gives
the lines between a chunk and what follows to the statement after in both readings.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from ipex_doctor.scan.fix.slice import (
    PLACEHOLDER,
    line_break_of_run,
    statement_groups,
    words_pattern,
)
from ipex_doctor.scan.read.top_level import Statement

READ_ACROSS = ("__all__", "globals", "locals", "vars", "eval", "exec", "__dict__", "getattr")
"""Names a fix may read anywhere in the module for a decision about an import (the dynamic
lookups that may reach a name, ``__all__``): a statement that spells one is context."""

_IMPORT = re.compile(r"(?<!\w)import(?!\w)")


@dataclass(frozen=True)
class Chunk:
    """One chunk: ``text`` is ``head + body + tail``, ``body`` the chunk's own statements
    (with the gap after the last), ``head`` and ``tail`` the context and placeholders around
    them."""

    head: str
    body: str
    tail: str

    @property
    def text(self) -> str:
        return self.head + self.body + self.tail


@dataclass(frozen=True)
class Split:
    """A module as context and chunks: ``pieces`` concatenated is the module, and
    ``pieces[i]`` for ``i`` in ``chunk_at`` is the body of the chunk with that index."""

    pieces: tuple[str, ...]
    chunk_at: tuple[int, ...]
    chunks: tuple[Chunk, ...]
    reference: str
    """The context alone with the statement holding the module's first indented line (what
    LibCST's line ending and indent are read from for the whole module)."""


def split(source: str, names: Collection[str], chunk_bytes: int) -> Split | None:
    """``source`` as context and chunks of about ``chunk_bytes`` (see the module), for the
    fixes that resolve ``names``; ``None`` when it cannot be cut with confidence (a statement
    that spells one of ``names`` does not parse), or when there would be fewer than two
    chunks."""
    found = statement_groups(source)
    if found is None:
        return None
    groups, bound = found
    context = _context(source, groups, {*names, *bound})
    if context is None:
        return None
    context[0] = True
    ranges = list(_ranges(groups, context, chunk_bytes))
    if len(ranges) < 2:
        return None
    token = "ipex-doctor-chunk-"
    while token in source:
        token += "x"
    first_indented = next((i for i, g in enumerate(groups) if g.indented), None)
    pieces: list[str] = [source[: groups[0].start]]
    chunk_at: list[int] = []
    index = 0
    bounds = dict(ranges)
    while index < len(groups):
        last = bounds.get(index)
        if last is None:
            pieces.append(source[groups[index].start : _next_start(source, groups, index)])
            index += 1
            continue
        chunk_at.append(len(pieces))
        pieces.append(source[groups[index].start : _next_start(source, groups, last)])
        index = last + 1
    chunks = tuple(_chunk(source, groups, context, first, last, token) for first, last in ranges)
    reference = _text(source, groups, context, {first_indented}, token)
    return Split(tuple(pieces), tuple(chunk_at), chunks, reference)


def _context(source: str, groups: list[Statement], names: Collection[str]) -> list[bool] | None:
    spelled = words_pattern((*names, *READ_ACROSS))
    read_across = set(READ_ACROSS)
    wanted = set(names)
    context: list[bool] = []
    for group in groups:
        if _IMPORT.search(source, group.start, group.end) is not None:
            context.append(True)
            continue
        found = {m.group() for m in spelled.finditer(source, group.start, group.end)}
        if not found:
            context.append(False)
            continue
        if found & read_across:
            context.append(True)
            continue
        bound = _may_bind(source[group.start : group.end])
        if bound is None:
            return None
        context.append(not bound.isdisjoint(wanted))
    return context


def _may_bind(text: str) -> set[str] | None:
    """Every name ``text`` (top-level statements) may bind at module level, and more: each
    name it binds anywhere (a local of a function too), declares ``global`` or deletes;
    ``None`` when it does not parse. More is only slower (a statement made context for
    nothing); less would let a chunk read a name as something the module does not."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            return None  # NOTE: an import is context already; never reached
    return bound


def _ranges(
    groups: list[Statement], context: list[bool], chunk_bytes: int
) -> Iterable[tuple[int, int]]:
    """The chunks as ``(first, last)`` group indices: runs of groups that are not context,
    cut when a chunk reaches ``chunk_bytes``."""
    first: int | None = None
    size = 0
    for index, (group, is_context) in enumerate(zip(groups, context, strict=True)):
        if is_context:
            if first is not None:
                yield first, index - 1
                first = None
            continue
        if first is None:
            first, size = index, 0
        size += group.end - group.start
        if size >= chunk_bytes:
            yield first, index
            first = None
    if first is not None:
        yield first, len(groups) - 1


def _chunk(
    source: str, groups: list[Statement], context: list[bool], first: int, last: int, token: str
) -> Chunk:
    own = set(range(first, last + 1))
    text = _text(source, groups, context, own, token)
    body = source[groups[first].start : _next_start(source, groups, last)]
    head = _text(source, groups[:first], context[:first], own, token, end=groups[first].start)
    assert text.startswith(head + body)
    return Chunk(head, body, text[len(head) + len(body) :])


def _text(
    source: str,
    groups: list[Statement],
    context: list[bool],
    own: Collection[int | None],
    token: str,
    end: int | None = None,
) -> str:
    """The context and the groups ``own``, in order, each run of the others behind one
    placeholder line followed by the gap after the run; up to ``end`` (the end of
    ``source`` by default) when the groups given are a prefix of the module's."""
    stop = len(source) if end is None else end
    if not groups:
        return source[:stop]
    pieces = [source[: groups[0].start]]
    index = 0
    while index < len(groups):
        if context[index] or index in own:
            pieces.append(source[groups[index].start : _next_start(source, groups, index, stop)])
            index += 1
            continue
        last = index
        while last + 1 < len(groups) and not (context[last + 1] or last + 1 in own):
            last += 1
        run = source[groups[index].start : groups[last].end]
        pieces.append(f"{PLACEHOLDER}{token}" + line_break_of_run(run))
        pieces.append(source[groups[last].end : _next_start(source, groups, last, stop)])
        index = last + 1
    return "".join(pieces)


def _next_start(source: str, groups: list[Statement], index: int, stop: int | None = None) -> int:
    if index + 1 < len(groups):
        return groups[index + 1].start
    return len(source) if stop is None else stop
