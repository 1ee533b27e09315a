"""A diagnosis from start to report: probe the environment, run the checks, judge, redact.

``examine`` is the probe (static facts in this process, the runtime probe in a spawned worker);
``diagnose`` adds the checks and the sanity run and returns the redacted report. Progress goes
through injected callbacks; nothing here prints or exits. What was learnt is kept in a
``Partial`` as it comes, so an interrupted run still has a report (``partial_report``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ipex_doctor import __version__
from ipex_doctor.errors import DoctorError, did_you_mean
from ipex_doctor.knowledge.known_issues import KnowledgeBase, KnownIssue
from ipex_doctor.model.device_spec import AUTO, DeviceSpec
from ipex_doctor.model.environment import (
    IPEX_MODULE,
    Environment,
    Package,
    RuntimeProbe,
)
from ipex_doctor.model.findings import Command, FindingKind, Report, Severity, now_utc
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.model.terms import Isolation
from ipex_doctor.probe import session as sessions
from ipex_doctor.probe import static_facts
from ipex_doctor.probe.options import ProbeOptions
from ipex_doctor.probe.secrets import Redactor
from ipex_doctor.probe.session import Session, StepProgress
from ipex_doctor.probe.static_facts import StaticFacts
from ipex_doctor.runs import runner, sanity_plan
from ipex_doctor.runs.catalog import CheckScript, catalog
from ipex_doctor.runs.device_selection import accelerators_to_prepare, local_rank, select_devices
from ipex_doctor.runs.sanity_options import SanityOptions
from ipex_doctor.verdicts.assemble import findings_of

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


@dataclass
class Partial:
    """What a diagnosis has found so far, so an interrupted run can still write its report."""

    static: StaticFacts | None = None
    env: Environment | None = None
    """The whole environment, once the runtime probe finished."""
    runs: dict[str, list[CheckRun]] = field(default_factory=dict)
    """Check runs finished so far, by check id."""

    def environment(self) -> Environment | None:
        """The environment as far as it is known (``None`` before the handshake finished)."""
        if self.env is not None or self.static is None:
            return self.env
        return Environment(
            interpreter=self.static.interpreter,
            host=self.static.host,
            packages=self.static.packages,
            env_vars=self.static.env_vars,
            runtime=RuntimeProbe(
                ran=False, skip_reason="interrupted before the runtime probe finished"
            ),
        )


@dataclass(frozen=True)
class CheckOptions:
    """Which check scripts to run, where, and how."""

    catalog: Mapping[str, CheckScript]
    only: tuple[str, ...] | None = None
    """Check ids to run; ``None`` runs every check a knowledge-base entry names."""
    device: DeviceSpec = AUTO
    """The ``--device`` spec, parsed where it was typed; the
    sanity run goes to the one device it names, to the first accelerator for ``auto``, to every
    device for ``all``."""
    timeout_s: float = runner.DEFAULT_CHECK_TIMEOUT_S
    isolation: Isolation = Isolation.WORKER
    sanity: SanityOptions | None = None
    """Run the ResNet-50 AMP sanity run after the checks (``None``: skip it)."""

    @classmethod
    def build(
        cls,
        *,
        checks_dirs: tuple[str, ...] = (),
        only: tuple[str, ...] | None = None,
        device: DeviceSpec = AUTO,
        timeout_s: float = runner.DEFAULT_CHECK_TIMEOUT_S,
        isolation: Isolation = Isolation.WORKER,
        sanity_options: SanityOptions | None = None,
    ) -> CheckOptions:
        """The options from what the user typed: every name checked against the catalog
        (a usage error with the closest names)."""
        scripts = catalog(tuple(Path(d) for d in checks_dirs))
        only = tuple(scripts) if only == ("all",) else only
        for name in only or ():
            if name not in scripts:
                tip = did_you_mean(name, scripts, otherwise="'ipex-doctor repro --list' lists them")
                raise DoctorError(f"no check named '{name}'", tip=tip)
        return cls(
            catalog=scripts,
            only=only,
            device=device,
            timeout_s=timeout_s,
            isolation=isolation,
            sanity=sanity_options,
        )


def examine(
    options: ProbeOptions,
    *,
    environ: Mapping[str, str] | None = None,
    progress: Progress = _quiet,
    keep_session: bool = False,
    partial: Partial | None = None,
    prepare: tuple[str, ...] = (),
) -> tuple[Environment, Session | None]:
    """Probe the environment of ``options.python``: static facts, then the runtime probe
    (``prepare``: the accelerators its worker may initialise while it imports, see ``Session``).

    Raises ``InterpreterError`` when ``options.python`` cannot be used at all; every other
    failure (torch missing, an import that crashes) is recorded in the environment. With
    ``keep_session`` the worker that ran the probe is returned, still running, for checks.
    """
    environ = os.environ if environ is None else environ
    partial = partial if partial is not None else Partial()
    with static_facts.start(options, environ=environ, progress=progress) as examining:
        # NOTE: what an interrupt from here on leaves in a partial report; the CPU's ISA as
        # the examined interpreter executes it and the GPU stack join it below.
        partial.static = examining.facts
        executable = examining.target.interpreter.executable
        # NOTE: the worker starts importing torch now; the rest of the static facts (the CPU's
        # ISA in the examined interpreter, the GPU stack's libraries) are read while it does.
        started = _start_runtime_probe(options, examining.facts.packages, executable, environ,
                                       progress, prepare)  # fmt: skip
        try:
            static = partial.static = examining.finish()
        except BaseException:
            if isinstance(started, Session):
                started.close(grace=0)  # NOTE: the worker must not outlive the doctor
            raise
    probe, session = _finish_runtime_probe(started, executable, options, environ, keep_session)
    env = Environment(
        interpreter=static.interpreter,
        host=static.host,
        packages=static.packages,
        env_vars=static.env_vars,
        runtime=probe,
    )
    partial.env = env
    return env, session


def _start_runtime_probe(
    options: ProbeOptions,
    packages: tuple[Package, ...],
    python: str,
    environ: Mapping[str, str],
    progress: Progress,
    prepare: tuple[str, ...],
) -> Session | RuntimeProbe:
    """The worker that runs the runtime probe, started; or the probe that did not run, and why
    (``prepare``: the accelerators it may initialise while it imports, see ``Session``)."""
    if not options.runtime_probe:
        return RuntimeProbe(ran=False, skip_reason=static_facts.NEVER_IMPORTS_TORCH)
    if not any(p.name == "torch" for p in packages):
        return RuntimeProbe(ran=False, skip_reason="torch is not installed")
    progress("importing torch and IPEX in a spawned interpreter")
    try:
        return Session(python, environ=environ, prepare=prepare)
    except OSError as exc:
        return RuntimeProbe(
            ran=False, skip_reason=f"could not start the interpreter: {exc.strerror}"
        )


def _finish_runtime_probe(
    started: Session | RuntimeProbe,
    python: str,
    options: ProbeOptions,
    environ: Mapping[str, str],
    keep_session: bool,
) -> tuple[RuntimeProbe, Session | None]:
    """The runtime probe's outcome, and the worker kept for the checks (``keep_session``)."""
    if isinstance(started, RuntimeProbe):
        return started, None
    session = started
    try:
        probe = session.start_up(options.timeout_s)
    except BaseException:
        # NOTE: an interrupt while waiting: the worker must not outlive the doctor.
        session.close(grace=0)
        raise
    probe = _as_fresh_imports(probe, python, options, environ)
    if not keep_session or failed_imports(probe):
        # NOTE: a worker in which an import failed holds half-initialised modules: the checks
        # get a fresh one that refuses them (runner.run_tasks, ``refuse``).
        session.close()
        return probe, None
    return probe, session


