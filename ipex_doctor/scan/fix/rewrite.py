"""``scan --fix``'s rewrites of text: Python source with LibCST, shell scripts and Dockerfiles
with line-anchored expressions. Nothing here reads or writes a file (``fix_files`` does).

Contracts:

* ``fix_source`` rewrites Python source with LibCST, so everything it does not rewrite
  (formatting, comments, strings) stays byte for byte; a comment above an import it removes
  moves to the next statement (one at the end of the removed line goes with it). It returns
  the new source, each rewrite applied (fix id, line of the original source) and each place a
  fix recognised but left alone because it could not prove the rewrite equivalent there
  (with why). The result must parse: if it does not, nothing is applied and that is
  reported. Running it again on its own result changes nothing. Where every edit is a call
  rewritten in place and ``ast`` proves what LibCST would decide there (``fix.splice``), the
  calls are spliced as text and LibCST never reads the module. Elsewhere LibCST reads only the
  top-level statements the fixes can read (``fix_slice``: the cost follows what the file
  holds of IPEX, not its size); the rest is copied, not parsed, so the result parses
  wherever the original did (a syntax error in a statement no fix reads is left as it was,
  where LibCST on the whole module refuses the file).
* ``fix_text`` does the same for shell scripts and Dockerfiles (line-anchored regular
  expressions: text has no syntax tree).
"""

from __future__ import annotations

import ast
import gc
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper
from patiencediff import PatienceSequenceMatcher

from ipex_doctor.errors import DoctorError, did_you_mean
from ipex_doctor.model.code import FileKind
from ipex_doctor.model.codec import JsonModel
from ipex_doctor.scan.fix import chunks as fix_chunks
from ipex_doctor.scan.fix import slice as fix_slice
from ipex_doctor.scan.fix import splice as fix_splice
from ipex_doctor.scan.fix.codemods.base import Refusal, Rewrite
from ipex_doctor.scan.fix.codemods.registry import CODEMODS, FIX_IDS, TEXT_FIXES
from ipex_doctor.scan.fix.slice import Words
from ipex_doctor.scan.read.collector import collector_paused

__all__ = [
    "FIX_IDS",
    "FixError",
    "FixOutcome",
    "Refusal",
    "Rewrite",
    "check_ids",
    "fix_chunked",
    "fix_sliced",
    "fix_source",
    "fix_source_in_place",
    "fix_spliced",
    "fix_text",
    "fix_whole_module",
    "fix_with_libcst",
]

PYTHON_KINDS = frozenset({FileKind.PYTHON, FileKind.SETUP})
TEXT_KINDS = frozenset({FileKind.SHELL, FileKind.DOCKERFILE})
WHOLE_FILE = ""
"""The fix id of a refusal about the whole text (it does not parse), not one fix."""
CHUNK_BYTES = 256 * 1024
"""How much of a module LibCST reads at a time where it reads nearly all of it (``fix.chunks``):
LibCST holds about 0.8 GiB a MiB of source; a text under two chunks is read whole."""


class FixError(DoctorError):
    """A fix cannot be read, applied or written: an unknown fix id, an unreadable file, a file
    that changed on disk since it was read. The message is one line naming the file."""


@dataclass(frozen=True)
class FixOutcome(JsonModel):
    """The result of fixing one text: the new text, the rewrites applied and the places left
    alone, in line order."""

    source: str
    changed: bool = False
    rewrites: tuple[Rewrite, ...] = ()
    refusals: tuple[Refusal, ...] = ()


def check_ids(fix_ids: Collection[str]) -> set[str]:
    unknown = sorted(set(fix_ids) - FIX_IDS)
    if unknown:
        raise FixError(
            f"unknown fix id {unknown[0]!r}",
            tip=did_you_mean(unknown[0], FIX_IDS, otherwise=f"known: {', '.join(sorted(FIX_IDS))}"),
        )
    return set(fix_ids)


# -- Python source --------------------------------------------------------------------------


