"""The undo record of ``scan --fix``: written where only its user can read it, read back as
it was written, found again when its run stopped mid-way, and refused when it is not what a
run wrote."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import run_doctor

from ipex_doctor.scan.fix.confined import Place
from ipex_doctor.scan.fix.journal import (
    RecordedFile,
    RecordError,
    RecordState,
    begin,
    finish,
    load,
    records_dir,
    stopped_runs,
)


@pytest.fixture(autouse=True)
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


def _file(root: str, name: str = "a.py") -> RecordedFile:
    return RecordedFile(Place(root, ("pkg", name)), f"pkg/{name}", 1, 2, b"old\r\n", b"new\n")


def test_a_record_is_private_and_reads_back_as_written(tmp_path: Path) -> None:
    """The directory is 0700 and the record 0600; loading gives the same files, bytes
    included; finishing moves it to its final name and state."""
    record = begin(["/src"], [_file("/src"), _file("/src", "b.py")])
    assert stat.S_IMODE(records_dir().stat().st_mode) == 0o700
    assert stat.S_IMODE(record.path.stat().st_mode) == 0o600
    assert record.path.name.endswith(".applying.json") and record.state is RecordState.APPLYING
    loaded = load(record.path)
    assert loaded.files == record.files and loaded.roots == ("/src",)
    done = finish(record, RecordState.APPLIED)
    assert not record.path.exists() and done.path == record.final_path
    assert load(done.path).state is RecordState.APPLIED
    assert [p.name for p in records_dir().iterdir()] == [done.path.name]


def test_a_directory_open_to_others_takes_no_record(tmp_path: Path) -> None:
    """Records hold copies of the user's files: a records directory others may enter is
    refused (one line, with the chmod that fixes it), and no record is written there."""
    records_dir().mkdir(parents=True)
    records_dir().chmod(0o755)
    with pytest.raises(RecordError) as caught:
        begin(["/src"], [_file("/src")])
    assert "open to other users" in caught.value.message and "chmod 700" in str(caught.value)
    assert list(records_dir().iterdir()) == []


def test_a_stopped_run_is_found_by_the_scans_of_its_tree(tmp_path: Path) -> None:
    """A record left ``applying`` is found by a scan of its root, of a directory above it or
    of a file below it, not by a scan elsewhere; once finished it is not found."""
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    record = begin([str(root)], [_file(str(root))])
    assert [r.path for r in stopped_runs([root])[0]] == [record.path]
    assert stopped_runs([tmp_path])[0] and stopped_runs([root / "pkg" / "a.py"])[0]
    assert stopped_runs([tmp_path / "elsewhere"]) == ([], [])
    finish(record, RecordState.APPLIED)
    assert stopped_runs([root]) == ([], [])


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: d.update(format="something else"), "format"),
        (lambda d: d["files"][0].update(path="pkg/../../etc/passwd"), "not a plain path"),
        (lambda d: d["files"][0].update(root="relative/root"), "absolute path"),
        (lambda d: d["files"][0].update(sha256_before="0" * 64), "do not match"),
        (lambda d: d["files"][0].update(before="not base64!"), "not base64"),
        (lambda d: d["files"].append(d["files"][0]), "listed twice"),
        (lambda d: d["files"][0].update(device=-1), "device"),
    ],
)
def test_a_record_that_is_not_what_a_run_wrote_is_refused(
    change: Callable[[dict[str, Any]], object], said: str
) -> None:
    """Shape, paths, bytes: each is checked before anything is opened below a root."""
    record = begin(["/src"], [_file("/src")])
    document = json.loads(record.path.read_text())
    change(document)
    record.path.write_text(json.dumps(document))
    with pytest.raises(RecordError) as caught:
        load(record.path)
    assert said in caught.value.message and "\n" not in caught.value.message


def test_a_record_anyone_else_may_write_is_refused(tmp_path: Path) -> None:
    record = begin(["/src"], [_file("/src")])
    record.path.chmod(0o620)
    with pytest.raises(RecordError, match="open to other users"):
        load(record.path)
    if os.geteuid() == 0:
        record.path.chmod(0o600)
        os.chown(record.path, 4321, 4321)
        with pytest.raises(RecordError, match="not yours"):
            load(record.path)


@pytest.mark.parametrize(
    ("padding", "said"),
    [("[" * 100_000 + "]" * 100_000, "nested deeper than 64 levels"),
     ("1" * 100_000, "holds a number of 100,000 characters")],
    ids=["deep", "digits"],
)  # fmt: skip
def test_a_record_beyond_the_limits_of_saved_json_is_one_line(padding: str, said: str) -> None:
    """A record nested 100,000 levels deep, or with a 100,000-digit number: ``scan --undo``
    refuses it in one line, exit 2, as every reader of saved JSON does (it was a crash,
    exit 3: RecursionError)."""
    record = begin(["/src"], [_file("/src")])
    text = record.path.read_text().replace('"format"', f'"padding": {padding}, "format"', 1)
    record.path.write_text(text)
    with pytest.raises(RecordError, match=said):
        load(record.path)
    done = run_doctor("scan", "--undo", str(record.path))
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.splitlines() == [
        f"ipex-doctor: error: {record.path}: {said}; refused (an ipex-doctor scan --fix record "
        "never is)" if said.startswith("nested") else
        f"ipex-doctor: error: {record.path}: {said}, more than 50; refused (an ipex-doctor "
        "scan --fix record never is)"
    ]  # fmt: skip


def test_what_a_forged_record_says_of_itself_cannot_forge_the_list_undo_shows() -> None:
    """A record's roots and date are its own words: a line break or an escape sequence in them
    is shown quoted, so no line of what ``scan --undo`` lists (what approval restores) comes
    from the record's text. Before, they were shown raw: a forged line "restored /etc/passwd"."""
    forged_root = "/src\n  restored    /etc/passwd"
    record = begin([forged_root], [_file(forged_root)])
    data = json.loads(record.path.read_text())
    data["created_at"] = "\x1b[2K\r  restored    /etc/shadow"
    record.path.write_text(json.dumps(data))
    done = run_doctor("scan", "--undo", str(record.path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "\x1b" not in done.stdout and "\r" not in done.stdout
    assert not [line for line in done.stdout.splitlines() if line.startswith("  restored")]
    assert done.stdout.startswith(
        'The scan --fix of "/src\\n  restored    /etc/passwd" ("\\033[2K\\r  restored    '
        '/etc/shadow"), from '
    ), done.stdout


def test_a_refused_record_names_its_files_quoted() -> None:
    """The refusal of a record whose file lies below no root it lists names that file quoted:
    the path is the record's own words, and an escape sequence in it must not reach the
    terminal (before, it was printed raw)."""
    record = begin(["/src"], [_file("/src")])
    data = json.loads(record.path.read_text())
    data["files"][0]["root"] = "/elsewhere\x1b[2K\r"
    record.path.write_text(json.dumps(data))
    done = run_doctor("scan", "--undo", str(record.path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "\x1b" not in done.stderr and "\r" not in done.stderr
    assert '"/elsewhere\\033[2K\\r' in done.stderr, done.stderr
