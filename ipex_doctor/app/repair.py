"""``fix`` and ``fix --undo``: one ``RepairRun`` of plan, approve, snapshot, apply, verify, restore.

The order is the contract. Nothing changes before the plan is shown and approved (``approve``:
``--yes``, or the user's answer on a terminal) and the snapshot of every installed distribution
is on disk. Steps run one at a time; a step that fails, or an interrupt, stops the ones after
it, and the report then says which step ran, which did not, and the undo command. After the
last step the doctor runs again: a finding that got worse, or a new failure, is a regression:
the snapshot is kept and the undo offered (or run at once with ``rollback_on_regression``).

What runs, and when: the interpreter the user named (``--python``; without it and without
``--report``, the one running the doctor) is the user's choice, and is examined and asked to
resolve the plan. The interpreter a saved report or snapshot names is data: it is shown, and
nothing runs it until the user approves running it (the same ``--yes`` or answer); without that
the plan shown is what the file alone says (not resolved). A file naming a script, or anything
that is not a regular file, is refused outright: a report or snapshot records ``sys.executable``,
which never is one; so is a path that no question could show as it is (a carriage return or an
escape sequence in it would make the question name another interpreter).

A snapshot is a file too, and ``fix --undo`` installs and uninstalls what it names. One that
``fix`` wrote is recorded by its SHA-256 in a private directory (``snapshot_origin``) and is
undone as approved above. Any other (downloaded, another user's, edited since) is from
elsewhere: ``--yes`` alone neither runs the interpreter it names nor applies its plan. On a
terminal the user is asked each, the question saying so (not of an interpreter the user named
too, ``--python``); off one, ``--yes`` is refused before anything runs, unless
``--trust-snapshot`` says the user read the file.

The published report is the diagnosis after (or before, when nothing was applied), with the
``Repair`` record attached. Nothing here prints: plans, questions and messages go through the
``Conversation``.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from packaging.utils import canonicalize_name

from ipex_doctor.app.approval import approver, can_ask
from ipex_doctor.app.conclusion import conclude, gate_policy
from ipex_doctor.app.interrupts import sigterm_raises
from ipex_doctor.app.repair_plan import Plan, propose, resolve, undo_plan, unresolved
from ipex_doctor.errors import DoctorError, ExitCode, Stopped, Terminated
from ipex_doctor.knowledge import known_issues
from ipex_doctor.knowledge.known_issues import KnowledgeBase
from ipex_doctor.model.device_spec import AUTO
from ipex_doctor.model.findings import Command, Finding, FindingKind, Report, Status, now_utc
from ipex_doctor.model.repair import (
    Distribution,
    PlannedStep,
    Repair,
    RepairVerdict,
    Snapshot,
    StepOutcome,
    StepStatus,
)
from ipex_doctor.probe.options import DEFAULT_TIMEOUT_S, ProbeOptions
from ipex_doctor.reporting.formats.repair_text import outcome_text, plan_text
from ipex_doctor.reporting.output import STDOUT
from ipex_doctor.reporting.output_options import OutputOptions
from ipex_doctor.reporting.policy import Policy
from ipex_doctor.reporting.saved_reports import load_report
from ipex_doctor.runs import pip_actions, snapshot_origin, snapshots
from ipex_doctor.runs.diagnose import CheckOptions, diagnose
from ipex_doctor.scan.fix.quoting import quote_name

APPLY = "Apply this plan?"


@dataclass(frozen=True)
class Conversation:
    """How a repair talks to the user: messages, questions, and the plan or outcome to show."""

    notify: Callable[[str], None]
    approve: Callable[[str], bool]
    """Asked a question, says yes or no: ``--yes``, else the user's answer on a terminal."""
    show: Callable[[Repair], None]
    ask: Callable[[str], bool] = lambda question: False
    """Asked a question ``--yes`` does not answer: the user's answer on a terminal, else no."""
    yes: bool = False
    """``--yes`` was given."""

    @classmethod
    def on_streams(
        cls,
        out: OutputOptions,
        notify: Callable[[str], None],
        yes: bool,
        ask: Callable[[str, bool], bool],
        echo: Callable[[str, bool], None],
    ) -> Conversation:
        """The plan (or the outcome) as text through ``echo(text, err)``, and the questions
        through ``ask(question, err)`` unless ``yes`` approves them (said through ``notify``):
        on stdout, or on stderr (``err``) when a machine report takes stdout."""
        err = any(path == STDOUT for _, path in out.sinks)

        def show(repair: Repair) -> None:
            planning = repair.verdict in (RepairVerdict.PLANNED, RepairVerdict.NOTHING_TO_DO)
            echo(plan_text(repair) if planning else outcome_text(repair), err)

        def asked(question: str) -> bool:
            return ask(question, err)

        return cls(notify, approver(yes, asked, say=notify), show, approver(False, asked), yes)


