"""From the findings at the gate to the plan ``fix`` shows: ordered pip steps and manual advice.

Only two kinds of command are applied, and only in the examined interpreter: ``<python> -m pip
install`` of named requirements pinned with ``==`` (from an ``--index-url`` or
``--extra-index-url`` at most), and ``<python> -m pip uninstall -y`` of named distributions.
Anything else a finding suggests (another interpreter, ``sudo``, a driver, a group, a
variable, a requirement without a version) is a manual step, printed and never run.

Each install is resolved by pip before anything changes (``pip install --dry-run --report``),
which turns ``==2.8.*`` into the one version pip would pick; the step then pins exactly that,
so the plan shown is the command run. Uninstalls come first (they clear the way), then installs,
each in the order of its findings; a command that several findings share is one step.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ipex_doctor.model.findings import Finding
from ipex_doctor.model.repair import (
    Distribution,
    ManualStep,
    PlannedStep,
    Snapshot,
    StepKind,
)
from ipex_doctor.runs import pip_actions

_INDEX_OPTIONS = ("--index-url", "--extra-index-url")


@dataclass(frozen=True)
class Proposal:
    """A finding's command that ``fix`` may apply, parsed: pip's verb, its index options,
    its requirements, and the findings that proposed it."""

    kind: StepKind
    options: tuple[str, ...]
    requirements: tuple[str, ...]
    findings: tuple[str, ...]


def _pinned(requirement: str) -> bool:
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement:
        return False
    specs = list(parsed.specifier)
    return parsed.url is None and len(specs) == 1 and specs[0].operator == "=="


def _named(requirement: str) -> bool:
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement:
        return False
    return not parsed.specifier and parsed.url is None and not parsed.extras


def parse_command(command: str, python: str) -> tuple[StepKind, tuple[str, ...], tuple[str, ...]] | None:  # fmt: skip
    """``(kind, options, requirements)`` when ``command`` is a sanctioned pip command for
    ``python``; ``None`` for anything else (it becomes advice)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 5 or words[0] != python or words[1:3] != ["-m", "pip"]:
        return None
    verb, rest = words[3], words[4:]
    if verb == "uninstall":
        names = [w for w in rest if w != "-y"]
        if "-y" in rest and names and all(_named(n) for n in names):
            return StepKind.UNINSTALL, (), tuple(names)
        return None
    if verb != "install":
        return None
    options: list[str] = []
    requirements: list[str] = []
    words_left = iter(rest)
    for word in words_left:
        if word in _INDEX_OPTIONS:
            value = next(words_left, None)
            if value is None or not value.startswith(("https://", "http://", "file://")):
                return None
            options += [word, value]
        elif word.startswith("-") or not _pinned(word):
            return None
        else:
            requirements.append(word)
    return (StepKind.INSTALL, tuple(options), tuple(requirements)) if requirements else None


def propose(findings: Sequence[Finding], python: str) -> tuple[list[Proposal], list[ManualStep]]:
    """The sanctioned commands of ``findings`` (merged where findings share one, uninstalls
    first) and the advice for the rest."""
    merged: dict[tuple[StepKind, tuple[str, ...], tuple[str, ...]], list[str]] = {}
    manual: list[ManualStep] = []
    for finding in findings:
        advice: list[str] = []
        for command in finding.commands:
            parsed = parse_command(command, python)
            if parsed is None:
                advice.append(command)
            else:
                merged.setdefault(parsed, []).append(finding.id)
        if advice or (not finding.commands and finding.remediation):
            manual.append(ManualStep(finding.id, finding.remediation, tuple(advice)))
    proposals = [
        Proposal(kind, options, requirements, tuple(dict.fromkeys(ids)))
        for (kind, options, requirements), ids in merged.items()
    ]
    proposals.sort(key=lambda p: p.kind is StepKind.INSTALL)
    return proposals, manual


def _installed_by_name(distributions: Sequence[Distribution]) -> dict[str, Distribution]:
    return {canonicalize_name(d.name): d for d in distributions}


