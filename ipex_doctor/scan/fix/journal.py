"""The undo record of a ``scan --fix`` run: what it rewrote, written before its first write.

A record holds, for each file the run rewrites, its place (a resolved root directory and the
path below it), its device and inode, and its bytes before and after the fix (base64) with
their SHA-256; its shape is ``fix_record.schema.json``. It lives in the doctor's state
directory, ``$XDG_STATE_HOME/ipex-doctor/fixes/`` (else ``~/.local/state/ipex-doctor/fixes/``),
which is private: created ``0700``, and refused when it is not this user's or is open to
others, since a record holds copies of the user's files. Every write of a record is atomic
(a temporary file, fsynced, renamed, the directory fsynced).

A run writes its record as ``fix-TIME-ID.applying.json`` (state ``applying``) before the first
file, and ``fix-TIME-ID.json`` (state ``applied``) once every file is written, removing the
first. A run killed in between (SIGKILL, power loss) leaves the ``.applying`` record: the next
scan of that tree finds it (``stopped_runs``) and says how to restore. ``ipex-doctor scan
--undo RECORD`` marks a record ``undone`` once every file is as it was.

A record given to ``--undo`` is a file from elsewhere like any other: it must be a regular
file of this user that no one else may write, of the schema's shape, each path a plain path
below its root, each file's bytes matching their checksums (``load``). Nothing in it is ever
executed; its paths are only ever opened below their roots (``confined``).
"""

from __future__ import annotations

import base64
import binascii
import enum
import functools
import hashlib
import json
import os
import secrets
import stat
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ipex_doctor import __version__, atomic, private_state, resources
from ipex_doctor.bounded_json import JsonLimits, parse_json
from ipex_doctor.errors import DoctorError
from ipex_doctor.knowledge import schema
from ipex_doctor.scan.fix.confined import Place, PlaceError, check_place, check_root
from ipex_doctor.scan.fix.quoting import quote_name
from ipex_doctor.scan.fix.record_names import PENDING_SUFFIX, is_pending
from ipex_doctor.scan.fix.record_names import records_dir as records_dir
from ipex_doctor.scan.read.discovery import inside

FORMAT = "ipex-doctor scan --fix record"
MAX_RECORD_BYTES = 1 << 30
"""A larger file is no record (the scan reads files up to 100 MiB; a record holds two copies)."""
_RECORD_LIMITS = JsonLimits(max_bytes=MAX_RECORD_BYTES, max_values=1 << 24)
"""Read within limits like every saved JSON file (``bounded_json``): a record has ten values a
file, so 16,777,216 values are 1.6 million files."""


class RecordError(DoctorError):
    """A record that cannot be written (then nothing is rewritten) or is refused as a record
    (its shape, its owner, its paths); the message is one line naming it."""


class RecordState(enum.Enum):
    """Where a run's rewrites stand."""

    APPLYING = "applying"
    """Written before the first write: the run may have stopped with some files written."""
    APPLIED = "applied"
    UNDONE = "undone"


@dataclass(frozen=True)
class RecordedFile:
    """One file a run rewrote."""

    place: Place
    display: str
    """Its path as the scan reported it."""
    device: int
    inode: int
    before: bytes
    after: bytes

    @property
    def sha256_before(self) -> str:
        return hashlib.sha256(self.before).hexdigest()

    @property
    def sha256_after(self) -> str:
        return hashlib.sha256(self.after).hexdigest()


@dataclass(frozen=True)
class Record:
    """An undo record, where it is on disk."""

    path: Path
    state: RecordState
    roots: tuple[str, ...]
    files: tuple[RecordedFile, ...]
    created_at: str = ""
    doctor_version: str = __version__

    @property
    def final_path(self) -> Path:
        """Where the record lives once its run is over."""
        name = self.path.name
        return (
            self.path.with_name(name.removesuffix(PENDING_SUFFIX) + ".json")
            if is_pending(name)
            else self.path
        )


def begin(roots: Sequence[str], files: Sequence[RecordedFile]) -> Record:
    """Write the record of a run about to rewrite ``files`` (state ``applying``); ``RecordError``
    when it cannot be written (then nothing may be rewritten)."""
    directory = _private_dir()
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    name = f"fix-{stamp}-{secrets.token_hex(4)}{PENDING_SUFFIX}"
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    record = Record(directory / name, RecordState.APPLYING, tuple(roots), tuple(files), created)
    _write(record.path, record)
    return record


def finish(record: Record, state: RecordState) -> Record:
    """``record`` in ``state``, written at its final path (a pending one removed)."""
    done = replace(record, path=record.final_path, state=state)
    _write(done.path, done)
    if done.path != record.path:
        record.path.unlink(missing_ok=True)
        atomic.sync_directory(record.path.parent)
    return done


def discard(record: Record) -> None:
    """Remove the record of a run that rewrote nothing after all."""
    record.path.unlink(missing_ok=True)
    atomic.sync_directory(record.path.parent)


