"""The command line: parse options, call the core, render, write, return an exit code.

Only Click is imported at module level: ``--help`` and the ``kb`` commands must answer in well
under 0.3 s, so rich, the knowledge-base loader (PyYAML, jsonschema) and the probe are imported
inside the commands that use them. Nothing here, or anywhere in the doctor's process, imports
torch: the environment is examined by spawned interpreters.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import functools
import json
import signal
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ipex_doctor import __version__
from ipex_doctor.errors import DoctorError, ExitCode, Terminated

if TYPE_CHECKING:
    from ipex_doctor.knowledge.kb import KnowledgeBase, KnownIssue
    from ipex_doctor.model.findings import FindingKind, Report
    from ipex_doctor.report.policy import Policy
    from ipex_doctor.report.publish import OutputOptions
    from ipex_doctor.runs.catalog import CheckScript
    from ipex_doctor.runs.diagnose import CheckOptions
    from ipex_doctor.verdicts.sanity import SanityOptions

_PYTHON_HELP = "Interpreter of the environment to examine (default: the one running the doctor)."
_JSON_HELP = "Write the JSON report to PATH ('-' for stdout; human output then goes to stderr)."
_KB_HELP = "Knowledge-base overlay; an entry with an existing id replaces it. Repeatable."


def _load_kb(overlays: Sequence[str]) -> KnowledgeBase:
    from ipex_doctor.knowledge import kb

    knowledge = kb.load([Path(p) for p in overlays])
    for warning in knowledge.warnings:
        click.echo(f"ipex-doctor: warning: {warning}", err=True)
    return knowledge


def _known_ids(knowledge: KnowledgeBase, scripts: Sequence[str] = ()) -> set[str]:
    from ipex_doctor.report.policy import known_finding_ids

    return known_finding_ids([i.id for i in knowledge.issues] + list(scripts))


def _run_diagnosis(
    *,
    command: str,
    python: str | None,
    kb_files: Sequence[str],
    timeout: float,
    kinds: tuple[FindingKind, ...] | None,
    out: OutputOptions,
    checks: CheckOptions | None = None,
    distributed: bool = False,
) -> int:
    from ipex_doctor.cli.feedback import Feedback
    from ipex_doctor.report.publish import publish
    from ipex_doctor.runs.diagnose import Partial, ProbeOptions, diagnose, partial_report

    out.check()
    knowledge = _load_kb(kb_files)
    # NOTE: the policy is read and its ids checked before anything runs: a typo in an ignore
    # is a configuration error (exit 2), not a surprise after a long run.
    policy = out.policy(_known_ids(knowledge, list(checks.catalog) if checks else ()))
    options = ProbeOptions(python=python or sys.executable, timeout_s=timeout)
    partial = Partial()
    try:
        with _sigterm_raises(), Feedback.for_stream(quiet=out.verbosity < 0) as feedback:
            report = diagnose(
                options,
                knowledge,
                command=command,
                kinds=kinds,
                checks=checks,
                progress=feedback.status,
                on_step=feedback.step,
                partial=partial,
            )
    except (KeyboardInterrupt, Terminated) as stop:
        # NOTE: the workers are already gone (every wait on them closes them on the way out);
        # what was learnt so far is still worth a report, marked incomplete.
        code = ExitCode.INTERRUPTED if isinstance(stop, KeyboardInterrupt) else ExitCode.TERMINATED
        what = "interrupted" if code is ExitCode.INTERRUPTED else "terminated (SIGTERM)"
        partial_run = partial_report(
            partial, knowledge, command=command, kinds=kinds, checks=checks
        )
        if partial_run is None:
            _fail(f"{what} before the environment was examined; no report written", code)
        publish(partial_run, out, policy)
        _fail(f"{what}: the report above is partial (marked incomplete)", code)
    if distributed:
        # NOTE: the launcher stops the other ranks (SIGTERM) once rank 0 exits; a rank still
        # closing its worker then ends it on the way out instead of leaving it behind.
        with _sigterm_raises():
            return _distributed(report, options.python, timeout, out, policy)
    return publish(report, out, policy)


def _distributed(
    report: Report, python: str, timeout: float, out: OutputOptions, policy: Policy
) -> int:
    """Gather every rank's report on rank 0, which publishes the fleet report."""
    import os

    from ipex_doctor.report.publish import publish
    from ipex_doctor.verdicts import fleet

    device = fleet.rank_device(report, int(os.environ.get("LOCAL_RANK", "0")))
    rank, fleet_report, error = fleet.gather(python, report, timeout=timeout, device=device)
    if error:
        click.echo(
            f"ipex-doctor: error: --distributed: {error}; this rank's own report follows", err=True
        )
        return max(publish(report, out, policy), ExitCode.FINDINGS)
    if rank != 0 or fleet_report is None:
        # NOTE: only rank 0 writes; other ranks exit 0 so the launcher does not tear the job
        # down while rank 0 is still writing the fleet report.
        click.echo(f"ipex-doctor: rank {rank}: report sent to rank 0", err=True)
        return ExitCode.OK
    return publish(fleet_report, out, policy)


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    """Turn SIGTERM into a ``Terminated`` exception while the block runs."""

    def handler(signum: int, frame: object) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _catalog(checks_dirs: Sequence[str]) -> dict[str, CheckScript]:
    from ipex_doctor.runs.catalog import catalog

    return catalog(tuple(Path(d) for d in checks_dirs))


