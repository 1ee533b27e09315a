"""From a request to a published report and an exit code, whatever happens on the way.

The policy is read and its ids checked before anything runs (a typo in an ignore is exit 2 in a
blink, not after minutes); the diagnosis then runs, and an interrupt (SIGINT, or SIGTERM from
a launcher) still publishes what was learnt, marked incomplete, before ``Stopped`` ends the run
with 130 / 143. Under ``--distributed`` every rank's report goes to rank 0, which publishes the
fleet report. Messages for the user go through ``notify``; nothing here prints but the progress
``diagnose_with_progress`` shows (``reporting.progress``, on stderr).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ipex_doctor.app.conclusion import conclude, gate_policy
from ipex_doctor.app.interrupts import sigterm_raises
from ipex_doctor.errors import ExitCode, Stopped, Terminated
from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.device_spec import AUTO, LOCAL, DeviceSpec
from ipex_doctor.model.findings import Command, FindingKind, Report
from ipex_doctor.model.terms import Isolation
from ipex_doctor.probe.options import ProbeOptions
from ipex_doctor.probe.session import StepProgress
from ipex_doctor.reporting.output_options import OutputOptions
from ipex_doctor.reporting.policy import Policy
from ipex_doctor.reporting.saved_reports import SavedReport
from ipex_doctor.runs import distributed
from ipex_doctor.runs.device_selection import local_rank
from ipex_doctor.runs.diagnose import CheckOptions, Partial, diagnose, partial_report
from ipex_doctor.runs.sanity_options import SanityOptions

Notify = Callable[[str], None]


@dataclass(frozen=True)
class Request:
    """What the user asked a diagnosis for (``check``, ``env``, ``repro``, ``sanity``)."""

    command: Command
    probe: ProbeOptions
    out: OutputOptions
    kb_overlays: tuple[str, ...] = ()
    kinds: tuple[FindingKind, ...] | None = None
    checks: CheckOptions | None = None
    distributed: bool = False
    baseline: SavedReport | None = None
    """``--baseline``, read and validated once where the option was parsed."""
    code: tuple[Path, ...] = ()
    """``check --code PATH``: the user's code to read and join with this environment."""


def check_options(
    probe: ProbeOptions,
    device: DeviceSpec | None,
    *,
    only: tuple[str, ...] | None,
    sanity: SanityOptions | None,
    isolation: Isolation = Isolation.WORKER,
    checks_dirs: tuple[str, ...] = (),
    distributed: bool = False,
) -> CheckOptions:
    """The checks a diagnosis runs, from what the user typed: the catalog with the scripts of
    ``checks_dirs``, each name of ``only`` found in it once (else a usage error naming the
    closest; ``all`` names every one), each check limited as the probe's steps are, on
    ``device`` (default: every device, or this rank's under ``distributed``)."""
    if only is not None:
        only = ("all",) if "all" in only else tuple(dict.fromkeys(only))
    # NOTE: under a launcher each rank examines its own device, once; not every device.
    device = device or (LOCAL if distributed else AUTO)
    return CheckOptions.build(
        checks_dirs=checks_dirs, only=only, device=device, timeout_s=probe.timeout_s,
        isolation=isolation, sanity_options=sanity,
    )  # fmt: skip


def check_request(
    probe: ProbeOptions, out: OutputOptions, kb_overlays: tuple[str, ...],
    baseline: SavedReport | None, device: DeviceSpec | None, isolation: Isolation,
    checks_dirs: tuple[str, ...], skip_sanity: bool, distributed: bool, code: tuple[Path, ...],
    sanity_options: SanityOptions,
) -> Request:  # fmt: skip
    """``check``, from what was typed: every check, and the sanity run unless ``skip_sanity``."""
    checks = check_options(
        probe, device, only=None, sanity=None if skip_sanity else sanity_options,
        isolation=isolation, checks_dirs=checks_dirs, distributed=distributed,
    )  # fmt: skip
    return Request(
        Command.CHECK, probe, out, kb_overlays, checks=checks, distributed=distributed,
        baseline=baseline, code=code,
    )  # fmt: skip


def sanity_request(
    probe: ProbeOptions, out: OutputOptions, kb_overlays: tuple[str, ...],
    baseline: SavedReport | None, device: DeviceSpec | None, sanity_options: SanityOptions,
) -> Request:  # fmt: skip
    """``sanity``, from what was typed: the sanity run alone, no reproduction; each finding's
    evidence shown unless ``-q``."""
    checks = check_options(probe, device, only=(), sanity=sanity_options)
    out = out.showing_evidence()
    return Request(Command.SANITY, probe, out, kb_overlays, checks=checks, baseline=baseline)