def fix_source(source: str, fix_ids: Collection[str]) -> FixOutcome:
    """``source`` with the Python fixes among ``fix_ids`` applied (see the module docstring).

    Raises ``FixError`` for an unknown fix id; everything else (a file that does not parse, a
    place a fix refuses) is reported in the outcome.

    Where every edit is a call rewritten in place and ``ast`` proves what LibCST would decide
    (``fix.splice``), the calls are spliced as text, LibCST never reading the module;
    otherwise LibCST reads only the top-level statements the fixes to run can read
    (``fix_slice``), so the cost follows what the file holds of IPEX, not its size. Either
    way the outcome is the one LibCST on the whole module gives (differential tests hold them
    together). What the slice leaves out is not parsed: a syntax error there stays as it was,
    and the result parses wherever the original did."""
    return _fix(source, fix_ids, splice=True)[0]


def fix_source_in_place(source: str, fix_ids: Collection[str]) -> tuple[FixOutcome, bool]:
    """``fix_source``'s outcome, and whether ``fix.splice`` gave it (on the whole module or
    its slice). Then every line of the new text is the line of ``source`` at the same place,
    as it was or with calls replaced in it (no line is added, removed, split or joined), and
    each line with a call replaced is the line LibCST prints for it (``fix.splice`` checks
    that the line comes back from LibCST as written): ``fix.verbatim`` lays such an outcome
    over the original lines without LibCST. ``False`` for every other outcome (LibCST wrote
    it, or nothing was rewritten by the splices)."""
    return _fix(source, fix_ids, splice=True)


def fix_with_libcst(source: str, fix_ids: Collection[str]) -> FixOutcome:
    """``fix_source`` with LibCST wherever it would read the module (the slice, the chunks or
    the whole module), never ``fix.splice``: the reference the splices are held to."""
    return _fix(source, fix_ids, splice=False)[0]


def _fix(source: str, fix_ids: Collection[str], *, splice: bool) -> tuple[FixOutcome, bool]:
    """The outcome, and whether the splices gave it (``fix_source_in_place``)."""
    wanted = check_ids(fix_ids)
    ids = [fix_id for fix_id in CODEMODS if fix_id in wanted]
    if not ids:
        return FixOutcome(source), False
    with collector_paused():
        split = fix_slice.split_once(source)
        return _sliced(source, ids, splice=splice, split=split) or _fix_whole(
            source, ids, splice=splice, split=split
        )


def fix_spliced(source: str, fix_ids: Collection[str]) -> FixOutcome | None:
    """``fix_source`` by ``fix.splice`` alone, on the whole module (no slice); ``None`` where
    the splices decline (see ``fix.splice``)."""
    wanted = check_ids(fix_ids)
    return _splice(source, [fix_id for fix_id in CODEMODS if fix_id in wanted], _nowhere,
                   _identity, None)  # fmt: skip


def _splice(
    source: str,
    ids: Sequence[str],
    outside: Callable[[str], bool],
    line: Callable[[int], int],
    allowed: Collection[str] | None,
    split: fix_slice.Split | None = None,
) -> FixOutcome | None:
    spliced = fix_splice.fix(source, ids, outside=outside, line=line, allowed=allowed, split=split)
    if spliced is None:
        return None
    return FixOutcome(
        spliced.source,
        spliced.source != source,
        in_order(spliced.rewrites),
        in_order(spliced.refusals),
    )


def fix_whole_module(source: str, fix_ids: Collection[str]) -> FixOutcome:
    """``fix_source`` with LibCST on the whole module, whatever its size: the reference the
    slice is held to (it is what ``fix_source`` does when a module cannot be cut)."""
    wanted = check_ids(fix_ids)
    with collector_paused():
        return _fix_whole(source, [fix_id for fix_id in CODEMODS if fix_id in wanted])[0]