@dataclass(frozen=True)
class FixRequest:
    """What the user asked ``fix`` for."""

    out: OutputOptions
    python: str | None = None
    """``--python`` as typed; ``None``: the interpreter running the doctor, or with
    ``saved_report`` the one the report examined."""
    timeout_s: float = DEFAULT_TIMEOUT_S
    kb_overlays: tuple[str, ...] = ()
    saved_report: Path | None = None
    """``--report FILE.json``: plan from this diagnosis instead of running one."""
    snapshot: Path | None = None
    """``--snapshot PATH``; default: next to the ``--json`` report, else in the current directory."""
    rollback_on_regression: bool = False


@dataclass(frozen=True)
class UndoRequest:
    """What the user asked ``fix --undo SNAPSHOT`` for."""

    snapshot: Path
    out: OutputOptions
    python: str | None = None
    """``--python`` as typed (it must be the snapshot's); ``None``: the snapshot's, if approved."""
    timeout_s: float = DEFAULT_TIMEOUT_S
    kb_overlays: tuple[str, ...] = ()
    trust_snapshot: bool = False
    """``--trust-snapshot``: the user read the snapshot; one from elsewhere is approved as the
    doctor's own would be."""

    @classmethod
    def of(cls, snapshot: Path, fix: FixRequest, *, trust_snapshot: bool = False) -> UndoRequest:
        """``fix --undo SNAPSHOT``: the output, interpreter, timeout and overlays of ``fix``."""
        return cls(snapshot, fix.out, fix.python, fix.timeout_s, fix.kb_overlays, trust_snapshot)


@dataclass(frozen=True)
class Target:
    """The interpreter a repair runs pip in, and who named it."""

    python: str
    named_by: Path | None = None
    """The saved file (report, snapshot) whose word it is; ``None``: the user's (``--python``,
    or the interpreter running the doctor)."""


@dataclass(frozen=True)
class Applied:
    """What the apply step yields: each step's outcome (those after a stop: not run)."""

    outcomes: tuple[StepOutcome, ...]
    interrupt: KeyboardInterrupt | Terminated | None = None
    """What stopped pip mid-step, to raise once the report is out."""
    stop_requested: bool = False
    """A first Ctrl-C asked to stop after a finished step."""

    @property
    def complete(self) -> bool:
        """Every step applied, and nothing asked to stop."""
        done = all(o.status is StepStatus.APPLIED for o in self.outcomes)
        return done and self.interrupt is None and not self.stop_requested


def worsened(before: Sequence[Finding], after: Sequence[Finding]) -> tuple[str, ...]:
    """The findings of ``after`` (a diagnosis after a repair) that are worse than in ``before``,
    as ``"id [device]: was -> now"`` (or ``"id: new now"``), in ``after``'s order.

    A finding judged before (pass, warn, fail, error) is worse when it is a problem now of a
    higher rank. A finding not judged before, because it was absent or skipped (its
    precondition did not hold: IPEX did not import, so nothing about IPEX's kernels was asked),
    is worse only when it now fails or errs: a warning newly reached is what the host is (bf16
    prepacking on a CPU without native bf16, once the repaired IPEX imports), not something the
    repair broke."""
    was = {(f.id, f.device): f.status for f in before}
    found = []
    for finding in after:
        old = was.get((finding.id, finding.device))
        now = finding.status
        where = f" [{finding.device}]" if finding.device else ""
        if old is not None and old is not Status.SKIP:
            if finding.is_problem and now.rank > old.rank:
                found.append(f"{finding.id}{where}: {old} -> {now}")
        elif now in (Status.FAIL, Status.ERROR):
            found.append(
                f"{finding.id}{where}: " + (f"new {now}" if old is None else f"{old} -> {now}")
            )
    return tuple(found)


