"""Snapshot files: the installed distributions ``fix`` records before it changes anything.

A snapshot is a small JSON file (``Snapshot.to_dict``), written atomically before the first pip
step, and read back by ``fix --undo`` within limits (``bounded_json``): a file that is missing,
not JSON, beyond the limits, not a snapshot, or whose names and versions are not a
distribution's (a PEP 508 name, a PEP 440 version: a "name" such as ``--find-links=URL`` would
be an option to pip) is a one-line ``SnapshotError``. Both sides give the SHA-256 of the bytes
written or read, by which ``snapshot_origin`` tells the doctor's own snapshots from others'.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ipex_doctor import atomic
from ipex_doctor.bounded_json import JsonLimits, parse_json
from ipex_doctor.errors import DoctorError, read_bounded
from ipex_doctor.knowledge import remedy_policy
from ipex_doctor.model.repair import Snapshot

_LIMITS = JsonLimits(max_bytes=8 * 1024 * 1024)
"""A snapshot takes about 100 bytes a distribution: 50 kB for an environment of 500."""
_FORMAT = Snapshot.__dataclass_fields__["format"].default


class SnapshotError(DoctorError):
    """A snapshot cannot be written or read; the message names the file."""


def write(path: Path, snapshot: Snapshot) -> str:
    """Write ``snapshot`` to ``path`` atomically (a reader never sees half a file); the
    SHA-256 (hex) of the bytes written."""
    data = (json.dumps(snapshot.to_dict(), indent=2) + "\n").encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # NOTE: atomic's write is synced (the snapshot is what an undo needs after a crash) and
        # leaves no temporary file behind when it fails
        atomic.replace_file(path, data)
    except OSError as exc:
        raise SnapshotError(
            f"{path}: cannot write the snapshot ({exc.strerror}); nothing was changed",
            tip="name a writable place with --snapshot PATH",
        ) from None
    return hashlib.sha256(data).hexdigest()


def read(path: Path) -> tuple[Snapshot, str]:
    """The snapshot in ``path`` and the SHA-256 (hex) of the very bytes it was read from (read
    once: a file replaced meanwhile cannot pass another's digest); ``SnapshotError`` with what
    is wrong."""
    text = read_bounded(path, _LIMITS.max_bytes, SnapshotError, "snapshot")
    # NOTE: the text is valid UTF-8 (read_bounded decoded it), so encoding it again gives back
    # exactly the bytes of the file.
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    data = parse_json(text, path, _LIMITS, SnapshotError, "snapshot")
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise SnapshotError(f"{path}: not an ipex-doctor snapshot (format is not {_FORMAT!r})")
    try:
        snapshot = Snapshot.from_dict(data)
    except ValueError as exc:
        raise SnapshotError(f"{path}: not a valid ipex-doctor snapshot ({exc})") from None
    for distribution in snapshot.distributions:
        refusal = remedy_policy.distribution_refusal(distribution.name, distribution.version)
        if refusal is not None:
            raise SnapshotError(f"{path}: not a snapshot ipex-doctor wrote ({refusal}); refused")
    return snapshot, digest