def _fix_whole(
    source: str, ids: Sequence[str], *, splice: bool = False, split: fix_slice.Split | None = None
) -> tuple[FixOutcome, bool]:
    """The outcome on the whole module, and whether the splices gave it (``split``: its
    statements, when already split)."""
    if splice:
        spliced = _splice(source, ids, _nowhere, _identity, None, split)
        if spliced is not None:
            return spliced, True
    if len(source) >= 2 * CHUNK_BYTES:
        chunked = _fix_chunked(source, ids, outside=_nowhere, line=_identity, allowed=None)
        if chunked is not None:
            return chunked, False
    outcome = _fix_module(source, ids, outside=_nowhere, line=_identity)
    assert outcome is not None  # NOTE: only a slice (``allowed`` given) gives up
    return outcome, False


def fix_chunked(
    source: str, fix_ids: Collection[str], chunk_bytes: int = CHUNK_BYTES
) -> FixOutcome | None:
    """``fix_source`` on the whole module read in chunks of about ``chunk_bytes``
    (``fix.chunks``), whatever its size; ``None`` when the module cannot be chunked or a
    chunk cannot answer for the whole module (see ``_fix_chunked``)."""
    wanted = check_ids(fix_ids)
    ids = [fix_id for fix_id in CODEMODS if fix_id in wanted]
    with collector_paused():
        return _fix_chunked(
            source, ids, outside=_nowhere, line=_identity, allowed=None, chunk_bytes=chunk_bytes
        )


def fix_sliced(source: str, fix_ids: Collection[str]) -> FixOutcome | None:
    """``fix_source`` on the slice of ``source`` the fixes read (``fix_slice``), spliced back;
    ``None`` when the module cannot be cut (nothing to leave out, or no confident split), or
    when the slice cannot answer for the whole module (it does not parse, a fix not foreseen
    finds work, the result does not parse): ``fix_source`` then fixes the whole module."""
    wanted = check_ids(fix_ids)
    with collector_paused():
        sliced = _sliced(source, [fix_id for fix_id in CODEMODS if fix_id in wanted])
    return None if sliced is None else sliced[0]


def _sliced(
    source: str, ids: Sequence[str], *, splice: bool = False, split: fix_slice.Split | None = None
) -> tuple[FixOutcome, bool] | None:
    """The outcome on the slice put back into ``source``, and whether the splices gave it
    (putting the slice back moves no line: each statement left out comes back where its
    placeholder was, ``fix.slice``); ``None`` as for ``fix_sliced``. ``split``: the
    statements of ``source``, when already split (``fix.slice.split_once``)."""
    allowed = frozenset(fix_id for fix_id in ids if CODEMODS[fix_id].may_apply(source))
    relevant = {word for fix_id in allowed for word in CODEMODS[fix_id].relevant()}
    cut = fix_slice.cut(source, relevant, split)
    if cut is None:
        return None
    outcome = None
    if splice:
        outcome = _splice(cut.text, ids, cut.outside, cut.line, allowed)
    in_place = outcome is not None
    if outcome is None and len(cut.text) >= 2 * CHUNK_BYTES:
        outcome = _fix_chunked(cut.text, ids, outside=cut.outside, line=cut.line, allowed=allowed)
    if outcome is None:
        outcome = _fix_module(cut.text, ids, outside=cut.outside, line=cut.line, allowed=allowed)
    if outcome is None:
        return None
    if not outcome.changed:
        return replace(outcome, source=source), in_place
    spliced = cut.splice(outcome.source)
    if spliced is None:
        return None
    return replace(outcome, source=spliced, changed=spliced != source), in_place