@dataclass(frozen=True)
class Verified:
    """What the verify step yields: the diagnosis after, and what got worse."""

    after: Report
    regressions: tuple[str, ...]
    passed: bool
    """Nothing is left at the gate."""


@dataclass(frozen=True)
class Restored:
    """What the restore step yields: the steps as they ran, and what still differs."""

    applied: Applied
    differences: tuple[str, ...]

    @property
    def exact(self) -> bool:
        """The installed set is exactly the snapshot's."""
        return not self.differences and self.applied.complete


@dataclass(frozen=True)
class Ended:
    """How a run ends: the report to publish with its repair, and what follows publishing."""

    report: Report
    repair: Repair
    exit_code: ExitCode | None = None
    """Instead of the gate's exit code."""
    stop: Stopped | None = None
    """Raised once the report is out."""


def undo_command(snapshot: Path) -> str:
    """The command that restores ``snapshot``, to paste."""
    return f"ipex-doctor fix --undo {shlex.quote(str(snapshot))}"


def fix_and_publish(request: FixRequest, conversation: Conversation) -> ExitCode:
    """``fix``: plan, and with approval apply, the pip remedies of the findings at the gate;
    publish the report with the repair recorded; 0 when nothing is left at the gate."""
    run = RepairRun(request.out, request.kb_overlays, request.timeout_s, conversation)
    return run.fix(request)


def undo_and_publish(request: UndoRequest, conversation: Conversation) -> ExitCode:
    """``fix --undo``: restore the snapshot's distributions in its interpreter, then probe the
    environment and publish; 0 when the set is exactly the snapshot's again."""
    run = RepairRun(request.out, request.kb_overlays, request.timeout_s, conversation)
    return run.undo(request)


