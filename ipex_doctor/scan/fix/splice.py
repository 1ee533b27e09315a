"""``fix_source`` without LibCST's tree of the module, where that provably gives the same bytes.

LibCST costs tens of microseconds a node (its parse alone is about 3.4 CPU seconds a MiB, its
scopes 14 more), which a module where every statement needs a fix (thousands of functions,
each with a ``torch.xpu.amp.autocast``) cannot spare. Most of what such a module needs is a
call of an old API rewritten in place. ``fix`` plans those from ``ast`` (the interpreter's
own parser, about 0.3 CPU seconds a MiB, read a batch of top-level statements at a time so
its memory stays bounded) and applies them as text splices at exact offsets.

What it takes: the codemods that declare ``SPLICE`` (a ``CallCodemod``: each edit is one call
of a target rewritten by ``call_edit``, decided by the call's own text and the name of module
``torch``), and only in a module where their every decision is certain from ``ast``:

* every codemod that runs (``may_apply`` on the text as the earlier passes left it, as
  ``fix_source``'s loop asks) declares ``SPLICE``, or declares ``QUIET_WITHOUT`` and the
  module holds none of the nodes it may record at (``with-and``: no ``with`` item is an
  ``and``), so LibCST's pass would record and change nothing;
* the name ``torch`` is bound only by plain ``import torch`` statements among the module's
  top-level statements, and nothing else anywhere binds it (an assignment, a parameter, a
  ``def``/``class``, ``global``/``nonlocal``, ``del``, ``for``, ``with ... as``, ``except ...
  as``, a comprehension, a walrus, a ``match`` capture, an import in a block or a function):
  so LibCST's scopes resolve every ``torch`` to the module, and ``torch`` is the name the fix
  writes;
* no import binds a name related to a target (``import torch as t``, ``from torch.xpu import
  amp``, ``import intel_extension_for_pytorch``...): so the only uses LibCST resolves to a
  target are the attribute chains ``torch.<target>`` written out, and no import is pruned
  (``prune_unused`` drops only such imports);
* the text has no BOM (LibCST drops it; ``fix.verbatim`` puts it back);
* each such chain is written without space, parentheses or comment, is the callee of a call
  that is wholly on one line (no comment, no line break: the edit then writes no line break
  either, and every line keeps its number), comes on a line after the first ``import torch``
  (LibCST's rule for code that runs at import, kept everywhere), and does not lie inside
  another rewritten call (LibCST would nest the edits).

Why the bytes are the same: LibCST's transformer replaces just the call node and prints
everything else as it read it (``fix.verbatim`` then writes back the original of every line
LibCST did not change, and LibCST's print of each rewritten line: each such line is checked
to come back from LibCST as written, ``_prints_as_written``, and a text with a form feed is
declined, since LibCST drops its line); the call alone is here parsed by LibCST
(``cst.parse_expression``, once per distinct call text) and given to the codemod's own
``refusal`` and ``call_edit``, and a one-line call has the same nodes standing alone as
in the module. The records are the codemod's own words at the call's line (``ast``'s line
is LibCST's: both break lines at ``\\r\\n``, ``\\r`` and ``\\n`` only). The result parses: a
call is replaced by a call (``ast`` checks each new one). ``tests/scan/fix/test_fix_splice.py``
holds the outcome to LibCST's (text and records), and what ``fix.verbatim`` writes to what it
writes after LibCST: where LibCST prints a line no fix touched otherwise than it is written
(``except E :``), ``fix_source``'s text keeps the original and LibCST's does not, and both
paths write the original.

When it declines (``None``: ``fix_source`` takes its LibCST path, unchanged): any condition
above fails, a statement does not parse with ``ast`` or the module cannot be split into
top-level statements. As for the slice (``fix.slice``), where LibCST cannot parse code the
interpreter can, LibCST refuses the file while this rewrites it.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, cast

import libcst as cst

from ipex_doctor.scan.fix.codemods.base import CallCodemod, Codemod
from ipex_doctor.scan.fix.codemods.records import Refusal, Rewrite
from ipex_doctor.scan.fix.codemods.registry import CODEMODS
from ipex_doctor.scan.fix.codemods.syntax import code_of
from ipex_doctor.scan.fix.slice import Split, Words
from ipex_doctor.scan.read.top_level import top_level

BATCH_CHARS = 256 * 1024
"""How much source ``ast`` reads at a time (its tree is about 150 bytes a character)."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BOM = "\ufeff"


@dataclass(frozen=True)
class Spliced:
    """The outcome of ``fix``: the new text and the records, in the order decided."""

    source: str
    rewrites: tuple[Rewrite, ...]
    refusals: tuple[Refusal, ...]


