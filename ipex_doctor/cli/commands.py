"""The commands: each parses its options, calls the core, and returns an exit code.

Only Click is imported at module level: ``--help``, ``kb``, ``explain`` and ``repro --list``
must answer in a blink, so everything else is imported inside the commands that use it.
Nothing here, or anywhere in the doctor's process, imports torch.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ipex_doctor import __version__
from ipex_doctor.cli.options import BASELINE, CHECK_RUN, DIAGNOSIS, KB, OUTPUT, SANITY
from ipex_doctor.errors import DoctorError, ExitCode, did_you_mean

if TYPE_CHECKING:
    from ipex_doctor.reporting.publish import OutputOptions
    from ipex_doctor.runs.diagnose import CheckOptions


def _say(message: str) -> None:
    click.echo(f"ipex-doctor: {message}", err=True)


def _out(params: dict[str, Any], *, explaining: bool = False) -> OutputOptions:
    from ipex_doctor.reporting.publish import OutputOptions

    return OutputOptions.take(params, explaining=explaining)


def _checks(params: dict[str, Any], only: tuple[str, ...] | None, sanity: bool) -> CheckOptions:
    from ipex_doctor.runs import sanity_plan
    from ipex_doctor.runs.diagnose import CheckOptions

    device = params.pop("device")
    keys = ("profile", "amp_dtype", "lr", "weights", "data", "no_ipex")
    values = {key: params.pop(key) for key in keys if key in params}
    options = sanity_plan.options_from(**values, device=device) if sanity else None
    return CheckOptions.build(
        checks_dirs=params.pop("checks_dirs", ()), only=only, device=device,
        timeout_s=params["timeout"], isolation=params.pop("isolation", "worker"),
        sanity_options=options,
    )  # fmt: skip


def _diagnose(command: str, params: dict[str, Any], out: OutputOptions, **request: Any) -> int:
    from ipex_doctor.model.findings import Command
    from ipex_doctor.reporting.pipeline import Request, diagnose_and_publish
    from ipex_doctor.reporting.progress import Feedback
    from ipex_doctor.runs.diagnose import ProbeOptions

    probe = ProbeOptions(python=params["python"] or sys.executable, timeout_s=params["timeout"])
    wanted = Request(Command(command), probe, tuple(params["kb_overlays"]), **request)
    with Feedback.for_stream(quiet=out.verbosity < 0) as feedback:
        return diagnose_and_publish(
            wanted, out, notify=_say, progress=feedback.status, on_step=feedback.step
        )


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
@DIAGNOSIS
@OUTPUT
@BASELINE
@CHECK_RUN
@click.option("--skip-sanity", is_flag=True, help="Leave out the ResNet-50 AMP sanity run.")
@click.option("--distributed", is_flag=True,
              help="Under torchrun/mpirun: each rank examines its node, rank 0 writes one fleet report.")  # fmt: skip
@SANITY
def check(skip_sanity: bool, distributed: bool, **params: Any) -> int:
    """Full diagnosis: probe, reproductions on every device, the AMP sanity run, verdicts."""
    out = _out(params)
    if distributed and params.get("device") is None:
        # NOTE: under a launcher each rank examines its own device, once; not every device
        params["device"] = "local"
    checks = _checks(params, None, sanity=not skip_sanity)
    return _diagnose("check", params, out, checks=checks, distributed=distributed)


@cli.command()
@click.argument("names", nargs=-1, metavar="[NAME]... | all")
@click.option("--list", "list_only", is_flag=True, help="List the check scripts and exit.")
@DIAGNOSIS
@OUTPUT
@CHECK_RUN
def repro(names: tuple[str, ...], list_only: bool, **params: Any) -> int:
    """Run reproductions of known issues (NAME..., or all) and explain what they found."""
    if list_only:
        from ipex_doctor.knowledge.known_issues import load_files
        from ipex_doctor.reporting.formats.text import checks_text
        from ipex_doctor.runs.catalog import catalog

        scripts = catalog(tuple(Path(d) for d in params["checks_dirs"]))
        knowledge = load_files(params["kb_overlays"], _say)
        click.echo(checks_text({k: s.title for k, s in scripts.items()}, knowledge))
        return ExitCode.OK
    if not names:
        raise click.UsageError("name at least one check, or 'all' (see 'ipex-doctor repro --list')")
    only = ("all",) if "all" in names else tuple(dict.fromkeys(names))
    out = _out(params, explaining=True)
    return _diagnose("repro", params, out, checks=_checks(params, only, sanity=False))


@cli.command()
@DIAGNOSIS
@OUTPUT
@BASELINE
@click.option("--device", default=None,
              help="Device for the run (default: the first accelerator, else cpu): cpu, xpu, xpu:N, cuda, cuda:N.")  # fmt: skip
@SANITY
def sanity(**params: Any) -> int:
    """ResNet-50 AMP sanity run: training converges, AMP agrees with fp32, AMP is faster."""
    out = _out(params, explaining=True)
    return _diagnose("sanity", params, out, checks=_checks(params, (), sanity=True))


@cli.command()
@DIAGNOSIS
@OUTPUT
def env(**params: Any) -> int:
    """Probe the environment alone: versions, builds, CPU, devices and what breaks them."""
    from ipex_doctor.model.findings import FindingKind

    return _diagnose("env", params, _out(params), kinds=(FindingKind.ENVIRONMENT,))


@cli.command()
@click.argument("report_file", metavar="FILE.json", type=click.Path(dir_okay=False))
@KB
@click.option("--as-recorded", is_flag=True, help="Keep the recorded verdicts; do not re-judge.")
@OUTPUT
@BASELINE
def report(report_file: str, kb_overlays: tuple[str, ...], as_recorded: bool, **params: Any) -> int:
    """Re-render a saved JSON report, re-judged against the current knowledge base."""
    from ipex_doctor.knowledge.known_issues import load_files
    from ipex_doctor.reporting.pipeline import gate_policy
    from ipex_doctor.reporting.publish import publish
    from ipex_doctor.reporting.replay import load_report, rejudge

    out = _out(params)
    out.check()
    knowledge = load_files(kb_overlays, _say)
    saved = load_report(Path(report_file))
    policy = gate_policy(out, knowledge, [f.id for f in saved.findings])
    return publish(saved if as_recorded else rejudge(saved, knowledge), out, policy)


@cli.command()
@click.argument("report_files", nargs=-1, required=True, metavar="REPORT.json|DIR...")
@KB
@OUTPUT
def merge(report_files: tuple[str, ...], kb_overlays: tuple[str, ...], **params: Any) -> int:
    """Merge reports of several nodes into one fleet report, naming the nodes that differ.

    A directory stands for the *.json reports in it."""
    from ipex_doctor.knowledge.known_issues import load_files
    from ipex_doctor.reporting.pipeline import gate_policy
    from ipex_doctor.reporting.publish import publish
    from ipex_doctor.reporting.replay import merge_files

    out = _out(params)
    out.check()
    knowledge = load_files(kb_overlays, _say)
    fleet = merge_files([Path(p) for p in report_files])
    policy = gate_policy(out, knowledge, [f.id for f in fleet.findings])
    return publish(fleet, out, policy)


@cli.command()
@click.argument("text", required=False)
@click.option(
    "--file",
    "file_path",
    metavar="PATH",
    help="Read the error or traceback from PATH ('-': stdin).",
)
@KB
@click.option("--json", "as_json", is_flag=True, help="Print the matches as JSON.")
def explain(text: str | None, file_path: str | None, kb_overlays: tuple[str, ...], as_json: bool) -> int:  # fmt: skip
    """Explain an error message or traceback (TEXT, --file PATH, or '-' for stdin).

    Exit 0 when a known issue matched, 1 when nothing did.
    """
    from ipex_doctor.knowledge.explain import explain as find
    from ipex_doctor.knowledge.explain import read_input
    from ipex_doctor.knowledge.known_issues import load_files
    from ipex_doctor.reporting.formats.text import explain_json, explain_text

    matches = find(read_input(text, file_path), load_files(kb_overlays, _say))
    click.echo(explain_json(matches) if as_json else explain_text(matches))
    return ExitCode.OK if matches else ExitCode.FINDINGS


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

    knowledge = load_files(kb_overlays, _say)
    click.echo(kb_list_json(knowledge) if as_json else kb_list_text(knowledge))
    return ExitCode.OK


@kb_group.command("show")
@click.argument("issue_id", metavar="ID")
@KB
@click.option("--json", "as_json", is_flag=True, help="Print the entry as JSON.")
def kb_show(issue_id: str, kb_overlays: tuple[str, ...], as_json: bool) -> int:
    """Show everything the knowledge base says about one issue (or one built-in finding)."""
    from ipex_doctor.knowledge.known_issues import KnownIssue, load_files, normalise_id
    from ipex_doctor.reporting.formats.text import builtin_text, entry_json, kb_entry_text
    from ipex_doctor.verdicts.registry import builtin, finding_ids

    knowledge = load_files(kb_overlays, _say)
    entry = knowledge.get(issue_id) or builtin(normalise_id(issue_id))
    if entry is None:
        ids = finding_ids(i.id for i in knowledge.issues)
        tip = did_you_mean(
            normalise_id(issue_id), ids, otherwise="'ipex-doctor kb list' lists them"
        )
        raise DoctorError(f"no knowledge-base entry '{issue_id}'", tip=tip)
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
            _say(message)
        if ok:
            click.echo(ok)
        failed += bool(checked.errors)
    return ExitCode.USAGE if failed else ExitCode.OK