def _fix_module(
    source: str,
    ids: Sequence[str],
    *,
    outside: Callable[[str], bool],
    line: Callable[[int], int],
    allowed: Collection[str] | None = None,
) -> FixOutcome | None:
    """The codemods ``ids`` run in turn on ``source``, a whole module or a slice of one: a
    slice also holds, for ``may_apply``, the words ``outside`` finds, and its records' lines
    go through ``line``. ``None`` (for a slice, ``allowed`` given) when the slice does not
    parse, a codemod not in ``allowed`` finds work, or the result does not parse: the whole
    module then says what is wrong, in its own lines."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        if allowed is not None:
            return None
        return FixOutcome(source, refusals=(not_python(exc),))
    current = source
    # NOTE: metadata (scopes, qualified names) is most of the cost; a pass that changed
    # nothing leaves the tree, and the metadata already resolved for it, to the next one.
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    del module
    to_original: Callable[[int], int] = line
    rewrites: list[Rewrite] = []
    refusals: list[Refusal] = []
    for at, fix_id in enumerate(ids):
        codemod = CODEMODS[fix_id]()
        if not codemod.may_apply(Words(current, outside)):
            continue
        if allowed is not None and fix_id not in allowed:
            return None
        run = codemod.run(to_original)
        try:
            new = _keep_final_carriage_return(current, wrapper.visit(run).code)
            changed = new != current
            # NOTE: LibCST checks each pass's output parses, for the next pass's tree; after
            # the last pass that has work, the interpreter's own parser judges (below).
            if changed and any(
                CODEMODS[later].may_apply(Words(new, outside)) for later in ids[at + 1 :]
            ):
                wrapper = MetadataWrapper(cst.parse_module(new), unsafe_skip_copy=True)
        except Exception as exc:  # NOTE: one broken fix must not cost the others
            refusals.append(
                Refusal(fix_id, 1, f"not applied: the fix failed ({type(exc).__name__}: {exc}); "
                "this is a bug in ipex-doctor")
            )  # fmt: skip
            continue
        rewrites.extend(replace(r, line=to_original(r.line)) for r in run.records.rewrites)
        refusals.extend(replace(r, line=to_original(r.line)) for r in run.records.refusals)
        if changed:
            to_original = _compose(to_original, _line_step(current, new))
            current = new
    del wrapper
    why = _does_not_parse(source, current)
    if why is not None:
        if allowed is not None:
            return None
        refusals.append(
            Refusal(WHOLE_FILE, 1, f"nothing applied: the rewritten code does not parse ({why}); "
            "this is a bug in ipex-doctor")
        )  # fmt: skip
        return FixOutcome(source, refusals=in_order(refusals))
    return FixOutcome(current, current != source, in_order(rewrites), in_order(refusals))


class _OutsideBody(Exception):
    """A line outside a chunk's own statements was asked for: the chunk cannot answer."""


