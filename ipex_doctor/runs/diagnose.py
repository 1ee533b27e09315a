"""The core of a diagnosis, free of any UI: probe the environment, judge it, build the report.

The CLI calls ``examine`` (the probe) and ``diagnose`` (probe + verdicts). Progress goes
through an injected callback (no-op by default); nothing here prints or exits.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ipex_doctor import __version__
from ipex_doctor.knowledge.kb import KnowledgeBase, KnownIssue
from ipex_doctor.knowledge.rules import IPEX_MODULE
from ipex_doctor.model.environment import Environment, Host, Interpreter, Package, RuntimeProbe
from ipex_doctor.model.findings import FindingKind, Report, Severity
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.probe import host, interpreter
from ipex_doctor.probe import session as runtime
from ipex_doctor.probe.secrets import Redactor, reported_env_vars
from ipex_doctor.probe.session import Session, StepProgress
from ipex_doctor.runs import runner as repro
from ipex_doctor.runs.catalog import CheckScript
from ipex_doctor.verdicts import sanity
from ipex_doctor.verdicts.devices import device_outliers
from ipex_doctor.verdicts.judge import judge
from ipex_doctor.verdicts.sanity import SanityOptions

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


@dataclass
class Partial:
    """What a diagnosis has found so far, so an interrupted run can still write its report."""

    static: tuple[Interpreter, Host, tuple[Package, ...], dict[str, str]] | None = None
    """The static probe: interpreter, host, packages, reported variables."""
    env: Environment | None = None
    """The whole environment, once the runtime probe finished."""
    runs: dict[str, list[CheckRun]] = field(default_factory=dict)
    """Check runs finished so far, by check id."""

    def environment(self) -> Environment | None:
        """The environment as far as it is known (``None`` before the handshake finished)."""
        if self.env is not None:
            return self.env
        if self.static is None:
            return None
        interpreter, host_facts, packages, env_vars = self.static
        return Environment(
            interpreter=interpreter,
            host=host_facts,
            packages=packages,
            env_vars=env_vars,
            runtime=RuntimeProbe(
                ran=False, skip_reason="interrupted before the runtime probe finished"
            ),
        )


@dataclass(frozen=True)
class ProbeOptions:
    """What to examine and how long the runtime probe may take."""

    python: str = sys.executable
    timeout_s: float = runtime.DEFAULT_TIMEOUT_S
    runtime_probe: bool = True


@dataclass(frozen=True)
class CheckOptions:
    """Which check scripts to run, where, and how."""

    catalog: Mapping[str, CheckScript]
    only: tuple[str, ...] | None = None
    """Check ids to run; ``None`` runs every check a knowledge-base entry names."""
    device: str = "auto"
    timeout_s: float = repro.DEFAULT_CHECK_TIMEOUT_S
    isolation: str = "worker"
    sanity: SanityOptions | None = None
    """Run the ResNet-50 AMP sanity run after the checks (``None``: skip it)."""


def examine(
    options: ProbeOptions,
    *,
    environ: Mapping[str, str] | None = None,
    progress: Progress = _quiet,
    keep_session: bool = False,
    partial: Partial | None = None,
) -> tuple[Environment, Session | None]:
    """Probe the environment of ``options.python``: static facts, then the runtime probe.

    Raises ``InterpreterError`` when ``options.python`` cannot be used at all; every other
    failure (torch missing, an import that crashes) is recorded in the environment. With
    ``keep_session`` the worker that ran the probe is returned, still running, for checks.
    """
    environ = os.environ if environ is None else environ
    # NOTE: no progress line before the handshake: a --python that is not usable must end
    # with its one-line error alone.
    target = interpreter.inspect(options.python)
    progress(f"examining {target.interpreter.executable}: reading package metadata")
    packages = interpreter.installed_packages(target.sys_path)
    machine = host.probe_host()
    redactor = Redactor(environ)
    env_vars = reported_env_vars(environ, redactor)
    partial = partial if partial is not None else Partial()
    partial.static = (target.interpreter, machine, packages, env_vars)
    session = None
    if not options.runtime_probe:
        probe = RuntimeProbe(ran=False, skip_reason="the runtime probe was switched off")
    elif not any(p.name == "torch" for p in packages):
        probe = RuntimeProbe(ran=False, skip_reason="torch is not installed")
    else:
        progress("importing torch and IPEX in a spawned interpreter")
        try:
            session = Session(target.interpreter.executable, environ=environ)
        except OSError as exc:
            probe = RuntimeProbe(
                ran=False, skip_reason=f"could not start the interpreter: {exc.strerror}"
            )
        else:
            try:
                probe = session.start_up(options.timeout_s)
            except BaseException:
                # NOTE: an interrupt while waiting: the worker must not outlive the doctor.
                session.close(grace=0)
                raise
            if not keep_session:
                session.close()
                session = None
            probe = _as_fresh_imports(probe, target.interpreter.executable, options, environ)
    env = Environment(
        interpreter=target.interpreter,
        host=machine,
        packages=packages,
        env_vars=env_vars,
        runtime=probe,
    )
    partial.env = env
    return env, session


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
    fresh = runtime.fresh_import(python, IPEX_MODULE, options.timeout_s, environ)
    if fresh is None:
        return probe
    return dataclasses.replace(
        probe, imports=tuple(fresh if o.module == IPEX_MODULE else o for o in probe.imports)
    )


def _plan(
    env: Environment, kb: KnowledgeBase, checks: CheckOptions
) -> tuple[list[repro.Task], dict[str, list[CheckRun]]]:
    """The tasks to run, and the runs already decided (devices asked for that do not exist)."""
    wanted = checks.only
    if wanted is None:
        wanted = tuple(
            dict.fromkeys(
                i.repro for i in kb.issues if i.repro is not None and i.repro in checks.catalog
            )
        )
    devices, missing = repro.select_devices(checks.device, env)
    tasks: list[repro.Task] = []
    decided: dict[str, list[CheckRun]] = {}
    for check_id in wanted:
        script = checks.catalog[check_id]
        tasks.extend(repro.Task(script, device) for device in devices)
        decided[check_id] = [
            CheckRun(
                check_id,
                device,
                Outcome.DEVICE_ABSENT,
                error=f"{device} is not present in this environment",
            )
            for device in missing
        ]
    return tasks, decided


def _sanity_device(spec: str | None, env: Environment) -> tuple[str | None, str]:
    """The sanity run's device: the one asked for, else the first accelerator, else cpu."""
    present = repro.present_devices(env)
    if spec in (None, "auto", "all"):
        return (present[1] if len(present) > 1 else "cpu"), ""
    assert spec is not None
    matching = [d for d in present if d == spec or d.split(":")[0] == spec]
    return (matching[0], "") if matching else (None, spec)