class RepairRun:
    """One ``fix`` or ``fix --undo``: the steps in their order, each yielding a value."""

    def __init__(self, out: OutputOptions, kb_overlays: tuple[str, ...], timeout_s: float,
                 conversation: Conversation) -> None:  # fmt: skip
        self.started = time.monotonic()
        out.check()
        self.out = out
        self.timeout_s = timeout_s
        self.talk = conversation
        self.knowledge: KnowledgeBase = known_issues.load_files(kb_overlays, conversation.notify)
        self.policy: Policy = gate_policy(out, self.knowledge)

    # -- fix ---------------------------------------------------------------------------------

    def fix(self, request: FixRequest) -> ExitCode:
        """Plan, approve, snapshot, apply, verify (and restore on a regression, when asked)."""
        with sigterm_raises():
            try:
                before, target = self._before(request)
                plan, record = self._plan(before, target)
            except (KeyboardInterrupt, Terminated) as interrupt:
                raise _stopped(interrupt, "before anything changed; nothing was changed") from None
            if plan.steps and self._approved(record):
                ended = self._carry_out(request, before, target, plan, record)
            else:
                ended = Ended(before, record)
        return self._end(ended)

    def _before(self, request: FixRequest) -> tuple[Report, Target]:
        """The diagnosis the plan is made from (run, or read from ``--report``) and the
        interpreter to repair."""
        if request.saved_report is None:
            python = sys.executable if request.python is None else request.python
            report = self._diagnose(python)
            # NOTE: the remedies name the interpreter as the diagnosis recorded it.
            return report, Target(report.environment.interpreter.executable)
        report = load_report(request.saved_report)
        recorded = report.environment.interpreter.executable
        if request.python is not None and request.python != recorded:
            raise DoctorError(
                f"--report {request.saved_report} examined {recorded}, not --python "
                f"{request.python}; a fix applies to the interpreter the report examined",
                tip="leave out --python, or diagnose that interpreter again without --report",
            )
        trusted = request.python is not None
        return report, _target(recorded, request.saved_report, "--report ", trusted=trusted)

    def _plan(self, before: Report, target: Target) -> tuple[Plan, Repair]:
        """The plan of the findings at the gate, resolved by the target's pip once it may run;
        and the repair record that says so (shown)."""
        gate = self.policy.decide(self.policy.apply(before))
        proposals, manual = propose(gate.deciding, target.python)
        plan = Plan((), manual)
        if proposals and self._may_run(target, unresolved(proposals, manual), "resolve this plan with its pip"):  # fmt: skip
            plan = resolve(proposals, manual, target.python, pip_actions.installed(target.python))
        elif proposals:
            plan = unresolved(proposals, manual)
        verdict = RepairVerdict.PLANNED if plan.steps else RepairVerdict.NOTHING_TO_DO
        record = Repair(verdict, plan.steps, plan.manual, planning_bytes=plan.planning_bytes)
        if all(step.resolved for step in plan.steps):
            self.talk.show(record)
        return plan, record

    def _may_run(self, target: Target, plan: Plan | None, to: str, *,
                 elsewhere: str | None = None) -> bool:  # fmt: skip
        """Whether the target's interpreter may run: it is the user's own, or the user, shown
        it (and the ``plan`` the file proposes), approves now: ``--yes`` or an answer on a
        terminal; only the answer when the file is a snapshot from ``elsewhere`` (why it is)."""
        if target.named_by is None:
            return True
        if plan is not None:
            self.talk.show(Repair(RepairVerdict.PLANNED, plan.steps, plan.manual))
        if elsewhere is None:
            question = f"Run {target.python}, the interpreter {target.named_by} names, to {to}?"
            approved, how = self.talk.approve(question), "approve it (--yes)"
        else:
            # NOTE: running the interpreter is acting on the snapshot as much as applying its
            # plan is (whoever wrote the file chose what starts): --yes, which a script gives
            # without reading the file, does not approve it; the user's answer does.
            question = (f"{target.named_by} is a snapshot from elsewhere ({elsewhere}). "
                        f"Run {target.python}, the interpreter it names, to {to}?")  # fmt: skip
            approved = self.talk.ask(question)
            how = "read the snapshot and approve it (--yes --trust-snapshot, or y on a terminal)"
        if approved:
            return True
        self.talk.notify(
            f"{target.python} was not run (a saved file names it); nothing changed. To go on, "
            f"{how}, or name it yourself: --python {shlex.quote(target.python)}"
        )
        return False

    def _approved(self, record: Repair) -> bool:
        """Whether the plan may be applied: it was resolved, and the user approves it."""
        if not all(step.resolved for step in record.planned):
            return False
        if self.talk.approve(APPLY):
            return True
        self.talk.notify("nothing changed (apply the plan with --yes)")
        return False

    def _carry_out(self, request: FixRequest, before: Report, target: Target, plan: Plan,
                   record: Repair) -> Ended:  # fmt: skip
        """Snapshot, apply, verify, and restore on a regression when asked to."""
        installed = pip_actions.installed(target.python)
        where = _snapshot_path(request.snapshot, self.out)
        snapshot = Snapshot(target.python, now_utc(), installed)
        # NOTE: the records' directory is checked before the snapshot is written, so a refusal
        # (not private) leaves no snapshot that no record vouches for.
        snapshot_origin.private_dir(create=True)
        snapshot_origin.remember(where, snapshots.write(where, snapshot))
        self.talk.notify(f"snapshot of {len(installed)} distributions: {where}")
        applied = self._apply(plan.steps, target.python)
        undo = undo_command(where)
        record = replace(record, applied=applied.outcomes, snapshot=str(where), undo_command=undo)
        if not applied.complete:
            return self._stopped_midway(before, record, applied)
        try:
            verified = self._verify(before, target.python)
        except (KeyboardInterrupt, Terminated) as interrupt:
            self.talk.notify(f"every step applied; the diagnosis after was interrupted. To undo: {undo}")  # fmt: skip
            raise _stopped(interrupt, "after the plan was applied") from None
        verdict = RepairVerdict.RESOLVED if verified.passed else RepairVerdict.REMAINING
        if verified.regressions:
            verdict = self._regressed(verified.regressions, snapshot, where, request.rollback_on_regression)  # fmt: skip
        done = replace(record, verdict=verdict, regressions=verified.regressions)
        self.talk.show(done)
        code = None if verdict is RepairVerdict.RESOLVED else ExitCode.FINDINGS
        return Ended(verified.after, done, exit_code=code)

    def _verify(self, before: Report, python: str) -> Verified:
        """The diagnosis after, and the findings that got worse (a problem now, of a higher
        rank) or newly failed."""
        after = self._diagnose(python)
        passed = self.policy.decide(self.policy.apply(after)).passed
        return Verified(after, worsened(before.findings, after.findings), passed)

    def _regressed(self, regressions: Sequence[str], snapshot: Snapshot, where: Path, rollback: bool) -> RepairVerdict:  # fmt: skip
        """Say what got worse; restore the snapshot when asked to (and say if it did not hold)."""
        self.talk.notify("the diagnosis after is worse: " + "; ".join(regressions))
        undo = undo_command(where)
        if not rollback:
            self.talk.notify(f"the snapshot is kept; to undo: {undo}")
            return RepairVerdict.REGRESSED
        self.talk.notify("--rollback-on-regression: restoring the snapshot")
        try:
            restored = self._restore(snapshot, self._undo_plan(snapshot))
        except (KeyboardInterrupt, Terminated) as interrupt:
            self.talk.notify(f"the rollback was stopped; run it again: {undo}")
            raise _stopped(interrupt, "during the rollback") from None
        if not restored.exact:
            self.talk.notify(f"the rollback did not restore every distribution; try again: {undo}")  # fmt: skip
        return RepairVerdict.ROLLED_BACK if restored.exact else RepairVerdict.REGRESSED

    def _stopped_midway(self, before: Report, record: Repair, applied: Applied) -> Ended:
        """A step failed or was interrupted: the report names the step and offers the undo."""
        stopped = replace(record, verdict=RepairVerdict.STOPPED)
        self.talk.show(stopped)
        self.talk.notify(
            f"the environment may be between before and planned; to undo: {stopped.undo_command}"
        )
        # NOTE: the report is the diagnosis before the plan, marked incomplete: what the
        # environment is now was not examined.
        ended = Ended(replace(before, complete=False), stopped, exit_code=ExitCode.FINDINGS)
        if applied.interrupt is not None:
            ran = len([o for o in applied.outcomes if o.status is not StepStatus.NOT_RUN])
            return replace(ended, stop=_stopped(applied.interrupt, f"during step {ran}"))
        if applied.stop_requested and all(o.status in (StepStatus.APPLIED, StepStatus.NOT_RUN) for o in applied.outcomes):  # fmt: skip
            stop = Stopped("interrupted between steps (Ctrl-C)", exit_code=ExitCode.INTERRUPTED)
            return replace(ended, stop=stop)
        return ended

    # -- undo --------------------------------------------------------------------------------

    def undo(self, request: UndoRequest) -> ExitCode:
        """Approve the snapshot's interpreter, plan the way back, approve it, restore, probe."""
        path = request.snapshot
        snapshot, digest = snapshots.read(path)
        if request.python is not None and request.python != snapshot.python:
            raise DoctorError(
                f"{path} records {snapshot.python}, not --python {request.python}; "
                "an undo restores the interpreter it was taken from",
                tip="leave out --python",
            )
        target = _target(snapshot.python, path, "", trusted=request.python is not None)
        elsewhere = None if request.trust_snapshot else snapshot_origin.elsewhere(digest)
        if elsewhere is not None and self.talk.yes and not can_ask():
            raise snapshots.SnapshotError(
                f"{path} is a snapshot from elsewhere ({elsewhere}), and --yes alone does not "
                "restore one; nothing was run. Read it and its plan (shown without --yes, its "
                "interpreter named with --python), then add --trust-snapshot to --yes, or answer "
                "on a terminal"
            )
        self.talk.notify(f"{path}: {len(snapshot.distributions)} distributions of {snapshot.python}")  # fmt: skip
        with sigterm_raises():
            to = "compare its distributions with the snapshot"
            if not self._may_run(target, None, to, elsewhere=elsewhere):
                return ExitCode.FINDINGS
            plan = self._undo_plan(snapshot)
            planned = Repair(RepairVerdict.PLANNED, plan.steps, plan.manual, snapshot=str(path))
            self.talk.show(planned)
            if plan.steps and not self._restore_approved(path, elsewhere):
                return ExitCode.FINDINGS
            restored = self._restore(snapshot, plan)
            if restored.applied.interrupt is not None:
                self.talk.notify(f"the undo was stopped; run it again: {undo_command(path)}")
                raise _stopped(restored.applied.interrupt, "during the undo")
            after = self._diagnose(snapshot.python, kinds=(FindingKind.ENVIRONMENT,))
        verdict = RepairVerdict.UNDONE if restored.exact else RepairVerdict.STOPPED
        repair = replace(planned, verdict=verdict, applied=restored.applied.outcomes,
                         undo_command=None if restored.exact else undo_command(path))  # fmt: skip
        self.talk.show(repair)
        if restored.exact:
            self.talk.notify(f"restored the {len(snapshot.distributions)} distributions of {path}")
        # NOTE: the exit code says whether the set is the snapshot's, not the gate's verdict
        # on the environment (which the report carries).
        return self._end(Ended(after, repair, ExitCode.OK if restored.exact else ExitCode.FINDINGS))

    def _restore_approved(self, path: Path, elsewhere: str | None) -> bool:
        """Whether the undo plan shown may be applied: as any plan for the doctor's own
        snapshot; for one from ``elsewhere``, only by the user's answer on a terminal (a
        question that says so), which ``--yes`` does not give."""
        if elsewhere is None:
            if self.talk.approve(APPLY):
                return True
            self.talk.notify("nothing changed (restore it with --yes)")
            return False
        question = f"{path} is a snapshot from elsewhere ({elsewhere}). Apply this plan?"
        if self.talk.ask(question):
            return True
        self.talk.notify(
            f"nothing changed: {path} is a snapshot from elsewhere; read it and the plan above, "
            "then restore it with --yes --trust-snapshot"
        )
        return False

    def _undo_plan(self, snapshot: Snapshot) -> Plan:
        return undo_plan(snapshot, pip_actions.installed(snapshot.python))

    def _restore(self, snapshot: Snapshot, plan: Plan) -> Restored:
        """Run ``plan`` (the way back to ``snapshot``) and say what still differs."""
        applied = self._apply(plan.steps, snapshot.python)
        if applied.interrupt is not None:
            return Restored(applied, ())
        differences = _difference(snapshot, pip_actions.installed(snapshot.python))
        for line in differences:
            self.talk.notify(f"not restored: {line}")
        return Restored(applied, differences)

    # -- shared steps --------------------------------------------------------------------------

    def _apply(self, steps: Sequence[PlannedStep], python: str) -> Applied:
        """Run ``steps`` in order; stop at the first that fails or is interrupted."""
        outcomes: list[StepOutcome] = []
        interrupt: KeyboardInterrupt | Terminated | None = None
        stop_requested = False
        for index, step in enumerate(steps):
            if interrupt is not None or stop_requested or (outcomes and outcomes[-1].status is not StepStatus.APPLIED):  # fmt: skip
                outcomes.append(StepOutcome(index, StepStatus.NOT_RUN))
                continue
            self.talk.notify(f"step {index + 1}/{len(steps)}: {' '.join(step.command[3:])}")
            started = time.monotonic()
            try:
                run = pip_actions.run_pip(python, step.command[3:], notify=self.talk.notify)
            except (KeyboardInterrupt, Terminated) as stopped:
                interrupt = stopped
                what = "Ctrl-C" if isinstance(stopped, KeyboardInterrupt) else "SIGTERM"
                outcomes.append(StepOutcome(index, StepStatus.INTERRUPTED,
                                            seconds=round(time.monotonic() - started, 2),
                                            detail=f"pip stopped by {what} mid-step"))  # fmt: skip
                continue
            stop_requested = run.stop_requested
            if run.returncode == 0:
                status, detail = StepStatus.APPLIED, ""
            elif run.returncode is not None and run.returncode < 0:
                status, detail = StepStatus.INTERRUPTED, f"pip was killed by signal {-run.returncode}"  # fmt: skip
            else:
                status, detail = StepStatus.FAILED, run.last_error
            outcomes.append(StepOutcome(index, status, run.returncode, run.downloaded_bytes,
                                        round(run.seconds, 2), detail))  # fmt: skip
        return Applied(tuple(outcomes), interrupt, stop_requested)

    def _diagnose(self, python: str, kinds: tuple[FindingKind, ...] | None = None) -> Report:
        # NOTE: the checks of `check` without its sanity run: the remedies pip can apply are
        # about the packages, and the sanity run would add half a minute to each diagnosis.
        probe = ProbeOptions(python=python, timeout_s=self.timeout_s)
        checks = None if kinds else CheckOptions.build(device=AUTO, timeout_s=self.timeout_s)
        return diagnose(probe, self.knowledge, command=Command.FIX, kinds=kinds, checks=checks)

    def _end(self, ended: Ended) -> ExitCode:
        """Publish the report with its repair; raise what stopped the run, or return the code."""
        seconds = round(time.monotonic() - self.started, 2)
        repair = replace(ended.repair, seconds=seconds)
        report = replace(ended.report, command=Command.FIX, repair=repair)
        code = conclude(report, self.out, self.policy)
        if ended.stop is not None:
            raise ended.stop
        return code if ended.exit_code is None else ended.exit_code