def _check_options(
    scripts: dict[str, CheckScript],
    only: tuple[str, ...] | None,
    device: str,
    timeout: float,
    isolation: str,
    sanity: SanityOptions | None = None,
) -> CheckOptions:
    from ipex_doctor.runs.diagnose import CheckOptions
    from ipex_doctor.runs.runner import parse_device_spec

    for name in only or ():
        if name not in scripts:
            close = difflib.get_close_matches(name, list(scripts), n=3)
            raise DoctorError(
                f"no check named '{name}'",
                tip=f"did you mean {', '.join(close)}?"
                if close
                else "'ipex-doctor repro --list' lists them",
            )
    return CheckOptions(
        catalog=scripts,
        only=only,
        device=parse_device_spec(device),
        timeout_s=timeout,
        isolation=isolation,
        sanity=sanity,
    )


def _sanity_options(func: click.decorators.FC) -> click.decorators.FC:
    for decorator in reversed(
        (
            click.option(
                "--profile",
                type=click.Choice(["quick", "full"]),
                default="quick",
                show_default=True,
                help="Sanity run: quick (trains on 64x64; about 20 s on 2 CPU cores) or full "
                "(224x224, more steps, JIT trace + freeze; about a minute).",
            ),
            click.option(
                "--amp-dtype",
                type=click.Choice(["bfloat16", "float16"]),
                default="bfloat16",
                show_default=True,
                help="Sanity run: autocast dtype (float16 trains with a GradScaler).",
            ),
            click.option(
                "--lr",
                type=click.FloatRange(min=0.0, min_open=True),
                default=None,
                help="Sanity run: SGD learning rate (default 0.005).",
            ),
            click.option(
                "--weights",
                type=click.Path(exists=True, dir_okay=False),
                default=None,
                help="Sanity run: a local ResNet-50 state dict to load (never downloaded).",
            ),
            click.option(
                "--data",
                type=click.Path(exists=True, file_okay=False),
                default=None,
                help="Sanity run: a local ImageFolder to take the batch from (default: synthetic).",
            ),
            click.option(
                "--no-ipex", is_flag=True, help="Sanity run: skip the ipex.optimize training path."
            ),
        )
    ):
        func = decorator(func)
    return func


def _sanity(
    profile: str,
    amp_dtype: str,
    lr: float | None,
    weights: str | None,
    data: str | None,
    no_ipex: bool,
    device: str | None,
) -> SanityOptions:
    from ipex_doctor.runs.runner import parse_device_spec
    from ipex_doctor.verdicts.sanity import SanityOptions

    return SanityOptions(
        profile=profile,
        amp_dtype=amp_dtype,
        lr=lr,
        weights=weights,
        data=data,
        use_ipex=not no_ipex,
        device=None if device is None else parse_device_spec(device),
    )


