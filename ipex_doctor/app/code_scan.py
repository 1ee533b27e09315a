"""``scan``: read the user's code, join each match with the examined environment, publish.

The environment is examined without importing torch (package metadata, the CPU's instruction
sets, the GPU stack: what the joins need), so a scan stays fast and safe on any machine. With
``fix`` the mechanical rewrites are applied first, each file replaced atomically, and the code
is read again: the report shows what is left. With ``diff`` the rewrites are printed as a
unified diff and nothing is written. A SARIF fix is attached to every finding whose line a
mechanical rewrite changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ipex_doctor import __version__
from ipex_doctor.app.conclusion import conclude, gate_policy
from ipex_doctor.errors import ExitCode
from ipex_doctor.knowledge import code_rules, known_issues
from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import CodeMatch, ScanResult
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import (
    Command,
    Finding,
    FindingKind,
    Report,
    ScanSummary,
    now_utc,
)
from ipex_doctor.probe.options import ProbeOptions
from ipex_doctor.reporting.output_options import OutputOptions
from ipex_doctor.runs.diagnose import examine
from ipex_doctor.scan.kinds import rewritten_by_fix
from ipex_doctor.verdicts.code_findings import code_finding
from ipex_doctor.verdicts.judge import judge
from ipex_doctor.verdicts.unread_files import unread_finding

Notify = Callable[[str], None]


@dataclass(frozen=True)
class ScanRequest:
    """What the user asked ``scan`` for."""

    roots: tuple[Path, ...]
    out: OutputOptions
    probe: ProbeOptions
    kb_overlays: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    fix: bool = False
    """Apply the mechanical rewrites (atomically, file by file) before reporting."""
    diff: bool = False
    """Print the rewrites as a unified diff; write nothing."""
    cache: bool = True
    """Reuse the outcomes of files unchanged since the last scan (``scan.outcome_cache``)."""
    docs: bool = False
    """Read the code blocks of the Markdown and reST documents under the roots too."""


def _file_of(roots: Sequence[Path], display: str) -> Path | None:
    """The file behind a match's path (relative to one of ``roots``)."""
    for root in roots:
        candidate = root if root.is_file() else root / display
        if candidate.is_file():
            return candidate
    return None


def _fixes(
    result: ScanResult, rules: CodeRules, roots: Sequence[Path], *, write: bool, emit: Notify
) -> dict[str, list[dict[str, Any]]]:
    """Apply (``write``) or compute the mechanical rewrites of every file with a fixable match;
    the line edits per file (for SARIF), after printing each diff through ``emit``."""
    from ipex_doctor.reporting.formats.sarif import line_edits
    from ipex_doctor.scan.fix import FixError
    from ipex_doctor.scan.fix_files import fix_file

    wanted: dict[str, set[str]] = {}
    for match in result.matches:
        rule = rules.get(match.rule_id)
        if (
            rule is not None
            and rule.fix
            and match.suppressed is None
            and rewritten_by_fix(match.location.path)
        ):
            wanted.setdefault(match.location.path, set()).add(rule.fix)
    edits: dict[str, list[dict[str, Any]]] = {}
    for display, fix_ids in sorted(wanted.items()):
        path = _file_of(roots, display)
        if path is None:
            continue
        try:
            fixed = fix_file(path, sorted(fix_ids), write=write)
        except FixError as exc:
            emit(f"not fixed: {exc}")
            continue
        if fixed.changed:
            emit(fixed.diff.rstrip("\n"))
            before = fixed.original.decode("utf-8", "replace").lstrip("\ufeff")
            edits[display] = list(line_edits(before, fixed.outcome.source))
        for refusal in fixed.outcome.refusals:
            emit(f"left alone: {display}: {refusal}")
    return edits


def _edit_for(match: CodeMatch, edits: Mapping[str, Sequence[Mapping[str, Any]]]) -> Any:
    for edit in edits.get(match.location.path, ()):
        if edit["start"] <= match.location.line <= max(edit["end"], edit["start"]):
            return edit
    return None


