"""Which snapshots are the doctor's own: ``fix`` records each one it writes, by its SHA-256.

A snapshot is a plain file the user may move, share or download, and ``fix --undo`` acts on
what it names: it installs the distributions the snapshot has that are absent now, and
uninstalls what it leaves out. So its bytes are not enough to tell whether this user's doctor
wrote it. ``remember`` keeps, for each snapshot ``fix`` writes, a small record named by the
snapshot's SHA-256 (holding that digest and where the snapshot was written) in a private
per-user directory, ``state_dir()/fix-snapshots``: made ``0700`` if new, refused when it is not
this user's or is open to others (anyone who could write there could vouch for any file), as
``scan --fix``'s records' directory is. Each record is written atomically, and only the newest
``KEEP`` are kept (each ``remember`` removes the oldest beyond them): the snapshot of an older
fix then reads as from elsewhere, and the reason says so.

``elsewhere`` answers for a snapshot read back: ``None`` when a record of its digest is there
(the doctor's own), else why it is from elsewhere. A snapshot downloaded, another user's,
edited since by even a byte, or written when no record could be kept has no record of its
digest. Nothing read here is ever run: a record only says yes or no.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from ipex_doctor import atomic, private_state, resources
from ipex_doctor.errors import DoctorError
from ipex_doctor.model.findings import now_utc

FORMAT = "ipex-doctor-snapshot-record"
_SHA256_HEX = 64
KEEP = 500
"""How many records are kept: those of the newest snapshots (by when each was written). A
``fix`` is a deliberate repair, run a few times a month on a busy machine, and its undo is
wanted soon after: 500 is more than one a day for a year, while the directory stays under
2 MiB even where each record (about 200 bytes) takes a 4 KiB block."""


class OriginError(DoctorError):
    """The records' directory cannot be used; the message names it (exit 2)."""


def records_dir() -> Path:
    """Where the records are: ``state_dir()/fix-snapshots`` (read from the environment on
    every call, as ``state_dir`` is)."""
    return resources.state_dir() / "fix-snapshots"


def remember(snapshot: Path, digest: str) -> None:
    """Record that ``fix`` wrote ``snapshot``, whose bytes have SHA-256 ``digest`` (hex).
    ``OriginError`` when the directory is not private or the record cannot be written."""
    directory = private_dir(create=True)
    record = {"format": FORMAT, "sha256": digest, "snapshot": str(snapshot), "written": now_utc()}
    path = _record_path(directory, digest)
    try:
        atomic.replace_file(path, (json.dumps(record) + "\n").encode())
    except OSError as error:
        raise OriginError(
            f"cannot record the snapshot in {directory} ({error.strerror}); nothing was changed",
            tip="set XDG_STATE_HOME to a directory you can write",
        ) from None
    try:
        _prune(directory, keep=path.name)
    except OSError:
        # NOTE: the record is written and the snapshot is this user's; the oldest records
        # stay one fix longer, and the next fix prunes them (a failure here changes nothing).
        pass


def elsewhere(digest: str) -> str | None:
    """``None`` when a snapshot whose bytes have SHA-256 ``digest`` is one ``fix`` recorded
    writing; else why it counts as from elsewhere. ``OriginError`` when the records'
    directory is there but not private."""
    directory = private_dir(create=False) if records_dir().exists() else None
    nowhere = f"your ipex-doctor fix recorded writing no snapshot with these bytes (downloaded, another user's, edited since, or older than the last {KEEP} fix wrote)"  # fmt: skip
    if directory is None:
        return nowhere
    path = _record_path(directory, digest)
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return nowhere
    except OSError as error:
        raise OriginError(f"cannot read the snapshot record {path} ({error.strerror})") from None
    if (
        not stat.S_ISREG(status.st_mode)
        or private_state.not_private(status, open_to=0o022) is not None
    ):
        return f"its record {path} is not a regular file of yours that only you can write"
    try:
        with open(path, "rb") as stream:
            data = json.loads(stream.read(4096))
    except (OSError, ValueError):
        return f"its record {path} cannot be read"
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("sha256") != digest:
        return f"its record {path} is not a record of these bytes"
    return None


def private_dir(*, create: bool) -> Path:
    """The records' directory, made ``0700`` if new (with ``create``); ``OriginError`` when it
    cannot be made or read, is not a directory, is not this user's, or is open to others."""
    directory = records_dir()
    try:
        why = private_state.directory_problem(directory, create=create)
    except OSError as error:
        raise OriginError(
            f"cannot keep the snapshot records in {directory} ({error.strerror}); nothing was changed",  # fmt: skip
            tip="set XDG_STATE_HOME to a directory you can write",
        ) from None
    if why is not None:
        # NOTE: anyone who could write there could make any snapshot pass as the doctor's own.
        raise OriginError(
            f"{directory} is {why}, and it vouches for the snapshots fix wrote; nothing was changed",  # fmt: skip
            tip=f"chmod 700 {directory}" if "other users" in why else None,
        )
    return directory


def _prune(directory: Path, *, keep: str) -> None:
    """Remove the oldest records (by modification time: when each was last written) beyond
    the newest ``KEEP``, never the record named ``keep`` (the one just written, even where the
    clock went back). ``OSError`` when the directory cannot be listed or a record removed.

    Two ``fix`` runs may prune at once: each removes only whole records, never a name that
    is not one (another writer's temporary file becomes a record only by its rename), so
    neither loses the record the other just wrote (newer than every one either removes), and
    a record both remove is simply gone."""
    records: list[tuple[int, str]] = []
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.name == keep or not _is_record_name(entry.name):
                continue
            try:
                status = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue  # NOTE: another fix pruned it meanwhile
            if stat.S_ISREG(status.st_mode):
                records.append((status.st_mtime_ns, entry.name))
    excess = len(records) + 1 - KEEP
    if excess <= 0:
        return
    for _, name in sorted(records)[:excess]:
        (directory / name).unlink(missing_ok=True)
    atomic.sync_directory(directory)


def _is_record_name(name: str) -> bool:
    digest, dot, suffix = name.partition(".")
    return dot == "." and suffix == "json" and _is_sha256_hex(digest)


def _is_sha256_hex(digest: str) -> bool:
    return len(digest) == _SHA256_HEX and all(c in "0123456789abcdef" for c in digest)


def _record_path(directory: Path, digest: str) -> Path:
    if not _is_sha256_hex(digest):
        raise ValueError(f"not a SHA-256 in hex: {digest!r}")
    return directory / f"{digest}.json"