def _fix_chunked(
    source: str,
    ids: Sequence[str],
    *,
    outside: Callable[[str], bool],
    line: Callable[[int], int],
    allowed: Collection[str] | None,
    chunk_bytes: int = CHUNK_BYTES,
) -> FixOutcome | None:
    """``_fix_module`` on ``source`` read in chunks (``fix.chunks``), pass by pass: each
    codemod that the whole text (every chunk as the earlier passes left it) may need runs on
    every chunk, and the records' lines go through the whole text's lines as
    ``_fix_module``'s do. ``None`` when the module cannot be chunked, or a chunk cannot
    answer for the whole module: it does not parse (with LibCST or, before or after,
    ``ast``), its line ending or indent is not the module's, a codemod changed or recorded
    something outside the chunk's own statements, or failed, or a codemod the text did not
    need at first may be needed after an earlier pass (the context was not chosen for it); the
    caller then reads the module whole, which says what is wrong in its own words."""
    may = [fix_id for fix_id in ids if CODEMODS[fix_id].may_apply(Words(source, outside))]
    names = {"torch", *(word for fix_id in may for word in CODEMODS[fix_id].relevant())}
    split = fix_chunks.split(source, names, chunk_bytes)
    # NOTE: every chunk repeats the context: beyond the module's size again, reading the
    # module whole costs less.
    if split is None or sum(len(c.head) + len(c.tail) for c in split.chunks) > len(source):
        return None
    try:
        reference = cst.parse_module(split.reference)
        for chunk in split.chunks:
            ast.parse(chunk.text)
    except (cst.ParserSyntaxError, SyntaxError, ValueError, RecursionError):
        return None
    config = (reference.default_newline, reference.default_indent)
    pieces = list(split.pieces)
    to_original = line
    rewrites: list[Rewrite] = []
    refusals: list[Refusal] = []
    for fix_id in ids:
        if not CODEMODS[fix_id].may_apply(_Pieces(pieces, outside)):
            continue
        # NOTE: the context was chosen for the names of the codemods the text needed first.
        if fix_id not in may or (allowed is not None and fix_id not in allowed):
            return None
        before = "".join(pieces)
        starts = _piece_lines(pieces)
        for chunk, at in zip(split.chunks, split.chunk_at, strict=True):
            body = pieces[at]
            to_whole = _body_lines(_breaks(chunk.head), _line_count(body), starts[at])
            run = CODEMODS[fix_id]().run(_compose(to_original, to_whole))
            text = chunk.head + body + chunk.tail
            try:
                module = cst.parse_module(text)
                if (module.default_newline, module.default_indent) != config:
                    return None
                new = _keep_final_carriage_return(
                    text, MetadataWrapper(module, unsafe_skip_copy=True).visit(run).code
                )
                del module
                done = [
                    replace(r, line=to_original(to_whole(r.line))) for r in run.records.rewrites
                ]
                left = [
                    replace(r, line=to_original(to_whole(r.line))) for r in run.records.refusals
                ]
            except Exception:  # NOTE: a parse error, a line outside the body, a broken fix
                return None
            if len(new) < len(chunk.head) + len(chunk.tail) or not (
                new.startswith(chunk.head) and new.endswith(chunk.tail)
            ):
                return None
            rewrites.extend(done)
            refusals.extend(left)
            pieces[at] = new[len(chunk.head) : len(new) - len(chunk.tail)]
            # NOTE: the cyclic collector is paused (``fix_source``); a chunk's scopes hold
            # cycles, and a module of many chunks would keep every chunk's otherwise.
            gc.collect()
        after = "".join(pieces)
        if after != before:
            to_original = _compose(to_original, _line_step(before, after))
    for chunk, at in zip(split.chunks, split.chunk_at, strict=True):
        try:
            ast.parse(chunk.head + pieces[at] + chunk.tail)
        except (SyntaxError, ValueError, RecursionError):
            return None
    current = "".join(pieces)
    return FixOutcome(current, current != source, in_order(rewrites), in_order(refusals))


class _Pieces:
    """What ``Codemod.may_apply`` asks of a text held in pieces (and what was left out)."""

    def __init__(self, pieces: Sequence[str], outside: Callable[[str], bool]) -> None:
        self.pieces = pieces
        self.outside = outside

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and (
            any(word in piece for piece in self.pieces) or self.outside(word)
        )


def _body_lines(head: int, size: int, first: int) -> Callable[[int], int]:
    """Maps a line of a chunk's text (``head`` lines of context, then ``size`` of its own)
    to the whole text's line (its own lines start at ``first``); ``_OutsideBody`` for a
    line of the context (a record there cannot be told for the whole module)."""

    def to_whole(line: int) -> int:
        if not head < line <= head + size:
            raise _OutsideBody(line)
        return line - head - 1 + first

    return to_whole


def _piece_lines(pieces: Sequence[str]) -> list[int]:
    """The line (1-based) each of ``pieces`` starts on in their concatenation."""
    starts: list[int] = []
    line = 1
    for piece in pieces:
        starts.append(line)
        line += _breaks(piece)
    return starts


def _breaks(text: str) -> int:
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _line_count(text: str) -> int:
    """The lines of ``text`` (a last line without a line break counts)."""
    return _breaks(text) + (1 if text and not text.endswith(("\n", "\r")) else 0)


def _nowhere(word: str) -> bool:
    return False


def _keep_final_carriage_return(before: str, after: str) -> str:
    """``after`` with the line break that ends ``before`` when that is a lone ``\\r``:
    LibCST (1.9) counts a file as ending with a line break only when it ends with ``\\n``,
    and writes a file that ends with ``\\r`` back without that last one (a file that ends
    with a blank line too: ``a\\r\\r`` comes back as ``a\\r``)."""
    if before.endswith("\r"):
        return after + "\r"
    return after


