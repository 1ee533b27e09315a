"""Saved reports read back: one file, or a directory of them, read within limits
(``bounded_json``), checked against the published schema, and refused with one line when it is
not a report this doctor can read. A report older than schema 1.9 has its findings' commands
read into typed actions (``legacy_commands``), as a new one carries them.

``report`` re-renders one, ``merge`` reads a fleet's, ``--baseline`` compares with one.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ipex_doctor import resources
from ipex_doctor.bounded_json import DEFAULT_MAX_DEPTH, JsonLimits, depth_beyond, read_json
from ipex_doctor.errors import DoctorError
from ipex_doctor.knowledge import schema
from ipex_doctor.model.findings import SCHEMA_VERSION, Report
from ipex_doctor.reporting import legacy_commands

REPORT_LIMITS = JsonLimits(max_bytes=64 * 1024 * 1024)
"""A 10,624-node fleet report is 7.5 MB; a node's report about 45 kB."""

_READER_LIMITS = dataclasses.replace(REPORT_LIMITS, max_depth=None)
"""For a reader of some parts (``reads``): the depth is checked on what it walks, its parts
here and each part it checks whole (``check_part``). Walking every finding of every node
was a tenth of a fleet's merge, and a merge reads most findings by their key alone."""


def _version(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def load_report(path: Path) -> Report:
    """Read a report written by ipex-doctor; raises ``DoctorError`` with what is wrong."""
    data = read_report_data(path)
    try:
        return Report.from_dict(data)
    except ValueError as exc:
        raise DoctorError(f"{path}: not a valid ipex-doctor report ({exc})") from None


def read_report_data(path: Path, reads: schema.Reads | None = None) -> dict[str, Any]:
    """A report as JSON, checked against the published schema (``DoctorError`` otherwise);
    with ``reads``, only the parts it names are checked (``knowledge.schema.subset``): for a
    reader that uses no more of the report."""
    data = read_json(
        path, REPORT_LIMITS if reads is None else _READER_LIMITS, DoctorError, "report"
    )
    if not isinstance(data, dict) or "schema_version" not in data:
        raise DoctorError(f"{path}: not an ipex-doctor report (no schema_version)")
    try:
        theirs = _version(str(data["schema_version"]))
    except ValueError:
        raise DoctorError(f"{path}: unreadable schema_version {data['schema_version']!r}") from None
    if theirs > _version(SCHEMA_VERSION):
        raise DoctorError(
            f"{path}: written by a newer ipex-doctor (report schema {data['schema_version']}, "
            f"this one reads up to {SCHEMA_VERSION})",
            tip="upgrade ipex-doctor to replay it",
        )
    if reads is not None:
        # NOTE: of the parts a fleet reads, only the runtime's facts hold values of any shape
        # (the schema types the rest as text): they are walked, the findings by key alone.
        runtime = (
            data.get("environment", {}).get("runtime")
            if isinstance(data.get("environment"), dict)
            else None
        )
        _check_depth(path, runtime, "$.environment.runtime")
    _check_schema(path, data, _report_schema() if reads is None else _subset_schema(reads))
    if reads is None:
        upgrade_old_findings(data, data.get("findings") or ())
    return data


def upgrade_old_findings(report: dict[str, Any], findings: Iterable[Any]) -> None:
    """Give ``findings`` of ``report`` (JSON) the typed actions their commands spell, where the
    report is older than schema 1.9 (``legacy_commands``); a reader of some parts calls it on
    the findings it uses whole."""
    if _version(str(report["schema_version"])) < legacy_commands.FIRST_TYPED:
        legacy_commands.upgrade_findings(f for f in findings if isinstance(f, dict))


@functools.cache
def _report_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(resources.read_text("report.schema.json"))
    return schema


_SUBSETS: dict[int, tuple[schema.Reads, dict[str, Any]]] = {}


def _subset_schema(reads: schema.Reads) -> dict[str, Any]:
    kept = _SUBSETS.get(id(reads))
    if kept is None or kept[0] is not reads:
        kept = _SUBSETS[id(reads)] = (reads, schema.subset(_report_schema(), reads))
    return kept[1]


@functools.cache
def part_schema(name: str) -> dict[str, Any]:
    """The published schema of one part of a report (``finding``, ``environment``): its
    ``$defs`` entry, with the definitions it refers to."""
    return {"$defs": _report_schema()["$defs"], "$ref": f"#/$defs/{name}"}


def check_part(path: Path, data: Any, name: str, where: str) -> None:
    """Refuse ``data`` (the part of the report in ``path`` at ``where``, e.g. ``$.findings``)
    unless it matches the published schema of ``name`` (and is no deeper than a report may be)."""
    _check_depth(path, data, where)
    _check_schema(path, data, part_schema(name), where)


def _check_depth(path: Path, data: Any, where: str) -> None:
    """Refuse a part nested deeper than a saved report may be (``bounded_json``)."""
    if depth_beyond(data, DEFAULT_MAX_DEPTH):
        raise DoctorError(
            f"{path}: {where} nested deeper than {DEFAULT_MAX_DEPTH} levels; refused "
            "(an ipex-doctor report never is)"
        )


def _check_schema(path: Path, data: Any, against: dict[str, Any], at: str = "$") -> None:
    """Refuse a report that does not match ``against``, naming the first place.

    The schema-subset validator (``knowledge.schema``, checked against jsonschema by the
    tests) compiles each schema once: a fleet merge reads thousands of reports."""
    errors = schema.errors(data, against)
    if errors:
        first = errors[0]
        where = at + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.path)
        raise DoctorError(
            f"{path}: not a valid ipex-doctor report ({where}: {first.message[:200]})"
        )


def report_paths(arguments: Sequence[Path]) -> list[Path]:
    """The report files the arguments name: a directory stands for its ``*.json`` files (a
    fleet's thousands of reports need no shell glob). A file of a directory that links out
    of it is refused (``DoctorError``) before any is read: a directory of reports is often an
    artifact from elsewhere, and a link in it must not bring another file into the merge; a
    file named itself is read wherever it leads."""
    paths: list[Path] = []
    for argument in arguments:
        if argument.is_dir():
            found = sorted(argument.glob("*.json"))
            if not found:
                raise DoctorError(f"{argument}: a directory with no *.json reports in it")
            inside = argument.resolve()
            for path in found:
                if path.is_symlink() and not path.resolve().is_relative_to(inside):
                    raise DoctorError(
                        f"{path} links to {path.resolve()}, outside {argument}: a directory "
                        "stands for the reports in it (name the file itself to merge it)"
                    )
            paths.extend(found)
        else:
            paths.append(argument)
    return paths


@dataclass(frozen=True)
class SavedReport:
    """A report read from a file (``--baseline``): where it came from, and what it says."""

    path: str
    report: Report

    @classmethod
    def read(cls, path: str) -> SavedReport:
        """Read and validate ``path``; a bad file is a ``DoctorError`` naming it."""
        return cls(path, load_report(Path(path)))
