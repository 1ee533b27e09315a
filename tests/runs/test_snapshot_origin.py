"""``snapshot_origin``: the doctor's own snapshots told from others' by a private record of
their SHA-256, on real files in a state directory of the test's own."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ipex_doctor.model.repair import Snapshot
from ipex_doctor.runs import snapshot_origin, snapshots


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The records' directory under a state directory of this test's (not made yet)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "ipex-doctor" / "fix-snapshots"


def _written(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "s.json"
    return path, snapshots.write(path, Snapshot("/usr/bin/python3", "2026-11-27T00:00:00Z", ()))


def test_a_snapshot_fix_records_is_its_own_and_one_byte_more_is_not(
    tmp_path: Path, records: Path
) -> None:
    path, digest = _written(tmp_path)
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
    assert snapshot_origin.elsewhere(digest) is not None  # nothing recorded yet
    assert not records.exists()  # asking makes nothing
    snapshot_origin.remember(path, digest)
    assert stat.S_IMODE(records.stat().st_mode) == 0o700
    assert snapshot_origin.elsewhere(digest) is None
    path.write_bytes(path.read_bytes() + b" ")
    _, read_digest = snapshots.read(path)
    assert "edited since" in (snapshot_origin.elsewhere(read_digest) or "")


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o705])
def test_a_records_directory_open_to_others_is_refused_both_ways(
    tmp_path: Path, records: Path, mode: int
) -> None:
    path, digest = _written(tmp_path)
    snapshot_origin.remember(path, digest)
    records.chmod(mode)
    for attempt in (lambda: snapshot_origin.remember(path, digest),
                    lambda: snapshot_origin.elsewhere(digest)):  # fmt: skip
        with pytest.raises(snapshot_origin.OriginError, match="is open to other users"):
            attempt()


def test_a_record_others_may_write_vouches_for_nothing(tmp_path: Path, records: Path) -> None:
    path, digest = _written(tmp_path)
    snapshot_origin.remember(path, digest)
    record = records / f"{digest}.json"
    record.chmod(0o620)
    assert "that only you can write" in (snapshot_origin.elsewhere(digest) or "")


def test_a_record_of_other_bytes_vouches_for_nothing(tmp_path: Path, records: Path) -> None:
    """A record file named by the digest must also hold that digest."""
    path, digest = _written(tmp_path)
    snapshot_origin.remember(path, digest)
    record = records / f"{digest}.json"
    record.write_text(record.read_text().replace(digest, "0" * 64))
    assert "not a record of these bytes" in (snapshot_origin.elsewhere(digest) or "")


KEPT = 500
"""The records fix keeps, as docs/fix.md states it: those of its newest 500 snapshots."""


def _digest(tag: str) -> str:
    return hashlib.sha256(tag.encode()).hexdigest()


def _planted(records: Path, count: int) -> list[str]:
    """``count`` records as fix writes them, the first the oldest (a second apart, a day ago)."""
    records.mkdir(parents=True, mode=0o700)
    digests = [_digest(f"old-{index}") for index in range(count)]
    for index, digest in enumerate(digests):
        path = records / f"{digest}.json"
        record = {"format": snapshot_origin.FORMAT, "sha256": digest, "snapshot": f"/s{index}.json"}
        path.write_text(json.dumps(record) + "\n")
        path.chmod(0o600)
        when = time.time() - 86400 + index
        os.utime(path, (when, when))
    return digests


def test_the_records_are_those_of_the_newest_snapshots(tmp_path: Path, records: Path) -> None:
    """A full directory and one more snapshot: the oldest record goes, the new one and every
    other stays, and the snapshot whose record went says why it now reads as from elsewhere.
    Before, every record was kept forever."""
    old = _planted(records, KEPT)
    path, digest = _written(tmp_path)
    snapshot_origin.remember(path, digest)
    assert len(list(records.iterdir())) == KEPT
    assert snapshot_origin.elsewhere(digest) is None
    assert all(snapshot_origin.elsewhere(kept) is None for kept in old[1:])
    assert f"older than the last {KEPT} fix wrote" in (snapshot_origin.elsewhere(old[0]) or "")


def test_names_that_are_not_records_are_left_alone(tmp_path: Path, records: Path) -> None:
    """What is not a record (another writer's temporary file, a note the user left) is
    neither counted nor removed."""
    old = _planted(records, KEPT)
    others = [records / f".{old[0]}.json.abc.tmp", records / "notes.txt"]
    for other in others:
        other.write_text("x")
        os.utime(other, (0, 0))
    path, digest = _written(tmp_path)
    snapshot_origin.remember(path, digest)
    assert all(other.exists() for other in others)
    assert snapshot_origin.elsewhere(old[1]) is None and snapshot_origin.elsewhere(old[0])


REMEMBER = """
import hashlib, sys
from pathlib import Path
from ipex_doctor.runs import snapshot_origin
tag = sys.argv[1]
sys.stdin.read(1)
for index in range(40):
    digest = hashlib.sha256(f"{tag}-{index}".encode()).hexdigest()
    snapshot_origin.remember(Path(f"/{tag}-{index}.json"), digest)
"""


def test_two_fixes_recording_at_once_lose_no_record(records: Path) -> None:
    """Two processes record 40 snapshots each at the same time into a full directory: every
    one of the 80 is kept, the 80 oldest records go, and no more."""
    old = _planted(records, KEPT)
    env = {**os.environ, "XDG_STATE_HOME": str(records.parent.parent)}
    command = [sys.executable, "-c", REMEMBER]
    writers = [
        subprocess.Popen([*command, tag], stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        for tag in ("a", "b")
    ]
    for writer in writers:  # NOTE: both are started before either begins
        assert writer.stdin is not None
        writer.stdin.write(b"g")
        writer.stdin.close()
    for writer in writers:
        assert writer.stderr is not None
        error = writer.stderr.read()
        assert writer.wait(timeout=300) == 0, error.decode()[-2000:]
    new = [_digest(f"{tag}-{index}") for tag in ("a", "b") for index in range(40)]
    assert [d for d in new if snapshot_origin.elsewhere(d) is not None] == []
    assert sorted(path.name for path in records.iterdir()) == sorted(
        f"{digest}.json" for digest in [*new, *old[80:]]
    )