def not_python(exc: cst.ParserSyntaxError) -> Refusal:
    message = str(exc).splitlines()[0] if str(exc) else "syntax error"
    return Refusal(WHOLE_FILE, exc.raw_line, f"not fixed: the file does not parse ({message})")


def _does_not_parse(before: str, after: str) -> str | None:
    """Why ``after`` does not parse as Python although ``before`` did (``None``: it parses).
    LibCST parsed every pass's output already; ``ast`` is the interpreter's own parser, the
    one that counts."""
    try:
        ast.parse(before)
    except (SyntaxError, ValueError):
        # NOTE: the interpreter rejects the original too (another Python's syntax): LibCST
        # is the judge.
        try:
            cst.parse_module(after)
        except cst.ParserSyntaxError as exc:
            return str(exc).splitlines()[0]
        return None
    try:
        ast.parse(after)
    except (SyntaxError, ValueError) as exc:
        return str(exc)
    return None


def _identity(line: int) -> int:
    return line


def _compose(outer: Callable[[int], int], inner: Callable[[int], int]) -> Callable[[int], int]:
    return lambda line: outer(inner(line))


def _line_step(old: str, new: str) -> Callable[[int], int]:
    """Maps a line of ``new`` to the line of ``old`` it came from (a line added maps to the
    line it was added before), so records keep pointing at the user's original lines. Lines
    are LibCST's (and Python's): split at ``\\r\\n``, ``\\r`` and ``\\n`` only."""
    a, b = code_lines(old), code_lines(new)
    table: list[int] = []
    # NOTE: patience diff, not difflib: difflib's matcher is quadratic on the repeated lines
    # of generated code (a 10 MiB module of similar functions never finishes).
    for tag, i1, i2, j1, j2 in PatienceSequenceMatcher(None, a, b).get_opcodes():
        # NOTE: an equal line maps to its twin; a changed or added one to the old line at the
        # same offset in its block, or to the line the block was added before.
        last_old = max(i1, i2 - 1)
        table.extend(
            i1 + k + 1 if tag == "equal" else min(i1 + k, last_old) + 1 for k in range(j2 - j1)
        )
    last = max(len(a), 1)
    return lambda line: min(table[line - 1], last) if 1 <= line <= len(table) else last


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def code_lines(text: str) -> list[str]:
    """``text`` as lines without their line breaks, split where Python and LibCST count a new
    line (``str.splitlines`` also splits at form feeds and Unicode separators)."""
    lines = _LINE_BREAK.split(text)
    if lines and not lines[-1]:
        lines.pop()
    return lines


def in_order(records: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(sorted(records, key=lambda r: (r.cell or 0, r.line)))


# -- shell scripts and Dockerfiles ----------------------------------------------------------


def fix_text(text: str, kind: FileKind, fix_ids: Collection[str]) -> FixOutcome:
    """``text`` (a file of ``kind``) with the text fixes among ``fix_ids`` applied. Only
    shell scripts and Dockerfiles have text fixes; other kinds come back unchanged. Python
    and notebooks are refused (``FixError``): use ``fix_source`` / ``fix_file``."""
    wanted = check_ids(fix_ids)
    if kind in PYTHON_KINDS or kind is FileKind.NOTEBOOK:
        raise FixError(f"fix_text is for text files, not {kind.value}: use fix_source or fix_file")
    if kind not in TEXT_KINDS:
        return FixOutcome(text)
    rewrites: list[Rewrite] = []
    refusals: list[Refusal] = []
    current = text
    for fix_id, fix in TEXT_FIXES.items():
        if fix_id not in wanted:
            continue
        new, notes = fix(current)
        for note in notes:
            if note.applied:
                rewrites.append(Rewrite(fix_id, note.line, note.message))
            else:
                refusals.append(Refusal(fix_id, note.line, note.message))
        current = new
    return FixOutcome(current, current != text, in_order(rewrites), in_order(refusals))
