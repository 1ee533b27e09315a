"""``scan_paths``: discover the candidates, read each one's bytes once, report what matched.

A candidate whose kind no rule reads is counted and never opened. A file over the size limit
(generated code, data dumps) is skipped unread, with its size; notebooks get ten times the
limit, since their outputs (images) are most of their size and are never parsed. A binary
file (NUL bytes) is skipped. The rest goes to its reader (``readers``): the prefilter decides
from the bytes whether it is parsed at all.

The result is deterministic: matches sorted by path, cell, line, column (then end and rule),
skipped files by path and reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import CodeMatch, FileKind, ScanResult, SkippedFile
from ipex_doctor.scan.discovery import Candidate, discover
from ipex_doctor.scan.kinds import reads_as_python
from ipex_doctor.scan.readers import (
    NOT_PARSED,
    Outcome,
    read_notebook,
    read_python,
    read_text,
    skipped,
)
from ipex_doctor.scan.ruleset import RuleSet

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
"""Files larger than this (10 MiB) are skipped unread; notebooks get ``NOTEBOOK_FACTOR`` times."""
NOTEBOOK_FACTOR = 10

_MIB = 1024 * 1024


def scan_paths(
    roots: Sequence[Path],
    rules: CodeRules,
    *,
    exclude: Sequence[str] = (),
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> ScanResult:
    """Scan the files under ``roots`` (directories or files; none: the current directory) for
    ``rules``, leaving out what ``exclude`` (gitignore patterns, relative to each root) and the
    trees' ``.gitignore`` files name.

    ``ScanError`` when a root does not exist or a pattern is invalid; ``KnowledgeBaseError``
    when a rule names an unknown pattern or an invalid regex. Anything wrong with a file is a
    ``SkippedFile`` in the result. Paths in the result are relative to the root each file was
    found under (POSIX form); ``discovery.source_path`` finds the file again.
    """
    paths = tuple(roots) or (Path("."),)
    ruleset = RuleSet(rules)
    matches: list[CodeMatch] = []
    skips: list[SkippedFile] = []
    candidates: list[Candidate] = []
    for item in discover(paths, exclude=exclude):
        if isinstance(item, SkippedFile):
            skips.append(item)
        else:
            candidates.append(item)
    parsed = 0
    for outcome in _outcomes(candidates, rules, ruleset, max_file_bytes):
        parsed += outcome.parsed
        matches.extend(outcome.matches)
        skips.extend(outcome.skipped)
    seen = len(candidates)
    return ScanResult(
        roots=tuple(path.as_posix() for path in paths),
        files_seen=seen,
        files_parsed=parsed,
        matches=tuple(sorted(matches, key=_match_order)),
        skipped=tuple(sorted(skips, key=lambda s: (s.path, s.reason))),
    )


PARALLEL_FROM = 400
"""Candidates from which the files are read in worker processes too (one per core, up to
``MAX_WORKERS``): parsing the files a prefilter admits is most of a large tree's time, and a
spawned worker costs about a tenth of a second to start."""
MAX_WORKERS = 8
_CHUNK = 16


def _outcomes(
    candidates: Sequence[Candidate], rules: CodeRules, ruleset: RuleSet, max_file_bytes: int
) -> Iterator[Outcome]:
    """Each candidate's outcome, in order; a large tree is shared among spawned workers (never
    forked: the doctor's process may hold threads, and a fork would copy them half-way)."""
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    if len(candidates) < PARALLEL_FROM or workers < 2:
        for candidate in candidates:
            yield _read(candidate, ruleset, max_file_bytes)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = [candidates[i : i + _CHUNK] for i in range(0, len(candidates), _CHUNK)]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(rules,)
    ) as pool:
        for outcomes in pool.map(_read_chunk, chunks, [max_file_bytes] * len(chunks)):
            yield from outcomes


_WORKER_RULES: RuleSet | None = None


def _start_worker(rules: CodeRules) -> None:
    global _WORKER_RULES
    _WORKER_RULES = RuleSet(rules)


def _read_chunk(chunk: Sequence[Candidate], max_file_bytes: int) -> list[Outcome]:
    assert _WORKER_RULES is not None
    return [_read(candidate, _WORKER_RULES, max_file_bytes) for candidate in chunk]


def _read(candidate: Candidate, rules: RuleSet, max_file_bytes: int) -> Outcome:
    notebook = candidate.kind is FileKind.NOTEBOOK
    python = notebook or reads_as_python(candidate.kind, candidate.path.name)
    if not rules.prefilter(candidate.kind, python=python):
        return NOT_PARSED  # no rule reads this kind: not even opened
    limit = max_file_bytes * (NOTEBOOK_FACTOR if notebook else 1)
    if candidate.size > limit:
        return skipped(candidate, _too_large(candidate.size, limit))
    try:
        data = candidate.path.read_bytes()
    except OSError as error:
        return skipped(candidate, f"cannot be read: {error.strerror or error}")
    if len(data) > limit:  # it grew since the walk
        return skipped(candidate, _too_large(len(data), limit))
    if b"\0" in data:
        return skipped(candidate, "binary (contains NUL bytes)")
    if notebook:
        return read_notebook(candidate, data, rules)
    if python:
        return read_python(candidate, data, rules)
    return read_text(candidate, data, rules)


def _too_large(size: int, limit: int) -> str:
    return f"too large to scan: {size / _MIB:.1f} MiB, over the {limit / _MIB:g} MiB limit"


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
