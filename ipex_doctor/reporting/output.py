"""Writing reports: atomically to files, or to stdout for ``-``.

A report file is written to a temporary file in the same directory, flushed, fsynced and then
renamed over the target, so an interrupted or failed write never leaves a truncated report and
never destroys the previous one. The file gets the mode a plain ``open()`` would give it (the
user's umask), or keeps the mode of the report it replaces. ``check_writable`` tells, before a
run of minutes starts, whether a destination can be written at all.

A destination that is a link is written through, to its target, keeping the link, only when
the target stays in the link's directory (``latest.json -> reports/2026-11-27.json``). A link
leading out of it is refused (``OutputError``): in a checkout, ``report.md`` may be a pull
request's link to a file of the CI user's (``/usr/local/bin/pip`` under root), which the
report would replace, keeping its mode. The user names the target itself to write there.

A directory link in the middle of a RELATIVE destination that leads out of the working
directory is refused too (``OutputError``, before the run): a pull request can make a
checkout's ``reports/`` a link to any directory of the CI user's (``~/.ssh``,
``/usr/local/bin``), and CI writing ``reports/doctor.json`` would put a file there, or replace
one of that name. A relative path is the checkout's word for where it leads; an absolute one
is the user's own, so ``--json /mnt/share/reports/doctor.json`` is followed whatever links it
passes, and a ``reports -> /mnt/share/reports`` the user made is written through by naming it
so (the error says how). Links that stay in the working directory, and a ``..`` the user wrote
(what lies above the working directory is not the checkout's), are followed as before.

The judgement holds while the report is written, not only when it is made: the directory is
opened once, the kernel is asked which directory that is (``/proc/self/fd``), and the
temporary file, the rename and the sync all go through that descriptor; what the path is
judged as (a directory, a device, a file) comes from one ``stat``. Someone else who may write
the checkout and swaps ``reports`` for a link out while reports are written gets a refusal,
never a file outside.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from ipex_doctor import atomic, resources
from ipex_doctor.errors import OutputError

STDOUT = "-"


def check_writable(destination: str) -> None:
    """Raise ``OutputError`` now if ``destination`` cannot be written later; write nothing.

    The directory is tested by creating (and removing) an empty temporary file in it, which is
    what ``write_text`` will do; a device or FIFO must be writable by this user.
    """
    if destination == STDOUT:
        return
    target = Path(destination)
    kind = _kind_of(target)
    if kind == "directory":
        raise OutputError(f"cannot write report to {destination}: it is a directory")
    if kind == "special":
        if not os.access(target, os.W_OK):
            raise OutputError(f"cannot write report to {destination}: permission denied")
        return
    _refuse_directory_link_out(destination)
    target = _followed(destination, target)
    directory = _directory_of(destination, target)
    try:
        directory_fd = _open_judged(destination, directory)
    except OSError as exc:
        raise OutputError(f"cannot write report to {destination}: {exc.strerror}") from None
    try:
        # NOTE: the temporary file write_text would make, made and removed
        fd, probe = atomic.open_temporary(_at(directory, directory_fd, target.name), directory_fd)
        os.close(fd)
        os.unlink(probe, dir_fd=directory_fd)
    except OSError as exc:
        raise OutputError(f"cannot write report to {destination}: {exc.strerror}") from None
    finally:
        if directory_fd is not None:
            os.close(directory_fd)


def _followed(destination: str, target: Path) -> Path:
    """Where a report to ``target`` is written: ``target``, or the file it links to when that
    is in the link's directory; ``OutputError`` when the link leads out of it."""
    if not target.is_symlink():
        return target
    directory = target.absolute().parent.resolve()
    resolved = target.resolve()
    if not resolved.is_relative_to(directory):
        raise OutputError(
            f"cannot write report to {destination}: it links to {resolved}, outside "
            f"{directory} (name that file itself to write it)"
        )
    return resolved