def _target(python: str, file: Path, option: str, *, trusted: bool) -> Target:
    """The interpreter the saved ``file`` records (given as ``option`` FILE), refused (one
    line, nothing run) when it is gone, or, unless the user named it too (``trusted``), when
    it is not a regular file or is a script: a report and a snapshot record
    ``sys.executable``, which never is one; nor a path holding a character that is not
    printable (a line break, an escape sequence), which no question could show as it is."""
    source = f"{option}{file}"
    if not trusted and not python.isprintable():
        # NOTE: refused before any message shows the path raw: a carriage return or an escape
        # sequence in it would make the question (and the plan) show another interpreter
        # than the one that would run.
        raise DoctorError(f"{source}: its interpreter {quote_name(python)} holds characters no message shows as they are (a control or format character, an escape); nothing was run")  # fmt: skip
    try:
        found = os.stat(python)
    except OSError:
        raise DoctorError(f"{source}: its interpreter {python} is gone") from None
    if trusted:
        return Target(python)
    if not os.path.isabs(python) or not stat.S_ISREG(found.st_mode):
        raise DoctorError(f"{source}: its interpreter {python} is not a regular file named by its absolute path; nothing was run")  # fmt: skip
    try:
        with open(python, "rb") as executable:
            start = executable.read(2)
    except OSError as exc:
        raise DoctorError(f"{source}: its interpreter {python} cannot be read ({exc.strerror}); nothing was run") from None  # fmt: skip
    if start == b"#!":
        raise DoctorError(
            f"{source}: its interpreter {python} is a script, not a Python interpreter (the "
            "file should record sys.executable, which never is one); nothing was run"
        )
    return Target(python, named_by=file)