def load(path: Path) -> Record:
    """The record at ``path``, checked (see the module docstring); ``RecordError`` (one line,
    exit 2) naming what is wrong."""
    data = _read_own(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RecordError(f"{path}: not a scan --fix record (not JSON: {error})") from None
    document = parse_json(text, path, _RECORD_LIMITS, RecordError, "scan --fix record")
    found = schema.errors(document, _schema())
    if found:
        where = "/".join(str(part) for part in found[0].path) or "the document"
        raise RecordError(f"{path}: not a scan --fix record ({where}: {found[0].message})")
    roots = tuple(document["roots"])
    files = tuple(_file(path, roots, entry) for entry in document["files"])
    if len({file.place for file in files}) != len(files):
        raise RecordError(f"{path}: not a scan --fix record (a file is listed twice)")
    return Record(
        path, RecordState(document["state"]), roots, files, document["created_at"],
        document["doctor_version"],
    )  # fmt: skip


def stopped_runs(roots: Iterable[Path]) -> tuple[list[Record], list[str]]:
    """The records of runs over any of ``roots`` that stopped while rewriting (still
    ``applying``), and why any such record could not be read (one line each)."""
    directory = records_dir()
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return [], []
    scanned = [os.path.realpath(root) for root in roots]
    found: list[Record] = []
    problems: list[str] = []
    for name in names:
        if not is_pending(name):
            continue
        try:
            record = load(directory / name)
        except RecordError as error:
            problems.append(error.message)
            continue
        if record.final_path.exists():
            continue  # NOTE: the run finished; only removing the pending copy was cut short
        if any(inside(a, b) or inside(b, a) for a in record.roots for b in scanned):
            found.append(record)
    return found, problems


# -- on disk ---------------------------------------------------------------------------------


def _private_dir() -> Path:
    """The records' directory, made private if new; ``RecordError`` when it is not this user's
    or is open to others."""
    directory = records_dir()
    try:
        why = private_state.directory_problem(directory, create=True)
    except OSError as error:
        raise RecordError(
            f"cannot keep the undo record in {directory} ({error.strerror}); nothing was rewritten",
            tip="set XDG_STATE_HOME to a directory you can write",
        ) from None
    if why is not None:
        raise RecordError(
            f"{directory} is {why}, and undo records hold copies of your files; nothing was "
            "rewritten",
            tip=f"chmod 700 {directory}" if "other users" in why else None,
        )
    return directory


def _write(path: Path, record: Record) -> None:
    """``record`` at ``path``, atomically and durably, readable by this user alone."""
    text = json.dumps(_document(record), indent=1) + "\n"
    try:
        atomic.replace_file(path, text.encode("utf-8"))
    except OSError as error:
        raise RecordError(f"cannot write the undo record {path} ({error.strerror})") from None


def _document(record: Record) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": 1,
        "doctor_version": record.doctor_version,
        "created_at": record.created_at,
        "state": record.state.value,
        "roots": list(record.roots),
        "files": [
            {
                "root": file.place.root,
                "path": file.place.relative,
                "display": file.display,
                "device": file.device,
                "inode": file.inode,
                "sha256_before": file.sha256_before,
                "sha256_after": file.sha256_after,
                "before": base64.b64encode(file.before).decode("ascii"),
                "after": base64.b64encode(file.after).decode("ascii"),
            }
            for file in record.files
        ],
    }


def _read_own(path: Path) -> bytes:
    """The bytes of a record file this user owns and no one else may write."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise RecordError(f"{path}: cannot read the record ({error.strerror})") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise RecordError(f"{path}: not a regular file, so no scan --fix record")
        why = private_state.not_private(status, open_to=0o022)
        if why is not None:
            raise RecordError(
                f"{path}: {why}, so it may not be what your scan --fix wrote; refused",
                tip=None if "not yours" in why else f"check it, then chmod go-w {path}",
            )
        if status.st_size > MAX_RECORD_BYTES:
            raise RecordError(f"{path}: larger than {MAX_RECORD_BYTES >> 20} MiB; not a record")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as error:
        raise RecordError(f"{path}: cannot read the record ({error.strerror})") from None
    finally:
        os.close(fd)


@functools.cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(resources.read_text("scan/fix/fix_record.schema.json"))
    return loaded


def _file(path: Path, roots: Sequence[str], entry: dict[str, Any]) -> RecordedFile:
    """One file of a record, checked: its place below one of the record's roots, its bytes
    matching their checksums."""
    place = Place(entry["root"], tuple(entry["path"].split("/")))
    try:
        check_place(place)
        for root in roots:
            check_root(root)
    except PlaceError as error:
        raise RecordError(f"{path}: {entry['path']!r}: {error.reason}; refused") from None
    if place.root not in roots:
        raise RecordError(
            f"{path}: {quote_name(place.path)} is not below a root of the record; refused"
        )
    try:
        before = base64.b64decode(entry["before"], validate=True)
        after = base64.b64decode(entry["after"], validate=True)
    except (binascii.Error, ValueError):
        raise RecordError(
            f"{path}: the recorded bytes of {quote_name(place.path)} are not base64; refused"
        ) from None
    file = RecordedFile(place, entry["display"], entry["device"], entry["inode"], before, after)
    if (file.sha256_before, file.sha256_after) != (entry["sha256_before"], entry["sha256_after"]):
        raise RecordError(
            f"{path}: the recorded bytes of {quote_name(place.path)} do not match their checksums"
        )
    return file
