"""The private per-user state test both kinds of records rely on: real directories and files,
their real modes and owner (as root, a file given to another user)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ipex_doctor import private_state


def test_a_new_directory_is_made_private_and_passes(tmp_path: Path) -> None:
    directory = tmp_path / "state" / "records"
    assert private_state.directory_problem(directory, create=True) is None
    assert directory.stat().st_mode & 0o777 == 0o700


def test_a_directory_open_to_others_says_so_with_its_mode(tmp_path: Path) -> None:
    directory = tmp_path / "records"
    directory.mkdir(mode=0o700)
    directory.chmod(0o750)
    assert private_state.directory_problem(directory, create=True) == (
        "open to other users (mode 750)"
    )


def test_a_file_or_a_link_where_the_directory_should_be_is_no_directory(tmp_path: Path) -> None:
    plain = tmp_path / "records"
    plain.write_text("")
    assert private_state.directory_problem(plain, create=False) == "not a directory"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    link = tmp_path / "linked"
    link.symlink_to(elsewhere)
    assert private_state.directory_problem(link, create=False) == "not a directory"


def test_a_missing_directory_not_to_be_made_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        private_state.directory_problem(tmp_path / "absent", create=False)


def test_a_file_writable_by_others_or_owned_by_another_user_is_not_private(
    tmp_path: Path,
) -> None:
    record = tmp_path / "record.json"
    record.write_text("{}")
    record.chmod(0o644)
    assert private_state.not_private(record.stat(), open_to=0o022) is None
    record.chmod(0o664)
    assert private_state.not_private(record.stat(), open_to=0o022) == (
        "open to other users (mode 664)"
    )
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    record.chmod(0o600)
    os.chown(record, 65534, 65534)
    assert private_state.not_private(record.stat(), open_to=0o022) == "not yours"


def test_an_own_file_is_read_within_its_limit(tmp_path: Path) -> None:
    kept = tmp_path / "kept.json"
    kept.write_bytes(b"x" * 100)
    kept.chmod(0o644)
    assert private_state.read_own_file(kept, 100) == b"x" * 100
    assert private_state.read_own_file(kept, 99) is None
    assert private_state.read_own_file(tmp_path / "absent", 100) is None


def test_no_link_fifo_or_file_others_may_write_is_read(tmp_path: Path) -> None:
    """A link (even to an own file), a FIFO no one writes (never waited on), a file others
    may write: nothing is read."""
    kept = tmp_path / "kept.json"
    kept.write_bytes(b"{}")
    kept.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(kept)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    for path in (link, fifo, zero, tmp_path):
        assert private_state.read_own_file(path, 1 << 20) is None, path
    kept.chmod(0o620)
    assert private_state.read_own_file(kept, 1 << 20) is None
