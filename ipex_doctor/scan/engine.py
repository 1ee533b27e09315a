"""``scan_paths``: discover the candidates, read each one's bytes once, report what matched.

A candidate whose kind no rule reads is counted and never opened; one found ``by_use`` (a
``*.txt`` that may be a requirement list) is neither counted nor opened unless another file
names it (``named_requirements``). A file over the size limit
(generated code, data dumps) is skipped unread, with its size; notebooks get ten times the
limit, since their outputs (images) are most of their size and are never parsed. A binary
file (NUL bytes) is skipped. The rest goes to its reader (``readers``): the prefilter decides
from the bytes whether it is parsed at all.

The result is deterministic: matches sorted by path, cell, line, column (then end and rule),
skipped files by path and reason.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import CodeMatch, FileKind, ScanResult, SkippedFile
from ipex_doctor.scan.match.cross_file import ALIAS_RULES, FLAG_RULES, PROBE_RULES
from ipex_doctor.scan.match.rule_checks import refuse_invalid
from ipex_doctor.scan.outcome import Outcome
from ipex_doctor.scan.outcome_cache import OutcomeCache
from ipex_doctor.scan.read.discovery import Candidate, discover
from ipex_doctor.scan.read.kept_bytes import KeptBytes
from ipex_doctor.scan.read.kinds import reads_as_python
from ipex_doctor.scan.read.named_requirements import is_named

if TYPE_CHECKING:
    from ipex_doctor.scan.match.ruleset import RuleSet

# NOTE: what reads a file (``one_file``, the readers and matchers behind it, the rule set's
# building: about a third of a warm scan's imports) and what reads across files (``own_flags``,
# ``project_flags``, ``own_extras``) is imported where it is first needed: a scan whose every
# file is an outcome-cache hit and has no finding that reads across files (a pre-commit hook's
# unchanged tree) never imports it.

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
"""Files larger than this (10 MiB) are skipped unread; notebooks get ``NOTEBOOK_FACTOR`` times."""


def scan_paths(
    roots: Sequence[Path],
    rules: CodeRules,
    *,
    exclude: Sequence[str] = (),
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    cache: bool = False,
    docs: bool = False,
) -> ScanResult:
    """Scan the files under ``roots`` (directories or files; none: the current directory) for
    ``rules``, leaving out what ``exclude`` (gitignore patterns, relative to each root) and the
    trees' ``.gitignore`` files name.

    ``ScanError`` when a root does not exist or a pattern is invalid; ``KnowledgeBaseError``
    when a rule names an unknown pattern or an invalid regex. Anything wrong with a file is a
    ``SkippedFile`` in the result. Paths in the result are relative to the root each file was
    found under (POSIX form); ``discovery.source_path`` finds the file again.

    With ``docs``, the Markdown and reST documents under the roots are read too (their code
    blocks); a document named as a root always is.

    With ``cache``, a file unchanged since the last scan of the same roots with the same rules
    is not read: its outcome comes from ``outcome_cache`` (the result is the same).
    """
    paths = tuple(roots) or (Path("."),)
    # NOTE: compiled only once a file is to be read: a tree whose every file comes from the
    # outcome cache never needs it (a tenth of such a scan's CPU); a bad rule is still refused
    # before anything is read, in a tree with nothing to read too
    refuse_invalid(rules)
    ruleset = functools.cache(lambda: _rule_set(rules))
    matches: list[CodeMatch] = []
    skips: list[SkippedFile] = []
    candidates: list[Candidate] = []
    by_use: list[Candidate] = []
    for item in discover(paths, exclude=exclude, docs=docs):
        if isinstance(item, SkippedFile):
            skips.append(item)
        else:
            (by_use if item.by_use else candidates).append(item)
    kept = OutcomeCache(paths, rules, max_file_bytes) if cache else None
    # NOTE: the Python files' bytes as first read, for the judgements across files below
    held = KeptBytes()
    outcomes = _outcomes_kept(candidates, kept, rules, ruleset, max_file_bytes, held)
    if by_use:
        # NOTE: a list named by no file is never opened; one that is, is read as any
        # requirements file is (and counted as seen), once every naming file has been read
        names = {name for _, outcome in outcomes for name in outcome.names}
        named = [c for c in by_use if is_named(c.display, names)] if names else []
        outcomes += _outcomes_kept(named, kept, rules, ruleset, max_file_bytes, held)
        candidates += named
    if kept is not None:
        kept.save()
    parsed = 0
    for _, outcome in outcomes:
        parsed += outcome.parsed
        matches.extend(outcome.matches)
        skips.extend(outcome.skipped)
    extras = {extra for _, outcome in outcomes for extra in outcome.extras}
    if extras:
        matches.extend(_installs_of_extras(extras, outcomes, matches, rules, max_file_bytes, held))
    if any(match.rule_id in PROBE_RULES for match in matches):
        from ipex_doctor.scan.match.own_flags import probe_lines

        probes = probe_lines(matches)
        if probes:
            matches.extend(
                _reads_of_imported_flags(probes, outcomes, matches, rules, max_file_bytes, held)
            )
    if any(match.rule_id in ALIAS_RULES for match in matches):
        matches, new = _uses_of_imported_aliases(outcomes, matches, rules, max_file_bytes, held)
        matches.extend(new)
    seen = len(candidates)
    return ScanResult(
        roots=tuple(path.as_posix() for path in paths),
        files_seen=seen,
        files_parsed=parsed,
        matches=tuple(sorted(_without_own_flags(matches, outcomes, held), key=_match_order)),
        skipped=tuple(sorted(skips, key=lambda s: (s.path, s.reason))),
    )


def _rule_set(rules: CodeRules) -> RuleSet:
    from ipex_doctor.scan.match.ruleset import RuleSet

    return RuleSet(rules)


def _outcomes_kept(
    candidates: Sequence[Candidate],
    kept: OutcomeCache | None,
    rules: CodeRules,
    ruleset: Callable[[], RuleSet],
    max_file_bytes: int,
    held: KeptBytes,
) -> list[tuple[Candidate, Outcome]]:
    """Every candidate with its outcome: from ``kept`` where the file is unchanged, else read
    with ``ruleset()`` (and then kept), its bytes offered to ``held``."""
    outcomes: list[tuple[Candidate, Outcome]] = []
    unread: list[Candidate] = []
    for candidate in candidates:
        hit = kept.get(candidate) if kept is not None else None
        if hit is None:
            unread.append(candidate)
        else:
            outcomes.append((candidate, hit))
    if not unread:
        return outcomes
    for candidate, outcome in _outcomes(unread, rules, ruleset(), max_file_bytes, held):
        outcomes.append((candidate, outcome))
        if kept is not None:
            kept.put(candidate, outcome)
    return outcomes


HELP_WHEN_LEFT_S = 0.5
"""Spawned workers join the read once the work left is projected to take longer than this
(CPU seconds): a worker costs a tenth of a second or more to start, which a small tree, or a tree
where the prefilter admits few files, would only lose."""
JUDGE_AFTER_S = 0.05
"""The projection waits until the files in its rate have used this much CPU time (a few files
say little)."""
MAX_WORKERS = 8
CHUNK_BYTES = 256 * 1024
"""A chunk (what one process takes at a time) holds files up to about this many bytes, or
``CHUNK_FILES`` files: one large file is a chunk of its own."""
CHUNK_FILES = 64


def _outcomes(
    candidates: Sequence[Candidate],
    rules: CodeRules,
    ruleset: RuleSet,
    max_file_bytes: int,
    held: KeptBytes,
) -> Iterator[tuple[Candidate, Outcome]]:
    """Every candidate with its outcome (in no particular order: the caller sorts results);
    the bytes of the files this process reads are offered to ``held``.

    This process reads the candidates in order and projects (``Projection``), from the bytes
    read so far and the CPU time they took, how long the rest will take. When that is over
    ``HELP_WHEN_LEFT_S`` and there are cores to spare, the rest is cut into chunks (``_chunks``),
    and spawned workers (never forked: the doctor's process may hold threads, and a fork would
    copy them half-way) take chunks from one shared counter beside this process, which keeps
    reading: a slow start on a busy machine costs nothing but the start, as the workers then
    take fewer chunks. The time decides only who reads what, never what is found; a worker that
    dies or hangs costs no file its outcome (``workers`` says how).
    """
    from ipex_doctor.scan.one_file import read_file

    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    projection = Projection(sum(candidate.size for candidate in candidates))
    # NOTE: this process's CPU time, not the wall clock: on a busy machine the wall clock runs
    # several times faster than the work, and a small project (84 files, at a load of 9 on 2
    # cores) started workers in one run of three, each costing more than its whole read.
    before = time.process_time()
    for index, candidate in enumerate(candidates):
        yield candidate, read_file(candidate, ruleset, max_file_bytes, held)
        after = time.process_time()
        projection.add(candidate.kind, candidate.size, after - before)
        before = after
        if workers < 2 or index % _JUDGE_EVERY:
            continue
        rest_s = projection.rest_s()
        if rest_s is not None and rest_s > HELP_WHEN_LEFT_S:
            rest = _chunks(candidates[index + 1 :])
            yield from _with_helpers(rest, workers - 1, rules, ruleset, max_file_bytes, held)
            return


class Projection:
    """The CPU time the rest of a read will take, at the rate of the bytes read so far.

    The first file of each kind is left out of the rate (its time and its bytes; the rest still
    counts its bytes as read): it pays, once per process, its reader's set-up (the rules'
    prefilter for that kind derived, their regexes compiled, the reader's code first run),
    which no later file pays again and a worker would pay once more. Counted in, it made a
    small project (123 files, 0.12 s of CPU to read in all, a first notebook and a first
    Python file about 20 ms each) project more than 0.5 s left and start a worker that cost
    more than its whole read, in every run.
    """

    def __init__(self, total_bytes: int) -> None:
        self._left = total_bytes
        self._rated_bytes = 0
        self._rated_s = 0.0
        self._kinds_seen: set[FileKind] = set()

    def add(self, kind: FileKind, size: int, cpu_s: float) -> None:
        """One more file read: its kind, its size in bytes and the CPU seconds it took."""
        self._left -= size
        if kind not in self._kinds_seen:
            self._kinds_seen.add(kind)
            return
        self._rated_bytes += size
        self._rated_s += cpu_s

    def rest_s(self) -> float | None:
        """The CPU seconds the files left will take; ``None`` until the files in the rate
        have taken ``JUDGE_AFTER_S`` (one file, or a kind's set-up, says little)."""
        if not self._rated_bytes or self._rated_s < JUDGE_AFTER_S:
            return None
        return self._rated_s / self._rated_bytes * self._left


_JUDGE_EVERY = 8
"""Files between two projections. (The CPU clock is read after every file, for the rate to leave
a kind's first file out: a few microseconds a read, under a millisecond for 123 files.)"""


def _chunks(candidates: Sequence[Candidate]) -> list[Sequence[Candidate]]:
    """``candidates`` in chunks, largest files first: whoever is reading then ends on small
    chunks, so no process waits long on another's last large file (the results are sorted
    afterwards, so the order costs nothing)."""
    chunks: list[Sequence[Candidate]] = []
    chunk: list[Candidate] = []
    held = 0
    for candidate in sorted(candidates, key=lambda c: c.size, reverse=True):
        chunk.append(candidate)
        held += candidate.size
        if held >= CHUNK_BYTES or len(chunk) >= CHUNK_FILES:
            chunks.append(chunk)
            chunk, held = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


def _with_helpers(
    chunks: list[Sequence[Candidate]],
    helpers: int,
    rules: CodeRules,
    ruleset: RuleSet,
    max_file_bytes: int,
    held: KeptBytes,
) -> Iterator[tuple[Candidate, Outcome]]:
    """The outcomes of ``chunks``, read by this process (its bytes offered to ``held``) and
    ``helpers`` workers (``workers`` says what happens to the files of a worker that dies or
    hangs)."""
    from ipex_doctor.scan.one_file import read_file
    from ipex_doctor.scan.workers import read_with_workers

    def read(candidate: Candidate) -> Outcome:
        return read_file(candidate, ruleset, max_file_bytes, held)

    return read_with_workers(chunks, helpers, rules, read, max_file_bytes)


def _without_own_flags(
    matches: list[CodeMatch], outcomes: list[tuple[Candidate, Outcome]], held: KeptBytes
) -> list[CodeMatch]:
    """``matches`` less the flags that are the project's own (``project_flags``): the only
    judgement made across files. It costs a second read of each file with a flag finding that
    ``held`` does not hold, and nothing where there is none."""
    if not any(match.rule_id in FLAG_RULES for match in matches):
        return matches
    from ipex_doctor.scan.match.project_flags import without_own_flags
    from ipex_doctor.scan.read.source import Undecodable, decode_text, split_lines

    declared = {c.display: o.declares for c, o in outcomes if o.declares}
    by_path = {candidate.display: candidate.path for candidate, _ in outcomes}

    def lines_of(display: str) -> list[str] | None:
        try:
            return split_lines(decode_text(held.read(by_path[display])))
        except (KeyError, OSError, Undecodable):
            return None

    python_files = (c.display for c, _ in outcomes if reads_as_python(c.kind, c.path.name))
    return without_own_flags(matches, declared, python_files, lines_of)


def _installs_of_extras(
    extras: set[str],
    outcomes: list[tuple[Candidate, Outcome]],
    matches: list[CodeMatch],
    rules: CodeRules,
    max_file_bytes: int,
    held: KeptBytes,
) -> list[CodeMatch]:
    """The installs of the project's own extras that pull IPEX (``own_extras``), by the
    requirement rules, in every file read (a second read, made only in a tree whose metadata
    declares such an extra; the derived rules' prefilter opens only the files that name one),
    less those already found on the same line by the same rule."""
    from ipex_doctor.scan.match.own_extras import extras_rules
    from ipex_doctor.scan.match.ruleset import RuleSet
    from ipex_doctor.scan.one_file import read_file

    derived = RuleSet(extras_rules(rules, extras))
    found = {(m.rule_id, m.location.path, m.location.cell, m.location.line) for m in matches}
    new: list[CodeMatch] = []
    for candidate, _ in outcomes:
        for match in read_file(candidate, derived, max_file_bytes, held).matches:
            at = match.location
            if (match.rule_id, at.path, at.cell, at.line) not in found:
                new.append(match)
    return new


def _reads_of_imported_flags(
    probes: dict[str, list[int]],
    outcomes: list[tuple[Candidate, Outcome]],
    matches: list[CodeMatch],
    rules: CodeRules,
    max_file_bytes: int,
    held: KeptBytes,
) -> list[CodeMatch]:
    """The probes that read a flag another module of the tree sets from a probe and exports
    (``own_flags``), less those already found on the same line. A second read, of the files
    with a probe finding (their module-level assignments) and then of the Python files whose
    bytes can import an exported name (``may_import``: their imports), made only in a tree with a probe finding; the
    importers alone are matched again, with the probe rule reading the flags they import."""
    from ipex_doctor.scan.match.own_flags import (
        exported_flags,
        flag_rules,
        imported_flags,
        may_import,
    )
    from ipex_doctor.scan.match.ruleset import RuleSet
    from ipex_doctor.scan.one_file import read_file

    python = {c.display: c for c, _ in outcomes if reads_as_python(c.kind, c.path.name)}
    exported = exported_flags(probes, _texts((python[d] for d in probes if d in python), held))
    if not exported:
        return []
    found = {(m.rule_id, m.location.path, m.location.cell, m.location.line) for m in matches}
    new: list[CodeMatch] = []

    def importing(display: str, data: bytes) -> bool:
        return may_import(display, data, exported)

    for display, source in _texts(python.values(), held, importing).items():
        flags = imported_flags(display, source, exported)
        if not flags:
            continue
        derived = RuleSet(flag_rules(rules, flags))
        for match in read_file(python[display], derived, max_file_bytes, held).matches:
            at = match.location
            if (match.rule_id, at.path, at.cell, at.line) not in found:
                new.append(match)
    return new


def _uses_of_imported_aliases(
    outcomes: list[tuple[Candidate, Outcome]],
    matches: list[CodeMatch],
    rules: CodeRules,
    max_file_bytes: int,
    held: KeptBytes,
) -> tuple[list[CodeMatch], list[CodeMatch]]:
    """``matches`` with the IPEX imports other modules import from kept (``_kept_for_importers``),
    and the findings in modules that import IPEX by name from another module of the tree that
    binds it (``own_aliases``), less those already found on the same line by the same rule.
    What each file imports by name came with its outcome (``Outcome.imports``); from it, a
    second read of the files with an IPEX import finding that some file may import a word from
    (their module-level bindings), then of the files that import an exported name from a module
    of its exporter's last name; the importers alone are matched again, by every rule, their
    imports of the exported names bound to IPEX."""
    from ipex_doctor.scan.match.own_aliases import (
        Wanted,
        alias_rules,
        exported_aliases,
        import_lines,
        imported_aliases,
        may_export,
        may_import_exported,
        wanted_of,
        words_wanted,
    )

    imports = import_lines(matches)
    python = {c.display: c for c, _ in outcomes if reads_as_python(c.kind, c.path.name)}
    # NOTE: what each file imports by name came with its outcome (kept by the outcome cache):
    # a warm scan reads no file again unless some file imports a word from a module of an
    # exporter's last name, and imports no reader unless it has an importer to read
    # NOTE: only a Python file's words count (an outcome cache edited by hand could give any
    # file some: it is read as the file's kind says, never a traceback)
    by_file = {
        c.display: wanted_of(o.imports) for c, o in outcomes if o.imports and c.display in python
    }
    wanted: Wanted = {}
    for own in by_file.values():
        for tail, words in own.items():
            wanted.setdefault(tail, set()).update(words)
    candidates = [python[d] for d in imports if d in python and words_wanted(d, wanted)]
    if not candidates:
        return matches, []

    def exporting(display: str, data: bytes) -> bool:
        return may_export(display, data, wanted)

    exported = exported_aliases(imports, _texts(candidates, held, exporting))
    if not exported:
        return matches, []
    importers = [python[d] for d, own in by_file.items() if may_import_exported(own, exported)]
    if not importers:
        return matches, []
    from ipex_doctor.scan.match.ruleset import RuleSet
    from ipex_doctor.scan.one_file import read_file

    found = {(m.rule_id, m.location.path, m.location.cell, m.location.line) for m in matches}
    unfixed = alias_rules(rules)
    new: list[CodeMatch] = []
    imported_by: dict[tuple[str, ...], str] = {}
    for display, source in _texts(importers, held).items():
        imported = imported_aliases(display, source, exported)
        if not imported.project:
            continue
        for module, (line, name) in imported.exporters.items():
            imported_by.setdefault(module, f"{display}:{line} ({name})")
        derived = RuleSet(unfixed, imported.project)
        for match in read_file(python[display], derived, max_file_bytes, held).matches:
            at = match.location
            if (match.rule_id, at.path, at.cell, at.line) not in found:
                new.append(match)
    return _kept_for_importers(matches, imported_by), new


def _kept_for_importers(
    matches: list[CodeMatch], imported_by: Mapping[tuple[str, ...], str]
) -> list[CodeMatch]:
    """``matches`` with each IPEX import of a module another module imports a name of IPEX
    from marked so (``CodeMatch.imported_by``) and not mechanical: ``--fix`` leaves that file's
    IPEX imports (``app.code_scan`` runs no import removal there), since removing one that
    the file itself does not use would break the importer's import."""
    from ipex_doctor.scan.match.own_flags import module_of

    if not imported_by:
        return matches
    kept: list[CodeMatch] = []
    for match in matches:
        at = match.location
        by = imported_by.get(module_of(at.path)) if at.path.endswith(".py") else None
        if by is not None and match.rule_id in ALIAS_RULES and at.cell is None:
            match = replace(match, mechanical=False, imported_by=by)
        kept.append(match)
    return kept


def _texts(
    candidates: Iterable[Candidate],
    held: KeptBytes,
    admits: Callable[[str, bytes], bool] | None = None,
) -> dict[str, str]:
    """The source of each candidate that can be read (and whose display path and bytes
    ``admits``, if given), by its display path: from the bytes ``held`` holds, else read."""
    from ipex_doctor.scan.read.source import Undecodable, decode_text

    texts: dict[str, str] = {}
    for candidate in candidates:
        try:
            data = held.read(candidate.path)
            if admits is not None and not admits(candidate.display, data):
                continue
            texts[candidate.display] = decode_text(data)
        except (OSError, Undecodable):
            continue
    return texts


def _match_order(match: CodeMatch) -> tuple[str, int, int, int, int, int, str, str]:
    at = match.location
    return (
        at.path,
        at.cell or 0,
        at.line,
        at.column,
        at.end_line or at.line,
        at.end_column,
        match.rule_id,
        match.symbol,
    )
