"""From the findings at the gate to the plan ``fix`` shows: ordered pip steps and manual advice.

Only the findings' typed actions (``Finding.actions``) are ever applied, and only those the
repair policy lets run (``knowledge.remedy_policy``): pinned installs and plain uninstalls of
packages the knowledge base may touch, from an index it knows, in the examined interpreter.
Every other action, and every manual command, is a manual step, printed with the reason and
never run.

Each install is resolved by pip before anything changes (``pip install --dry-run --report``,
wheels only), which turns ``==2.8.*`` into the one version pip would pick; the step then pins
exactly that, so the plan shown is the command run. A step whose resolution would install or
replace pip, setuptools, wheel or ipex-doctor becomes a manual step. Uninstalls come first
(they clear the way), then installs, each in the order of its findings; an action several
findings share is one step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from ipex_doctor.knowledge import remedy_policy
from ipex_doctor.model.findings import Finding
from ipex_doctor.model.remedy import PipAction
from ipex_doctor.model.repair import (
    Distribution,
    ManualStep,
    PlannedStep,
    Snapshot,
)
from ipex_doctor.model.terms import StepKind
from ipex_doctor.runs import pip_actions

UNDO = "undo"
"""What an undo's steps resolve, in place of a finding's id."""
_NEVER_REPLACED = ", ".join(sorted(remedy_policy.PROTECTED))


@dataclass(frozen=True)
class Proposal:
    """An action the policy lets run, and the findings that proposed it."""

    action: PipAction
    findings: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """What ``fix`` (or ``fix --undo``) would run, in order, and the advice beside it."""

    steps: tuple[PlannedStep, ...]
    manual: tuple[ManualStep, ...] = ()
    planning_bytes: int = 0
    """What pip fetched to resolve the steps."""


def propose(findings: Sequence[Finding], python: str) -> tuple[tuple[Proposal, ...], tuple[ManualStep, ...]]:  # fmt: skip
    """The actions of ``findings`` that the policy lets run in ``python`` (merged where findings
    share one, uninstalls first), and a manual step for each finding with anything else: the
    refused actions with the reason, its manual commands, or its remediation alone."""
    merged: dict[PipAction, list[str]] = {}
    manual: list[ManualStep] = []
    for finding in findings:
        refused: list[PipAction] = []
        reasons: list[str] = []
        for action in finding.actions:
            reason = remedy_policy.action_refusal(action, python)
            if reason is None:
                merged.setdefault(action, []).append(finding.id)
            else:
                refused.append(action)
                reasons.append(reason)
        advice = (*(action.render() for action in refused), *finding.manual_commands)
        if advice or (not finding.actions and finding.remediation):
            reason = "; ".join(dict.fromkeys(reasons))
            manual.append(ManualStep(finding.id, finding.remediation, advice, reason))
    proposals = sorted(
        (Proposal(action, tuple(dict.fromkeys(ids))) for action, ids in merged.items()),
        key=lambda proposal: proposal.action.verb is StepKind.INSTALL,
    )
    return tuple(proposals), tuple(manual)


def _index_arguments(action: PipAction) -> tuple[str, ...]:
    index = ("--index-url", action.index_url) if action.index_url else ()
    return (*index, *(w for url in action.extra_index_urls for w in ("--extra-index-url", url)))


def _command(action: PipAction) -> tuple[str, ...]:
    """The command ``fix`` runs for ``action`` as it stands (an install takes wheels only)."""
    if action.verb is StepKind.UNINSTALL:
        return pip_actions.uninstall_command(action.python, action.requirements)
    return pip_actions.install_command(
        action.python, (*action.requirements, *_index_arguments(action))
    )


def unresolved(proposals: Sequence[Proposal], manual: Sequence[ManualStep]) -> Plan:
    """The plan as far as it is known without running the examined interpreter: each action's
    own command, nothing resolved (no pins chosen, no sizes, no removals known)."""
    steps = tuple(
        PlannedStep(p.action.verb, _command(p.action), p.findings, resolved=False)
        for p in proposals
    )
    return Plan(steps, tuple(manual))


def _by_name(distributions: Sequence[Distribution]) -> dict[str, Distribution]:
    return {canonicalize_name(d.name): d for d in distributions}


def resolve(
    proposals: Sequence[Proposal], manual: Sequence[ManualStep], python: str,
    installed: Sequence[Distribution],
) -> Plan:  # fmt: skip
    """The plan's steps, each resolved by pip and pinned to one version; a manual step for a
    proposal with nothing left to do (already installed, already absent) or whose resolution
    would install or replace a protected distribution; the bytes pip fetched to resolve them.

    Raises ``pip_actions.PipError`` when pip cannot resolve an install (nothing changed)."""
    have = _by_name(installed)
    steps: list[PlannedStep] = []
    advice = list(manual)
    fetched = 0
    uninstalled: set[str] = set()
    for proposal in proposals:
        action = proposal.action
        if action.verb is StepKind.UNINSTALL:
            present = tuple(n for n in action.requirements if canonicalize_name(n) in have)
            removes = tuple(have[canonicalize_name(n)] for n in present)
            uninstalled.update(canonicalize_name(n) for n in present)
            if removes:
                command = pip_actions.uninstall_command(python, present)
                steps.append(PlannedStep(action.verb, command, proposal.findings, removes=removes))
            continue
        # NOTE: an install of what an earlier step uninstalls (a build to replace: the
        # installed one satisfies the requirement, its label aside) is resolved as pip will
        # see it then, without it; else pip calls it satisfied and the plan would only remove.
        # --no-deps: its dependencies are installed and stay.
        names = [canonicalize_name(Requirement(r).name) for r in action.requirements]
        absent = ("--ignore-installed", "--no-deps") if uninstalled.intersection(names) else ()
        sources = _index_arguments(action)
        downloads, more = pip_actions.resolve(python, [*absent, *action.requirements, *sources])
        fetched += more
        chosen = {canonicalize_name(d.name): d for d in downloads}
        if not downloads or any(name not in chosen for name in names):
            said = (
                "pip reports the remedy's requirements already installed: "
                f"{' '.join(action.requirements)}; the cause is elsewhere"
            )
            advice.extend(ManualStep(finding, said) for finding in proposal.findings)
            continue
        protected = sorted(f"{d.name} {d.version}" for k, d in chosen.items()
                           if k in remedy_policy.PROTECTED)  # fmt: skip
        if protected:
            reason = (
                f"pip would install {', '.join(protected)} with it; fix never removes or "
                f"replaces {_NEVER_REPLACED}"
            )
            advice.extend(
                ManualStep(finding, "", (action.render(),), reason) for finding in proposal.findings
            )
            continue
        pinned = [f"{Requirement(r).name}=={chosen[n].version}"
                  for r, n in zip(action.requirements, names, strict=True)]  # fmt: skip
        removes = tuple(
            have[key] for key, d in chosen.items() if key in have and have[key].version != d.version
        )
        command = pip_actions.install_command(python, (*pinned, *sources))
        steps.append(PlannedStep(action.verb, command, proposal.findings, downloads, removes))
    return Plan(tuple(steps), tuple(advice), fetched)


def undo_plan(snapshot: Snapshot, installed: Sequence[Distribution]) -> Plan:
    """The steps that bring the environment back to ``snapshot``: uninstall what it did not
    have, then install exactly its versions (``--no-deps``: the set is the snapshot's, not
    what a resolver would add) of what differs or is missing, from the index or the local
    wheel it came from. Never pip, setuptools, wheel or ipex-doctor, and never a source that
    would be built: those are manual steps. The install is resolved by pip first (its
    downloads, or ``PipError`` when the index cannot serve it: nothing changed)."""
    python = snapshot.python
    have, want = _by_name(installed), _by_name(snapshot.distributions)
    manual: list[ManualStep] = []
    extra: list[Distribution] = []
    for key, present in have.items():
        if key in want:
            continue
        refusal = remedy_policy.distribution_refusal(present.name, present.version)
        reason = _never_touched(key) or refusal
        if reason is None:
            extra.append(present)
        else:
            manual.append(ManualStep(UNDO, f"{present.name} {present.version} is not in the "
                                     "snapshot", reason=reason))  # fmt: skip
    back: list[Distribution] = []
    for key, then in want.items():
        now = have.get(key)
        if now is not None and now.version == then.version:
            continue
        reason = _never_touched(key) or remedy_policy.source_refusal(
            then.name, then.version, then.source
        )
        if reason is None:
            back.append(then)
            continue
        was = f"{now.version} now" if now is not None else "absent now"
        manual.append(ManualStep(UNDO, f"{then.name} {then.version} in the snapshot, {was}",
                                 reason=reason))  # fmt: skip
    steps: list[PlannedStep] = []
    if extra:
        names = tuple(d.name for d in extra)
        steps.append(PlannedStep(StepKind.UNINSTALL, pip_actions.uninstall_command(python, names),
                                 (UNDO,), removes=tuple(extra)))  # fmt: skip
    if back:
        requirements = [
            f"{d.name} @ {d.source}" if d.source else f"{d.name}=={d.version}" for d in back
        ]
        replaced = tuple(have[k] for k in (canonicalize_name(d.name) for d in back) if k in have)
        arguments = ("--no-deps", *requirements)
        downloads, _ = pip_actions.resolve(python, arguments)
        steps.append(PlannedStep(StepKind.INSTALL, pip_actions.install_command(python, arguments),
                                 (UNDO,), downloads, replaced))  # fmt: skip
    return Plan(tuple(steps), tuple(manual))


def _never_touched(name: str) -> str | None:
    if name in remedy_policy.PROTECTED:
        return f"fix never removes or replaces {_NEVER_REPLACED}"
    return None