def _as_fresh_imports(
    probe: RuntimeProbe, python: str, options: ProbeOptions, environ: Mapping[str, str]
) -> RuntimeProbe:
    """The probe with each import's outcome as a user's fresh interpreter gives it.

    The worker imports torch, torchvision and IPEX one after another. IPEX imports torchvision
    itself, so after a successful torchvision import its outcome is what a fresh ``import
    intel_extension_for_pytorch`` gives; after a failed one the half-imported torchvision left
    behind changes IPEX's error ("partially initialized module 'torchvision' has no attribute
    'extension'" instead of the real "operator torchvision::nms does not exist"), so IPEX is
    imported again in a fresh interpreter and that outcome is reported.
    """
    torchvision = probe.import_of("torchvision")
    ipex = probe.import_of(IPEX_MODULE)
    if torchvision is None or torchvision.ok or ipex is None:
        return probe
    fresh = sessions.fresh_import(python, IPEX_MODULE, options.timeout_s, environ)
    if fresh is None:
        return probe
    return dataclasses.replace(
        probe, imports=tuple(fresh if o.module == IPEX_MODULE else o for o in probe.imports)
    )


def failed_imports(probe: RuntimeProbe) -> dict[str, str]:
    """The modules (torch aside) whose import failed in the probe, with how it failed in a
    fresh interpreter: a worker for the checks refuses them (see ``Session``), so a module that
    kills its interpreter (SIGILL) does not kill every check too, and a check sees the error a
    user's fresh ``import`` gives, not the artifact of a second import in one interpreter
    ("partially initialized module 'torchvision'")."""
    refused = {}
    for outcome in probe.imports:
        if outcome.ok or outcome.module == "torch":
            continue
        if outcome.error_type in ("died", "timeout"):
            refused[outcome.module] = (
                f"a fresh interpreter did not survive importing it ({outcome.error})"
            )
        else:
            error = str(outcome.error or "").strip().splitlines()
            refused[outcome.module] = (
                f"importing it in a fresh interpreter failed: {outcome.error_type}: "
                f"{error[0] if error else ''}"
            )
    return refused


