"""One candidate file read under the rules: the unit of work of the scan's own process and of
its spawned workers.

It lives apart from ``engine`` (which plans the read and joins the results) so that ``workers``
can import it without importing the engine that imports ``workers``.
"""

from __future__ import annotations

from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.match.own_extras import ipex_extras
from ipex_doctor.scan.match.project_flags import declared_flags
from ipex_doctor.scan.match.ruleset import RuleSet
from ipex_doctor.scan.match.triggers import Probe
from ipex_doctor.scan.outcome import Outcome
from ipex_doctor.scan.read.collector import collector_paused
from ipex_doctor.scan.read.discovery import Candidate, NotRegularFile, read_candidate
from ipex_doctor.scan.read.kept_bytes import KeptBytes
from ipex_doctor.scan.read.kinds import decodes_wide, reads_as_python, wide_text_unrun
from ipex_doctor.scan.read.named_requirements import named_lists
from ipex_doctor.scan.read.source import WIDE_BOM_STARTS, Undecodable, decode_text
from ipex_doctor.scan.readers import (
    NOT_PARSED,
    read_docs,
    read_notebook,
    read_python,
    read_text,
    skipped,
)

NOTEBOOK_FACTOR = 10
"""A notebook may be this many times the size limit: its outputs (images, tables) are most of it."""

_MIB = 1024 * 1024


def read_file(
    candidate: Candidate, rules: RuleSet, max_file_bytes: int, kept: KeptBytes | None = None
) -> Outcome:
    """One candidate's outcome under ``rules``: never raises for anything wrong with the file.

    With ``kept``, the bytes it holds for the file are read in place of the file's, and the
    bytes of a Python file read (that is not skipped) are offered to it."""
    notebook = candidate.kind is FileKind.NOTEBOOK
    docs = candidate.kind is FileKind.DOCS
    python = notebook or docs or reads_as_python(candidate.kind, candidate.path.name)
    # NOTE: a document's code blocks are read as notebook cells, with the notebook's rules
    ruled = FileKind.NOTEBOOK if docs else candidate.kind
    if not rules.prefilter(ruled, python=python):
        return NOT_PARSED  # no rule reads this kind: not even opened
    limit = max_file_bytes * (NOTEBOOK_FACTOR if notebook else 1)
    if candidate.size > limit:
        return skipped(candidate, _too_large(candidate.size, limit))
    try:
        data = kept.get(candidate.path) if kept is not None else None
        if data is None:
            data = read_candidate(candidate.path, limit)
    except NotRegularFile:
        reason = "no longer a regular file (replaced since the walk): not read"
        return skipped(candidate, reason)._replace(lasting=False)
    except OSError as error:
        reason = f"cannot be read: {error.strerror or error}"
        return skipped(candidate, reason)._replace(lasting=False)
    if len(data) > limit:  # it grew since the walk
        return skipped(candidate, _too_large(len(data), limit))._replace(lasting=False)
    as_read = data
    if data[:2] in WIDE_BOM_STARTS:
        # NOTE: a Windows script or list saved as UTF-16 (or UTF-32) is read as the UTF-8 of its
        # text: the prefilter, the readers and the lines they report then see what PowerShell
        # or pip sees; two bytes compared is all an ordinary file pays for it
        if decodes_wide(candidate.kind, candidate.path.name):
            try:
                data = decode_text(data).encode("utf-8")
            except Undecodable as error:
                return skipped(candidate, f"cannot be decoded: {error}")
        elif (unrun := wide_text_unrun(candidate.kind, candidate.path.name)) is not None:
            return skipped(candidate, unrun)
    if b"\0" in data:
        return skipped(candidate, "binary (contains NUL bytes)")
    if kept is not None and python and not notebook and not docs:
        kept.keep(candidate.path, as_read)
    # NOTE: a parse tree of a large file is millions of objects; the cyclic collector would
    # walk them again and again while they are built (collector says why it is safe).
    with collector_paused():
        if notebook:
            return read_notebook(candidate, data, rules)
        if docs:
            return read_docs(candidate, data, rules)
        if python:
            probe = Probe(data)
            outcome = read_python(candidate, data, rules, probe=probe)
            declares = declared_flags(data, probe)
            return outcome._replace(declares=declares) if declares else outcome
        outcome = read_text(candidate, data, rules)
        names = named_lists(data, candidate.kind)
        extras = ipex_extras(data, candidate.path.name)
        return outcome._replace(names=names, extras=extras) if names or extras else outcome


def _too_large(size: int, limit: int) -> str:
    return f"too large to scan: {size / _MIB:.1f} MiB, over the {limit / _MIB:g} MiB limit"
