"""Replaying saved reports: one re-judged against today's knowledge base (``report``), many
merged into one fleet report (``merge``).

A maintainer can triage a user's XPU report without the hardware: the environment and the
checks' observations travel in the report, so the verdicts are recomputed from them with
today's knowledge base (a fix version learned since, a new entry). Sanity findings and
findings of checks no entry names anymore are kept as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ipex_doctor.app.conclusion import conclude, gate_policy
from ipex_doctor.errors import DoctorError, ExitCode
from ipex_doctor.knowledge import known_issues
from ipex_doctor.knowledge.known_issues import KnowledgeBase
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import SCHEMA_VERSION, Command, FindingKind, Report
from ipex_doctor.model.observations import CheckRun
from ipex_doctor.reporting.output_options import OutputOptions
from ipex_doctor.reporting.saved_reports import (
    SavedReport,
    check_part,
    load_report,
    read_report_data,
    report_paths,
    upgrade_old_findings,
)
from ipex_doctor.verdicts.fleet import REPORT_READS, Fleet, NodeDigest
from ipex_doctor.verdicts.judge import judge


def merge_files(arguments: Sequence[Path]) -> Report:
    """The fleet report of node reports (files, or directories of them), each node named after
    its file (the whole path when two stems clash). Read one at a time: only each node's digest
    is kept.

    Each report is checked against the published schema where the fleet reads it
    (``REPORT_READS``); what the fleet report shows as it was written (the first node's
    environment, each distinct finding where it first appears) is checked whole."""
    paths = report_paths(arguments)
    fleet = Fleet()
    names: set[str] = set()
    environment: Environment | None = None
    for path in paths:
        name = path.stem if path.stem not in names else str(path)
        names.add(name)
        data = read_report_data(path, REPORT_READS)
        if environment is None:
            check_part(path, data["environment"], "environment", "$.environment")
            try:
                environment = Environment.from_dict(data["environment"])
            except ValueError as exc:
                raise DoctorError(f"{path}: not a valid ipex-doctor report ({exc})") from None
        try:
            new = fleet.add(NodeDigest.of_data(name, data))
        except ValueError as exc:
            raise DoctorError(f"{path}: {exc}") from None
        for index, finding in new:
            check_part(path, finding, "finding", f"$.findings[{index}]")
        upgrade_old_findings(data, (finding for _, finding in new))
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
    # NOTE: these commands judge a chosen part only (a scan, the code's environment needs):
    # a replay judges that part again and adds nothing the command did not report.
    if report.command in (Command.REPRO, Command.SANITY, Command.SCAN):
        judged = tuple(f for f in judged if f.id in selected)
    # NOTE: everything but the verdicts stays as recorded (a scan's summary, a fix's repair
    # record); the baseline comparison was made against the old verdicts, so it is dropped
    # (``--baseline`` makes a new one), and the report is written in the current schema.
    return replace(report, findings=judged + kept, baseline=None, schema_version=SCHEMA_VERSION)


@dataclass(frozen=True)
class ReplayRequest:
    """What the user asked ``report``: the saved report, how to publish it, what to judge with."""

    report_file: Path
    out: OutputOptions
    kb_overlays: tuple[str, ...] = ()
    as_recorded: bool = False
    """Keep the recorded verdicts rather than re-judge them."""
    baseline: SavedReport | None = None


def replay_report(request: ReplayRequest, notify: Callable[[str], None]) -> ExitCode:
    """``report``: a saved report re-judged against the current knowledge base (or as it was
    recorded), compared with the baseline, published; the exit code."""
    out = request.out
    out.check()
    knowledge = known_issues.load_files(request.kb_overlays, notify)
    saved = load_report(request.report_file)
    policy = gate_policy(out, knowledge, [f.id for f in saved.findings])
    report = saved if request.as_recorded else rejudge(saved, knowledge)
    if report.repair is not None:
        # NOTE: a fix's report is replayed with its plan and outcome first, as fix printed
        # them: the findings below are the diagnosis after the repair.
        from rich.text import Text

        from ipex_doctor.reporting.formats.repair_text import repair_section
        from ipex_doctor.reporting.output import STDOUT
        from ipex_doctor.reporting.publish import print_human

        to_stderr = any(sink == STDOUT for _, sink in out.sinks)
        print_human(Text(repair_section(report.repair)), to_stderr=to_stderr)
    return conclude(report, out, policy, request.baseline)


def merge_reports(
    paths: Sequence[Path],
    out: OutputOptions,
    *,
    kb_overlays: tuple[str, ...] = (),
    notify: Callable[[str], None],
) -> ExitCode:
    """``merge``: the fleet report of node reports, published; the exit code."""
    out.check()
    knowledge = known_issues.load_files(kb_overlays, notify)
    fleet = merge_files(paths)
    policy = gate_policy(out, knowledge, [f.id for f in fleet.findings])
    return conclude(fleet, out, policy)