def _refuse_directory_link_out(destination: str) -> None:
    """``OutputError`` when a directory of the relative ``destination`` is a link leading out
    of the working directory (the module says why; an absolute destination is never refused).
    Only links below the working directory are judged: a checkout's, not the user's ``..``."""
    if os.path.isabs(destination):
        return
    here = Path.cwd().resolve()
    prefix = Path()
    for part in Path(destination).parent.parts:
        if part == "..":
            return
        prefix = prefix / part
        if prefix.is_symlink():
            resolved = prefix.resolve()
            if not resolved.is_relative_to(here):
                named = resolved / Path(destination).relative_to(prefix)
                raise OutputError(
                    f"cannot write report to {destination}: {prefix} links to {resolved}, "
                    f"outside the working directory {here} (name {named} to write there)"
                )


def _directory_of(destination: str, target: Path) -> Path:
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise OutputError(
            f"cannot write report to {destination}: directory {directory} does not exist",
            tip="create it first, or choose another path",
        )
    return directory


def _umask() -> int:
    # NOTE: reading the umask without changing it needs /proc (Linux >= 4.7); os.umask sets it.
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


def write_text(destination: str, text: str | Iterable[str]) -> None:
    """Write ``text`` to ``destination`` (``-`` is stdout); raise ``OutputError`` on failure.
    ``text`` may come in pieces (a renderer's ``chunks``), written as they come, a batch of
    about ``BATCH_CHARS`` at a time, so that a large report's text is never held whole; the
    file is still written whole or not at all."""
    batches = [text] if isinstance(text, str) else _batched(text)
    if destination == STDOUT:
        for batch in batches:
            sys.stdout.write(batch)
        sys.stdout.flush()
        return
    target = Path(destination)
    kind = _kind_of(target)
    if kind == "directory":
        raise OutputError(f"cannot write report to {destination}: it is a directory")
    if kind == "special":
        # NOTE: a device or FIFO (/dev/stdout, /dev/full, a pipe) is written in place:
        # renaming a temporary file over it would replace the device node itself.
        _write_in_place(destination, target, batches)
        return
    # NOTE: write through a link to its target, keeping the link (within its directory).
    _refuse_directory_link_out(destination)
    target = _followed(destination, target)
    directory = _directory_of(destination, target)
    try:
        directory_fd = _open_judged(destination, directory)
    except OSError as exc:
        raise OutputError(f"cannot write report to {destination}: {exc.strerror}") from None
    try:
        replaced = _replaced(_at(directory, directory_fd, target.name), directory_fd)
        # NOTE: a report is as readable as any file the user makes (not mkstemp's 0600).
        encoded = (batch.encode("utf-8") for batch in batches)
        atomic.replace_file(
            directory / target.name,
            encoded,
            mode=replaced.st_mode & 0o7777 if replaced else 0o666 & ~_umask(),
            owner=(replaced.st_uid, replaced.st_gid) if replaced else None,
            directory_fd=directory_fd,
        )
    except OSError as exc:
        reason = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror
        raise OutputError(f"cannot write report to {destination}: {reason}") from None
    finally:
        if directory_fd is not None:
            os.close(directory_fd)


def _at(directory: Path, directory_fd: int | None, name: str) -> str:
    """``name`` in ``directory`` as the ``os`` calls take it with ``dir_fd=directory_fd``:
    the name alone, relative to the open directory, or its path where there is none."""
    return name if directory_fd is not None else str(directory / name)


def _open_judged(destination: str, directory: Path) -> int | None:
    """An open descriptor of ``directory``, where the report is then written whatever its path
    leads to afterwards; for a relative ``destination`` (one ``_refuse_directory_link_out``
    judges), ``OutputError`` when the directory opened lies outside the working directory: a
    link swapped in after the judgement (by someone else who may write the checkout) is
    caught here, where the kernel says which directory was opened. ``None`` where the platform
    has no directory descriptors."""
    if not atomic.DIRECTORY_DESCRIPTORS:
        return None  # NOTE: Windows: the judgement before is all there is
    fd = atomic.open_directory(directory)
    if os.path.isabs(destination) or ".." in Path(destination).parts:
        return fd
    try:
        opened = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return fd  # NOTE: no /proc (not Linux): the judgement before is all there is
    here = Path.cwd().resolve()
    if not Path(opened).is_relative_to(here):
        os.close(fd)
        raise OutputError(
            f"cannot write report to {destination}: {directory} led to {opened} when it was "
            f"opened, outside the working directory {here} (a link changed under it; nothing "
            "was written)"
        )
    return fd


