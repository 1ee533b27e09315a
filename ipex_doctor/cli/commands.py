"""The commands: each parses its options, calls the core, and returns an exit code.

Only Click is imported at module level: ``--help``, ``kb``, ``explain`` and ``repro --list``
must answer in a blink, so everything else is imported inside the commands that use it.
Nothing here, or anywhere in the doctor's process, imports torch.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ipex_doctor import __version__
from ipex_doctor.cli.options import (
    BASELINE,
    CHECK_RUN,
    KB,
    OUTPUT,
    OUTPUT_EXPLAINING,
    OUTPUT_SCAN,
    PROBE,
    SANITY,
    DeviceOption,
)
from ipex_doctor.errors import DoctorError, ExitCode, did_you_mean
from ipex_doctor.model.device_spec import AUTO, LOCAL, DeviceSpec
from ipex_doctor.model.terms import Isolation

if TYPE_CHECKING:
    from ipex_doctor.app.diagnosis import Request
    from ipex_doctor.knowledge.code_rules import CodeRules
    from ipex_doctor.knowledge.known_issues import KnowledgeBase
    from ipex_doctor.probe.options import ProbeOptions
    from ipex_doctor.reporting.output_options import OutputOptions
    from ipex_doctor.reporting.saved_reports import SavedReport
    from ipex_doctor.runs.diagnose import CheckOptions
    from ipex_doctor.runs.sanity_options import SanityOptions


def notify_user(message: str) -> None:
    """A message for the user, beside the report: on stderr, prefixed with the program name."""
    click.echo(f"ipex-doctor: {message}", err=True)


def _check_options(
    *,
    probe: ProbeOptions,
    device: DeviceSpec,
    only: tuple[str, ...] | None,
    sanity: SanityOptions | None,
    isolation: Isolation = Isolation.WORKER,
    checks_dirs: tuple[str, ...] = (),
) -> CheckOptions:
    from ipex_doctor.runs.diagnose import CheckOptions

    return CheckOptions.build(
        checks_dirs=checks_dirs, only=only, device=device, timeout_s=probe.timeout_s,
        isolation=isolation, sanity_options=sanity,
    )  # fmt: skip


def _run(request: Request) -> int:
    from ipex_doctor.app.diagnosis import diagnose_and_publish
    from ipex_doctor.reporting.progress import Feedback

    with Feedback.for_stream(quiet=request.out.verbosity < 0) as feedback:
        return diagnose_and_publish(
            request, notify=notify_user, progress=feedback.status, on_step=feedback.step
        )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ipex-doctor")
def cli() -> None:
    """Diagnose PyTorch environments on Intel hardware (IPEX, PyTorch XPU).

    \b
    Reading a report: ✗ fail, ☠ could not check, ! warning, ? inconclusive,
    i note, ✓ pass, - not applicable; [id · verdict] names the finding and
    what was concluded (affected: the problem holds here); a rung is a step
    of the Intel GPU ladder (hardware, driver, device nodes, Level Zero,
    runtime, selection, torch); the gate (--fail-on) is what fails the run,
    and the summary says whether the environment is fit to deploy by it.

    \b
    Exit codes: 0 healthy, 1 findings at or above the fail threshold,
    2 usage or configuration error, 3 internal error, 130 interrupted,
    143 terminated.
    """


@cli.command()
@PROBE
@KB
@OUTPUT
@BASELINE
@CHECK_RUN
@click.option("--skip-sanity", is_flag=True, help="Leave out the ResNet-50 AMP sanity run.")
@click.option("--distributed", is_flag=True,
              help="Under torchrun/mpirun: each rank examines its node, rank 0 writes one fleet report.")  # fmt: skip
@click.option("--code", "code", metavar="PATH", multiple=True, type=click.Path(exists=True),
              help="Also read your code under PATH (as scan does), judged against this environment. Repeatable.")  # fmt: skip
@SANITY
def check(
    probe: ProbeOptions,
    kb_overlays: tuple[str, ...],
    out: OutputOptions,
    baseline: SavedReport | None,
    device: DeviceSpec | None,
    isolation: Isolation,
    checks_dirs: tuple[str, ...],
    skip_sanity: bool,
    distributed: bool,
    code: tuple[str, ...],
    sanity_options: SanityOptions,
) -> int:
    """Full diagnosis: probe, reproductions on every device, the AMP sanity run, verdicts."""
    from ipex_doctor.app.diagnosis import Request
    from ipex_doctor.model.findings import Command

    # NOTE: under a launcher each rank examines its own device, once; not every device.
    default_device = LOCAL if distributed else AUTO
    checks = _check_options(
        probe=probe, device=device or default_device, only=None,
        sanity=None if skip_sanity else sanity_options, isolation=isolation,
        checks_dirs=checks_dirs,
    )  # fmt: skip
    return _run(
        Request(Command.CHECK, probe, out, kb_overlays, checks=checks, distributed=distributed,
                baseline=baseline, code=tuple(Path(p) for p in code))
    )  # fmt: skip


@cli.command()
@click.argument("names", nargs=-1, metavar="[NAME]... | all")
@click.option("--list", "list_only", is_flag=True, help="List the check scripts and exit.")
@PROBE
@KB
@OUTPUT_EXPLAINING
@CHECK_RUN
def repro(
    names: tuple[str, ...],
    list_only: bool,
    probe: ProbeOptions,
    kb_overlays: tuple[str, ...],
    out: OutputOptions,
    device: DeviceSpec | None,
    isolation: Isolation,
    checks_dirs: tuple[str, ...],
) -> int:
    """Run reproductions of known issues (NAME..., or all) and explain what they found."""
    if list_only:
        from ipex_doctor.knowledge.known_issues import load_files
        from ipex_doctor.reporting.formats.text import checks_text
        from ipex_doctor.runs.catalog import catalog

        scripts = catalog(tuple(Path(d) for d in checks_dirs))
        knowledge = load_files(kb_overlays, notify_user)
        click.echo(checks_text({k: s.title for k, s in scripts.items()}, knowledge))
        return ExitCode.OK
    if not names:
        raise click.UsageError("name at least one check, or 'all' (see 'ipex-doctor repro --list')")
    from ipex_doctor.app.diagnosis import Request
    from ipex_doctor.model.findings import Command

    only = ("all",) if "all" in names else tuple(dict.fromkeys(names))
    checks = _check_options(
        probe=probe, device=device or AUTO, only=only, sanity=None, isolation=isolation,
        checks_dirs=checks_dirs,
    )  # fmt: skip
    return _run(Request(Command.REPRO, probe, out, kb_overlays, checks=checks))


@cli.command()
@PROBE
@KB
@OUTPUT_EXPLAINING
@BASELINE
@click.option("--device", type=DeviceOption(), default=None,
              help="Device for the run (default: the first accelerator, else cpu): cpu, xpu, xpu:N, cuda, cuda:N.")  # fmt: skip
@SANITY
def sanity(
    probe: ProbeOptions,
    kb_overlays: tuple[str, ...],
    out: OutputOptions,
    baseline: SavedReport | None,
    device: DeviceSpec | None,
    sanity_options: SanityOptions,
) -> int:
    """ResNet-50 AMP sanity run: training converges, AMP agrees with fp32, AMP is faster."""
    from ipex_doctor.app.diagnosis import Request
    from ipex_doctor.model.findings import Command

    checks = _check_options(probe=probe, device=device or AUTO, only=(), sanity=sanity_options)
    return _run(Request(Command.SANITY, probe, out, kb_overlays, checks=checks, baseline=baseline))


@cli.command()
@PROBE
@KB
@OUTPUT
def env(probe: ProbeOptions, kb_overlays: tuple[str, ...], out: OutputOptions) -> int:
    """Probe the environment alone: versions, builds, CPU, devices and what breaks them."""
    from ipex_doctor.app.diagnosis import Request
    from ipex_doctor.model.findings import Command, FindingKind

    return _run(Request(Command.ENV, probe, out, kb_overlays, kinds=(FindingKind.ENVIRONMENT,)))


@cli.command()
@click.argument("report_file", metavar="FILE.json", type=click.Path(dir_okay=False))
@KB
@click.option("--as-recorded", is_flag=True, help="Keep the recorded verdicts; do not re-judge.")
@OUTPUT
@BASELINE
def report(
    report_file: str,
    kb_overlays: tuple[str, ...],
    as_recorded: bool,
    out: OutputOptions,
    baseline: SavedReport | None,
) -> int:
    """Re-render a saved JSON report, re-judged against the current knowledge base."""
    from ipex_doctor.app.replay import replay_report

    return replay_report(
        Path(report_file), out, kb_overlays=kb_overlays, as_recorded=as_recorded,
        baseline=baseline, notify=notify_user,
    )  # fmt: skip


@cli.command()
@click.argument("report_files", nargs=-1, required=True, metavar="REPORT.json|DIR...")
@KB
@OUTPUT
def merge(report_files: tuple[str, ...], kb_overlays: tuple[str, ...], out: OutputOptions) -> int:
    """Merge reports of several nodes into one fleet report, naming the nodes that differ.

    A directory stands for the *.json reports in it."""
    from ipex_doctor.app.replay import merge_reports

    return merge_reports(
        [Path(p) for p in report_files], out, kb_overlays=kb_overlays, notify=notify_user
    )


@cli.command()
@click.argument("paths", nargs=-1, metavar="[PATH]...", type=click.Path(exists=True))
@PROBE
@KB
@OUTPUT_SCAN
@click.option(
    "--fix",
    is_flag=True,
    help="Apply the mechanical rewrites to upstream PyTorch (every file or none, each in place; recorded for --undo), then report what is left.",
)
@click.option(
    "--diff", is_flag=True, help="Print the mechanical rewrites as a unified diff; write nothing."
)
@click.option(
    "--exclude",
    "exclude",
    metavar="PATTERN",
    multiple=True,
    help="Leave out files matching this .gitignore-style pattern (relative to each PATH). Repeatable.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Read every file, even those unchanged since the last scan of the same PATHs.",
)
@click.option(
    "--docs",
    is_flag=True,
    help="Read the Python and shell code blocks of Markdown and reST documents too (reported, never rewritten); a document named as a PATH is always read.",
)
@click.option(
    "--undo",
    "undo",
    metavar="RECORD",
    type=click.Path(dir_okay=False),
    help="Restore the files an earlier --fix rewrote, byte for byte, from its RECORD (a file edited since is left alone).",
)
@click.option("--yes", "-y", "yes", is_flag=True, help="With --undo: restore without asking.")
def scan(
    paths: tuple[str, ...],
    probe: ProbeOptions,
    kb_overlays: tuple[str, ...],
    out: OutputOptions,
    fix: bool,
    diff: bool,
    exclude: tuple[str, ...],
    no_cache: bool,
    docs: bool,
    undo: str | None,
    yes: bool,
) -> int:
    """Read your code (default: .) for IPEX APIs and known-issue patterns, judged against the
    environment of --python; --fix moves what is mechanical to upstream PyTorch.

    \b
    scan --undo RECORD restores what a --fix rewrote (RECORD: the path it printed). Exit codes
    of --undo: 0 every file is as it was before the fix, 1 a file was left alone (or nothing was
    approved: it shows what it would restore), 2 the record is refused.
    """
    if fix and diff:
        raise click.UsageError("--fix writes the rewrites and --diff only shows them: choose one")
    if undo is not None:
        if paths or fix or diff or docs or exclude or out.sinks:
            raise click.UsageError(
                "--undo restores the files of a record: PATHs, --fix, --diff, --docs, --exclude "
                "and report files do not apply to it"
            )
        from ipex_doctor.app.fix_undo import undo_scan_fix

        return undo_scan_fix(Path(undo), approve=_approver(yes), show=click.echo)
    if yes:
        raise click.UsageError("--yes approves --undo; scan --fix writes without asking")
    from ipex_doctor.app.code_scan import ScanRequest, scan_and_publish

    request = ScanRequest(
        tuple(Path(p) for p in paths),
        out,
        probe,
        kb_overlays,
        exclude,
        fix=fix,
        diff=diff,
        cache=not no_cache,
        docs=docs,
    )
    return scan_and_publish(request, notify=notify_user, emit=_emit_stderr)


def _approver(yes: bool) -> Callable[[str], bool]:
    """``--yes``, else the user's answer to ``question`` on a terminal; without either, no."""

    def approve(question: str) -> bool:
        return yes or (sys.stdin.isatty() and click.confirm(question, default=False))

    return approve


