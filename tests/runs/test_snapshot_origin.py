"""``snapshot_origin``: the doctor's own snapshots told from others' by a private record of
their SHA-256, on real files in a state directory of the test's own."""

from __future__ import annotations

import hashlib
import stat
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