def _plan_checks(
    env: Environment, kb: KnowledgeBase, checks: CheckOptions, *, rank: int = 0
) -> tuple[list[runner.Task], dict[str, list[CheckRun]]]:
    """The check tasks to run, and the runs already decided (devices asked for, absent)."""
    wanted = checks.only
    if wanted is None:
        named = (i.repro for i in kb.issues if i.repro is not None and i.repro in checks.catalog)
        wanted = tuple(dict.fromkeys(named))
    devices, missing = select_devices(checks.device, env, rank=rank)
    tasks: list[runner.Task] = []
    decided: dict[str, list[CheckRun]] = {}
    for check_id in wanted:
        tasks.extend(runner.Task(checks.catalog[check_id], device) for device in devices)
        decided[check_id] = [
            CheckRun(check_id, device, Outcome.DEVICE_ABSENT, error=f"{device} is not present here")
            for device in missing
        ]
    return tasks, decided


def _with_adhoc_entries(kb: KnowledgeBase, checks: CheckOptions) -> KnowledgeBase:
    """Add an entry for each requested check that no knowledge-base entry names."""
    named = {i.repro for i in kb.issues}
    extra = [
        KnownIssue(
            id=check_id,
            title=script.title,
            kind=FindingKind.KNOWN_ISSUE,
            severity=Severity.WARNING,
            summary=script.doc or script.title,
            remediation=f"See the docstring of {script.path}.",
            workaround="",
            devices=(),
            affected=(),
            rule=None,
            repro=check_id,
            symptoms=(),
            references=(),
            source=str(script.path),
        )
        for check_id in checks.only or ()
        if check_id not in named
        for script in (checks.catalog[check_id],)
    ]
    return KnowledgeBase(issues=kb.issues + tuple(extra), sources=kb.sources)