def _emit_stderr(text: str) -> None:
    click.echo(text, err=True)


@cli.command()
@click.argument("text", required=False)
@click.option(
    "--file",
    "file_path",
    metavar="PATH",
    help="Read the error or traceback from PATH ('-': stdin).",
)
@KB
@click.option(
    "--report",
    "report_path",
    metavar="FILE.json",
    help="Decide between causes with a report of 'ipex-doctor env/check --json'.",
)
@click.option(
    "--python",
    "python",
    metavar="PATH",
    help="Decide between causes by examining this interpreter's environment, as env does.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1.0),
    default=180.0,
    show_default=True,
    metavar="SECONDS",
    help="With --python: the limit for each step of the examination.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the matches as JSON.")
def explain(
    text: str | None, file_path: str | None, kb_overlays: tuple[str, ...],
    report_path: str | None, python: str | None, timeout: float, as_json: bool,
) -> int:  # fmt: skip
    """Explain an error message or traceback (TEXT, --file PATH, or '-' for stdin): the known
    issue, its layer, and for a message with several causes the ranked causes and the env rung
    that separates them (--report / --python decide with the environment's findings).

    Exit 0 when a known issue matched; 4 when none did but the text comes from the Intel
    stack (its layer is named, with what to examine and collect); 1 when nothing did.
    """
    from ipex_doctor.knowledge.explain import EnvFacts, diagnose, read_input
    from ipex_doctor.knowledge.known_issues import load_files
    from ipex_doctor.reporting.formats.explain_text import explain_json, explain_text

    if report_path is not None and python is not None:
        raise DoctorError("give --report or --python, not both")
    error = read_input(text, file_path)
    knowledge = load_files(kb_overlays, notify_user)
    env: EnvFacts | None = None
    # NOTE: the light path (text alone) imports neither the report reader nor the probe
    if report_path is not None:
        from ipex_doctor.app.explanation import facts_of_report

        env = facts_of_report(report_path)
    elif python is not None:
        from ipex_doctor.app.explanation import facts_of_interpreter

        env = facts_of_interpreter(python, timeout, knowledge, notify_user)
    matches, layer = diagnose(error, knowledge, env)
    click.echo(explain_json(matches, env, layer) if as_json else explain_text(matches, env, layer))
    if matches:
        return ExitCode.OK
    return ExitCode.LAYER_ONLY if layer is not None else ExitCode.FINDINGS


