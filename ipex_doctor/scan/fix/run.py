"""``scan --fix`` as one change: every rewrite planned, recorded, then written; all or none.

1. ``plan``: every file with a fixable match is read (``confined``: a regular file inside its
   root, reached without following a link out, that this user may write, with no other name:
   a hard link's text would change too) and fixed in memory.
   A file that cannot be read or written, or whose fix fails, is left alone with its reason
   (``NotFixed``); the others go on. Nothing is written.
2. ``commit``: the undo record is written (``fix_journal``, state ``applying``), then every
   planned file is written in place, after checking it is still what was read; then the record
   is completed (``applied``). If any write fails or is refused (the file changed, a link was
   put in its way), the files already written are put back from memory and the record
   removed: nothing changed. SIGINT, SIGTERM and SIGHUP are held meanwhile (noted by handlers
   of this module, whichever thread the kernel delivered them to) and come back to the caller
   in ``Applied.held``: an interrupt lands after the last write and the record, never between
   two files; after a failure that put everything back, the held signal is raised at once.
3. ``undo``: a record's files restored byte for byte, in place, each only when it is still
   the file the run wrote (same device and inode, the bytes the fix wrote, or for a run that
   stopped mid-way a file it was writing: a prefix of the new bytes over the old; for an undo
   that stopped mid-way, a prefix of the old bytes over the new), under the
   same held signals. A file edited since, no longer a regular file inside its root, or
   reached through a link is left alone with its reason; nothing is written for it.

SIGKILL cannot be held: a run killed mid-way leaves its record ``applying`` and files of which
some are new, some old, at most one half-written; the next scan of the tree says so, and
``undo`` restores them all.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from ipex_doctor.scan.fix import confined
from ipex_doctor.scan.fix import journal as fix_journal
from ipex_doctor.scan.fix.confined import Contents, Place, PlaceError
from ipex_doctor.scan.fix.files import FileFix, file_fix, kind_by_content, kind_of, unchanged_since
from ipex_doctor.scan.fix.journal import Record, RecordedFile, RecordState
from ipex_doctor.scan.fix.rewrite import FixError
from ipex_doctor.scan.read.kinds import sniffed

HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
EDITED = "edited since the fix (its bytes are not the ones the fix wrote)"


@dataclass(frozen=True)
class NotFixed:
    """A file with fixable matches left alone as a whole, and why (words after its name)."""

    display: str
    reason: str


@dataclass(frozen=True)
class FixPlan:
    """Every rewrite of a run, computed, nothing written."""

    fixes: tuple[FileFix, ...]
    """Each file read and fixed (``changed`` or not), in path order."""
    displays: tuple[str, ...]
    """The path the scan reported each of ``fixes`` as."""
    left_alone: tuple[NotFixed, ...] = ()

    @property
    def changes(self) -> list[tuple[str, FileFix]]:
        """The files that change, with their paths as the scan reported them."""
        return [(d, f) for d, f in zip(self.displays, self.fixes, strict=True) if f.changed]


@dataclass(frozen=True)
class Applied:
    """What ``commit`` wrote."""

    record: Record | None
    """The undo record (``None``: nothing changed, so none was written)."""
    changed: tuple[tuple[str, FileFix], ...] = ()
    held: int | None = None
    """A signal that arrived during the writes, for the caller to act on now."""


def plan(roots: Sequence[Path], wanted: Mapping[str, Collection[str]]) -> FixPlan:
    """Read and fix in memory each file named in ``wanted`` (its path as the scan reported it,
    relative to one of ``roots``: the fix ids its matches want); write nothing."""
    fixes: list[FileFix] = []
    displays: list[str] = []
    left: list[NotFixed] = []
    for display, fix_ids in sorted(wanted.items()):
        kind = kind_of(Path(display))
        try:
            place = _place(roots, display)
            if kind is None and not sniffed(Path(display).name):
                raise PlaceError("no fixes apply to this kind of file")
            contents = confined.read(place, writable=True, one_name=True)
            kind = kind or kind_by_content(Path(display), contents.data)
            if kind is None:
                raise PlaceError("no fixes apply to this kind of file")
        except PlaceError as error:
            left.append(NotFixed(display, error.reason))
            continue
        fixes.append(file_fix(Path(display), place, contents, sorted(fix_ids), kind))
        displays.append(display)
    return FixPlan(tuple(fixes), tuple(displays), tuple(left))


def _place(roots: Sequence[Path], display: str) -> Place:
    """The place of the file the scan reported as ``display``: below the first root that has
    it (a root that is a file is its own place)."""
    for root in roots:
        if os.path.isfile(root) and not os.path.isdir(root):
            if Path(display) == root or display == root.as_posix():
                return confined.place_of(root, display)
            continue
        if os.path.lexists(os.path.join(root, display)):
            return confined.place_of(root, display)
    raise PlaceError("no longer exists")


def commit(fix_plan: FixPlan) -> Applied:
    """Write every change of ``fix_plan``, recorded for undo first; all or none (see the
    module docstring). ``FixError`` when nothing could be changed (the record cannot be
    written, a file changed or could not be written: then every file is as it was)."""
    changes = fix_plan.changes
    if not changes:
        return Applied(None)
    files = [_recorded(display, fix) for display, fix in changes]
    roots = sorted({file.place.root for file in files})
    with _held_signals() as held:
        record = fix_journal.begin(roots, files)
        written: list[FileFix] = []
        try:
            for display, fix in changes:
                _write(fix, display)
                written.append(fix)
        except PlaceError as error:
            raise _nothing_changed(
                error.reason, written, _put_back(written, record), record
            ) from None
        except BaseException:
            # NOTE: not a refusal but a bug (or no memory): still, put back what was written.
            _put_back(written, record)
            raise
        try:
            record = fix_journal.finish(record, RecordState.APPLIED)
        except FixError as error:
            raise FixError(
                f"{error.message}; the {len(written)} files are rewritten and its first copy "
                "restores them",
                tip=f"to undo: ipex-doctor scan --undo {record.path}",
            ) from None
    return Applied(record, tuple(changes), held.first)


def _recorded(display: str, fix: FileFix) -> RecordedFile:
    assert fix.place is not None and fix.seen is not None  # NOTE: a planned fix has both
    return RecordedFile(
        fix.place, display, fix.seen.st_dev, fix.seen.st_ino, fix.original, fix.fixed
    )


def _write(fix: FileFix, display: str) -> None:
    assert fix.place is not None and fix.seen is not None
    try:
        confined.rewrite(fix.place, fix.fixed, unchanged_since(Contents(fix.original, fix.seen)))
    except PlaceError as error:
        raise PlaceError(f"{display}: {error.reason}") from None


def _put_back(written: Sequence[FileFix], record: Record) -> list[str]:
    """The files already ``written`` restored from memory, and the record removed when all went
    back; what could not go back (one line each: the record then stays, to restore them)."""
    stuck: list[str] = []
    for fix in reversed(written):
        assert fix.place is not None and fix.seen is not None
        # NOTE: its times back too: a file put back a moment later is as it was but for its
        # status-change time, which no call sets.
        times = (fix.seen.st_atime_ns, fix.seen.st_mtime_ns)
        try:
            confined.rewrite(fix.place, fix.original, _still(fix.fixed, fix.seen), times=times)
        except PlaceError as error:
            stuck.append(f"{fix.path}: {error.reason}")
    if not stuck:
        fix_journal.discard(record)
    return stuck


def _nothing_changed(
    failure: str, written: Sequence[FileFix], stuck: Sequence[str], record: Record
) -> FixError:
    """The error of a run whose write of a file failed (``failure``): nothing changed, or which
    files could not be put back and how to restore them."""
    if not stuck:
        return FixError(f"{failure}; nothing was rewritten (every file is as it was)")
    return FixError(
        f"{failure}; putting back the {len(written)} files already rewritten failed for "
        f"{len(stuck)} ({stuck[0]})",
        tip=f"to restore them: ipex-doctor scan --undo {record.path}",
    )


def _still(data: bytes, seen: os.stat_result | None) -> confined.Accept:
    """The check that a file is still the one with ``seen``'s device and inode and holds
    ``data``."""

    def accept(status: os.stat_result, current: bytes) -> str | None:
        same = seen is not None and (status.st_dev, status.st_ino) == (seen.st_dev, seen.st_ino)
        if same and current == data:
            return None
        return EDITED

    return accept


# -- signals --------------------------------------------------------------------------------


@dataclass
class _Held:
    """The signals that arrived while held, in order."""

    signals: list[int] = field(default_factory=list)

    @property
    def first(self) -> int | None:
        return self.signals[0] if self.signals else None


@contextmanager
def _held_signals() -> Iterator[_Held]:
    """SIGINT, SIGTERM and SIGHUP noted instead of acted on while the block runs; the
    handlers the process had are back afterwards. When the block raises, a held signal is
    raised at once (its own handler decides: ``KeyboardInterrupt``, the doctor's SIGTERM
    handler, or the default action).

    Handlers, not ``pthread_sigmask``: a mask holds a signal for the calling thread only, and
    the kernel gives a process-wide signal to any thread that does not block it (the doctor
    may hold threads); a Python handler always runs in the main thread."""
    held = _Held()

    def note(signum: int, frame: FrameType | None) -> None:
        held.signals.append(signum)

    previous = {sig: signal.signal(sig, note) for sig in HELD_SIGNALS}
    failed = False
    try:
        yield held
    except BaseException:
        failed = True
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if failed and held.signals:
            signal.raise_signal(held.signals[0])


# -- undo -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class UndoStep:
    """What undo does with one file of a record."""

    file: RecordedFile
    action: str
    """``restore``, ``as it was`` (already the original bytes), or ``left alone``."""
    reason: str = ""
    """Why it is left alone."""


RESTORE = "restore"
AS_IT_WAS = "as it was"
LEFT_ALONE = "left alone"


def undo_steps(record: Record) -> list[UndoStep]:
    """What undoing ``record`` would do with each of its files, as they are now; nothing is
    written."""
    steps = []
    for file in record.files:
        try:
            current = confined.read(file.place, writable=True)
        except PlaceError as error:
            steps.append(UndoStep(file, LEFT_ALONE, error.reason))
            continue
        steps.append(_step(file, current, record.state))
    return steps


def _step(file: RecordedFile, current: Contents, state: RecordState) -> UndoStep:
    status, data = current.status, current.data
    if (status.st_dev, status.st_ino) != (file.device, file.inode):
        return UndoStep(file, LEFT_ALONE, "another file has its name since the fix")
    if data == file.before:
        return UndoStep(file, AS_IT_WAS)
    if data == file.after or (state is RecordState.APPLYING and _half_written(data, file)):
        return UndoStep(file, RESTORE)
    # NOTE: an undo killed part way through its write (SIGKILL, power loss) leaves the old
    # bytes up to a point and the fixed ones after it, whatever the record's state: the next
    # undo finishes it, or the file could never be restored (it was "edited since").
    if _half_written(data, file, undoing=True):
        return UndoStep(file, RESTORE)
    return UndoStep(file, LEFT_ALONE, EDITED)


def _half_written(data: bytes, file: RecordedFile, *, undoing: bool = False) -> bool:
    """Whether ``data`` is what a write of ``file.after`` over ``file.before`` leaves when it
    stops part way: the new bytes up to some point, the old bytes after it (``undoing``: of
    ``file.before`` over ``file.after``, the write of an undo)."""
    new, old = (file.before, file.after) if undoing else (file.after, file.before)
    common = len(os.path.commonprefix([data, new]))
    return data[common:] == old[common:]


def undo(record: Record) -> tuple[list[UndoStep], Record, int | None]:
    """Restore every file of ``record`` that ``undo_steps`` would restore, each checked again
    just before its write; the steps as they ended, the record (marked ``undone`` when every
    file is as it was), and a signal that arrived meanwhile (held, for the caller to act on).
    ``RecordError`` only when the record cannot be updated."""
    with _held_signals() as held:
        done = [
            _restore(step, record.state) if step.action == RESTORE else step
            for step in undo_steps(record)
        ]
        if all(step.action in (RESTORE, AS_IT_WAS) for step in done):
            record = fix_journal.finish(record, RecordState.UNDONE)
    return done, record, held.first


def _restore(step: UndoStep, state: RecordState) -> UndoStep:
    def accept(status: os.stat_result, data: bytes) -> str | None:
        again = _step(step.file, Contents(data, status), state)
        return None if again.action == RESTORE else again.reason or "restored meanwhile"

    try:
        confined.rewrite(step.file.place, step.file.before, accept)
    except PlaceError as error:
        return UndoStep(step.file, LEFT_ALONE, error.reason)
    return step
