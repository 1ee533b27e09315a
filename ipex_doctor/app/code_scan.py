"""``scan``: read the user's code, join each match with the examined environment, publish.

The environment is examined without importing torch (package metadata, the CPU's instruction
sets, the GPU stack: what the joins need), so a scan stays fast and safe on any machine. With
``fix`` every mechanical rewrite is planned, recorded for undo and written, all or none
(``scan.fix_run``), and the code is read again: the report shows what is left and names the
files rewritten and the undo command (``scan --undo RECORD``). Once written they stay written
whatever happens next (an interrupt publishes the report marked incomplete; a report that
cannot be written, or a crash, says they stay). With ``diff`` the rewrites are printed as a
unified diff and nothing is written; a SARIF fix is attached to every finding whose line a
mechanical rewrite changes. Every scan first says which earlier ``--fix`` of these roots was
killed while writing, and how to restore it.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ipex_doctor import __version__
from ipex_doctor.app.conclusion import conclude, gate_policy
from ipex_doctor.app.scan_request import ScanRequest
from ipex_doctor.errors import (
    DoctorError,
    ExitCode,
    KnowledgeBaseError,
    OutputError,
    Stopped,
    Terminated,
)
from ipex_doctor.knowledge import code_rules, known_issues
from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import LineEdit, ScanResult, SkippedFile
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import (
    Command,
    Finding,
    FindingKind,
    Report,
    ScanSummary,
    now_utc,
)
from ipex_doctor.probe import static_facts
from ipex_doctor.scan.fix.quoting import quote_name
from ipex_doctor.scan.read.kinds import rewritten_by_fix
from ipex_doctor.verdicts.code_findings import code_finding
from ipex_doctor.verdicts.unread_files import unread_finding

if TYPE_CHECKING:
    from ipex_doctor.model.fix_summary import FixSummary, RewrittenFile
    from ipex_doctor.probe.static_facts import StaticExamination
    from ipex_doctor.reporting.output_options import OutputOptions
    from ipex_doctor.reporting.policy import Policy
    from ipex_doctor.scan.fix.files import FileFix
    from ipex_doctor.scan.fix.rewrite import Refusal
    from ipex_doctor.scan.fix.run import FixPlan

Notify = Callable[[str], None]


def _wanted(result: ScanResult, rules: CodeRules) -> dict[str, set[str]]:
    """The fix ids each file's unsuppressed matches want, by the file's path in the result.
    Not the fix of an IPEX import in a file another module imports IPEX's name from
    (``CodeMatch.imported_by``): it removes the file's unused IPEX imports, which that
    importer uses."""
    kept = {
        (m.location.path, rule.fix)
        for m in result.matches
        if m.imported_by is not None and (rule := rules.get(m.rule_id)) is not None and rule.fix
    }
    wanted: dict[str, set[str]] = {}
    for match in result.matches:
        rule = rules.get(match.rule_id)
        if (
            rule is not None
            and rule.fix
            and match.suppressed is None
            and rewritten_by_fix(match.location.path)
            and (match.location.path, rule.fix) not in kept
        ):
            wanted.setdefault(match.location.path, set()).add(rule.fix)
    return wanted


def _rewritten_lines(
    result: ScanResult, rules: CodeRules
) -> dict[tuple[str, int | None, int], tuple[str, ...]]:
    """The rules whose findings ``--fix`` rewrites (labelled mechanical, not suppressed: it
    runs their fixes) at each line, by path, cell and line."""
    at: dict[tuple[str, int | None, int], list[str]] = {}
    for match in result.matches:
        rule = rules.get(match.rule_id)
        if rule is not None and rule.fix and match.mechanical and match.suppressed is None:
            where = match.location
            ids = at.setdefault((where.path, where.cell, where.line), [])
            if match.rule_id not in ids:
                ids.append(match.rule_id)
    return {place: tuple(ids) for place, ids in at.items()}


def _edits_by_line(edits: Mapping[str, Sequence[LineEdit]]) -> dict[str, dict[int, LineEdit]]:
    """For each path, the first of its edits (in the file's order) that covers each line."""
    # NOTE: built once per report so that giving each finding its edit is a lookup: searching
    # a file's edits for each finding was quadratic where every line is fixed (a dense 2 MiB
    # file's `scan --diff` spent 75 of its 87 s there).
    index: dict[str, dict[int, LineEdit]] = {}
    for path, path_edits in edits.items():
        by_line = index.setdefault(path, {})
        for edit in path_edits:
            for line in range(edit.start, max(edit.end, edit.start) + 1):
                by_line.setdefault(line, edit)
    return index


def _fix_catalogue() -> Mapping[str, str]:
    """The fixes the codemods declare, in the order they run."""
    from ipex_doctor.scan.fix.codemods.registry import FIX_CATALOGUE

    return FIX_CATALOGUE


def scan_rules(
    request: ScanRequest, knowledge: known_issues.KnowledgeBase, notify: Notify
) -> CodeRules:
    """The shipped rules with the request's overlays applied, every replacement said through
    ``notify``; a bad overlay raises its one-line error before anything is read."""
    # NOTE: a rule's fix is checked against the codemods' own catalogue where --fix or --diff
    # loads them anyway (LibCST); a plain scan never does for the shipped rules, which a test
    # holds to the catalogue. An overlay is the site's own file: its fixes are always checked.
    fixing = request.fix or request.diff
    # NOTE: without --kb overlays ``knowledge`` is the shipped knowledge base alone, whose ids
    # the rules are checked against by default: handed over, so the start loads it once, not
    # twice (a load built its 124 entries again: about 7 ms of CPU on a 2-core EPYC).
    shipped_ids = None if request.kb_overlays else [issue.id for issue in knowledge.issues]
    rules = code_rules.load(known_ids=shipped_ids, known_fixes=_fix_catalogue() if fixing else None)
    if not request.rule_overlays:
        return rules
    shipped = rules
    rules = code_rules.with_overlays(
        rules, request.rule_overlays,
        known_ids=[issue.id for issue in knowledge.issues], known_fixes=_fix_catalogue(),
    )  # fmt: skip
    _refuse_retargeted_fixes(rules, shipped)
    for note in rules.notes:
        notify(note)
    return rules


def _refuse_retargeted_fixes(rules: CodeRules, shipped: CodeRules) -> None:
    """Refuse an overlay rule whose ``fix`` would be promised where the rewrite does nothing.

    A finding says "mechanical" where its rule's fix rewrites that place, and ``--fix`` runs
    the codemod on the file: a rule matching a name its codemod does not rewrite would be
    labelled mechanical and left alone. So an overlay rule's symbols must be names its
    codemod rewrites (its ``TARGETS``), and a fix that rewrites a pattern, an import or a line
    rather than names keeps the ``match`` of the shipped rule it belongs to (reworded, never
    retargeted)."""
    from ipex_doctor.scan.fix.codemods.registry import CODEMODS

    for rule_id, source in rules.overlaid:
        rule = rules.get(rule_id)
        if rule is None or rule.fix is None:
            continue
        targets = frozenset(CODEMODS[rule.fix]().targets())
        if targets:
            outside = [s for s in rule.match.symbols if s not in targets]
            if rule.match.kind == "symbols" and not outside:
                continue
            what = (f"does not rewrite {', '.join(outside)}" if outside
                    else f"rewrites names, and the rule matches by {rule.match.kind}")  # fmt: skip
        elif any(r.fix == rule.fix and r.match == rule.match for r in shipped.rules):
            continue
        else:
            what = "matches other code than the shipped rule with that fix"
        raise KnowledgeBaseError(
            f"{source}: rule '{rule_id}': fix '{rule.fix}' {what}; its findings would be "
            "labelled mechanical where scan --fix leaves them alone",
            tip="drop 'fix' and give a 'recipe', or match only what the fix rewrites "
            "('ipex-doctor kb show ID' of the shipped rule names it)",
        )


def scan_examined(
    request: ScanRequest, examining: StaticExamination, *, notify: Notify, emit: Notify
) -> ExitCode:
    """Scan, judge, publish; the exit code. ``examining`` is the examination of the request's
    interpreter, begun by the caller (``scan_start.scan_and_publish``), whose block ends it;
    ``notify`` carries messages for the user, ``emit`` the diffs of ``--diff`` / ``--fix`` and
    the places left alone."""
    out = request.out
    # NOTE: the examined interpreter's handshake runs while this module was imported and the
    # knowledge base, the rules and the gate are read; its CPUID and Intel runtime probes (two
    # spawned interpreters) start at its answer and run while the tree is read, and are
    # collected after it. A refusal of --python still comes after a bad overlay's or policy's
    # error: it is said where the probes are first asked for, below.
    knowledge = known_issues.load_files(request.kb_overlays, notify)
    rules = scan_rules(request, knowledge, notify)
    policy = gate_policy(out, knowledge, [r.id for r in rules.rules])
    roots = request.roots or (Path("."),)
    exclude = (*policy.scan_exclude, *request.exclude)
    from ipex_doctor.scan.engine import scan_paths

    examining.start_probes()

    def rescan() -> ScanResult:
        return scan_paths(roots, rules, exclude=exclude, cache=request.cache, docs=request.docs)

    _notice_stopped_runs(roots, notify, refuse=request.fix)
    result = rescan()
    env = static_facts.without_runtime_probe(examining.finish())
    # NOTE: an interpreter without torch (a pre-commit hook's own) says nothing about where
    # the code runs: its matches are judged by the rules alone, and say so.
    joined = env if env.package("torch") is not None else None
    kb_findings = knowledge_findings(env, knowledge) if joined is not None else {}

    def report(result: ScanResult, **extra: Any) -> Report:
        return _report(result, rules, env, joined, kb_findings, **extra)

    if not (request.fix or request.diff):
        return conclude(report(result), out, policy)
    fix_plan = _plan(roots, _wanted(result, rules))
    for line in _left_alone_lines(fix_plan):
        emit(line)
    if request.diff:
        edits = {}
        for display, fixed in fix_plan.changes:
            emit(fixed.diff.rstrip("\n"))
            edits[display] = _line_edits(fixed)
        return conclude(report(result, edits=edits), out, policy)
    return _commit_and_publish(fix_plan, result, report, rescan, out, policy, emit)


Rescan = Callable[[], ScanResult]
MakeReport = Callable[..., Report]


def _plan(roots: Sequence[Path], wanted: Mapping[str, set[str]]) -> FixPlan:
    """Every rewrite in memory; an interrupt meanwhile ends the run with nothing written."""
    from ipex_doctor.scan.fix import run as fix_run

    try:
        return fix_run.plan(roots, wanted)
    except (KeyboardInterrupt, Terminated) as stop:
        code, what = _stopped(stop)
        raise Stopped(
            f"{what} before any file was rewritten; nothing changed", exit_code=code
        ) from None


def _commit_and_publish(
    fix_plan: FixPlan,
    result: ScanResult,
    report: MakeReport,
    rescan: Rescan,
    out: OutputOptions,
    policy: Policy,
    emit: Notify,
) -> ExitCode:
    """Write every rewrite or none (``fix_run.commit``), scan again, publish what changed.

    A write that fails puts every file back: the report (of the scan before) says nothing was
    rewritten and the run ends with that error (exit 2). Once the files are written they stay
    written, whatever happens next, and what is said names them and the undo command: an
    interrupt publishes the report marked incomplete (exit 130 / 143); a report that cannot be
    written is an error (exit 2) that says the files stay rewritten; so does a crash."""
    from ipex_doctor.model.fix_summary import FixSummary
    from ipex_doctor.scan.fix import run as fix_run

    left = tuple(SkippedFile(n.display, n.reason) for n in fix_plan.left_alone)
    try:
        applied = fix_run.commit(fix_plan)
    except (KeyboardInterrupt, Terminated) as stop:
        code, what = _stopped(stop)
        raise Stopped(
            f"{what} before any file was rewritten; nothing changed", exit_code=code
        ) from None
    except DoctorError:
        conclude(report(result, fix=FixSummary(left_alone=left)), out, policy)
        raise
    summary = FixSummary(
        tuple(_rewritten(display, fixed) for display, fixed in applied.changed),
        left,
        str(applied.record.path) if applied.record is not None else None,
    )
    kept = _kept_words(summary)
    try:
        if applied.held is not None:
            signal.raise_signal(applied.held)  # NOTE: held during the writes; acted on now
        for _, fixed in applied.changed:
            emit(fixed.diff.rstrip("\n"))
        return conclude(report(rescan() if applied.changed else result, fix=summary), out, policy)
    except (KeyboardInterrupt, Terminated) as stop:
        code, what = _stopped(stop)
        try:
            conclude(report(result, fix=summary, complete=False), out, policy)
            said = "the report above is partial (marked incomplete)"
        except OutputError as error:
            said = error.message
        raise Stopped(f"{what}: {said}; {kept}", exit_code=code) from None
    except OutputError as error:
        raise OutputError(f"{error.message}; {kept}", tip=error.tip) from None
    except Exception:
        if summary.rewritten:
            emit(f"ipex-doctor: {kept}")
        raise


def _kept_words(summary: FixSummary) -> str:
    """What stays changed, and how to undo it, in words."""
    count = len(summary.rewritten)
    if not count:
        return "no file was rewritten"
    files = "1 file rewritten stays" if count == 1 else f"{count} files rewritten stay"
    return f"the {files} rewritten (to undo: ipex-doctor scan --undo {summary.undo_record})"


def _stopped(stop: BaseException) -> tuple[ExitCode, str]:
    if isinstance(stop, KeyboardInterrupt):
        return ExitCode.INTERRUPTED, "interrupted"
    return ExitCode.TERMINATED, "terminated (SIGTERM)"


def _rewritten(display: str, fixed: FileFix) -> RewrittenFile:
    import hashlib  # NOTE: lazy; it loads OpenSSL, and only a --fix writes files

    from ipex_doctor.model.fix_summary import RewrittenFile

    return RewrittenFile(
        display,
        len(fixed.outcome.rewrites),
        hashlib.sha256(fixed.original).hexdigest(),
        hashlib.sha256(fixed.fixed).hexdigest(),
    )


def _line_edits(fixed: FileFix) -> list[LineEdit]:
    """A rewritten file's changed line ranges (for SARIF fixes)."""
    from ipex_doctor.scan.fix.files import line_edits

    before = fixed.original.decode("utf-8", "replace").removeprefix("\ufeff")
    return list(line_edits(before, fixed.outcome.source))


def _left_alone_lines(fix_plan: FixPlan) -> list[str]:
    """One line for each file left alone and each place a fix left alone in a file."""
    lines = [f"left alone: {_name(left.display)}: {left.reason}" for left in fix_plan.left_alone]
    for display, fixed in zip(fix_plan.displays, fix_plan.fixes, strict=True):
        lines.extend(_refusal_line(display, refusal) for refusal in fixed.outcome.refusals)
    return lines


def _refusal_line(display: str, refusal: Refusal) -> str:
    """A place a fix left alone, as a sentence: where, which fix, why."""
    where = _name(display) + (f", cell {refusal.cell}" if refusal.cell is not None else "")
    where += f", line {refusal.line}" if refusal.line > 0 else ""
    reason = refusal.reason.removeprefix("not fixed: ")
    if refusal.fix_id:
        return f"left alone: {where}: {refusal.fix_id} was not applied: {reason}"
    return f"left alone: {where}: {reason}"


def _name(display: str) -> str:
    """A path as a line may show it: quoted as git quotes odd names (a newline in a name
    cannot break the line)."""
    return quote_name(display)


def _notice_stopped_runs(roots: Sequence[Path], notify: Notify, *, refuse: bool) -> None:
    """Say which earlier ``scan --fix`` runs of these roots stopped while rewriting (killed),
    and how to restore their files; ``--fix`` refuses to run over them (exit 2)."""
    from ipex_doctor.scan.fix.record_names import any_pending

    # NOTE: the journal, which reads and checks the records, is imported only where one of a
    # stopped run is there: a scan without one (nearly every scan) spares its imports, about
    # 13 ms of the doctor's CPU on the 2-core EPYC
    if not any_pending():
        return
    from ipex_doctor.scan.fix import journal as fix_journal

    stopped, problems = fix_journal.stopped_runs(roots)
    for problem in problems:
        notify(f"warning: {problem}")
    for record in stopped:
        notify(
            f"warning: a scan --fix of {', '.join(record.roots)} (started {record.created_at}) "
            f"stopped while it rewrote {len(record.files)} files, so some of them may be "
            f"rewritten and one half-written; to restore them: ipex-doctor scan --undo "
            f"{record.path}"
        )
    if refuse and stopped:
        raise fix_journal.RecordError(
            "an earlier scan --fix of this tree stopped mid-way (said above); nothing was "
            "rewritten",
            tip=f"restore its files first: ipex-doctor scan --undo {stopped[0].path}",
        )


def knowledge_findings(
    env: Environment, knowledge: known_issues.KnowledgeBase
) -> dict[str, Finding]:
    """The knowledge base judged on the environment's static facts, by entry id."""
    # NOTE: imported here: a scan judges the knowledge base only where the examined
    # interpreter has torch, and the judging's modules are a fair part of a scan's imports
    from ipex_doctor.verdicts.judge import judge

    return {f.id: f for f in judge(env, knowledge)}


def _with_rule_source(finding: Finding, source: str | None) -> Finding:
    """``finding`` of a site's overlay rule names the file the rule comes from, in its
    evidence (``rule_source``, which SARIF carries too); a shipped rule's is unchanged."""
    if source is None:
        return finding
    import dataclasses

    evidence = dataclasses.replace(
        finding.evidence,
        summary=f"{finding.evidence.summary} (rule from {source})",
        data={**finding.evidence.data, "rule_source": source},
    )
    return dataclasses.replace(finding, evidence=evidence)


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
    edits: Mapping[str, Sequence[LineEdit]] | None = None,
    fix: FixSummary | None = None,
    complete: bool = True,
) -> Report:
    findings = []
    edits_at = _edits_by_line(edits or {})
    rewritten = _rewritten_lines(result, rules)
    for match in result.matches:
        rule = rules.get(match.rule_id)
        if rule is None:
            continue
        at_path = edits_at.get(match.location.path, {}) if rule.fix else {}
        edit = at_path.get(match.location.line)
        beside: tuple[str, ...] = ()
        if rule.fix and not match.mechanical:
            where = match.location
            beside = rewritten.get((where.path, where.cell, where.line), ())
        finding = code_finding(
            match, rule, joined, kb_findings, fix_edit=edit, rewritten_beside=beside
        )
        findings.append(_with_rule_source(finding, rules.source_of(rule.id)))
    summary = ScanSummary(result.roots, result.files_seen, result.files_parsed, result.skipped, fix)
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
        complete=complete,
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
    coded = _report(result, rules, env, joined, judged if joined else {})
    return dataclasses.replace(report, findings=report.findings + coded.findings, scan=coded.scan)