@cli.group("kb")
def kb_group() -> None:
    """Inspect and validate the knowledge base."""


@kb_group.command("list")
@KB
@click.option("--json", "as_json", is_flag=True, help="Print the entries as JSON.")
def kb_list(kb_overlays: tuple[str, ...], as_json: bool) -> int:
    """List the known issues and the built-in findings the doctor can report."""
    from ipex_doctor.knowledge.known_issues import load_files
    from ipex_doctor.reporting.formats.text import kb_list_json, kb_list_text

    knowledge = load_files(kb_overlays, notify_user)
    rules = _code_rules(knowledge).rules
    click.echo(kb_list_json(knowledge, rules) if as_json else kb_list_text(knowledge, rules))
    return ExitCode.OK


def _code_rules(knowledge: KnowledgeBase) -> CodeRules:
    """The shipped code rules of ``scan``, checked against ``knowledge``'s ids."""
    from ipex_doctor.knowledge import code_rules

    return code_rules.load(known_ids=[issue.id for issue in knowledge.issues])


@kb_group.command("show")
@click.argument("issue_id", metavar="ID")
@KB
@click.option("--json", "as_json", is_flag=True, help="Print the entry as JSON.")
def kb_show(issue_id: str, kb_overlays: tuple[str, ...], as_json: bool) -> int:
    """Show everything the knowledge base says about one issue (or one built-in finding, or
    one code rule of scan)."""
    from ipex_doctor.knowledge.known_issues import KnownIssue, load_files, normalise_id
    from ipex_doctor.reporting.formats.text import (
        builtin_text,
        code_rule_text,
        entry_json,
        kb_entry_text,
    )
    from ipex_doctor.verdicts.registry import builtin, finding_ids

    knowledge = load_files(kb_overlays, notify_user)
    entry = knowledge.get(issue_id) or builtin(normalise_id(issue_id))
    if entry is None:
        # NOTE: a scan finding's id is a code rule's; the rules are read only when no entry
        # has the id, so showing an entry costs no more than before.
        rules = _code_rules(knowledge)
        rule = rules.get(normalise_id(issue_id))
        if rule is None:
            ids = [*finding_ids(i.id for i in knowledge.issues), *(r.id for r in rules.rules)]
            tip = did_you_mean(
                normalise_id(issue_id), ids, otherwise="'ipex-doctor kb list' lists them"
            )
            raise DoctorError(f"no knowledge-base entry or code rule '{issue_id}'", tip=tip)
        click.echo(entry_json(rule) if as_json else code_rule_text(rule, rules.sources[0]))
        return ExitCode.OK
    if as_json:
        click.echo(entry_json(entry))
    else:
        click.echo(kb_entry_text(entry) if isinstance(entry, KnownIssue) else builtin_text(entry))
    return ExitCode.OK


@kb_group.command("validate")
@click.argument("files", nargs=-1, metavar="[FILE]...")
def kb_validate(files: tuple[str, ...]) -> int:
    """Validate knowledge-base files (default: the shipped one); every error, with its line.

    Exit 2 if any file has an error.
    """
    from ipex_doctor.knowledge import known_issues
    from ipex_doctor.reporting.formats.text import validation_text

    failed = 0
    for path in [Path(f) for f in files] or [known_issues.shipped_path()]:
        checked = known_issues.check_file(path)
        ok, messages = validation_text(path, checked)
        for message in messages:
            notify_user(message)
        if ok:
            click.echo(ok)
        failed += bool(checked.errors)
    return ExitCode.USAGE if failed else ExitCode.OK