def _snapshot_path(chosen: Path | None, out: OutputOptions) -> Path:
    """``--snapshot PATH``; else next to the first report written to a file; else here."""
    if chosen is not None:
        return chosen.absolute()
    reports = [Path(p) for _, p in out.sinks if p != STDOUT]
    if reports:
        first = reports[0].absolute()
        return first.with_name(f"{first.stem}.snapshot.json")
    stamp = now_utc().replace(":", "").replace("-", "")
    return Path.cwd() / f"ipex-doctor-fix-{stamp}.snapshot.json"


def _stopped(stop: BaseException, when: str) -> Stopped:
    code = ExitCode.INTERRUPTED if isinstance(stop, KeyboardInterrupt) else ExitCode.TERMINATED
    what = "interrupted" if code is ExitCode.INTERRUPTED else "terminated (SIGTERM)"
    return Stopped(f"{what} {when}", exit_code=code)


def _difference(snapshot: Snapshot, now: Sequence[Distribution]) -> tuple[str, ...]:
    """What differs between ``snapshot`` and the distributions installed ``now``."""
    want = {(canonicalize_name(d.name), d.version) for d in snapshot.distributions}
    have = {(canonicalize_name(d.name), d.version) for d in now}
    return (
        *(f"{n} {v} (snapshot)" for n, v in sorted(want - have)),
        *(f"{n} {v} (now)" for n, v in sorted(have - want)),
    )
