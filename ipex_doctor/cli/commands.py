"""The commands: each parses its options, calls the core, and returns an exit code.

Only Click is imported at module level: ``--help``, ``kb``, ``explain`` and ``repro --list``
must answer in a blink, so everything else is imported inside the commands that use it.
Nothing here, or anywhere in the doctor's process, imports torch.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import click

import ipex_doctor.cli.options as opt
from ipex_doctor import __version__, start_up
from ipex_doctor.model.terms import Isolation
from ipex_doctor.usage_rules import Refuse

if TYPE_CHECKING:
    from ipex_doctor.app.diagnosis import Request
    from ipex_doctor.app.explanation import ExplainRequest
    from ipex_doctor.app.repair import FixRequest
    from ipex_doctor.app.replay import ReplayRequest
    from ipex_doctor.app.scan_request import ScanRequest
    from ipex_doctor.model.device_spec import DeviceSpec
    from ipex_doctor.probe.options import ProbeOptions
    from ipex_doctor.reporting.output_options import OutputOptions


def notify_user(message: str) -> None:
    """A message for the user, beside the report: on stderr, prefixed with the program name."""
    click.echo(f"ipex-doctor: {message}", err=True)


def _ask(question: str, err: bool = False) -> bool:
    """The user's answer at the terminal (asked on stderr with ``err``): no unless they say yes."""
    return click.confirm(question, default=False, err=err)


def _run(request: Request) -> int:
    from ipex_doctor.app.diagnosis import diagnose_with_progress

    return diagnose_with_progress(request, notify_user)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ipex-doctor")
@click.pass_context
def cli(context: click.Context) -> None:
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
    # NOTE: the commands are loaded (runs before the command's own options are read); scan's load
    # goes on to its use case, and its start ends it there (``app.scan_start``)
    if context.invoked_subcommand != "scan":
        start_up.loaded()


@cli.command()
@opt.PROBE
@opt.KB
@opt.OUTPUT
@opt.BASELINE
@opt.CHECK_RUN
@click.option("--skip-sanity", is_flag=True, help="Leave out the ResNet-50 AMP sanity run.")
@click.option("--distributed", is_flag=True,
              help="Under torchrun/mpirun: each rank examines its node, rank 0 writes one fleet report.")  # fmt: skip
@click.option("--code", "code", metavar="PATH", multiple=True, type=opt.EXISTING,
              help="Also read your code under PATH (as scan does), judged against this environment. Repeatable.")  # fmt: skip
@opt.SANITY
@opt.as_request("ipex_doctor.app.diagnosis:check_request")
def check(request: Request) -> int:
    """Full diagnosis: probe, reproductions on every device, the AMP sanity run, verdicts."""
    return _run(request)


@cli.command()
@opt.refuse(Refuse(None, "name at least one check, or 'all' (see 'ipex-doctor repro --list')",
                   without=("names", "list_only")))  # fmt: skip
@click.argument("names", nargs=-1, metavar="[NAME]... | all")
@click.option("--list", "list_only", is_flag=True, help="List the check scripts and exit.")
@opt.PROBE
@opt.KB
@opt.OUTPUT
@opt.CHECK_RUN
def repro(
    names: tuple[str, ...], list_only: bool, probe: ProbeOptions, kb_overlays: tuple[str, ...],
    out: OutputOptions, device: DeviceSpec | None, isolation: Isolation,
    checks_dirs: tuple[str, ...],
) -> int:  # fmt: skip
    """Run reproductions of known issues (NAME..., or all) and explain what they found."""
    if list_only:
        from ipex_doctor.app.knowledge_views import KnowledgeRequest, list_checks

        return list_checks(KnowledgeRequest(kb_overlays), checks_dirs, notify_user, click.echo)
    from ipex_doctor.app.diagnosis import repro_request

    return _run(repro_request(names, probe, out, kb_overlays, device, isolation, checks_dirs))


@cli.command()
@opt.PROBE
@opt.KB
@opt.OUTPUT
@opt.BASELINE
@opt.device_option("Device for the run (default: the first accelerator, else cpu): cpu, xpu, xpu:N, cuda, cuda:N.")  # fmt: skip
@opt.SANITY
@opt.as_request("ipex_doctor.app.diagnosis:sanity_request")
def sanity(request: Request) -> int:
    """ResNet-50 AMP sanity run: training converges, AMP agrees with fp32, AMP is faster."""
    return _run(request)


@cli.command()
@opt.PROBE
@opt.KB
@opt.OUTPUT
@opt.as_request("ipex_doctor.app.diagnosis:env_request")
def env(request: Request) -> int:
    """Probe the environment alone: versions, builds, CPU, devices and what breaks them."""
    return _run(request)


