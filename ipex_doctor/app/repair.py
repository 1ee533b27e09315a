"""``fix``: diagnose, plan, snapshot, apply with pip, diagnose again, judge; and ``fix --undo``.

The order is the contract. Nothing changes before the plan is shown and approved
(``approve``: ``--yes``, or the user's answer on a terminal) and the snapshot of every installed
distribution is on disk. Steps run one at a time; a step that fails, or an interrupt, stops the
ones after it, and the report then says which step ran, which did not, and the undo command.
After the last step the doctor runs again: a finding that got worse, or a new failure, is a
regression: the snapshot is kept and the undo offered (or run at once with
``rollback_on_regression``). The published report is the diagnosis after (or before, when
nothing was applied), with the ``Repair`` record attached. Nothing here prints: the plan and
messages go through ``show`` and ``notify``.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from packaging.utils import canonicalize_name

from ipex_doctor.app.conclusion import conclude, gate_policy
from ipex_doctor.app.interrupts import sigterm_raises
from ipex_doctor.app.repair_plan import propose, resolve, undo_steps
from ipex_doctor.errors import DoctorError, ExitCode, Stopped, Terminated
from ipex_doctor.knowledge import known_issues
from ipex_doctor.knowledge.known_issues import KnowledgeBase
from ipex_doctor.model.findings import Command, FindingKind, Report, Status, now_utc
from ipex_doctor.model.repair import (
    Distribution,
    PlannedStep,
    Repair,
    RepairVerdict,
    Snapshot,
    StepOutcome,
    StepStatus,
)
from ipex_doctor.probe.options import ProbeOptions
from ipex_doctor.reporting.output import STDOUT
from ipex_doctor.reporting.output_options import OutputOptions
from ipex_doctor.reporting.policy import Policy
from ipex_doctor.reporting.saved_reports import load_report
from ipex_doctor.runs import pip_actions, snapshots
from ipex_doctor.runs.diagnose import CheckOptions, diagnose

Notify = Callable[[str], None]
Approve = Callable[[Repair], bool]
"""Shown the plan, says whether to apply it."""


@dataclass(frozen=True)
class FixRequest:
    """What the user asked ``fix`` for."""

    probe: ProbeOptions
    out: OutputOptions
    kb_overlays: tuple[str, ...] = ()
    saved_report: Path | None = None
    """``--report FILE.json``: plan from this diagnosis instead of running one."""
    python_given: bool = False
    """Whether ``--python`` was typed (a saved report's interpreter must then be the same)."""
    snapshot: Path | None = None
    """``--snapshot PATH``; default: next to the ``--json`` report, else in the current directory."""
    rollback_on_regression: bool = False


def _diagnose(probe: ProbeOptions, knowledge: KnowledgeBase, kinds: tuple[FindingKind, ...] | None = None) -> Report:  # fmt: skip
    # NOTE: the checks of `check` without its sanity run: the remedies pip can apply are about
    # the packages, and the sanity run would add half a minute to each diagnosis.
    checks = None if kinds else CheckOptions.build(device="auto", timeout_s=probe.timeout_s)
    return diagnose(probe, knowledge, command=Command.FIX, kinds=kinds, checks=checks)


def undo_command(snapshot: Path) -> str:
    """The command that restores ``snapshot``, to paste."""
    return f"ipex-doctor fix --undo {shlex.quote(str(snapshot))}"


def _snapshot_path(request: FixRequest) -> Path:
    if request.snapshot is not None:
        return request.snapshot.absolute()
    reports = [Path(p) for fmt, p in request.out.sinks if p != STDOUT]
    stamp = now_utc().replace(":", "").replace("-", "")
    if reports:
        first = reports[0].absolute()
        return first.with_name(f"{first.stem}.snapshot.json")
    return Path.cwd() / f"ipex-doctor-fix-{stamp}.snapshot.json"


def _before(request: FixRequest, knowledge: KnowledgeBase) -> tuple[Report, ProbeOptions]:
    """The diagnosis the plan is made from (run, or read from ``--report``) and what to examine."""
    if request.saved_report is None:
        return _diagnose(request.probe, knowledge), request.probe
    report = load_report(request.saved_report)
    recorded = report.environment.interpreter.executable
    if request.python_given and request.probe.python != recorded:
        raise DoctorError(
            f"--report {request.saved_report} examined {recorded}, not --python "
            f"{request.probe.python}; a fix applies to the interpreter the report examined",
            tip="leave out --python, or diagnose that interpreter again without --report",
        )
    if not Path(recorded).exists():
        raise DoctorError(f"--report {request.saved_report}: its interpreter {recorded} is gone")
    return report, replace(request.probe, python=recorded)


def _regressions(before: Report, after: Report) -> tuple[str, ...]:
    """Findings that got worse (a problem now, of a higher rank) or newly failed."""
    was = {(f.id, f.device): f.status for f in before.findings}
    found = []
    for finding in after.findings:
        old = was.get((finding.id, finding.device))
        now = finding.status
        where = f" [{finding.device}]" if finding.device else ""
        if old is None and now in (Status.FAIL, Status.ERROR):
            found.append(f"{finding.id}{where}: new {now}")
        elif old is not None and finding.is_problem and now.rank > old.rank:
            found.append(f"{finding.id}{where}: {old} -> {now}")
    return tuple(found)


def apply_steps(
    steps: Sequence[PlannedStep], python: str, notify: Notify
) -> tuple[list[StepOutcome], BaseException | None, bool]:
    """Run ``steps`` in order; stop at the first that fails or is interrupted.

    Returns each step's outcome (those after a stop: not run), the interrupt that stopped them
    (``KeyboardInterrupt`` or ``Terminated``, to re-raise once the report is out), and whether
    a first Ctrl-C asked to stop after a finished step."""
    outcomes: list[StepOutcome] = []
    stop: BaseException | None = None
    stop_requested = False
    for index, step in enumerate(steps):
        if stop is not None or stop_requested or (outcomes and outcomes[-1].status is not StepStatus.APPLIED):  # fmt: skip
            outcomes.append(StepOutcome(index, StepStatus.NOT_RUN))
            continue
        notify(f"step {index + 1}/{len(steps)}: {' '.join(step.command[3:])}")
        started = time.monotonic()
        try:
            run = pip_actions.run_pip(python, step.command[3:], notify=notify)
        except (KeyboardInterrupt, Terminated) as interrupt:
            stop = interrupt
            what = "Ctrl-C" if isinstance(interrupt, KeyboardInterrupt) else "SIGTERM"
            outcomes.append(StepOutcome(index, StepStatus.INTERRUPTED,
                                        seconds=round(time.monotonic() - started, 2),
                                        detail=f"pip stopped by {what} mid-step"))  # fmt: skip
            continue
        stop_requested = run.stop_requested
        if run.returncode == 0:
            status, detail = StepStatus.APPLIED, ""
        elif run.returncode is not None and run.returncode < 0:
            status, detail = StepStatus.INTERRUPTED, f"pip was killed by signal {-run.returncode}"
        else:
            status, detail = StepStatus.FAILED, run.last_error
        outcomes.append(StepOutcome(index, status, run.returncode, run.downloaded_bytes,
                                    round(run.seconds, 2), detail))  # fmt: skip
    return outcomes, stop, stop_requested


def fix_and_publish(request: FixRequest, *, notify: Notify, approve: Approve, show: Callable[[Repair], None]) -> ExitCode:  # fmt: skip
    """Plan, and with approval apply, the pip remedies of the findings at the gate; publish the
    report with the repair recorded and return the exit code (0: nothing left at the gate)."""
    started = time.monotonic()
    request.out.check()
    knowledge = known_issues.load_files(request.kb_overlays, notify)
    policy = gate_policy(request.out, knowledge)
    with sigterm_raises():
        try:
            before, probe = _before(request, knowledge)
            gate = policy.decide(policy.apply(before))
            # NOTE: the remedies name the interpreter as the diagnosis recorded it; pip runs
            # there, and a command naming any other interpreter is advice, never run.
            python = before.environment.interpreter.executable
            proposals, manual = propose(gate.deciding, python)
            installed = pip_actions.installed(python) if proposals else ()
            steps, more, fetched = resolve(proposals, python, installed)
        except (KeyboardInterrupt, Terminated) as interrupt:
            raise _stopped(interrupt, "before anything changed; nothing was changed") from None
        manual = [*manual, *more]
        if not steps:
            repair = Repair(RepairVerdict.NOTHING_TO_DO, manual=tuple(manual))
            show(repair)
            return _publish(before, repair, started, request.out, policy)
        planned = Repair(RepairVerdict.PLANNED, steps, tuple(manual), planning_bytes=fetched)
        show(planned)
        if not approve(planned):
            notify("nothing changed (apply the plan with --yes)")
            return _publish(before, planned, started, request.out, policy)
        where = _snapshot_path(request)
        snapshots.write(where, Snapshot(python, now_utc(), installed))
        notify(f"snapshot of {len(installed)} distributions: {where}")
        outcomes, stop, stop_requested = apply_steps(steps, python, notify)
        undo = undo_command(where)
        applied = replace(planned, applied=tuple(outcomes), snapshot=str(where), undo_command=undo)
        if stop is not None or stop_requested or any(o.status is not StepStatus.APPLIED for o in outcomes):  # fmt: skip
            return _stopped_midway(
                before, applied, stop, started, request.out, policy, notify, show
            )
        try:
            after = _diagnose(probe, knowledge)
        except (KeyboardInterrupt, Terminated) as interrupt:
            notify(f"every step applied; the diagnosis after was interrupted. To undo: {undo}")
            raise _stopped(interrupt, "after the plan was applied") from None
        regressions = _regressions(before, after)
        passed = policy.decide(policy.apply(after)).passed
        verdict = RepairVerdict.RESOLVED if passed else RepairVerdict.REMAINING
        if regressions:
            verdict = _regressed(regressions, where, request.rollback_on_regression, notify)
    done = replace(applied, verdict=verdict, regressions=regressions)
    show(done)
    code = _publish(after, done, started, request.out, policy)
    return ExitCode.FINDINGS if verdict is not RepairVerdict.RESOLVED else code


def _regressed(regressions: Sequence[str], snapshot: Path, rollback: bool, notify: Notify) -> RepairVerdict:  # fmt: skip
    """Say what got worse; restore the snapshot when asked to (and say if it did not hold)."""
    notify("the diagnosis after is worse: " + "; ".join(regressions))
    undo = undo_command(snapshot)
    if not rollback:
        notify(f"the snapshot is kept; to undo: {undo}")
        return RepairVerdict.REGRESSED
    notify("--rollback-on-regression: restoring the snapshot")
    try:
        restored, _ = _restore(snapshots.read(snapshot), notify)
    except (KeyboardInterrupt, Terminated) as interrupt:
        notify(f"the rollback was stopped; run it again: {undo}")
        raise _stopped(interrupt, "during the rollback") from None
    if not restored:
        notify(f"the rollback did not restore every distribution; try again: {undo}")
    return RepairVerdict.ROLLED_BACK if restored else RepairVerdict.REGRESSED


def _stopped(stop: BaseException, when: str) -> Stopped:
    code = ExitCode.INTERRUPTED if isinstance(stop, KeyboardInterrupt) else ExitCode.TERMINATED
    what = "interrupted" if code is ExitCode.INTERRUPTED else "terminated (SIGTERM)"
    return Stopped(f"{what} {when}", exit_code=code)


def _stopped_midway(
    before: Report, repair: Repair, stop: BaseException | None, started: float,
    out: OutputOptions, policy: Policy, notify: Notify, show: Callable[[Repair], None],
) -> ExitCode:  # fmt: skip
    """A step failed or was interrupted: publish what ran, name the step, offer the undo."""
    stopped = replace(repair, verdict=RepairVerdict.STOPPED)
    show(stopped)
    notify(f"the environment may be between before and planned; to undo: {stopped.undo_command}")
    # NOTE: the report is the diagnosis before the plan, marked incomplete: what the
    # environment is now was not examined.
    _publish(replace(before, complete=False), stopped, started, out, policy)
    if stop is not None:
        raise _stopped(stop, f"during step {len([o for o in stopped.applied if o.status is not StepStatus.NOT_RUN])}")  # fmt: skip
    if repair.applied and all(o.status in (StepStatus.APPLIED, StepStatus.NOT_RUN) for o in repair.applied):  # fmt: skip
        raise Stopped("interrupted between steps (Ctrl-C)", exit_code=ExitCode.INTERRUPTED)
    return ExitCode.FINDINGS


def _publish(report: Report, repair: Repair, started: float, out: OutputOptions, policy: Policy) -> ExitCode:  # fmt: skip
    seconds = round(time.monotonic() - started, 2)
    return conclude(replace(report, command=Command.FIX, repair=replace(repair, seconds=seconds)), out, policy)  # fmt: skip


def _restore(snapshot: Snapshot, notify: Notify) -> tuple[bool, tuple[PlannedStep, ...]]:
    """Bring the environment back to ``snapshot``; whether it now has exactly its set."""
    steps = undo_steps(snapshot, pip_actions.installed(snapshot.python))
    outcomes, stop, _ = apply_steps(steps, snapshot.python, notify)
    if stop is not None:
        raise stop
    now = pip_actions.installed(snapshot.python)
    missing = _difference(snapshot, now)
    for line in missing:
        notify(f"not restored: {line}")
    return not missing and all(o.status is StepStatus.APPLIED for o in outcomes), steps


def _difference(snapshot: Snapshot, now: Sequence[Distribution]) -> list[str]:
    """What differs between ``snapshot`` and the distributions installed ``now``."""
    want = {(canonicalize_name(d.name), d.version) for d in snapshot.distributions}
    have = {(canonicalize_name(d.name), d.version) for d in now}
    return [f"{n} {v} (snapshot)" for n, v in sorted(want - have)] + [
        f"{n} {v} (now)" for n, v in sorted(have - want)
    ]


def undo_and_publish(
    path: Path, *, python: str | None, out: OutputOptions, kb_overlays: tuple[str, ...],
    timeout_s: float, notify: Notify, approve: Approve, show: Callable[[Repair], None],
) -> ExitCode:  # fmt: skip
    """``fix --undo SNAPSHOT``: restore the snapshot's distributions in its interpreter, then
    probe the environment and publish. 0 when the set is exactly the snapshot's again."""
    started = time.monotonic()
    out.check()
    snapshot = snapshots.read(path)
    if python is not None and python != snapshot.python:
        raise DoctorError(
            f"{path} records {snapshot.python}, not --python {python}; "
            "an undo restores the interpreter it was taken from",
            tip="leave out --python",
        )
    if not Path(snapshot.python).exists():
        raise DoctorError(f"{path}: its interpreter {snapshot.python} is gone")
    knowledge = known_issues.load_files(kb_overlays, notify)
    policy = gate_policy(out, knowledge)
    probe = ProbeOptions(python=snapshot.python, timeout_s=timeout_s)
    with sigterm_raises():
        steps = undo_steps(snapshot, pip_actions.installed(snapshot.python))
        planned = Repair(RepairVerdict.PLANNED, steps, snapshot=str(path))
        show(planned)
        if steps and not approve(planned):
            notify("nothing changed (restore it with --yes)")
            return ExitCode.FINDINGS
        outcomes, stop, _ = apply_steps(steps, snapshot.python, notify)
        if stop is not None:
            notify(f"the undo was stopped; run it again: {undo_command(path)}")
            raise _stopped(stop, "during the undo")
        differences = _difference(snapshot, pip_actions.installed(snapshot.python))
        for line in differences:
            notify(f"not restored: {line}")
        after = _diagnose(probe, knowledge, kinds=(FindingKind.ENVIRONMENT,))
    verdict = RepairVerdict.UNDONE if not differences else RepairVerdict.STOPPED
    repair = replace(planned, verdict=verdict, applied=tuple(outcomes),
                     undo_command=None if not differences else undo_command(path))  # fmt: skip
    show(repair)
    _publish(after, repair, started, out, policy)
    if differences:
        return ExitCode.FINDINGS
    notify(f"restored the {len(snapshot.distributions)} distributions of {path}")
    return ExitCode.OK