def _plan_sanity(
    env: Environment, options: SanityOptions
) -> tuple[list[repro.Task], list[CheckRun]]:
    """The sanity run's tasks, or why it does not run: a device asked for that is absent (an
    error: the user's request cannot be met), else no usable torchvision (not applicable)."""
    if options.device == "all":
        # NOTE: --device all: a sanity run on every device, so a slow or broken card shows.
        devices = repro.present_devices(env)
    else:
        device, missing = _sanity_device(options.device, env)
        if device is None:
            absent = CheckRun(
                sanity.SANITY_ID, missing, Outcome.DEVICE_ABSENT, error=f"{missing} is not present"
            )
            return [], [absent]
        devices = [device]
    cannot = _sanity_cannot_run(env)
    if cannot is not None:
        skipped = CheckRun(
            sanity.SANITY_ID,
            options.device or "auto",
            Outcome.SKIPPED,
            result={"needs": "torchvision"},
            error=cannot,
        )
        return [], [skipped]
    return [repro.Task(sanity.script(), d, options.args()) for d in devices], []


def _sanity_cannot_run(env: Environment) -> str | None:
    """Why the sanity run cannot run in ``env`` (it needs torchvision's ResNet-50), or None."""
    if env.package("torchvision") is None:
        return "torchvision is not installed (the sanity run trains torchvision's ResNet-50)"
    outcome = env.runtime.import_of("torchvision")
    if outcome is not None and not outcome.ok:
        return "torchvision does not import (see the torchvision-broken finding)"
    return None


