"""The environment facts ``explain`` decides between causes with: a saved report's findings, or
the environment findings of an interpreter examined as ``env`` examines it.

Imported only when ``--report`` or ``--python`` is given: ``explain`` of a text alone stays a
light command (no report reader, no probe).
"""

from __future__ import annotations

from pathlib import Path

from ipex_doctor.errors import DoctorError
from ipex_doctor.knowledge.explain import EnvFacts, seen
from ipex_doctor.knowledge.known_issues import KnowledgeBase
from ipex_doctor.model.findings import FindingKind
from ipex_doctor.probe.options import ProbeOptions
from ipex_doctor.runs.diagnose import Progress, examine
from ipex_doctor.verdicts.assemble import findings_of


def environment_facts(
    report_path: str | None,
    python: str | None,
    timeout: float,
    knowledge: KnowledgeBase,
    progress: Progress,
) -> EnvFacts | None:
    """What ``explain`` decides between causes with: the findings of the report at
    ``report_path``, else those of the interpreter ``python`` examined; ``None`` for neither."""
    if report_path is not None:
        return facts_of_report(report_path)
    if python is not None:
        return facts_of_interpreter(python, timeout, knowledge, progress)
    return None


def facts_of_report(report_path: str) -> EnvFacts:
    """The findings of the report at ``report_path``; ``DoctorError`` when it has none."""
    from ipex_doctor.reporting.saved_reports import read_report_data

    env = EnvFacts.of_report(report_path, read_report_data(Path(report_path)))
    if not env.findings:
        raise DoctorError(f"{report_path}: the report has no findings to decide with")
    return env


def facts_of_interpreter(
    python: str, timeout: float, knowledge: KnowledgeBase, progress: Progress
) -> EnvFacts:
    """The environment findings of ``python``, examined and judged as ``env`` does."""
    examined, _ = examine(ProbeOptions(python=python, timeout_s=timeout), progress=progress)
    judged = findings_of(examined, knowledge, runs={}, kinds=(FindingKind.ENVIRONMENT,))
    return EnvFacts(python, {f.id: seen(f.status.value, f.evidence) for f in judged})
