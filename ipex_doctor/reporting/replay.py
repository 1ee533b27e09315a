"""Replay a saved report: read it, refuse newer formats, re-judge it with the current knowledge base.

A maintainer can triage a user's XPU report without the hardware: the environment and the
checks' observations travel in the report, so the verdicts are recomputed from them with
today's knowledge base (a fix version learned since, a new entry). Sanity findings and
findings of checks no entry names anymore are kept as they were.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ipex_doctor import resources
from ipex_doctor.errors import DoctorError, read_bounded
from ipex_doctor.knowledge import schema
from ipex_doctor.knowledge.known_issues import KnowledgeBase
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import SCHEMA_VERSION, Command, FindingKind, Report
from ipex_doctor.model.observations import CheckRun
from ipex_doctor.verdicts.fleet import Fleet, NodeDigest
from ipex_doctor.verdicts.judge import judge

MAX_REPORT_BYTES = 64 * 1024 * 1024


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


def read_report_data(path: Path) -> dict[str, Any]:
    """A report as JSON, checked against the published schema (``DoctorError`` otherwise)."""
    text = read_bounded(path, MAX_REPORT_BYTES, DoctorError, "report")
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DoctorError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
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
    _check_schema(path, data)
    return data


@functools.cache
def _report_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(resources.read_text("report.schema.json"))
    return schema


def _check_schema(path: Path, data: Any) -> None:
    """Refuse a report that does not match the published schema, naming the first place.

    The schema-subset validator (``knowledge.schema``, checked against jsonschema by the
    tests) compiles the schema once: a fleet merge reads thousands of reports."""
    errors = schema.errors(data, _report_schema())
    if errors:
        first = errors[0]
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.path)
        raise DoctorError(
            f"{path}: not a valid ipex-doctor report ({where}: {first.message[:200]})"
        )


def report_paths(arguments: Sequence[Path]) -> list[Path]:
    """The report files the arguments name: a directory stands for its ``*.json`` files (a
    fleet's thousands of reports need no shell glob)."""
    paths: list[Path] = []
    for argument in arguments:
        if argument.is_dir():
            found = sorted(argument.glob("*.json"))
            if not found:
                raise DoctorError(f"{argument}: a directory with no *.json reports in it")
            paths.extend(found)
        else:
            paths.append(argument)
    return paths


def merge_files(arguments: Sequence[Path]) -> Report:
    """The fleet report of node reports (files, or directories of them), each node named after
    its file (the whole path when two stems clash). Read one at a time: only each node's digest
    is kept."""
    paths = report_paths(arguments)
    fleet = Fleet()
    names: set[str] = set()
    environment: Environment | None = None
    for path in paths:
        name = path.stem if path.stem not in names else str(path)
        names.add(name)
        data = read_report_data(path)
        if environment is None:
            try:
                environment = Environment.from_dict(data["environment"])
            except ValueError as exc:
                raise DoctorError(f"{path}: not a valid ipex-doctor report ({exc})") from None
        try:
            fleet.add(NodeDigest.of_data(name, data))
        except ValueError as exc:
            raise DoctorError(f"{path}: {exc}") from None
    if environment is None:
        raise DoctorError("no reports to merge")
    try:
        return fleet.report(environment)
    except ValueError as exc:
        raise DoctorError(f"a report does not fit the model: {exc}") from None


def recorded_runs(report: Report) -> dict[str, list[CheckRun]]:
    """The check runs recorded in the report's known-issue findings, by check id."""
    runs: dict[str, list[CheckRun]] = {}
    for finding in report.findings:
        for item in finding.evidence.data.get("runs") or ():
            if not isinstance(item, dict) or "check" not in item:
                continue
            try:
                run = CheckRun.from_dict(item)
            except ValueError:
                continue  # NOTE: evidence data is free-form: a run that does not parse says nothing
            runs.setdefault(run.check_id, []).append(run)
    return runs


def rejudge(report: Report, kb: KnowledgeBase) -> Report:
    """``report`` with its verdicts recomputed against ``kb`` from its own observations."""
    runs = recorded_runs(report)
    kinds = (FindingKind.ENVIRONMENT,) if report.command is Command.ENV else None
    judged = judge(report.environment, kb, kinds=kinds, runs=runs)
    judged_ids = {f.id for f in judged}
    kept = tuple(
        f
        for f in report.findings
        if f.id not in judged_ids and f.kind is not FindingKind.ENVIRONMENT
    )
    selected = {f.id for f in report.findings}
    if report.command in (Command.REPRO, Command.SANITY):
        judged = tuple(f for f in judged if f.id in selected)
    return Report(
        doctor_version=report.doctor_version,
        created_at=report.created_at,
        command=report.command,
        environment=report.environment,
        findings=judged + kept,
        complete=report.complete,
    )