def scan_and_publish(request: ScanRequest, *, notify: Notify, emit: Notify) -> ExitCode:
    """Scan, judge, publish; the exit code. ``notify`` carries messages for the user,
    ``emit`` the diffs of ``--diff`` / ``--fix``."""
    out = request.out
    out.check()
    rules = code_rules.load()
    knowledge = known_issues.load_files(request.kb_overlays, notify)
    policy = gate_policy(out, knowledge, [r.id for r in rules.rules])
    env, _ = examine(
        ProbeOptions(request.probe.python, request.probe.timeout_s, runtime_probe=False)
    )
    from ipex_doctor.scan.engine import scan_paths

    roots = request.roots or (Path("."),)
    exclude = (*policy.scan_exclude, *request.exclude)
    result = scan_paths(roots, rules, exclude=exclude, cache=request.cache, docs=request.docs)
    edits: dict[str, list[dict[str, Any]]] = {}
    if request.fix or request.diff:
        edits = _fixes(result, rules, roots, write=request.fix, emit=emit)
        if request.fix and edits:
            result = scan_paths(
                roots, rules, exclude=exclude, cache=request.cache, docs=request.docs
            )
            edits = {}
    # NOTE: an interpreter without torch (a pre-commit hook's own) says nothing about where
    # the code runs: its matches are judged by the rules alone, and say so.
    joined = env if env.package("torch") is not None else None
    kb_findings = knowledge_findings(env, knowledge) if joined is not None else {}
    report = _report(result, rules, env, joined, kb_findings, edits)
    return conclude(report, out, policy)


def knowledge_findings(
    env: Environment, knowledge: known_issues.KnowledgeBase
) -> dict[str, Finding]:
    """The knowledge base judged on the environment's static facts, by entry id."""
    return {f.id: f for f in judge(env, knowledge)}


def _one_per_place(findings: Sequence[Finding]) -> list[Finding]:
    """One finding per place in the code: where several rules match the same expression
    (``ipex.optimize`` and its bf16 pitfall), the worst (then the more specific: the later,
    pattern rules come after symbol rules) stands, and names the others."""
    import dataclasses

    by_place: dict[tuple[str, int, int, int | None], list[Finding]] = {}
    for finding in findings:
        at = finding.location
        assert at is not None
        by_place.setdefault((at.path, at.line, at.column, at.cell), []).append(finding)
    kept = []
    for same in by_place.values():
        best = max(enumerate(same), key=lambda pair: (pair[1].status.rank, pair[0]))[1]
        others = [f for f in same if f is not best]
        if others:
            names = ", ".join(f"{f.id} ({f.title})" for f in others)
            data = {**best.evidence.data, "also": [f.id for f in others]}
            evidence = dataclasses.replace(
                best.evidence, summary=f"{best.evidence.summary}; also: {names}", data=data
            )
            best = dataclasses.replace(best, evidence=evidence)
        kept.append(best)
    return kept


def _report(
    result: ScanResult,
    rules: CodeRules,
    env: Environment,
    joined: Environment | None,
    kb_findings: Mapping[str, Finding],
    edits: Mapping[str, Sequence[Mapping[str, Any]]],
) -> Report:
    findings = []
    for match in result.matches:
        rule = rules.get(match.rule_id)
        if rule is None:
            continue
        edit = _edit_for(match, edits) if rule.fix else None
        findings.append(code_finding(match, rule, joined, kb_findings, fix_edit=edit))
    summary = ScanSummary(result.roots, result.files_seen, result.files_parsed, result.skipped)
    findings = _one_per_place(findings)
    unread = unread_finding(result.skipped)
    if unread is not None:
        findings.append(unread)
    return Report(
        doctor_version=__version__,
        created_at=now_utc(),
        command=Command.SCAN,
        environment=env,
        findings=tuple(findings),
        scan=summary,
    )


def with_code(
    report: Report, roots: Sequence[Path], rules: CodeRules, exclude: Sequence[str] = ()
) -> Report:
    """``check --code PATH``: ``report`` with the code findings of ``roots`` added, each
    joined with the environment the check examined, its known issues as the check judged
    them (with the reproductions' observations, stronger than static facts)."""
    import dataclasses

    from ipex_doctor.scan.engine import scan_paths

    result = scan_paths(roots, rules, exclude=exclude, cache=True)
    env = report.environment
    joined = env if env.package("torch") is not None else None
    judged = {f.id: f for f in report.findings if f.kind is not FindingKind.CODE}
    coded = _report(result, rules, env, joined, judged if joined else {}, {})
    return dataclasses.replace(report, findings=report.findings + coded.findings, scan=coded.scan)