def diagnose(
    options: ProbeOptions,
    kb: KnowledgeBase,
    *,
    command: Command,
    kinds: tuple[FindingKind, ...] | None = None,
    checks: CheckOptions | None = None,
    environ: Mapping[str, str] | None = None,
    progress: Progress = _quiet,
    on_step: StepProgress | None = None,
    partial: Partial | None = None,
) -> Report:
    """Probe, run the checks (if asked), judge every applicable entry, return the redacted report.

    ``progress`` hears what the doctor is doing; ``on_step`` the phases inside a check (the
    sanity run reports its training steps and throughput phases there).
    """
    environ = os.environ if environ is None else environ
    partial = partial if partial is not None else Partial()
    # NOTE: the device the checks will use first is made ready while the worker imports.
    prepare = () if checks is None else accelerators_to_prepare(checks.device, local_rank(environ))
    env, session = examine(
        options, environ=environ, progress=progress, keep_session=checks is not None,
        partial=partial, prepare=prepare,
    )  # fmt: skip
    runs = partial.runs
    if checks is not None:
        tasks: list[runner.Task] = []
        torch_import = env.runtime.import_of("torch")
        if torch_import is not None and torch_import.ok:
            tasks, decided = _plan_checks(env, kb, checks, rank=local_rank(environ))
            runs.update(decided)
        if checks.sanity is not None:
            sanity_tasks, not_run = sanity_plan.plan(
                env, checks.sanity, checks.device, rank=local_rank(environ)
            )
            tasks.extend(sanity_tasks)
            if not_run:
                runs[sanity_plan.TASK_ID] = not_run
        if tasks:
            runner.run_tasks(
                env.interpreter.executable,
                tasks,
                session=session,
                timeout=checks.timeout_s,
                startup_timeout=options.timeout_s,
                isolation=checks.isolation,
                progress=progress,
                on_step=on_step,
                on_run=lambda run: runs.setdefault(run.check_id, []).append(run),
                refuse=failed_imports(env.runtime),
            )
        elif session is not None:
            session.close()
    progress("judging the knowledge base")
    return build_report(env, kb, runs, command=command, kinds=kinds, checks=checks, environ=environ)


def build_report(
    env: Environment,
    kb: KnowledgeBase,
    runs: Mapping[str, list[CheckRun]],
    *,
    command: Command,
    kinds: tuple[FindingKind, ...] | None,
    checks: CheckOptions | None,
    environ: Mapping[str, str] | None = None,
    complete: bool = True,
) -> Report:
    """Judge ``env`` and the check ``runs`` against ``kb`` into the redacted report."""
    environ = os.environ if environ is None else environ
    if checks is not None:
        kb = _with_adhoc_entries(kb, checks)
    check_runs = {k: v for k, v in runs.items() if k != sanity_plan.TASK_ID}
    findings = findings_of(
        env,
        kb,
        runs=check_runs,
        sanity_runs=runs.get(sanity_plan.TASK_ID, ()),
        kinds=kinds,
        only_checks=None if checks is None else checks.only,
    )
    report = Report(
        doctor_version=__version__,
        created_at=now_utc(),
        command=command,
        environment=env,
        findings=findings,
        complete=complete,
    )
    return redact_report(report, Redactor(environ))


def partial_report(
    partial: Partial,
    kb: KnowledgeBase,
    *,
    command: Command,
    kinds: tuple[FindingKind, ...] | None,
    checks: CheckOptions | None,
) -> Report | None:
    """The report of an interrupted run, marked incomplete; ``None`` if nothing was learnt."""
    env = partial.environment()
    if env is None:
        return None
    return build_report(
        env, kb, partial.runs, command=command, kinds=kinds, checks=checks, complete=False
    )


def redact_report(report: Report, redactor: Redactor) -> Report:
    """``report`` with every string scrubbed of secrets (through the JSON round trip)."""
    return Report.from_dict(redactor.deep(report.to_dict()))