def _diagnosis_options(func: click.decorators.FC) -> click.decorators.FC:
    for decorator in reversed(
        (
            click.option("--python", "python", metavar="PATH", help=_PYTHON_HELP),
            click.option("--kb", "kb_files", metavar="FILE", multiple=True, help=_KB_HELP),
            click.option(
                "--timeout",
                type=click.FloatRange(min=1.0),
                default=180.0,
                show_default=True,
                metavar="SECONDS",
                help="Limit for each step in the spawned interpreter: the imports, and each check.",
            ),
        )
    ):
        func = decorator(func)
    return func


def _output_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add the report and gate options; the command receives them as one ``out`` object."""

    @functools.wraps(func)
    def wrapper(
        *args: Any,
        json_path: str | None,
        junit_path: str | None,
        markdown_path: str | None,
        fail_on: str | None,
        ignores: tuple[str, ...],
        policy_file: str | None,
        quiet: bool,
        verbose: int,
        **kwargs: Any,
    ) -> Any:
        from ipex_doctor.report.publish import OutputOptions

        out = OutputOptions(
            json_path=json_path,
            junit_path=junit_path,
            markdown_path=markdown_path,
            fail_on=fail_on,
            ignores=ignores,
            policy_file=policy_file,
            verbosity=-1 if quiet else verbose,
        )
        return func(*args, out=out, **kwargs)

    options = (
        click.option("--json", "json_path", metavar="PATH", help=_JSON_HELP),
        click.option(
            "--junit-xml",
            "junit_path",
            metavar="PATH",
            help="Write a JUnit XML report ('-': stdout).",
        ),
        click.option(
            "--markdown",
            "markdown_path",
            metavar="PATH",
            help="Write a Markdown report for an issue tracker ('-': stdout).",
        ),
        click.option(
            "--fail-on",
            type=click.Choice(["fail", "warn", "never"]),
            default=None,
            help="Exit 1 on fail/error findings (default), also on warnings, or never.",
        ),
        click.option(
            "--ignore",
            "ignores",
            metavar="ID[=REASON]",
            multiple=True,
            help="Ignore a finding (shown as skipped, with the reason). Repeatable.",
        ),
        click.option(
            "--policy",
            "policy_file",
            metavar="FILE",
            help="Policy file (fail_on, ignores with reason and expiry); default ./.ipex-doctor.yaml.",
        ),
        click.option(
            "-q", "--quiet", is_flag=True, help="Print only the problems and the summary."
        ),
        click.option("-v", "--verbose", count=True, help="Also show passes, skips and evidence."),
    )
    result: Callable[..., Any] = wrapper
    for decorator in reversed(options):
        result = decorator(result)
    return result


def _explaining(out: OutputOptions) -> OutputOptions:
    """repro and sanity explain what they measured: evidence shown unless -q was asked for."""
    return out if out.verbosity < 0 else dataclasses.replace(out, verbosity=max(out.verbosity, 1))


def _check_run_options(func: click.decorators.FC) -> click.decorators.FC:
    for decorator in reversed(
        (
            click.option(
                "--device",
                default="auto",
                show_default=True,
                help="Where to run the checks: auto (cpu and every accelerator), all, cpu, "
                "xpu, xpu:N, cuda, cuda:N.",
            ),
            click.option(
                "--isolation",
                type=click.Choice(["worker", "process"]),
                default="worker",
                show_default=True,
                help="worker: one interpreter runs every check (replaced if one breaks it); "
                "process: a fresh interpreter per check.",
            ),
            click.option(
                "--checks-dir",
                "checks_dirs",
                metavar="DIR",
                multiple=True,
                help="Directory of your own check scripts (a --kb entry can name them). Repeatable.",
            ),
        )
    ):
        func = decorator(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ipex-doctor")
def cli() -> None:
    """Diagnose PyTorch environments on Intel hardware (IPEX, PyTorch XPU).

    \b
    Exit codes: 0 healthy, 1 findings at or above the fail threshold,
    2 usage or configuration error, 3 internal error, 130 interrupted,
    143 terminated.
    """


@cli.command()
@_diagnosis_options
@_output_options
@_check_run_options
@click.option("--skip-sanity", is_flag=True, help="Leave out the ResNet-50 AMP sanity run.")
@click.option(
    "--distributed",
    is_flag=True,
    help="Under torchrun/mpirun: each rank examines its node, rank 0 writes one fleet report.",
)
@_sanity_options
def check(
    python: str | None,
    kb_files: tuple[str, ...],
    timeout: float,
    out: OutputOptions,
    device: str,
    isolation: str,
    checks_dirs: tuple[str, ...],
    skip_sanity: bool,
    distributed: bool,
    profile: str,
    amp_dtype: str,
    lr: float | None,
    weights: str | None,
    data: str | None,
    no_ipex: bool,
) -> None:
    """Full diagnosis: probe, reproductions on every device, the AMP sanity run, verdicts."""
    sanity = None
    if not skip_sanity:
        single = None if device == "auto" else device  # "all": a sanity run on every device
        sanity = _sanity(profile, amp_dtype, lr, weights, data, no_ipex, single)
    options = _check_options(_catalog(checks_dirs), None, device, timeout, isolation, sanity)
    sys.exit(
        _run_diagnosis(
            command="check",
            python=python,
            kb_files=kb_files,
            timeout=timeout,
            out=out,
            kinds=None,
            checks=options,
            distributed=distributed,
        )
    )


@cli.command()
@click.argument("names", nargs=-1, metavar="[NAME]... | all")
@click.option("--list", "list_only", is_flag=True, help="List the check scripts and exit.")
@_diagnosis_options
@_output_options
@_check_run_options
def repro(
    names: tuple[str, ...],
    list_only: bool,
    python: str | None,
    kb_files: tuple[str, ...],
    timeout: float,
    out: OutputOptions,
    device: str,
    isolation: str,
    checks_dirs: tuple[str, ...],
) -> None:
    """Run reproductions of known issues (NAME..., or all) and explain what they found."""
    scripts = _catalog(checks_dirs)
    if list_only:
        knowledge = _load_kb(kb_files)
        width = max((len(i) for i in scripts), default=4)
        for check_id, script in scripts.items():
            entries = [i.id for i in knowledge.issues if i.repro == check_id]
            used = f"  (judges {', '.join(entries)})" if entries else ""
            click.echo(f"{check_id:<{width}}  {script.title}{used}")
        return
    if not names:
        raise click.UsageError("name at least one check, or 'all' (see 'ipex-doctor repro --list')")
    selected = tuple(scripts) if "all" in names else tuple(dict.fromkeys(names))
    options = _check_options(scripts, selected, device, timeout, isolation)
    sys.exit(
        _run_diagnosis(
            command="repro",
            python=python,
            kb_files=kb_files,
            timeout=timeout,
            out=_explaining(out),
            kinds=None,
            checks=options,
        )
    )


@cli.command()
@_diagnosis_options
@_output_options
@click.option(
    "--device",
    default=None,
    help="Device for the run (default: the first accelerator, else cpu): cpu, xpu, xpu:N, cuda, cuda:N.",
)
@_sanity_options
def sanity(
    python: str | None,
    kb_files: tuple[str, ...],
    timeout: float,
    out: OutputOptions,
    device: str | None,
    profile: str,
    amp_dtype: str,
    lr: float | None,
    weights: str | None,
    data: str | None,
    no_ipex: bool,
) -> None:
    """ResNet-50 AMP sanity run: training converges, AMP agrees with fp32, AMP is faster."""
    options = _check_options(
        {},
        (),
        device or "auto",
        timeout,
        "worker",
        _sanity(profile, amp_dtype, lr, weights, data, no_ipex, device),
    )
    sys.exit(
        _run_diagnosis(
            command="sanity",
            python=python,
            kb_files=kb_files,
            timeout=timeout,
            out=_explaining(out),
            kinds=None,
            checks=options,
        )
    )


@cli.command()
@_diagnosis_options
@_output_options
def env(
    python: str | None,
    kb_files: tuple[str, ...],
    timeout: float,
    out: OutputOptions,
) -> None:
    """Probe the environment alone: versions, builds, CPU, devices and what breaks them."""
    from ipex_doctor.model.findings import FindingKind

    sys.exit(
        _run_diagnosis(
            command="env",
            python=python,
            kb_files=kb_files,
            timeout=timeout,
            out=out,
            kinds=(FindingKind.ENVIRONMENT,),
        )
    )


@cli.command()
@click.argument("report_file", metavar="FILE.json", type=click.Path(dir_okay=False))
@click.option("--kb", "kb_files", metavar="FILE", multiple=True, help=_KB_HELP)
@click.option("--as-recorded", is_flag=True, help="Keep the recorded verdicts; do not re-judge.")
@_output_options
def report(
    report_file: str, kb_files: tuple[str, ...], as_recorded: bool, out: OutputOptions
) -> None:
    """Re-render a saved JSON report, re-judged against the current knowledge base."""
    from ipex_doctor.report.publish import publish
    from ipex_doctor.report.replay import load_report, rejudge

    out.check()
    knowledge = _load_kb(kb_files)
    saved = load_report(Path(report_file))
    replayed = saved if as_recorded else rejudge(saved, knowledge)
    known = _known_ids(knowledge, [f.id for f in saved.findings])
    sys.exit(publish(replayed, out, out.policy(known)))


@cli.command()
@click.argument("report_files", nargs=-1, required=True, metavar="REPORT.json...")
@click.option("--kb", "kb_files", metavar="FILE", multiple=True, help=_KB_HELP)
@_output_options
def merge(report_files: tuple[str, ...], kb_files: tuple[str, ...], out: OutputOptions) -> None:
    """Merge reports of several nodes into one fleet report, naming the nodes that differ."""
    from ipex_doctor.report.publish import publish
    from ipex_doctor.report.replay import load_report
    from ipex_doctor.verdicts.fleet import merge as merge_reports

    out.check()
    knowledge = _load_kb(kb_files)
    nodes = []
    names: set[str] = set()
    for path in map(Path, report_files):
        name = path.stem if path.stem not in names else str(path)
        names.add(name)
        nodes.append((name, load_report(path)))
    fleet = merge_reports(nodes)
    known = _known_ids(knowledge, [f.id for _, r in nodes for f in r.findings])
    sys.exit(publish(fleet, out, out.policy(known)))


@cli.command()
@click.argument("text", required=False)
@click.option(
    "--file",
    "file_path",
    metavar="PATH",
    help="Read the error or traceback from PATH ('-': stdin).",
)
@click.option("--kb", "kb_files", metavar="FILE", multiple=True, help=_KB_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the matches as JSON.")
def explain(
    text: str | None, file_path: str | None, kb_files: tuple[str, ...], as_json: bool
) -> None:
    """Explain an error message or traceback (TEXT, --file PATH, or '-' for stdin).

    Exit 0 when a known issue matched, 1 when nothing did.
    """
    from ipex_doctor.knowledge.explain import MAX_INPUT_CHARS
    from ipex_doctor.knowledge.explain import explain as find

    if text is not None and file_path is not None:
        raise click.UsageError("give the text or --file, not both")
    source = file_path if file_path is not None else ("-" if text in (None, "-") else None)
    if source == "-":
        if sys.stdin.isatty() and text is None:
            raise click.UsageError(
                "paste the error as an argument, with --file PATH, or pipe it in"
            )
        text = sys.stdin.read(MAX_INPUT_CHARS * 2)
    elif source is not None:
        try:
            with open(source, encoding="utf-8", errors="replace") as handle:
                text = handle.read(MAX_INPUT_CHARS * 2)
        except OSError as exc:
            raise DoctorError(f"--file {source}: cannot read: {exc.strerror}") from None
    assert text is not None
    if not text.strip():
        where = "the text" if source is None else ("standard input" if source == "-" else source)
        raise click.UsageError(f"{where} is empty: give the error message or traceback to explain")
    matches = find(text, _load_kb(kb_files))
    if as_json:
        click.echo(
            json.dumps(
                {
                    "matched": bool(matches),
                    "matches": [
                        _issue_dict(m.issue) | {"score": m.score, "matched_text": list(m.matched)}
                        for m in matches
                    ],
                },
                indent=2,
            )
        )
    elif not matches:
        click.echo(
            "No known issue matches this text. 'ipex-doctor check' examines the environment itself."
        )
    else:
        best = matches[0].issue
        click.echo(f"{best.id}: {best.title}\n")
        click.echo(f"  matched: {matches[0].matched[0]!r}\n")
        click.echo(f"  why: {best.summary}\n")
        click.echo(f"  fix: {best.remediation}")
        if best.workaround:
            click.echo(f"  workaround: {best.workaround}")
        for affected in best.affected:
            fixed = f"; fixed in {affected.range.fixed}" if affected.range.fixed else "; no fix"
            click.echo(f"  affects: {affected.describe()}{fixed}")
        for ref in best.references:
            click.echo(f"  ref: {ref.url}" + (f"  {ref.title}" if ref.title else ""))
        if len(matches) > 1:
            click.echo(
                "\n  other candidates: "
                + ", ".join(f"{m.issue.id} ({m.issue.title})" for m in matches[1:])
            )
    sys.exit(ExitCode.OK if matches else ExitCode.FINDINGS)


@cli.group()
def kb() -> None:
    """Inspect and validate the knowledge base."""


@kb.command("list")
@click.option("--kb", "kb_files", metavar="FILE", multiple=True, help=_KB_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the entries as JSON.")
def kb_list(kb_files: tuple[str, ...], as_json: bool) -> None:
    """List the known issues the doctor can judge."""
    knowledge = _load_kb(kb_files)
    if as_json:
        click.echo(json.dumps([_issue_dict(i) for i in knowledge.issues], indent=2))
        return
    width = max(len(issue.id) for issue in knowledge.issues)
    for issue in knowledge.issues:
        click.echo(
            f"{issue.id:<{width}}  {issue.kind.value:<11}  {issue.severity.value:<7}  {issue.title}"
        )


def _issue_dict(issue: KnownIssue) -> dict[str, object]:
    return {
        "id": issue.id,
        "title": issue.title,
        "kind": issue.kind.value,
        "severity": issue.severity.value,
        "summary": issue.summary,
        "devices": list(issue.devices),
        "affected": [
            {
                "package": a.package,
                "variant": a.variant,
                "range": a.range.describe(),
                "fixed": None if a.range.fixed is None else str(a.range.fixed),
                "note": a.note,
            }
            for a in issue.affected
        ],
        "rule": issue.rule,
        "repro": issue.repro,
        "symptoms": [p.pattern for p in issue.symptoms],
        "remediation": issue.remediation,
        "workaround": issue.workaround,
        "references": [r.to_dict() for r in issue.references],
        "source": issue.source,
    }


@kb.command("show")
@click.argument("issue_id", metavar="ID")
@click.option("--kb", "kb_files", metavar="FILE", multiple=True, help=_KB_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the entry as JSON.")
def kb_show(issue_id: str, kb_files: tuple[str, ...], as_json: bool) -> None:
    """Show everything the knowledge base says about one issue."""
    knowledge = _load_kb(kb_files)
    issue = knowledge.get(issue_id)
    if issue is None:
        from ipex_doctor.knowledge.kb import normalise_id

        ids = [i.id for i in knowledge.issues]
        close = difflib.get_close_matches(normalise_id(issue_id), ids, n=3)
        raise DoctorError(
            f"no knowledge-base entry '{issue_id}'",
            tip=f"did you mean {', '.join(close)}?"
            if close
            else "'ipex-doctor kb list' lists them",
        )
    if as_json:
        click.echo(json.dumps(_issue_dict(issue), indent=2))
        return
    click.echo(f"{issue.id}: {issue.title}")
    click.echo(
        f"  kind {issue.kind.value} · severity {issue.severity.value}"
        + (f" · devices {', '.join(issue.devices)}" if issue.devices else "")
    )
    click.echo(f"\n  {issue.summary}\n")
    for affected in issue.affected:
        fixed = f" · fixed in {affected.range.fixed}" if affected.range.fixed else " · no fix"
        note = f" ({affected.note})" if affected.note else ""
        click.echo(f"  affected: {affected.describe()}{fixed}{note}")
    if issue.rule:
        click.echo(f"  judged by rule: {issue.rule}")
    if issue.repro:
        click.echo(f"  reproduction: {issue.repro}")
    click.echo(f"\n  fix: {issue.remediation}")
    if issue.workaround:
        click.echo(f"  workaround: {issue.workaround}")
    for pattern in issue.symptoms:
        click.echo(f"  symptom: /{pattern.pattern}/")
    for ref in issue.references:
        click.echo(f"  ref: {ref.url}" + (f"  {ref.title}" if ref.title else ""))
    click.echo(f"  source: {issue.source}")


@kb.command("validate")
@click.argument("files", nargs=-1, metavar="[FILE]...")
def kb_validate(files: tuple[str, ...]) -> None:
    """Validate knowledge-base files (default: the shipped one); every error, with its line.

    Exit 2 if any file has an error.
    """
    from ipex_doctor.knowledge import kb as kb_module

    paths = [Path(f) for f in files] or [kb_module.shipped_path()]
    failed = 0
    for path in paths:
        checked = kb_module.check_file(path)
        for warning in checked.warnings:
            click.echo(f"ipex-doctor: warning: {warning}", err=True)
        for error in checked.errors:
            click.echo(f"ipex-doctor: error: {error.message}", err=True)
        if checked.errors:
            failed += 1
            count = len(checked.errors)
            click.echo(
                f"invalid: {path} ({count} error{'s' if count > 1 else ''}; "
                "the format is in docs/knowledge-base.md)",
                err=True,
            )
            continue
        click.echo(f"ok: {path} ({len(checked.issues)} entries)")
    if failed:
        sys.exit(ExitCode.USAGE)


def _fail(message: str, code: ExitCode) -> NoReturn:
    click.echo(f"ipex-doctor: error: {message}", err=True)
    sys.exit(code)


def _crash_log(exc: BaseException) -> str | None:
    """Write the traceback of an internal error where the user can attach it to a bug."""
    import os
    import platform
    import tempfile

    text = (
        f"### version information\n\nipex-doctor {__version__}\nPython {sys.version}\n"
        f"{platform.platform()}\nargv: {sys.argv}\n\n### error information\n\n```\n"
        f"{''.join(traceback.format_exception(exc))}```\n"
    )
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for directory in (os.path.join(base, "ipex-doctor"), tempfile.gettempdir()):
        try:
            os.makedirs(directory, exist_ok=True)
            path = os.path.join(directory, "ipex-doctor-crash.md")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            return path
        except OSError:
            continue
    return None


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Console-script entry point: run the CLI and map every outcome to a documented exit code."""
    try:
        cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except DoctorError as exc:
        _fail(str(exc).replace("\nTip:", "\n  tip:"), exc.exit_code)
    except click.exceptions.Abort:
        _fail("interrupted", ExitCode.INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(ExitCode.USAGE if isinstance(exc, click.UsageError) else exc.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted", ExitCode.INTERRUPTED)
    except Terminated:
        _fail("terminated (SIGTERM)", ExitCode.TERMINATED)
    except BrokenPipeError:
        sys.exit(ExitCode.OK)
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback for users
        where = _crash_log(exc)
        hint = f"; details in {where}" if where else ""
        _fail(
            f"internal error ({type(exc).__name__}: {exc}); this is a bug in ipex-doctor{hint}",
            ExitCode.INTERNAL_ERROR,
        )
    sys.exit(ExitCode.OK)