def _replaced(name: str, directory_fd: int | None) -> os.stat_result | None:
    """The report ``name`` replaces in the open directory (its mode and owner are kept),
    ``None`` for a new one or for anything but a regular file there now (a link swapped in
    after the judgement lends neither its mode nor its owner)."""
    try:
        status = os.stat(name, dir_fd=directory_fd, follow_symlinks=False)
    except OSError:
        return None
    return status if stat.S_ISREG(status.st_mode) else None


BATCH_CHARS = 1 << 20
"""How much of a report's text in pieces is joined before it is written: ``json``'s encoder
gives a piece per key and bracket, and a write or an encode per piece would cost more than
the encoding."""


def _batched(pieces: Iterable[str]) -> Iterator[str]:
    held: list[str] = []
    size = 0
    for piece in pieces:
        held.append(piece)
        size += len(piece)
        if size >= BATCH_CHARS:
            yield "".join(held)
            held, size = [], 0
    if held:
        yield "".join(held)


def _kind_of(target: Path) -> str:
    """What ``target`` is now, from one ``stat``: ``"directory"``, ``"special"`` (a device,
    FIFO or socket, written in place), or ``"file"`` (a regular file, or nothing yet). One
    call, not ``is_dir`` then ``exists`` then ``is_file``: a link swapped between those
    made a missing file look like a device, and the report was then created through the
    swapped link by name."""
    try:
        mode = target.stat().st_mode
    except OSError:
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    return "file" if stat.S_ISREG(mode) else "special"


def _write_in_place(destination: str, target: Path, batches: Iterable[str]) -> None:
    """Write into the device or FIFO ``target``: opened without ``O_CREAT`` (nothing is made
    by this name) and written only if what was opened is still not a regular file (one
    swapped in since would be overwritten in part, not replaced whole)."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        raise OutputError(f"cannot write report to {destination}: {exc.strerror}") from None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            raise OutputError(
                f"cannot write report to {destination}: it changed while being opened "
                "(a file was put in place of the device); nothing was written"
            )
        with open(fd, "w", encoding="utf-8", closefd=False) as handle:
            for batch in batches:
                handle.write(batch)
            handle.flush()
    except OSError as exc:
        reason = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror
        raise OutputError(f"cannot write report to {destination}: {reason}") from None
    finally:
        os.close(fd)


def write_crash_log(exc: BaseException, version: str) -> str | None:
    """Write the traceback of an internal error where the user can attach it to a bug report:
    ``ipex-doctor-crash.md`` in the doctor's cache directory (replaced whole), else a new file
    of a name no one else chose, ``ipex-doctor-crash-*.md`` in the temporary directory; mode
    ``0600`` either way (it holds the command line). The path written, or ``None`` when no
    directory would take it."""
    import platform
    import tempfile
    import traceback

    text = (
        f"### version information\n\nipex-doctor {version}\nPython {sys.version}\n"
        f"{platform.platform()}\nargv: {sys.argv}\n\n### error information\n\n```\n"
        f"{''.join(traceback.format_exception(exc))}```\n"
    )
    try:
        path = resources.cache_dir() / "ipex-doctor-crash.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.replace_file(path, text.encode("utf-8"))
        return str(path)
    except OSError:
        pass
    # NOTE: the temporary directory is shared with other users: a fixed name there could be
    # their link to a file of this user's (written through) or their file (read by them).
    # mkstemp makes a new file (O_EXCL, never through a link), 0600.
    try:
        fd, temporary = tempfile.mkstemp(prefix="ipex-doctor-crash-", suffix=".md")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        return temporary
    except OSError:
        return None