def resolve(
    proposals: Sequence[Proposal], python: str, installed: Sequence[Distribution]
) -> tuple[tuple[PlannedStep, ...], list[ManualStep], int]:
    """The plan's steps, each resolved by pip and pinned to one version, the advice for a
    proposal with nothing left to do (already installed, already absent), and the bytes pip
    fetched to resolve them.

    Raises ``pip_actions.PipError`` when pip cannot resolve an install (nothing changed)."""
    have = _installed_by_name(installed)
    steps: list[PlannedStep] = []
    manual: list[ManualStep] = []
    fetched = 0
    uninstalled: set[str] = set()
    for proposal in proposals:
        head = (python, "-m", "pip", proposal.kind.value)
        if proposal.kind is StepKind.UNINSTALL:
            names = tuple(n for n in proposal.requirements if canonicalize_name(n) in have)
            removes = tuple(have[canonicalize_name(n)] for n in names)
            uninstalled.update(canonicalize_name(n) for n in names)
            if removes:
                steps.append(PlannedStep(proposal.kind, (*head, "-y", *names),
                                         proposal.findings, removes=removes))  # fmt: skip
            continue
        # NOTE: an install of what an earlier step uninstalls (a build to replace: the
        # installed one satisfies the requirement, its label aside) is resolved as pip will
        # see it then, without it; else pip calls it satisfied and the plan would only remove.
        # --no-deps: its dependencies are installed and stay.
        gone = any(canonicalize_name(Requirement(r).name) in uninstalled
                   for r in proposal.requirements)  # fmt: skip
        absent = ("--ignore-installed", "--no-deps") if gone else ()
        downloads, more = pip_actions.resolve(
            python, [*absent, *proposal.options, *proposal.requirements]
        )
        fetched += more
        chosen = {canonicalize_name(d.name): d for d in downloads}
        pinned = []
        for requirement in proposal.requirements:
            name = canonicalize_name(Requirement(requirement).name)
            version = chosen[name].version if name in chosen else None
            pinned.append(f"{Requirement(requirement).name}=={version}" if version else None)
        if not downloads or None in pinned:
            advice = (
                "pip reports the remedy's requirements already installed: "
                f"{' '.join(proposal.requirements)}; the cause is elsewhere"
            )
            manual.extend(ManualStep(finding, advice) for finding in proposal.findings)
            continue
        removes = tuple(
            have[key] for key, d in chosen.items() if key in have and have[key].version != d.version
        )
        command = (*head, *proposal.options, *[p for p in pinned if p])
        steps.append(PlannedStep(proposal.kind, command, proposal.findings, downloads, removes))
    return tuple(steps), manual, fetched


def undo_steps(snapshot: Snapshot, installed: Sequence[Distribution]) -> tuple[PlannedStep, ...]:
    """The steps that bring the environment back to ``snapshot``: uninstall what it did not
    have, then install exactly its versions (``--no-deps``: the set is the snapshot's, not
    what a resolver would add) of what differs or is missing. The install is resolved by pip
    first (its downloads, or ``PipError`` when the index cannot serve it: nothing changed)."""
    python = snapshot.python
    have = _installed_by_name(installed)
    want = _installed_by_name(snapshot.distributions)
    extra = tuple(d for key, d in have.items() if key not in want)
    back = [d for key, d in want.items() if key not in have or have[key].version != d.version]
    steps: list[PlannedStep] = []
    if extra:
        names = tuple(d.name for d in extra)
        steps.append(PlannedStep(StepKind.UNINSTALL, (python, "-m", "pip", "uninstall", "-y",
                                 *names), ("undo",), removes=extra))  # fmt: skip
    if back:
        requirements = [
            f"{d.name} @ {d.source}" if d.source else f"{d.name}=={d.version}" for d in back
        ]
        replaced = tuple(have[k] for k in (canonicalize_name(d.name) for d in back) if k in have)
        arguments = ("--no-deps", *requirements)
        downloads, _ = pip_actions.resolve(python, arguments)
        steps.append(PlannedStep(StepKind.INSTALL, (python, "-m", "pip", "install", *arguments),
                                 ("undo",), downloads, replaced))  # fmt: skip
    return tuple(steps)


def shell_line(command: Sequence[str]) -> str:
    """``command`` quoted for a POSIX shell, to paste."""
    return " ".join(shlex.quote(word) for word in command)