def repro_request(
    names: tuple[str, ...], probe: ProbeOptions, out: OutputOptions, kb_overlays: tuple[str, ...],
    device: DeviceSpec | None, isolation: Isolation, checks_dirs: tuple[str, ...],
) -> Request:  # fmt: skip
    """``repro``, from what was typed: the checks ``names`` names (``all``: every one), each
    finding's evidence shown unless ``-q``; no sanity run."""
    checks = check_options(
        probe, device, only=names, sanity=None, isolation=isolation, checks_dirs=checks_dirs
    )
    return Request(Command.REPRO, probe, out.showing_evidence(), kb_overlays, checks=checks)


def env_request(probe: ProbeOptions, out: OutputOptions, kb_overlays: tuple[str, ...]) -> Request:
    """``env``, from what was typed: the environment's findings alone, no check runs."""
    return Request(Command.ENV, probe, out, kb_overlays, kinds=(FindingKind.ENVIRONMENT,))


def diagnose_with_progress(request: Request, notify: Notify) -> ExitCode:
    """``diagnose_and_publish`` with the live progress of ``reporting.progress`` on stderr, as
    the command line shows it (none under ``-q``)."""
    from ipex_doctor.reporting.progress import Feedback

    with Feedback.for_stream(quiet=request.out.verbosity < 0) as feedback:
        return diagnose_and_publish(
            request, notify=notify, progress=feedback.status, on_step=feedback.step
        )


def diagnose_and_publish(
    request: Request,
    *,
    notify: Notify,
    progress: Callable[[str], None] = lambda _: None,
    on_step: StepProgress | None = None,
) -> ExitCode:
    """Run the diagnosis ``request`` asks for and publish its report; return the exit code."""
    out, baseline = request.out, request.baseline
    out.check()
    knowledge = known_issues.load_files(request.kb_overlays, notify)
    checks = request.checks
    extra_ids = list(checks.catalog) if checks else []
    rules = None
    if request.code:
        from ipex_doctor.knowledge import code_rules

        rules = code_rules.load()
        extra_ids += [rule.id for rule in rules.rules]
    policy = gate_policy(out, knowledge, extra_ids)
    if baseline is not None and not request.distributed:
        from ipex_doctor.probe.host import probe_host
        from ipex_doctor.verdicts.baseline import check_same_host

        check_same_host(baseline.report, probe_host(), baseline.path)
    partial = Partial()
    try:
        with sigterm_raises():
            report = diagnose(
                request.probe, knowledge, command=request.command, kinds=request.kinds,
                checks=checks, progress=progress, on_step=on_step, partial=partial,
            )  # fmt: skip
    except (KeyboardInterrupt, Terminated) as stop:
        # NOTE: the workers are already gone (every wait on them closes them on the way out);
        # what was learnt so far is still worth a report, marked incomplete.
        code = ExitCode.INTERRUPTED if isinstance(stop, KeyboardInterrupt) else ExitCode.TERMINATED
        what = "interrupted" if code is ExitCode.INTERRUPTED else "terminated (SIGTERM)"
        kept = partial_report(
            partial, knowledge, command=request.command, kinds=request.kinds, checks=checks
        )
        if kept is None:
            raise Stopped(
                f"{what} before the environment was examined; no report written", exit_code=code
            ) from None
        conclude(kept, out, policy, baseline)
        raise Stopped(
            f"{what}: the report above is partial (marked incomplete)", exit_code=code
        ) from None
    if rules is not None:
        from ipex_doctor.app.code_scan import with_code

        report = with_code(report, request.code, rules, policy.scan_exclude)
    if not request.distributed:
        return conclude(report, out, policy, baseline)
    # NOTE: the launcher stops the other ranks (SIGTERM) once rank 0 exits; a rank still
    # closing its worker then ends it on the way out instead of leaving it behind.
    with sigterm_raises():
        return _gather_and_publish(report, request, policy, notify)


def _gather_and_publish(
    report: Report, request: Request, policy: Policy, notify: Notify
) -> ExitCode:
    """Every rank's report to rank 0, which publishes the fleet report; the others exit 0."""
    device = distributed.rank_device(report, local_rank())
    timeout = request.probe.timeout_s
    rank, fleet, error = distributed.gather(
        request.probe.python, report, timeout=timeout, device=device
    )
    if error:
        notify(f"error: --distributed: {error}; this rank's own report follows")
        return max(conclude(report, request.out, policy, request.baseline), ExitCode.FINDINGS)
    if rank != 0 or fleet is None:
        # NOTE: only rank 0 writes; other ranks exit 0 so the launcher does not tear the job
        # down while rank 0 is still writing the fleet report.
        notify(f"rank {rank}: report sent to rank 0")
        return ExitCode.OK
    return conclude(fleet, request.out, policy, request.baseline)
