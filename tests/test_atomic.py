"""``atomic.replace_file``: a file whole or not at all, on both of its paths (by directory
descriptor, and by name where the platform has none: Windows), and, given the caller's open
directory, into that directory whatever its path has come to lead to."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from ipex_doctor import atomic


@pytest.fixture(params=[True, False], ids=["descriptors", "by-name"])
def descriptors(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    if request.param and not atomic.DIRECTORY_DESCRIPTORS:
        pytest.skip("this platform has no directory descriptors")
    monkeypatch.setattr(atomic, "DIRECTORY_DESCRIPTORS", request.param)
    return bool(request.param)


def test_the_new_content_replaces_the_old_whole(tmp_path: Path, descriptors: bool) -> None:
    target = tmp_path / "report.json"
    target.write_text("old and longer than the new one\n")
    atomic.replace_file(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600  # mkstemp's, unless a mode is given
    atomic.replace_file(target, [b"in ", b"pieces\n"], mode=0o644)
    assert target.read_bytes() == b"in pieces\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_a_failure_while_writing_leaves_the_old_file_and_no_temporary_one(
    tmp_path: Path, descriptors: bool
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old\n")

    def pieces() -> Iterator[bytes]:
        yield b"half of the new"
        raise RuntimeError("the renderer failed")

    with pytest.raises(RuntimeError):
        atomic.replace_file(target, pieces())
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    with pytest.raises(FileNotFoundError):
        atomic.replace_file(tmp_path / "missing" / "report.json", b"x")


def test_with_the_callers_open_directory_the_file_goes_there_whatever_its_path_leads_to(
    tmp_path: Path,
) -> None:
    """The caller judged and opened ``reports``; the name is then swapped for a link to a
    directory elsewhere: the file is written into the directory that was opened."""
    if not atomic.DIRECTORY_DESCRIPTORS:
        pytest.skip("this platform has no directory descriptors")
    judged = tmp_path / "reports"
    judged.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    fd = os.open(judged, os.O_RDONLY | os.O_DIRECTORY)
    try:
        judged.rename(tmp_path / "moved")
        judged.symlink_to(elsewhere)
        atomic.replace_file(judged / "doctor.json", b"{}\n", directory_fd=fd)
    finally:
        os.close(fd)
    assert (tmp_path / "moved" / "doctor.json").read_bytes() == b"{}\n"
    assert list(elsewhere.iterdir()) == []
