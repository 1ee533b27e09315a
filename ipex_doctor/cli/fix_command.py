"""``ipex-doctor fix``: the pip remedies of the findings, planned, confirmed, applied, undoable.

Attached to the ``cli`` group when this module is imported (``cli/__init__``). The plan goes to
stdout, or to stderr when a machine report takes stdout; progress and the undo command go to
stderr. Nothing changes without ``--yes`` or a "yes" typed at a terminal.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ipex_doctor.cli.commands import approver, notify_user
from ipex_doctor.cli.options import KB, OUTPUT, TIMEOUT, python_option, refuse
from ipex_doctor.usage_rules import Refuse

if TYPE_CHECKING:
    from ipex_doctor.app.repair import Conversation
    from ipex_doctor.reporting.output_options import OutputOptions


def _conversation(out: OutputOptions, yes: bool) -> Conversation:
    """How ``fix`` talks: the plan (or the outcome) on stdout, or on stderr when a machine
    report takes stdout; ``--yes`` logged on stderr, else asked at a terminal."""
    from ipex_doctor.app.repair import Conversation
    from ipex_doctor.model.repair import Repair, RepairVerdict
    from ipex_doctor.reporting.formats.repair_text import outcome_text, plan_text
    from ipex_doctor.reporting.output import STDOUT

    to_stderr = any(path == STDOUT for _, path in out.sinks)

    def show(repair: Repair) -> None:
        planning = repair.verdict in (RepairVerdict.PLANNED, RepairVerdict.NOTHING_TO_DO)
        text = plan_text(repair) if planning else outcome_text(repair)
        click.echo(text, nl=False, err=to_stderr)

    return Conversation(notify_user, approver(yes, logged=True, err=to_stderr), show)


@click.command()
@refuse(Refuse("undo", "--undo restores a snapshot: --report, --snapshot and "
               "--rollback-on-regression do not apply to it",
               with_any=("saved_report", "rollback_on_regression", "snapshot")))  # fmt: skip
@python_option("Interpreter of the environment to repair (default: the one running the doctor; "
               "with --report or --undo, the one the file records, run only once you approve it).")  # fmt: skip
@TIMEOUT
@KB
@OUTPUT
@click.option("--report", "saved_report", metavar="FILE.json", type=click.Path(dir_okay=False),
              help="Plan from this saved JSON report instead of diagnosing again.")  # fmt: skip
@click.option("--yes", "-y", "yes", is_flag=True, help="Apply the plan without asking.")
@click.option("--undo", "undo", metavar="SNAPSHOT", type=click.Path(dir_okay=False),
              help="Restore the distributions recorded in SNAPSHOT (written by an earlier fix).")  # fmt: skip
@click.option("--snapshot", "snapshot", metavar="PATH", type=click.Path(dir_okay=False),
              help="Where to write the snapshot (default: next to the --json report, else ./ipex-doctor-fix-TIME.snapshot.json).")  # fmt: skip
@click.option("--rollback-on-regression", is_flag=True,
              help="Undo at once if the diagnosis after is worse than before.")  # fmt: skip
def fix(
    python: str | None, timeout: float, kb_overlays: tuple[str, ...], out: OutputOptions,
    saved_report: str | None, yes: bool, undo: str | None, snapshot: str | None,
    rollback_on_regression: bool,
) -> int:  # fmt: skip
    """Plan, and with --yes apply, the pip remedies of the findings: install or uninstall
    pinned packages in the examined interpreter only, with a snapshot to undo.

    \b
    Exit codes: 0 nothing left at the gate (or the undo restored the snapshot exactly),
    1 findings remain (or the plan was not applied), 2 usage or refused (nothing changed),
    130 / 143 interrupted (the report names the step and the undo command).
    """
    from ipex_doctor.app.repair import FixRequest, UndoRequest, fix_and_publish, undo_and_publish

    if undo is not None:
        undoing = UndoRequest(Path(undo), out, python, timeout, kb_overlays)
        return undo_and_publish(undoing, _conversation(out, yes))
    request = FixRequest(
        out, python, timeout, kb_overlays,
        saved_report=Path(saved_report) if saved_report else None,
        snapshot=Path(snapshot) if snapshot else None,
        rollback_on_regression=rollback_on_regression,
    )  # fmt: skip
    return fix_and_publish(request, _conversation(out, yes))