@cli.command()
@click.argument("report_file", metavar="FILE.json", type=opt.FILE)
@opt.KB
@click.option("--as-recorded", is_flag=True, help="Keep the recorded verdicts; do not re-judge.")
@opt.OUTPUT
@opt.BASELINE
@opt.as_request("ipex_doctor.app.replay:ReplayRequest")
def report(request: ReplayRequest) -> int:
    """Re-render a saved JSON report, re-judged against the current knowledge base."""
    from ipex_doctor.app.replay import replay_report

    return replay_report(request, notify_user)


@cli.command()
@click.argument("report_files", nargs=-1, required=True, metavar="REPORT.json|DIR...",
                type=click.Path(path_type=Path))  # fmt: skip
@opt.KB
@opt.OUTPUT
def merge(report_files: tuple[Path, ...], kb_overlays: tuple[str, ...], out: OutputOptions) -> int:
    """Merge reports of several nodes into one fleet report, naming the nodes that differ.

    A directory stands for the *.json reports in it."""
    from ipex_doctor.app.replay import merge_reports

    return merge_reports(report_files, out, kb_overlays=kb_overlays, notify=notify_user)


_REPORT_FILES = ("json_path", "junit_path", "markdown_path", "html_path", "sarif_path")


@cli.command()
@opt.refuse(
    Refuse("fix", "--fix writes the rewrites and --diff only shows them: choose one",
           with_any=("diff",)),
    Refuse("undo", "--undo restores the files of a record: PATHs, --fix, --diff, --docs, "
           "--exclude, --rules and report files do not apply to it",
           with_any=("roots", "fix", "diff", "docs", "exclude", "rule_overlays", *_REPORT_FILES)),
    Refuse("yes", "--yes approves --undo; scan --fix writes without asking", without=("undo",)),
)  # fmt: skip
@click.argument("roots", nargs=-1, metavar="[PATH]...", type=opt.EXISTING)
@opt.PROBE
@opt.KB
@opt.OUTPUT_SCAN
@click.option("--fix", is_flag=True,
              help="Apply the mechanical rewrites to upstream PyTorch (every file or none, each in place; recorded for --undo), then report what is left.")  # fmt: skip
@click.option("--diff", is_flag=True, help="Print the mechanical rewrites as a unified diff; write nothing.")  # fmt: skip
@click.option("--exclude", "exclude", metavar="PATTERN", multiple=True,
              help="Leave out files matching this .gitignore-style pattern (relative to each PATH). Repeatable.")  # fmt: skip
@click.option("--no-cache", "cache", is_flag=True, callback=opt.inverted,
              help="Read every file, even those unchanged since the last scan of the same PATHs.")  # fmt: skip
@click.option("--docs", is_flag=True,
              help="Read the Python and shell code blocks of Markdown and reST documents too (reported, never rewritten); a document named as a PATH is always read.")  # fmt: skip
@click.option("--rules", "rule_overlays", metavar="FILE", multiple=True,
              help="Your own code rules (the format of the shipped code_rules.yaml), applied over the shipped ones: a rule with a shipped id replaces it (said on stderr, and the finding names FILE), a new id is added; an invalid file is refused before anything is read. Repeatable.")  # fmt: skip
@click.option("--undo", "undo", metavar="RECORD", type=opt.FILE,
              help="Restore the files an earlier --fix rewrote, byte for byte, from its RECORD (a file edited since is left alone).")  # fmt: skip
@click.option("--yes", "-y", "yes", is_flag=True, help="With --undo: restore without asking.")
@opt.as_request("ipex_doctor.app.scan_request:ScanRequest")
def scan(request: ScanRequest, undo: Path | None, yes: bool) -> int:
    """Read your code (default: .) for IPEX APIs and known-issue patterns, judged against the
    environment of --python; --fix moves what is mechanical to upstream PyTorch.

    \b
    scan --undo RECORD restores what a --fix rewrote (RECORD: the path it printed). Exit codes
    of --undo: 0 every file is as it was before the fix, 1 a file was left alone (or nothing was
    approved: it shows what it would restore), 2 the record is refused.
    """
    if undo is not None:
        start_up.loaded()
        from ipex_doctor.app.fix_undo import undo_scan_fix

        return undo_scan_fix(undo, yes=yes, ask=_ask, show=click.echo)
    from ipex_doctor.app.scan_start import scan_and_publish

    return scan_and_publish(
        request, notify=notify_user, emit=functools.partial(click.echo, err=True)
    )


@cli.command()
@opt.refuse(Refuse("undo", "--undo restores a snapshot: --report, --snapshot and "
                   "--rollback-on-regression do not apply to it",
                   with_any=("saved_report", "rollback_on_regression", "snapshot")),
           Refuse("trust_snapshot", "--trust-snapshot approves the snapshot of --undo",
                  without=("undo",)))  # fmt: skip
@opt.python_option("Interpreter of the environment to repair (default: the one running the doctor; "
                   "with --report or --undo, the one the file records, run only once you approve it).")  # fmt: skip
