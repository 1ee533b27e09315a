"""Judge every knowledge-base entry against an environment and turn the verdicts into findings.

For each entry: the version facts come first (is an affected package installed, in the right
build variant, in an affected range?), then the entry's rule if it has one (``rules``: each
gives a ``RuleVerdict``). Entries of kind ``known-issue`` without check runs are judged on
versions alone (``predicted``); when their check ran, what it observed decides. The finding of
an entry is made here, from the entry (id, kind, severity); built-in findings are made by
their specs (``registry``).

Status follows from verdict and severity (``status_for``); it is the only thing the gate reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ipex_doctor.knowledge.known_issues import KnowledgeBase, KnownIssue
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import (
    Evidence,
    Finding,
    FindingKind,
    Severity,
    Status,
    Verdict,
    VersionFact,
)
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.model.remedy import PipAction
from ipex_doctor.verdicts.rules import RuleVerdict, observe_rule
from ipex_doctor.verdicts.status import status_for


@dataclass(frozen=True)
class VersionJudgement:
    """The version side of a verdict: the facts, and what they say together."""

    facts: tuple[VersionFact, ...]
    applicable: bool
    """Some affected package is installed in an affected build variant."""
    in_range: bool | None
    """Some applicable package is in its affected range (``None``: no ranges to judge)."""


def judge_versions(env: Environment, issue: KnownIssue) -> VersionJudgement:
    """Match the entry's affected ranges (OR-ed, as OSV's) against the installed packages."""
    facts, applicable, in_range = [], False, False
    for affected in issue.affected:
        package = env.package(affected.package)
        variant = None if package is None else env.effective_variant(package)
        variant_ok = affected.variant == "any" or variant == affected.variant
        contained = None
        if package is not None and variant_ok:
            applicable = True
            contained = affected.range.contains(package.version)
            in_range = in_range or bool(contained)
        facts.append(
            VersionFact(
                package=affected.package,
                installed=None if package is None else package.version,
                variant=variant,
                affected=affected.describe(),
                fixed_in=None if affected.range.fixed is None else str(affected.range.fixed),
                in_range=contained,
            )
        )
    return VersionJudgement(
        facts=tuple(facts),
        applicable=applicable,
        in_range=in_range if issue.affected else None,
    )


def _version_only(env: Environment, issue: KnownIssue, versions: VersionJudgement) -> RuleVerdict:
    """Judge an entry that has no rule on its version facts alone."""
    if not issue.affected:
        return RuleVerdict(Verdict.NOT_APPLICABLE, "nothing in this entry can be judged here")
    installed = [f for f in versions.facts if f.installed is not None]
    if not versions.applicable:
        if installed:
            which = ", ".join(
                f"{f.package} {f.installed} ({f.variant or 'unknown'} build)" for f in installed
            )
            return RuleVerdict(Verdict.NOT_APPLICABLE, f"only affects other builds than {which}")
        names = ", ".join(sorted({f.package for f in versions.facts}))
        return RuleVerdict(Verdict.NOT_APPLICABLE, f"{names} not installed")
    matched = [f for f in versions.facts if f.in_range]
    if not matched:
        which = ", ".join(f"{f.package} {f.installed}" for f in installed)
        return RuleVerdict(Verdict.NOT_AFFECTED, f"{which} is outside the affected range")
    which = ", ".join(f"{f.package} {f.installed} (affected: {f.affected})" for f in matched)
    if issue.kind is FindingKind.ENVIRONMENT:
        return RuleVerdict(Verdict.AFFECTED, f"{which}")
    if issue.devices:
        devices = [d for d in env.device_labels if d.split(":")[0] in issue.devices]
        if not devices:
            return RuleVerdict(
                Verdict.PREDICTED,
                f"{which}; no {'/'.join(issue.devices)} device here to try it on",
            )
        return RuleVerdict(
            Verdict.PREDICTED, f"{which}; judged by version (devices here: {', '.join(devices)})"
        )
    return RuleVerdict(Verdict.PREDICTED, f"{which}; judged by version")


def failed_itself(run: CheckRun) -> str:
    """Why the check failed its own verification on this run, or "" when it did not.

    A check script puts ``check_failed`` (one line) in its result when a call it makes to
    measure something gives a wrong answer or raises although it should work (qconv-op-name
    calls the op where a kernel exists and compares it with a float conv). Nothing it
    concluded on that device can then be trusted, on whichever device: the run counts as a
    broken one (status ``error``), never as a clean run or a reason for "not applicable".
    """
    if run.outcome is not Outcome.OK:
        return ""
    return str(run.result.get("check_failed") or "").strip()


def _run_line(run: CheckRun) -> str:
    if run.outcome is Outcome.OK:
        evidence = str(run.result.get("evidence") or "").strip()
        failed = failed_itself(run)
        if failed:
            return f"{run.device}: the check failed its own verification ({failed}): {evidence}"
        return f"{run.device}: {evidence or 'no evidence given'}"
    return f"{run.device}: the check {run.outcome}: {run.error}"


def _own_failure(judged: RuleVerdict, failed: Sequence[CheckRun]) -> RuleVerdict:
    """``judged``, with the advice for a check that failed its own verification.

    The entry's fix would be unrelated advice here: what is wrong is the check's measurement
    (or the kernel it called), which the entry does not describe.
    """
    if not failed:
        return judged
    where = ", ".join(r.device for r in failed)
    check = failed[0].check_id
    return replace(
        judged,
        remediation=f"The check {check} could not verify its own measurement on {where}, so it "
        "judged nothing there. Run its script by hand for the numbers ('ipex-doctor repro "
        "--list' names it) and report them with the torch version: upstream when the kernel "
        "computes wrong, to the doctor's maintainers when the check does.",
        replaces_remediation=True,
    )


def _on_its_devices(issue: KnownIssue, runs: Sequence[CheckRun]) -> list[CheckRun]:
    """The runs made on a device the entry concerns (all runs when it names no devices)."""
    if not issue.devices:
        return list(runs)
    return [r for r in runs if r.device.split(":")[0] in issue.devices]


def _from_runs(
    env: Environment, issue: KnownIssue, versions: VersionJudgement, runs: Sequence[CheckRun]
) -> tuple[RuleVerdict, bool]:
    """Combine what the check observed on each device with the version facts.

    Returns the verdict and whether the check itself broke (crashed, hung, raised, left the
    device unusable, or failed its own verification: ``failed_itself``) on some device, which
    makes the finding an ``error``.

    One rule for entries that concern devices this machine lacks (dot-half on XPU with no XPU
    here): a reproduction anywhere is still a finding, but a clean run on another device (the
    CPU) says nothing about the entry, so the verdict is the version facts' (``predicted`` when
    the version is affected) or ``not-applicable``; the CPU numbers stay in the evidence.
    """
    reproduced = [r for r in runs if r.reproduced is True]
    failed = [r for r in runs if failed_itself(r)]
    clean = [r for r in _on_its_devices(issue, runs) if r.reproduced is False and r not in failed]
    broken = [r for r in runs if r.outcome not in (Outcome.OK, Outcome.DEVICE_ABSENT)] + failed
    absent = [r for r in runs if r.outcome is Outcome.DEVICE_ABSENT]
    lines = _run_lines(env, runs)
    data = {"runs": [r.to_dict() for r in runs]}
    facts = _version_only(env, issue, versions)
    if reproduced:
        return _reproduced(versions, reproduced, lines, data), bool(broken)
    if absent and not broken and len(absent) == len(runs):
        asked = ", ".join(r.device for r in absent)
        return RuleVerdict(
            Verdict.NOT_APPLICABLE,
            f"{asked} was asked for (--device) but is not present here, so the check could not run",
            data,
            remediation=f"Run it where {asked} exists, or ask for a device this machine has "
            "(--device cpu). 'ipex-doctor env' shows the devices torch sees here, and its "
            "findings (torch-without-xpu, xpu-not-visible) say why one is missing.",
            replaces_remediation=True,
        ), True
    if clean:
        if versions.in_range:
            why = "in the affected range by version, but it did not reproduce here"
            judged = RuleVerdict(Verdict.LATENT, f"{why}. {lines}", data)
        else:
            judged = RuleVerdict(Verdict.NOT_AFFECTED, f"did not reproduce. {lines}", data)
        return _own_failure(judged, failed), bool(broken)
    ran = [r for r in runs if r.outcome is Outcome.OK and r not in failed]
    if ran and all(r.result.get("applicable") is False for r in ran):
        # NOTE: the check itself says the issue cannot arise here (e.g. IPEX does not import).
        return _own_failure(RuleVerdict(Verdict.NOT_APPLICABLE, lines, data), failed), bool(broken)
    if ran and facts.verdict is Verdict.NOT_AFFECTED:
        # NOTE: it ran cleanly, but only on devices the entry does not concern.
        where = "/".join(issue.devices)
        return _own_failure(
            RuleVerdict(
                Verdict.NOT_APPLICABLE, f"no {where} device here to run it on; {lines}", data
            ),
            failed,
        ), bool(broken)
    judged = RuleVerdict(facts.verdict, f"{facts.evidence}. {lines}", data)
    return _own_failure(judged, failed), bool(broken)


def _run_lines(env: Environment, runs: Sequence[CheckRun]) -> str:
    """One line per run, after the torch and IPEX versions they ran with."""
    lines = "; ".join(_run_line(r) for r in runs)
    stack = ", ".join(
        f"{name} {version}"
        for name, version in (("torch", env.torch_version()), ("IPEX", env.ipex_version()))
        if version
    )
    return f"({stack}) {lines}" if stack else lines


def _reproduced(
    versions: VersionJudgement,
    reproduced: Sequence[CheckRun],
    lines: str,
    data: Mapping[str, Any],
) -> RuleVerdict:
    """The verdict of an entry whose check reproduced it on some device: affected, or a
    regression where the knowledge base lists the version as fixed."""
    where = ", ".join(r.device for r in reproduced)
    if versions.applicable and versions.in_range:
        verdict, why = Verdict.AFFECTED, f"reproduced on {where}"
    elif versions.applicable:
        verdict = Verdict.REGRESSION
        why = (
            f"reproduced on {where} although the knowledge base lists this version as not affected"
        )
    else:
        verdict = Verdict.AFFECTED
        why = f"reproduced on {where}, outside the builds the knowledge base lists: worth reporting upstream"
    # NOTE: a check may name the fix it verified on this machine (bf16-linear on a CPU that
    # cannot prepack BF16 weights needs weights_prepack=False as well as autocast); then
    # that fix is the whole advice, not the entry's general one beside it.
    specific = next(
        (str(r.result["remediation"]) for r in reproduced if r.result.get("remediation")), ""
    )
    return RuleVerdict(
        verdict, f"{why}. {lines}", data,
        remediation=specific, replaces_remediation=bool(specific),
    )  # fmt: skip


def title_for(issue: KnownIssue, status: Status, verdict: Verdict) -> str:
    """The finding's title, worded for its status: the problem when it is one (or a note),
    the healthy wording when it checked out, the problem marked not applicable when skipped,
    and "could not check" when the check itself broke or could not run."""
    if status is Status.ERROR:
        return f"Could not check: {issue.title}"
    if status in (Status.WARN, Status.FAIL) or (
        issue.severity is Severity.INFO and verdict is Verdict.AFFECTED
    ):
        return issue.title
    if status is Status.PASS:
        return issue.healthy or f"Not found here: {issue.title}"
    return f"Not applicable here: {issue.title}"


def judge_issue(
    env: Environment,
    issue: KnownIssue,
    runs: Sequence[CheckRun] | None = None,
    *,
    seen: dict[str, RuleVerdict] | None = None,
) -> Finding:
    """The finding for one knowledge-base entry in ``env``, with its check's runs if any."""
    versions = judge_versions(env, issue)
    broken = False
    if runs:
        judged, broken = _from_runs(env, issue, versions, runs)
    elif issue.rule is not None:
        judged = observe_rule(env, issue.rule, versions.in_range, seen)
    else:
        judged = _version_only(env, issue, versions)
    status = status_for(judged.verdict, issue.severity)
    if broken and judged.verdict not in (Verdict.AFFECTED, Verdict.REGRESSION):
        status = Status.ERROR
    devices = [r.device for r in runs or () if r.reproduced]
    needs_action = status in (Status.WARN, Status.FAIL, Status.ERROR) or (
        issue.severity is Severity.INFO and judged.verdict is Verdict.AFFECTED
    )
    remediation, workaround = "", ""
    actions: tuple[PipAction, ...] = ()
    if needs_action:
        general = "" if judged.replaces_remediation else issue.remediation
        remediation = " ".join(p for p in (judged.remediation, general) if p)
        workaround = "" if judged.replaces_remediation else issue.workaround
        actions = judged.actions
    return Finding(
        id=issue.id,
        kind=issue.kind,
        status=status,
        severity=issue.severity,
        title=judged.title or title_for(issue, status, judged.verdict),
        verdict=judged.verdict,
        evidence=Evidence(summary=judged.evidence, data=dict(judged.data)),
        versions=versions.facts,
        remediation=remediation,
        workaround=workaround,
        # NOTE: what the rule cites for the versions found here comes before the entry's own
        references=tuple(dict.fromkeys((*judged.references, *issue.references))),
        device=", ".join(devices) if devices else None,
        actions=actions,
        per_device=_per_device(issue, runs or (), status),
    )


