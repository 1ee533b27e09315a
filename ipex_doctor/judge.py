"""Judge every knowledge-base entry against an environment and turn the verdicts into findings.

For each entry: the version facts come first (is an affected package installed, in the right
build variant, in an affected range?), then the entry's rule if it has one. Entries of kind
``known-issue`` without an observation are judged on versions alone (``predicted``); a later
stage (reproductions) replaces that with what was observed.

Status follows from verdict and severity (``status_for``); it is the only thing the gate reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from ipex_doctor.environment import Environment
from ipex_doctor.kb import KnowledgeBase, KnownIssue
from ipex_doctor.model import Evidence, Finding, FindingKind, Severity, Status, Verdict, VersionFact
from ipex_doctor.rules import RULES, Observation, effective_variant


def status_for(verdict: Verdict, severity: Severity) -> Status:
    """The gate status of a verdict for an entry of ``severity``."""
    if verdict in (Verdict.AFFECTED, Verdict.REGRESSION, Verdict.PREDICTED):
        return {Severity.ERROR: Status.FAIL, Severity.WARNING: Status.WARN}.get(
            severity, Status.PASS
        )
    if verdict is Verdict.LATENT:
        return Status.WARN if severity is Severity.ERROR else Status.PASS
    if verdict is Verdict.NOT_APPLICABLE:
        return Status.SKIP
    return Status.PASS


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
        variant = None if package is None else effective_variant(env, package)
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


def _devices_present(env: Environment, kinds: tuple[str, ...]) -> list[str]:
    present = [
        f"{device.get('type')}:{device.get('index')}"
        for device in env.runtime.devices
        if device.get("type") in kinds
    ]
    if "cpu" in kinds:
        present.insert(0, "cpu")
    return present


def _version_only(env: Environment, issue: KnownIssue, versions: VersionJudgement) -> Observation:
    """Judge an entry that has no rule on its version facts alone."""
    if not issue.affected:
        return Observation(Verdict.NOT_APPLICABLE, "nothing in this entry can be judged here")
    installed = [f for f in versions.facts if f.installed is not None]
    if not versions.applicable:
        if installed:
            which = ", ".join(
                f"{f.package} {f.installed} ({f.variant or 'unknown'} build)" for f in installed
            )
            return Observation(Verdict.NOT_APPLICABLE, f"only affects other builds than {which}")
        names = ", ".join(sorted({f.package for f in versions.facts}))
        return Observation(Verdict.NOT_APPLICABLE, f"{names} not installed")
    matched = [f for f in versions.facts if f.in_range]
    if not matched:
        which = ", ".join(f"{f.package} {f.installed}" for f in installed)
        return Observation(Verdict.NOT_AFFECTED, f"{which} is outside the affected range")
    which = ", ".join(f"{f.package} {f.installed} (affected: {f.affected})" for f in matched)
    if issue.kind is FindingKind.ENVIRONMENT:
        return Observation(Verdict.AFFECTED, f"{which}")
    if issue.devices:
        devices = _devices_present(env, issue.devices)
        if not devices:
            return Observation(
                Verdict.PREDICTED,
                f"{which}; no {'/'.join(issue.devices)} device here to try it on",
            )
        return Observation(
            Verdict.PREDICTED, f"{which}; judged by version (devices here: {', '.join(devices)})"
        )
    return Observation(Verdict.PREDICTED, f"{which}; judged by version")


def judge_issue(env: Environment, issue: KnownIssue) -> Finding:
    """The finding for one knowledge-base entry in ``env``."""
    versions = judge_versions(env, issue)
    if issue.rule is not None:
        observation = RULES[issue.rule](env, issue, versions.in_range)
    else:
        observation = _version_only(env, issue, versions)
    status = status_for(observation.verdict, issue.severity)
    needs_action = status in (Status.WARN, Status.FAIL, Status.ERROR) or (
        issue.severity is Severity.INFO and observation.verdict is Verdict.AFFECTED
    )
    remediation = ""
    if needs_action:
        remediation = " ".join(p for p in (observation.remediation, issue.remediation) if p)
    return Finding(
        id=issue.id,
        kind=issue.kind,
        status=status,
        severity=issue.severity,
        title=issue.title,
        verdict=observation.verdict,
        evidence=Evidence(summary=observation.evidence, data=dict(observation.data)),
        versions=versions.facts,
        remediation=remediation,
        workaround=issue.workaround if needs_action else "",
        references=issue.references,
    )


def judgeable(issue: KnownIssue) -> bool:
    """Whether an entry can be judged against an environment (not only matched by ``explain``)."""
    return issue.rule is not None or bool(issue.affected)


def judge(
    env: Environment, kb: KnowledgeBase, *, kinds: tuple[FindingKind, ...] | None = None
) -> tuple[Finding, ...]:
    """Findings for every judgeable entry of ``kb`` (of ``kinds``, when given), in KB order."""
    return tuple(
        judge_issue(env, issue)
        for issue in kb.issues
        if judgeable(issue) and (kinds is None or issue.kind in kinds)
    )