@opt.TIMEOUT
@opt.KB
@opt.OUTPUT
@click.option("--report", "saved_report", metavar="FILE.json", type=opt.FILE,
              help="Plan from this saved JSON report instead of diagnosing again.")  # fmt: skip
@click.option("--yes", "-y", "yes", is_flag=True, help="Apply the plan without asking.")
@click.option("--undo", "undo", metavar="SNAPSHOT", type=opt.FILE,
              help="Restore the distributions recorded in SNAPSHOT (written by an earlier fix).")  # fmt: skip
@click.option("--trust-snapshot", is_flag=True,
              help="With --undo: you read SNAPSHOT, which this user's fix did not write (or was edited since); let --yes restore it.")  # fmt: skip
@click.option("--snapshot", "snapshot", metavar="PATH", type=opt.FILE,
              help="Where to write the snapshot (default: next to the --json report, else ./ipex-doctor-fix-TIME.snapshot.json).")  # fmt: skip
@click.option("--rollback-on-regression", is_flag=True,
              help="Undo at once if the diagnosis after is worse than before.")  # fmt: skip
@opt.as_request("ipex_doctor.app.repair:FixRequest")
def fix(request: FixRequest, yes: bool, undo: Path | None, trust_snapshot: bool) -> int:
    """Plan, and with --yes apply, the pip remedies of the findings: install or uninstall
    pinned packages in the examined interpreter only, with a snapshot to undo.

    \b
    Exit codes: 0 nothing left at the gate (or the undo restored the snapshot exactly),
    1 findings remain (or the plan was not applied), 2 usage or refused (nothing changed),
    130 / 143 interrupted (the report names the step and the undo command).
    """
    from ipex_doctor.app import repair

    talk = repair.Conversation.on_streams(
        request.out, notify_user, yes, _ask, lambda text, err: click.echo(text, nl=False, err=err)
    )
    if undo is not None:
        undoing = repair.UndoRequest.of(undo, request, trust_snapshot=trust_snapshot)
        return repair.undo_and_publish(undoing, talk)
    return repair.fix_and_publish(request, talk)


@cli.command()
@opt.refuse(Refuse("report_path", "give --report or --python, not both", with_any=("python",),
                   one_line=True))  # fmt: skip
@click.argument("text", required=False)
@click.option("--file", "file_path", metavar="PATH",
              help="Read the error or traceback from PATH ('-': stdin).")  # fmt: skip
@opt.KB
@click.option("--report", "report_path", metavar="FILE.json",
              help="Decide between causes with a report of 'ipex-doctor env/check --json'.")  # fmt: skip
@opt.python_option(
    "Decide between causes by examining this interpreter's environment, as env does."
)
@opt.TIMEOUT
@opt.AS_JSON
@opt.as_request("ipex_doctor.app.explanation:ExplainRequest")
def explain(request: ExplainRequest) -> int:
    """Explain an error message or traceback (TEXT, --file PATH, or '-' for stdin): the known
    issue, its layer, and for a message with several causes the ranked causes and the env rung
    that separates them (--report / --python decide with the environment's findings).

    Exit 0 when a known issue matched; 4 when none did but the text comes from the Intel
    stack (its layer is named, with what to examine and collect); 1 when nothing did.
    """
    from ipex_doctor.app.explanation import explain_and_print

    return explain_and_print(request, notify_user, click.echo)


@cli.group("kb")
def kb_group() -> None:
    """Inspect and validate the knowledge base."""


@kb_group.command("list")
@opt.KB
@opt.AS_JSON
def kb_list(kb_overlays: tuple[str, ...], as_json: bool) -> int:
    """List the known issues and the built-in findings the doctor can report."""
    from ipex_doctor.app.knowledge_views import KnowledgeRequest, list_entries

    return list_entries(KnowledgeRequest(kb_overlays, as_json), notify_user, click.echo)


@kb_group.command("show")
@click.argument("issue_id", metavar="ID")
@opt.KB
@opt.AS_JSON
def kb_show(issue_id: str, kb_overlays: tuple[str, ...], as_json: bool) -> int:
    """Show everything the knowledge base says about one issue (or one built-in finding, or
    one code rule of scan)."""
    from ipex_doctor.app.knowledge_views import KnowledgeRequest, show_entry

    return show_entry(KnowledgeRequest(kb_overlays, as_json), issue_id, notify_user, click.echo)


@kb_group.command("validate")
@click.argument("files", nargs=-1, metavar="[FILE]...", type=click.Path(path_type=Path))
def kb_validate(files: tuple[Path, ...]) -> int:
    """Validate knowledge-base files (default: the shipped one); every error, with its line.

    Exit 2 if any file has an error.
    """
    from ipex_doctor.app.knowledge_views import validate_files

    return validate_files(files, notify_user, click.echo)