def _per_device(issue: KnownIssue, runs: Sequence[CheckRun], status: Status) -> dict[str, Status]:
    """The entry's status on each device its check ran on (or was asked to run on).

    Reproduced there: the finding's status (a warning at least); a clean run on a device the
    entry concerns: pass; on another device (the CPU for an XPU issue), or when the check could
    not tell: skip; the check broke, failed its own verification (``failed_itself``), or the
    device was absent: error.
    """
    cells: dict[str, Status] = {}
    concerned = {r.device for r in _on_its_devices(issue, runs)}
    for run in runs:
        if run.outcome is not Outcome.OK:
            cell = Status.ERROR
        elif run.reproduced is True:
            cell = status if status.rank >= Status.WARN.rank else Status.WARN
        elif failed_itself(run):
            cell = Status.ERROR
        elif run.reproduced is False and run.device in concerned:
            cell = Status.PASS
        else:
            cell = Status.SKIP
        if cells.get(run.device, Status.PASS).rank <= cell.rank:
            cells[run.device] = cell
    return cells


def judgeable(issue: KnownIssue) -> bool:
    """Whether an entry can be judged against an environment (not only matched by ``explain``)."""
    return issue.rule is not None or bool(issue.affected)


def judge(
    env: Environment,
    kb: KnowledgeBase,
    *,
    kinds: tuple[FindingKind, ...] | None = None,
    runs: Mapping[str, Sequence[CheckRun]] | None = None,
) -> tuple[Finding, ...]:
    """Findings for every judgeable entry of ``kb`` (of ``kinds``, when given), in KB order.

    ``runs`` maps a check id to its runs; an entry whose ``repro`` ran is judged on them.
    """
    runs = runs or {}
    seen: dict[str, RuleVerdict] = {}
    return tuple(
        judge_issue(env, issue, runs.get(issue.repro) if issue.repro else None, seen=seen)
        for issue in kb.issues
        if (judgeable(issue) or (issue.repro in runs)) and (kinds is None or issue.kind in kinds)
    )
