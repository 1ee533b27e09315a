"""``explain``: an error message or traceback to the known issue it is, and the environment
facts it decides between causes with (a saved report's findings, or the environment findings
of an interpreter examined as ``env`` examines it).

A light command: a text alone imports the matcher, the knowledge base and the formatter only;
the report reader and the probe are imported when ``--report`` or ``--python`` is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ipex_doctor.errors import DoctorError, ExitCode

if TYPE_CHECKING:
    from ipex_doctor.knowledge.explain import EnvFacts
    from ipex_doctor.knowledge.known_issues import KnowledgeBase
    from ipex_doctor.runs.diagnose import Progress


@dataclass(frozen=True)
class ExplainRequest:
    """What the user asked ``explain``: the text (or where to read it) and what to decide with."""

    text: str | None
    """The text typed, ``-`` for standard input; ``None`` with ``file_path``."""
    file_path: str | None
    kb_overlays: tuple[str, ...]
    report_path: str | None
    """A saved report whose findings decide between causes (never with ``python``)."""
    python: str | None
    """An interpreter examined as ``env`` does, whose findings decide between causes."""
    timeout_s: float
    as_json: bool


def explain_and_print(
    request: ExplainRequest, notify: Callable[[str], None], show: Callable[[str], None]
) -> ExitCode:
    """``explain``: the matches (or the layer the text names) shown as text or JSON; exit 0 when
    a known issue matched, 4 when only the Intel stack's layer did, 1 when nothing did."""
    from ipex_doctor.knowledge.explain import diagnose, read_input
    from ipex_doctor.knowledge.known_issues import load_files
    from ipex_doctor.reporting.formats.explain_text import explain_json, explain_text

    error = read_input(request.text, request.file_path)
    knowledge = load_files(request.kb_overlays, notify)
    env = environment_facts(
        request.report_path, request.python, request.timeout_s, knowledge, notify
    )
    matches, layer = diagnose(error, knowledge, env)
    show(
        explain_json(matches, env, layer) if request.as_json else explain_text(matches, env, layer)
    )
    if matches:
        return ExitCode.OK
    return ExitCode.LAYER_ONLY if layer is not None else ExitCode.FINDINGS


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
    from ipex_doctor.knowledge.explain import EnvFacts
    from ipex_doctor.reporting.saved_reports import read_report_data

    env = EnvFacts.of_report(report_path, read_report_data(Path(report_path)))
    if not env.findings:
        raise DoctorError(f"{report_path}: the report has no findings to decide with")
    return env


def facts_of_interpreter(
    python: str, timeout: float, knowledge: KnowledgeBase, progress: Progress
) -> EnvFacts:
    """The environment findings of ``python``, examined and judged as ``env`` does."""
    from ipex_doctor.knowledge.explain import EnvFacts, seen
    from ipex_doctor.model.findings import FindingKind
    from ipex_doctor.probe.options import ProbeOptions
    from ipex_doctor.runs.diagnose import examine
    from ipex_doctor.verdicts.assemble import findings_of

    examined, _ = examine(ProbeOptions(python=python, timeout_s=timeout), progress=progress)
    judged = findings_of(examined, knowledge, runs={}, kinds=(FindingKind.ENVIRONMENT,))
    return EnvFacts(python, {f.id: seen(f.status.value, f.evidence) for f in judged})