def _with_adhoc_entries(kb: KnowledgeBase, checks: CheckOptions) -> KnowledgeBase:
    """Add an entry for each requested check that no knowledge-base entry names."""
    named = {i.repro for i in kb.issues}
    extra = []
    for check_id in checks.only or ():
        if check_id in named:
            continue
        script = checks.catalog[check_id]
        extra.append(
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
        )
    return KnowledgeBase(issues=kb.issues + tuple(extra), sources=kb.sources)


def now_utc() -> str:
    """The current time as an ISO 8601 UTC timestamp (seconds)."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def diagnose(
    options: ProbeOptions,
    kb: KnowledgeBase,
    *,
    command: str,
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
    env, session = examine(
        options,
        environ=environ,
        progress=progress,
        keep_session=checks is not None,
        partial=partial,
    )
    runs = partial.runs
    if checks is not None:
        torch_import = env.runtime.import_of("torch")
        if torch_import is not None and torch_import.ok:
            tasks, decided = _plan(env, kb, checks)
            runs.update(decided)
            if checks.sanity is not None:
                sanity_tasks, not_run = _plan_sanity(env, checks.sanity)
                tasks.extend(sanity_tasks)
                if not_run:
                    runs[sanity.SANITY_ID] = not_run
            repro.run_tasks(
                env.interpreter.executable,
                tasks,
                session=session,
                timeout=checks.timeout_s,
                startup_timeout=options.timeout_s,
                isolation=checks.isolation,
                progress=progress,
                on_step=on_step,
                on_run=lambda run: runs.setdefault(run.check_id, []).append(run),
            )
        else:
            if session is not None:
                session.close()
            if checks.sanity is not None:
                runs[sanity.SANITY_ID] = [
                    CheckRun(
                        sanity.SANITY_ID,
                        checks.sanity.device or "auto",
                        Outcome.SKIPPED,
                        error="torch does not import",
                    )
                ]
    progress("judging the knowledge base")
    return build_report(env, kb, runs, command=command, kinds=kinds, checks=checks, environ=environ)


def build_report(
    env: Environment,
    kb: KnowledgeBase,
    runs: Mapping[str, list[CheckRun]],
    *,
    command: str,
    kinds: tuple[FindingKind, ...] | None,
    checks: CheckOptions | None,
    environ: Mapping[str, str] | None = None,
    complete: bool = True,
) -> Report:
    """Judge ``env`` and the check ``runs`` against ``kb`` into the redacted report."""
    environ = os.environ if environ is None else environ
    if checks is not None:
        kb = _with_adhoc_entries(kb, checks)
    runs = dict(runs)
    sanity_runs = runs.pop(sanity.SANITY_ID, [])
    findings = judge(env, kb, kinds=kinds, runs=runs)
    findings += tuple(f for run in sanity_runs for f in sanity.judge_sanity(run, env))
    findings += tuple(device_outliers(env, sanity_runs))
    if checks is not None and checks.only is not None:
        # NOTE: `repro NAME` reports the entries of the checks asked for, plus any environment
        # problem (torch missing, an import failing) that explains why a check could not run.
        selected = {i.id for i in kb.issues if i.repro in set(checks.only)}
        findings = tuple(
            f
            for f in findings
            if f.id in selected
            or f.kind is FindingKind.SANITY
            or (f.kind is FindingKind.ENVIRONMENT and f.is_problem)
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
    command: str,
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
