"""``ipex-doctor scan --undo RECORD``: the files an earlier ``scan --fix`` rewrote, restored
byte for byte from its record (``scan.fix_run.undo``).

What would be done is shown first, file by file: restored, already as it was, or left alone
with why (edited since the fix, no longer a regular file inside its root, another file in its
place). Nothing is written without approval (``--yes``, or "y" typed at a terminal); a record that is
not in the records directory (a file from elsewhere) is restored only on an answer typed at a
terminal, never on ``--yes`` alone. A record
refused as a record (not this user's, writable by others, not of the record's shape, a path
out of its root) is one line and exit 2, before anything is read below its roots.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ipex_doctor.app.approval import approver
from ipex_doctor.app.interrupts import sigterm_raises
from ipex_doctor.errors import DoctorError, ExitCode, Stopped, Terminated

if TYPE_CHECKING:
    from ipex_doctor.scan.fix.run import UndoStep

Show = Callable[[str], None]


def undo_scan_fix(path: Path, *, yes: bool, ask: Callable[[str], bool], show: Show) -> ExitCode:
    """Show what undoing the record at ``path`` restores, and with approval (``yes``, else
    ``ask``'s answer at a terminal: ``approval``) restore it; the exit code: 0 when every file
    is as it was before the fix, 1 when a file is left alone or nothing was approved."""
    from ipex_doctor.scan.fix import journal as fix_journal
    from ipex_doctor.scan.fix import run as fix_run
    from ipex_doctor.scan.fix.quoting import quote_name

    record = fix_journal.load(path)
    elsewhere = fix_journal.records_dir().resolve() != path.resolve().parent
    if elsewhere and yes:
        # NOTE: a record from elsewhere (an artifact, a download) names its own roots, files,
        # checksums and inodes: --yes in a script would restore whatever it names, as the user
        # running it. Only a person who has read the list below may approve that.
        raise DoctorError(
            f"{quote_name(str(path))} is not in {fix_journal.records_dir()}, where scan --fix "
            "writes its records: --yes restores only those; run without --yes at a terminal "
            "to read what it would restore and answer"
        )
    # NOTE: the record's words are quoted: a line break or an escape sequence in a forged one
    # must not make the list below (what approval restores) look other than it is.
    roots = ", ".join(quote_name(root) for root in record.roots)
    show(f"The scan --fix of {roots} ({quote_name(record.created_at)}), from {path}:")
    if elsewhere:
        show(f"  note: this record is not in {fix_journal.records_dir()}, where scan --fix "
             "writes them: restore only files you know it rewrote")  # fmt: skip
    steps = fix_run.undo_steps(record)
    for step in steps:
        show(_line(step, quote_name(step.file.place.path)))
    restore = [step for step in steps if step.action == fix_run.RESTORE]
    left = [step for step in steps if step.action == fix_run.LEFT_ALONE]
    if not restore:
        show("Nothing to restore." if not left else "Nothing that can be restored.")
        return ExitCode.FINDINGS if left else ExitCode.OK
    if not approver(yes, ask)(f"Restore {_files(len(restore))}?"):
        show("Nothing was restored (--yes, or y at a terminal, restores them).")
        return ExitCode.FINDINGS
    try:
        with sigterm_raises():
            done, record, held = fix_run.undo(record)
    except (KeyboardInterrupt, Terminated) as stop:
        code = ExitCode.INTERRUPTED if isinstance(stop, KeyboardInterrupt) else ExitCode.TERMINATED
        raise Stopped(
            "stopped before any file was restored; nothing changed", exit_code=code
        ) from None
    for before, after in zip(steps, done, strict=True):
        if before.action == fix_run.RESTORE and after.action == fix_run.LEFT_ALONE:
            show(_line(after, quote_name(after.file.place.path)))
    restored = sum(1 for step in done if step.action == fix_run.RESTORE)
    left = [step for step in done if step.action == fix_run.LEFT_ALONE]
    show(f"Restored {_files(restored)}" + (f"; {len(left)} left alone." if left else "."))
    if held is not None:
        code = ExitCode.INTERRUPTED if held == signal.SIGINT else ExitCode.TERMINATED
        raise Stopped("interrupted after the restore above ended", exit_code=code)
    return ExitCode.FINDINGS if left else ExitCode.OK


def _line(step: UndoStep, name: str) -> str:
    from ipex_doctor.scan.fix import run as fix_run

    if step.action == fix_run.LEFT_ALONE:
        return f"  left alone  {name}: {step.reason}"
    return f"  {step.action:<10}  {name}"


def _files(count: int) -> str:
    return "1 file" if count == 1 else f"{count} files"