@dataclass(frozen=True)
class _Call:
    """A call of a target found by ``ast``: where it is in the text, on which line, its
    callee as written."""

    start: int
    end: int
    line: int
    func: str
    text_of_line: str
    """The whole line the call is on, without its line break."""


class _Declined(Exception):
    """The module holds something ``fix`` cannot decide as LibCST would."""


def splice_codemods(ids: Sequence[str]) -> list[type[CallCodemod]]:
    """The codemods among ``ids`` that declare ``SPLICE``."""
    return [
        codemod
        for fix_id in ids
        if issubclass(codemod := CODEMODS[fix_id], CallCodemod) and codemod.SPLICE
    ]


def fix(
    source: str,
    ids: Sequence[str],
    *,
    outside: Callable[[str], bool],
    line: Callable[[int], int],
    allowed: Collection[str] | None = None,
    split: Split | None = None,
) -> Spliced | None:
    """The codemods ``ids`` (in order) on ``source`` as ``fix_source``'s LibCST loop would
    run them (``outside``, ``line`` and ``allowed`` as there), or ``None`` where this cannot
    be proven to give the same (see the module). ``split``: the statements of ``source``
    (``fix.slice.split_once``), when already split."""
    splice = {codemod.FIX_ID: codemod for codemod in splice_codemods(ids)}
    current = source
    quiet: dict[str, type[Codemod]] = {}
    for fix_id in ids:
        declared = CODEMODS[fix_id]
        if declared.may_apply(Words(current, outside)) and fix_id not in splice:
            if not declared.QUIET_WITHOUT:
                return None  # NOTE: cheap before reading: a codemod with work this cannot do
            quiet[fix_id] = declared
    targets = {
        target: fix_id
        for fix_id, codemod in splice.items()
        for target in codemod.targets()
        if target.startswith("torch.")
    }
    related = {target for codemod in splice.values() for target in codemod.targets()}
    try:
        calls = _read(source, targets, related, quiet.values(), split)
    except _Declined:
        return None
    rewrites: list[Rewrite] = []
    refusals: list[Refusal] = []
    edits: list[tuple[_Call, str]] = []
    decided: dict[tuple[str, str], tuple[str | None, str]] = {}
    printed: dict[str, bool] = {}
    for fix_id in ids:
        if not CODEMODS[fix_id].may_apply(Words(current, outside)):
            continue
        if allowed is not None and fix_id not in allowed:
            return None
        if fix_id in quiet:
            continue  # NOTE: ``_read`` found none of the nodes it may record at
        if fix_id not in splice:
            return None
        codemod = splice[fix_id]()
        made = []
        for call in calls.get(fix_id, ()):
            key = (fix_id, source[call.start : call.end])
            if key not in decided:
                decided[key] = _decide(codemod, key[1], call.func)
            new, words = decided[key]
            if new is not None:
                if call.text_of_line not in printed:
                    printed[call.text_of_line] = _prints_as_written(call.text_of_line)
                if not printed[call.text_of_line]:
                    return None
            if new is None:
                refusals.append(Refusal(fix_id, line(call.line), words))
            else:
                rewrites.append(Rewrite(fix_id, line(call.line), words))
                made.append((call, new))
        if made:
            edits = sorted([*edits, *made], key=lambda edit: edit[0].start)
            if any(a.end > b.start for (a, _), (b, _) in zip(edits, edits[1:], strict=False)):
                return None  # NOTE: a rewritten call inside another: LibCST nests them
            current = _apply(source, edits)
    return Spliced(current, tuple(rewrites), tuple(refusals))


def _decide(codemod: CallCodemod, text: str, func: str) -> tuple[str | None, str]:
    """What the codemod makes of the call ``text`` (callee ``func``, the target written out):
    the new text and the summary, or ``None`` and the reason it refuses."""
    call = cst.parse_expression(text)
    assert isinstance(call, cst.Call)
    why = codemod.refusal(call, func)
    if why is not None:
        return None, why
    edit, summary = codemod.call_edit(call, func, "torch", func)
    edited = edit(call)
    assert isinstance(edited, cst.Call)
    new = code_of(edited)
    # NOTE: a call replaced by a call stays valid wherever it stands; this checks it is one.
    if not isinstance(ast.parse(new, mode="eval").body, ast.Call):
        raise AssertionError(f"{codemod.FIX_ID} wrote a call that is not one: {new}")
    return new, summary


def _prints_as_written(line: str) -> bool:
    """Whether LibCST prints ``line`` (one with a call to rewrite) as it is written, read
    alone (its indent stripped; a block or a definition after it where it needs one).

    LibCST's print of a node is its children's prints in order, so where the line alone
    comes back as written, the line with the call rewritten prints as the line with the
    call's new text spliced in: what ``fix.verbatim`` writes for it on the LibCST path. Not
    every line comes back (``except E :`` loses its space); such a line, one that does not
    parse alone (``else: ...``, the middle of a bracket) or one indented with more than
    spaces and tabs is declined."""
    rest = line.lstrip(" \t")
    if not rest or rest[0].isspace():
        return False
    for snippet in (f"{rest}\n", f"{rest}\n    pass\n", f"{rest}\ndef f():\n    pass\n"):
        try:
            module = cst.parse_module(snippet)
        except (cst.ParserSyntaxError, RecursionError):
            continue
        return module.code == snippet
    return False


def _apply(source: str, edits: list[tuple[_Call, str]]) -> str:
    pieces: list[str] = []
    pos = 0
    for call, new in edits:
        pieces.append(source[pos : call.start])
        pieces.append(new)
        pos = call.end
    pieces.append(source[pos:])
    return "".join(pieces)


def _read(
    source: str,
    targets: dict[str, str],
    related: Collection[str],
    quiet: Collection[type[Codemod]] = (),
    split: Split | None = None,
) -> dict[str, list[_Call]]:
    """The calls of ``targets`` (a dotted name to its fix id) in ``source``, by fix id, in
    document order; ``_Declined`` where the module breaks a condition of the module docs, or
    holds a node one of ``quiet`` may record at (``Codemod.QUIET_WITHOUT``)."""
    statements = top_level(source) if split is None else split()
    if not statements or source.startswith(_BOM) or "\f" in source:
        # NOTE: LibCST drops a BOM (``fix.verbatim`` puts it back) and a form feed's line
        # (which ``fix.verbatim`` traces through LibCST's own print of the text).
        raise _Declined
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(source))]
    reader = _Reader(source, starts, targets, related, quiet)
    first = 0
    while first < len(statements):
        last = first
        while (
            last + 1 < len(statements)
            and statements[last + 1].end - statements[first].start <= BATCH_CHARS
        ):
            last += 1
        reader.read(statements[first].start, statements[last].end)
        first = last + 1
    return reader.finish()


class _Reader:
    """Reads a module batch by batch (see ``_read``)."""

    def __init__(
        self,
        source: str,
        starts: list[int],
        targets: dict[str, str],
        related: Collection[str],
        quiet: Collection[type[Codemod]],
    ) -> None:
        self.source = source
        self.quiet = [(codemod.QUIET_WITHOUT, codemod.at_work) for codemod in quiet]
        self.starts = starts
        self.targets = targets
        self.related = related
        self.last_parts = {target.rsplit(".", 1)[-1] for target in targets}
        self.torch_line: int | None = None
        self.chains: list[tuple[int, ast.Attribute, str, ast.Call | None]] = []
        """Each chain that spells a target: its line, node, target and the call of it."""
        self.batch_chains = 0

    def read(self, start: int, end: int) -> None:
        try:
            tree = ast.parse(self.source[start:end])
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            raise _Declined from exc
        offset = bisect.bisect_right(self.starts, start) - 1
        called: dict[int, ast.Call] = {}
        top = set()
        for statement in tree.body:
            if type(statement) in _BINDING_STATEMENTS:
                self._bindings(statement, offset, True)
                top.add(id(statement))
        # NOTE: every node once, by a work list and a dispatch on its exact type: ``ast.walk``
        # (a generator over ``iter_child_nodes``) and an ``isinstance`` chain a node were half
        # of ``fix_source``'s CPU time on a module where every statement is rewritten. What is
        # found does not depend on the order nodes are visited in: any condition broken
        # declines, and the calls are sorted by where they start (``finish``).
        skipped = _NOT_CHILDREN if not self.quiet else ()
        quiet = self.quiet
        # NOTE: a list field may hold names or ``None`` (``Global.names``, ``Dict.keys``): they
        # go on the stack too, and have no fields.
        stack: list[Any] = list(tree.body)
        while stack:
            node = stack.pop()
            kind = type(node)
            fields = _FIELDS.get((kind, skipped))
            for field in fields if fields is not None else _child_fields(kind, skipped):
                value = getattr(node, field)
                if type(value) is list:
                    stack.extend(value)
                elif isinstance(value, ast.AST):
                    stack.append(value)
            if kind is ast.Name:
                if cast(ast.Name, node).id == "torch" and _binds_torch(node):
                    raise _Declined
                continue
            if kind is ast.Call:
                called[id(cast(ast.Call, node).func)] = cast(ast.Call, node)
            elif kind is ast.Attribute:
                attribute = cast(ast.Attribute, node)
                if attribute.attr in self.last_parts:
                    dotted = _dotted(attribute)
                    if dotted in self.targets:
                        self.chains.append((offset + attribute.lineno, attribute, dotted, None))
            elif kind in _BINDING_STATEMENTS:
                if id(node) not in top:
                    self._bindings(cast(ast.stmt, node), offset, False)
            elif kind in _MAY_BIND_TORCH and _binds_torch(node):
                raise _Declined
            for types, at_work in quiet:
                if isinstance(node, types) and at_work(node):
                    raise _Declined
        # NOTE: the calls are known once the whole batch is walked; a chain of this batch
        # gets its call here, and the tree goes with the batch.
        for at in range(self.batch_chains, len(self.chains)):
            line, node, dotted, _ = self.chains[at]
            self.chains[at] = (line, node, dotted, called.get(id(node)))
        self.batch_chains = len(self.chains)

    def _bindings(self, node: ast.stmt, offset: int, top: bool) -> None:
        """Decline a statement that binds ``torch`` (but the one ``import torch``) or a name
        related to a target (see the module)."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if alias.name == "torch" and alias.asname is None and top:
                    # NOTE: ``ast`` gives names NFKC-normalised (``import ｔｏｒｃｈ`` binds
                    # ``torch``); LibCST's scopes go by the name as written and bind none.
                    at = self._offset(offset + alias.lineno, alias.col_offset)
                    if self.source[at : at + len("torch")] != "torch":
                        raise _Declined
                    if self.torch_line is None:
                        self.torch_line = offset + node.lineno
                elif bound == "torch" or self._related(alias.name):
                    raise _Declined
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                # NOTE: LibCST's scopes bind nothing for ``import *``; nor does this.
                if (alias.asname or alias.name) == "torch":
                    raise _Declined
                if not node.level and self._related(f"{node.module}.{alias.name}"):
                    raise _Declined
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == "torch":
                raise _Declined
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and "torch" in node.names:
            raise _Declined

    def _related(self, name: str) -> bool:
        return any(
            t == name or t.startswith(name + ".") or name.startswith(t + ".") for t in self.related
        )

    def finish(self) -> dict[str, list[_Call]]:
        found: dict[str, list[_Call]] = {}
        if self.torch_line is None:
            return found  # NOTE: no `torch` bound: LibCST resolves no chain to a target
        for line, node, dotted, call in self.chains:
            if call is None or line <= self.torch_line:
                raise _Declined  # NOTE: LibCST refuses it, or decides by where it runs
            if call.end_lineno != call.lineno or (call.lineno, call.col_offset) != (
                node.lineno,
                node.col_offset,
            ):
                raise _Declined
            start = self._offset(line, call.col_offset)
            end = self._offset(line, call.end_col_offset or 0)
            if self.source[start : start + len(dotted)] != dotted:
                raise _Declined  # NOTE: a space or a comment inside the chain
            begin = self.starts[line - 1]
            stop = self.starts[line] if line < len(self.starts) else len(self.source)
            whole = self.source[begin:stop].rstrip("\r\n")
            found.setdefault(self.targets[dotted], []).append(
                _Call(start, end, line, dotted, whole)
            )
        for calls in found.values():
            calls.sort(key=lambda call: call.start)
        return found

    def _offset(self, line: int, column: int) -> int:
        """The offset in the text of ``column`` (``ast``'s: UTF-8 bytes) on ``line``."""
        begin = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.source)
        text = self.source[begin:end]
        if text.isascii():
            return begin + column
        return begin + len(text.encode("utf-8")[:column].decode("utf-8"))


_BINDING_STATEMENTS = frozenset(
    {ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Global,
     ast.Nonlocal}
)  # fmt: skip
"""The statements ``_Reader._bindings`` reads (no other statement binds by its own kind)."""
_MAY_BIND_TORCH = frozenset(
    {ast.arg, ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping}
)
"""The nodes but ``Name`` that ``_binds_torch`` may find binding a name."""
_NOT_CHILDREN: tuple[str, ...] = ("ctx", "op", "ops")
"""Fields that hold only an expression context or an operator: nothing ``_Reader`` reads
(unless a quiet codemod asks about such nodes: then every field is walked)."""
_FIELDS: dict[tuple[type, tuple[str, ...]], tuple[str, ...]] = {}


def _child_fields(kind: type, skipped: tuple[str, ...]) -> tuple[str, ...]:
    """The fields of node type ``kind`` but ``skipped`` (none for what is not a node)."""
    names: tuple[str, ...] = getattr(kind, "_fields", ())
    fields = _FIELDS[kind, skipped] = tuple(f for f in names if f not in skipped)
    return fields


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for an attribute chain of names, else ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _binds_torch(node: ast.AST) -> bool:
    """Whether ``node`` (not a statement) binds the name ``torch`` in some scope."""
    if isinstance(node, ast.Name):
        return node.id == "torch" and not isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.arg):
        return node.arg == "torch"
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return node.name == "torch"
    if isinstance(node, ast.MatchMapping):
        return node.rest == "torch"
    return False
