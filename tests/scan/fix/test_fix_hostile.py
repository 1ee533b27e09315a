"""``scan --fix`` against a hostile tree and a hostile world, end to end as a user runs it.

Links out of the tree, a link swapped in between planning and writing, files the user may not
write (read-only, another user's in a writable directory: run as an unprivileged user, see
``unprivileged``), what a file must keep (owner, group, mode, extended attributes, hard links,
a writer holding it open), notebooks holding the doctor's old marker texts or a malformed
cell, Ctrl-C and SIGTERM in the middle of the writes, a report that cannot be written, SIGKILL
mid-way and the next scan, and undo records edited or forged. In each: no traceback, at most
one error line, the exit code the README documents, nothing outside the tree or not writable
changed (checksums and ``stat`` before and after), and every file wholly old or wholly new.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import doctor_env, make_fake_env
from unprivileged import Someone

from ipex_doctor.scan.fix import confined
from ipex_doctor.scan.fix import journal as fix_journal
from ipex_doctor.scan.fix import run as fix_run
from ipex_doctor.scan.fix.rewrite import FixError

SAMPLE = "import torch\nwith torch.xpu.amp.autocast():\n    pass\n"
FIXED = (
    'import torch\nwith torch.amp.autocast("xpu", dtype=torch.bfloat16, cache_enabled=True):\n'
    "    pass\n"
)
LINK_OUT = "a symbolic link out of the scanned tree: not followed"


# -- helpers ---------------------------------------------------------------------------------


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _state(path: Path) -> tuple[Any, ...]:
    """Everything of a file a write could change: its bytes (SHA-256), mode, owner, group,
    inode, links, size, times, extended attributes."""
    status = os.lstat(path)
    data = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(status.st_mode) else ""
    try:
        names = sorted(os.listxattr(path, follow_symlinks=False))
        xattrs = {name: os.getxattr(path, name, follow_symlinks=False) for name in names}
    except OSError:
        xattrs = {}
    return (data, status.st_mode, status.st_uid, status.st_gid, status.st_ino,
            status.st_nlink, status.st_size, status.st_mtime_ns, status.st_ctime_ns, xattrs)  # fmt: skip


def _states(*roots: Path) -> dict[str, tuple[Any, ...]]:
    """The state of every file and link under ``roots`` (and of the roots' listings)."""
    found: dict[str, tuple[Any, ...]] = {}
    for root in roots:
        for path in sorted([root, *root.rglob("*")]):
            found[str(path)] = _state(path) if not path.is_dir() or path.is_symlink() else (
                tuple(sorted(p.name for p in path.iterdir())),)  # fmt: skip
    return found


def _gate(report: dict[str, Any]) -> int:
    """The exit code the README documents for this report: 1 when a finding fails."""
    statuses = {f["status"] for f in report["findings"] if f.get("ignored") is None}
    return 1 if statuses & {"fail", "error"} else 0


def _clean(stderr: str) -> None:
    """No traceback, and at most one error line."""
    assert "Traceback" not in stderr, stderr
    assert stderr.count("ipex-doctor: error:") <= 1, stderr


@pytest.fixture
def state_home(tmp_path: Path) -> Path:
    """Where the runs of a test keep their undo records ($XDG_STATE_HOME)."""
    return tmp_path / "state"


@pytest.fixture
def python(tmp_path: Path) -> str:
    """An examined environment with torch (a fake venv): findings are judged, deterministic."""
    return make_fake_env(tmp_path / "env", {"torch": ("2.8.0", "")})


def _scan(
    state_home: Path, python: str, *args: str, cwd: Path | None = None
) -> tuple[int, dict[str, Any] | None, str]:
    """``ipex-doctor scan ARGS --python PYTHON --json -``: exit code, report (if any), stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", "scan", *args, "--python", python, "--json", "-"],
        capture_output=True, text=True, timeout=600, cwd=cwd, stdin=subprocess.DEVNULL,
        env=doctor_env({"XDG_STATE_HOME": str(state_home)}), check=False,
    )  # fmt: skip
    _clean(done.stderr)
    report = json.loads(done.stdout) if done.stdout.strip() else None
    return done.returncode, report, done.stderr


def _doctor(state_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``ipex-doctor ARGS`` with the test's state directory; its outcome, checked clean."""
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", *args], capture_output=True, text=True,
        timeout=600, stdin=subprocess.DEVNULL,
        env=doctor_env({"XDG_STATE_HOME": str(state_home)}), check=False,
    )  # fmt: skip
    _clean(done.stderr)
    return done


def _records(state_home: Path) -> list[Path]:
    directory = state_home / "ipex-doctor" / "fixes"
    return sorted(directory.glob("fix-*.json")) if directory.is_dir() else []


def _rewritten(report: dict[str, Any]) -> list[str]:
    return [f["path"] for f in report["scan"]["fix"]["rewritten"]]


# -- links -----------------------------------------------------------------------------------


@pytest.mark.parametrize("link", ["file", "directory"])
def test_a_link_out_of_the_tree_is_neither_read_nor_written(
    tmp_path: Path, state_home: Path, python: str, link: str
) -> None:
    """``x.py -> ../outside/secret.py`` (or ``pkg -> ../outside``) is skipped with its reason:
    the file outside is not read (no finding) and not written; the tree's own file is fixed."""
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    _write(tree, {"a.py": SAMPLE})
    _write(outside, {"secret.py": SAMPLE})
    name = "x.py" if link == "file" else "pkg"
    os.symlink(outside / "secret.py" if link == "file" else outside, tree / name)
    before = _states(outside)
    code, report, _ = _scan(state_home, python, str(tree), "--fix")
    assert report is not None and code == _gate(report) == 0
    assert {"path": name, "reason": LINK_OUT} in report["scan"]["skipped"]
    assert _rewritten(report) == ["a.py"] and (tree / "a.py").read_text() == FIXED
    assert _states(outside) == before


@pytest.mark.parametrize("swapped", ["the file", "a directory on its path"])
def test_a_link_swapped_in_after_planning_changes_nothing(
    tmp_path: Path, swapped: str, state_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the plan and the writes, a planned file (or a directory above it) becomes a link
    to a file outside: that write is refused, the file already written is put back, nothing
    outside changes, and no record is left: nothing changed."""
    # NOTE: a state directory of its own: other tests in this process keep records in the shared one
    monkeypatch.setenv("XDG_STATE_HOME", str(state_home))
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    _write(tree, {"a.py": SAMPLE, "pkg/b.py": SAMPLE})
    _write(outside, {"b.py": SAMPLE})
    wanted = {"a.py": {"autocast-xpu"}, "pkg/b.py": {"autocast-xpu"}}
    fix_plan = fix_run.plan([tree], wanted)
    assert len(fix_plan.changes) == 2
    if swapped == "the file":
        (tree / "pkg" / "b.py").unlink()
        os.symlink(outside / "b.py", tree / "pkg" / "b.py")
    else:
        shutil.rmtree(tree / "pkg")
        os.symlink(outside, tree / "pkg")
    before = _states(outside, tree)
    with pytest.raises(FixError) as caught:
        fix_run.commit(fix_plan)
    assert "nothing was rewritten" in caught.value.message
    after = _states(outside, tree)
    a_py = str(tree / "a.py")
    # NOTE: a.py was written, then put back: all as it was but its status-change time
    assert after.pop(a_py)[:8] == before.pop(a_py)[:8]
    assert after == before
    assert (tree / "a.py").read_text() == SAMPLE
    assert not list(fix_journal.records_dir().glob("fix-*"))


@pytest.mark.parametrize("change", ["grown", "truncated", "replaced by a new file"])
def test_a_file_changed_after_planning_changes_nothing(
    tmp_path: Path, change: str, state_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the plan and the writes, a planned file grows, is cut short, or is replaced by
    another file of the same text (an editor's save): that write is refused as changed since
    it was read, the file already written is put back, no record is left."""
    monkeypatch.setenv("XDG_STATE_HOME", str(state_home))
    tree = tmp_path / "tree"
    _write(tree, {"a.py": SAMPLE, "b.py": SAMPLE})
    fix_plan = fix_run.plan([tree], {"a.py": {"autocast-xpu"}, "b.py": {"autocast-xpu"}})
    assert len(fix_plan.changes) == 2
    b_py = tree / "b.py"
    if change == "grown":
        with b_py.open("a") as handle:
            handle.write("# appended\n")
    elif change == "truncated":
        os.truncate(b_py, 10)
    else:
        (tree / "b.new").write_text(SAMPLE)
        os.replace(tree / "b.new", b_py)
    kept = b_py.read_bytes()
    with pytest.raises(FixError) as caught:
        fix_run.commit(fix_plan)
    assert caught.value.message.startswith("b.py: changed on disk since it was read")
    assert "nothing was rewritten" in caught.value.message
    assert (tree / "a.py").read_text() == SAMPLE and b_py.read_bytes() == kept
    assert not list(fix_journal.records_dir().glob("fix-*"))


# -- what the user may write, and what a file keeps ------------------------------------------


def test_a_read_only_file_is_left_alone_even_by_root(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """A file whose mode lets nobody write it is refused, with its reason, whoever runs the
    fix (root may write it: the mode says the user wants it kept); the other file is fixed."""
    tree = tmp_path / "tree"
    _write(tree, {"a.py": SAMPLE, "locked.py": SAMPLE})
    (tree / "locked.py").chmod(0o444)
    before = _state(tree / "locked.py")
    code, report, stderr = _scan(state_home, python, str(tree), "--fix")
    assert report is not None and code == _gate(report) == 1  # locked.py keeps its finding
    assert _rewritten(report) == ["a.py"]
    assert report["scan"]["fix"]["left_alone"] == [
        {"path": "locked.py", "reason": confined.READ_ONLY}
    ]
    assert f"left alone: locked.py: {confined.READ_ONLY}" in stderr
    assert _state(tree / "locked.py") == before


def test_owner_group_mode_xattrs_and_open_writers_are_kept(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """The new text goes into the same inode: its owner, group, mode and extended attribute
    are those it had, and a writer that held it open appends its later line to the fixed
    text."""
    tree = tmp_path / "tree"
    _write(tree, {"train.py": SAMPLE})
    path = tree / "train.py"
    path.chmod(0o640)
    if os.geteuid() == 0:
        os.chown(path, 4321, 1234)
    try:
        os.setxattr(path, "user.origin", b"kept")
        xattrs = {"user.origin": b"kept"}
    except OSError:
        xattrs = {}  # NOTE: a file system without user extended attributes
    writer = open(path, "ab")  # noqa: SIM115 - held open across the fix, as an editor would
    try:
        before = os.stat(path)
        code, report, _ = _scan(state_home, python, str(tree), "--fix")
        writer.write(b"# written later by the writer\n")
    finally:
        writer.close()
    assert report is not None and code == 0 and _rewritten(report) == ["train.py"]
    after = os.stat(path)
    assert path.read_text() == FIXED + "# written later by the writer\n"
    kept = ("st_ino", "st_dev", "st_mode", "st_uid", "st_gid", "st_nlink")
    assert [getattr(after, k) for k in kept] == [getattr(before, k) for k in kept]
    assert {n: os.getxattr(path, n) for n in os.listxattr(path)} == xattrs


@pytest.mark.parametrize("where", ["outside the tree", "inside the tree"])
def test_a_file_with_another_name_is_left_alone_saying_so(
    tmp_path: Path, state_home: Path, python: str, where: str
) -> None:
    """A file with a second name (a hard link: a ``cp -l`` backup, a package cache's copy) is
    left alone with its reason, wherever the other name is: a rewrite in place would change
    the other name's text too, silently (before: the file outside the tree was rewritten).
    The file beside it is fixed."""
    tree = tmp_path / "tree"
    _write(tree, {"a.py": SAMPLE, "linked.py": SAMPLE})
    other = tmp_path / "backup" / "linked.py" if where == "outside the tree" else tree / "l.txt"
    other.parent.mkdir(exist_ok=True)
    os.link(tree / "linked.py", other)
    before = _state(other)
    code, report, stderr = _scan(state_home, python, str(tree), "--fix")
    assert report is not None and code == _gate(report)
    assert _rewritten(report) == ["a.py"] and (tree / "a.py").read_text() == FIXED
    said = "another name (hard links), whose text a rewrite would change too"
    assert f"left alone: linked.py: it has {said}" in stderr
    assert [f["path"] for f in report["scan"]["fix"]["left_alone"]] == ["linked.py"]
    assert _state(other) == before and other.read_text() == SAMPLE


def test_a_hard_link_made_after_planning_changes_nothing(
    tmp_path: Path, state_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second name given to a planned file between the plan and the writes (its text would
    change under both): the write is refused, the file already written is put back, no record
    is left."""
    monkeypatch.setenv("XDG_STATE_HOME", str(state_home))
    tree = tmp_path / "tree"
    _write(tree, {"a.py": SAMPLE, "b.py": SAMPLE})
    fix_plan = fix_run.plan([tree], {"a.py": {"autocast-xpu"}, "b.py": {"autocast-xpu"}})
    assert len(fix_plan.changes) == 2
    os.link(tree / "b.py", tmp_path / "elsewhere.py")
    with pytest.raises(FixError) as caught:
        fix_run.commit(fix_plan)
    assert "nothing was rewritten" in caught.value.message
    assert (tree / "a.py").read_text() == (tmp_path / "elsewhere.py").read_text() == SAMPLE
    assert not list(fix_journal.records_dir().glob("fix-*"))


def _scan_as(who: Someone, base: Path, tree: Path) -> tuple[int, dict[str, Any], str]:
    """``scan TREE --fix --json -`` run as ``who`` (its own home and state)."""
    home = who.home(base)
    done = subprocess.run(
        who.command("scan", str(tree), "--fix", "--json", "-"), capture_output=True, text=True,
        timeout=600, cwd="/", env=who.env(home), stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    _clean(done.stderr)
    return done.returncode, json.loads(done.stdout), done.stderr


def _give(path: Path, who: Someone) -> None:
    for each in [path, *path.rglob("*")]:
        os.chown(each, who.uid, who.gid)


def test_a_read_only_file_is_left_alone_for_an_unprivileged_user(
    other: Someone, shared_tmp: Path
) -> None:
    """The user's own read-only file is refused (its mode), the writable one fixed."""
    tree = shared_tmp / "tree"
    _write(tree, {"a.py": SAMPLE, "locked.py": SAMPLE})
    _give(tree, other)
    (tree / "locked.py").chmod(0o444)
    before = _state(tree / "locked.py")
    code, report, _ = _scan_as(other, shared_tmp, tree)
    assert code == _gate(report) and _rewritten(report) == ["a.py"]
    assert report["scan"]["fix"]["left_alone"][0]["reason"] == confined.READ_ONLY
    assert _state(tree / "locked.py") == before and (tree / "a.py").read_text() == FIXED


def test_another_users_file_in_a_writable_directory_is_left_alone(
    other: Someone, shared_tmp: Path
) -> None:
    """A file of another user (root), readable but not writable by the user, in the user's own
    directory (where a rename would have replaced it): refused by the kernel at the open,
    left as it was (same inode, owner, bytes), no temporary file left; the user's file is
    fixed."""
    if not other.is_other:
        pytest.skip("making a file of another user needs root")
    tree = shared_tmp / "tree"
    _write(tree, {"mine.py": SAMPLE, "theirs.py": SAMPLE})
    _give(tree, other)
    os.chown(tree / "theirs.py", 0, 0)
    (tree / "theirs.py").chmod(0o644)
    before = _states(tree)
    code, report, stderr = _scan_as(other, shared_tmp, tree)
    assert code == _gate(report) == 1 and _rewritten(report) == ["mine.py"]
    reason = report["scan"]["fix"]["left_alone"][0]
    assert reason == {"path": "theirs.py", "reason": "you may not write it (permission denied)"}  # fmt: skip
    after = _states(tree)
    assert after[str(tree / "theirs.py")] == before[str(tree / "theirs.py")]
    assert after[str(tree)] == before[str(tree)]  # no temporary file, nothing renamed
    assert "theirs.py" in stderr


def test_the_users_file_in_a_directory_they_may_not_write_is_fixed_in_place(
    other: Someone, shared_tmp: Path
) -> None:
    """The user's own file in a directory of root's that they may not write (a shared
    checkout): fixed in place, since no file is made or renamed there; the directory's
    listing and the file's inode are as they were."""
    if not other.is_other:
        pytest.skip("a directory the user may not write needs root")
    tree = shared_tmp / "tree"
    _write(tree, {"pkg/mine.py": SAMPLE})
    _give(tree, other)
    os.chown(tree / "pkg", 0, 0)
    (tree / "pkg").chmod(0o755)
    inode, listing = (tree / "pkg" / "mine.py").stat().st_ino, sorted(os.listdir(tree / "pkg"))
    code, report, _ = _scan_as(other, shared_tmp, tree)
    assert code == _gate(report) and _rewritten(report) == ["pkg/mine.py"]
    assert (tree / "pkg" / "mine.py").read_text() == FIXED
    assert (tree / "pkg" / "mine.py").stat().st_ino == inode
    assert sorted(os.listdir(tree / "pkg")) == listing


# -- what Python reads ------------------------------------------------------------------------


# NOTE: UTF-7, which Python accepts as a source coding: ``+ACIAIgAi-`` is three quotes and
# ``+AAo-`` a line break. Python (and the scan) read the first autocast as a string's data and
# the last line as a comment and the real call; read as UTF-8 it is the other way round.
DISGUISED = (
    b"# coding: utf-7\nimport torch\ns = +ACIAIgAi-[0]\nwith torch.xpu.amp.autocast():\n"
    b"    pass\nx = 1 +ACIAIgAi-[0]\n# +AAo-with torch.xpu.amp.autocast():+AAo-    pass\n"
)


def test_a_module_python_reads_otherwise_than_as_utf8_is_left_alone(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """A module whose coding declaration makes Python read it otherwise than as UTF-8 is left
    alone with its reason (before: the fix rewrote the string's data at line 4 and left the
    call the finding named, at line 8, as it was); one that declares Latin-1 but holds ASCII
    alone reads the same either way and is fixed."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "disguised.py").write_bytes(DISGUISED)
    (tree / "plain.py").write_bytes(b"# -*- coding: latin-1 -*-\n" + SAMPLE.encode())
    code, report, stderr = _scan(state_home, python, str(tree), "--fix")
    assert report is not None and code == _gate(report)
    found = {(f["location"]["path"], f["location"]["line"]) for f in report["findings"]
             if f.get("location", {}).get("path") == "disguised.py"}  # fmt: skip
    assert found == {("disguised.py", 8)}  # what Python runs: the scan reads it so
    assert _rewritten(report) == ["plain.py"]
    assert (tree / "disguised.py").read_bytes() == DISGUISED
    assert (tree / "plain.py").read_text() == "# -*- coding: latin-1 -*-\n" + FIXED
    assert "left alone: disguised.py" in stderr and "its coding declaration" in stderr


# -- the file system --------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs of its own (root only: skipped where it cannot be mounted)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=755", "tmpfs", str(disk)],
                           capture_output=True, check=False)  # fmt: skip
    if mount.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True, check=False)


def test_a_full_disk_mid_run_puts_every_file_back(
    small_disk: Path, state_home: Path, python: str
) -> None:
    """The disk fills while the second file grows: exit 2, one line naming it and the full
    disk, the first file put back, the second as it was (not cut short), no record left."""
    files = {"a.py": SAMPLE, "b.py": "import torch\n" + SAMPLE.split("\n", 1)[1] * 300}
    _write(small_disk, files)
    filler = os.open(small_disk / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:  # NOTE: every block left taken, unbuffered (a buffered close would raise)
        while os.write(filler, b"x" * 512):
            pass
    except OSError:
        pass
    finally:
        os.close(filler)
    code, _, stderr = _scan(state_home, python, str(small_disk), "--fix", "--fail-on", "never")
    assert code == 2, stderr
    assert "b.py: could not be written (the disk is full); nothing was rewritten" in stderr
    assert {name: (small_disk / name).read_text() for name in files} == files
    assert not _records(state_home)


def test_a_read_only_mount_is_left_alone_saying_so(
    small_disk: Path, state_home: Path, python: str
) -> None:
    """A tree on a file system mounted read-only: each file is left alone with its reason
    (the mode would let the user write it), nothing is written, no record is kept."""
    _write(small_disk, {"a.py": SAMPLE})
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    code, report, stderr = _scan(state_home, python, str(small_disk), "--fix")
    assert report is not None and code == _gate(report) and _rewritten(report) == []
    assert "left alone: a.py: on a read-only file system" in stderr
    assert (small_disk / "a.py").read_text() == SAMPLE and not _records(state_home)


# -- notebooks -------------------------------------------------------------------------------


def _notebook(*sources: Any) -> str:
    cells = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": source}
        for source in sources
    ]  # fmt: skip
    data = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(data, indent=1) + "\n"


def test_a_notebook_holding_the_marker_texts_loses_no_line(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """Code lines equal to the cell and magic markers an earlier version wrote into the
    code are the user's lines: all kept, in their cells; only the rewritten line changes."""
    tree = tmp_path / "tree"
    first = ["import torch\n", "# <ipex-doctor:cell 2>\n", "x = 1\n"]
    second = ["# <ipex-doctor:magic 0>\n", "%time y = 2\n", "with torch.xpu.amp.autocast():\n",
              "    pass\n", "# <ipex-doctor:cell 1>\n"]  # fmt: skip
    _write(tree, {"nb.ipynb": _notebook(first, second)})
    code, report, _ = _scan(state_home, python, str(tree), "--fix")
    assert report is not None and code == _gate(report) == 0 and _rewritten(report) == ["nb.ipynb"]
    cells = [c["source"] for c in json.loads((tree / "nb.ipynb").read_text())["cells"]]
    expected = [line.replace("torch.xpu.amp.autocast()", 'torch.amp.autocast("xpu", '
                             'dtype=torch.bfloat16, cache_enabled=True)') for line in second]  # fmt: skip
    assert cells == [first, expected]


def test_a_malformed_cell_beside_a_fixable_file(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """A cell whose source is a number is left alone with its reason; the notebook's other
    cell and the file beside it are fixed, and the report names both files rewritten."""
    tree = tmp_path / "tree"
    _write(tree, {"a.py": SAMPLE, "nb.ipynb": _notebook(42, SAMPLE.splitlines(keepends=True))})
    code, report, stderr = _scan(state_home, python, str(tree), "--fix")
    assert report is not None and code == _gate(report)
    assert _rewritten(report) == ["a.py", "nb.ipynb"]
    cells = json.loads((tree / "nb.ipynb").read_text())["cells"]
    assert cells[0]["source"] == 42 and "".join(cells[1]["source"]) == FIXED
    assert (tree / "a.py").read_text() == FIXED
    assert (
        "left alone: nb.ipynb, cell 1: its source is neither a string nor a list of strings\n"
        in stderr
    )


# -- interrupted, unwritable report, killed ----------------------------------------------------


def _many(tree: Path, count: int) -> dict[str, str]:
    files = {f"pkg{i % 7}/f{i:03}.py": SAMPLE for i in range(count)}
    _write(tree, files)
    return files


def _each_old_or_new(tree: Path, files: dict[str, str]) -> set[str]:
    """Which files are new; each file is wholly old or wholly new."""
    new = set()
    for name in files:
        text = (tree / name).read_text()
        assert text in (SAMPLE, FIXED), name
        if text == FIXED:
            new.add(name)
    return new


def _wait_for(check: Any, process: subprocess.Popen[bytes], what: str) -> Any:
    """Poll ``check`` until it gives something; fail if the process ends first."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        assert process.poll() is None, f"the doctor ended before {what}"
        time.sleep(0.001)
    raise AssertionError(f"no {what} within 300 s")


class _FifoReader(threading.Thread):
    """Reads every report the doctor writes to a FIFO until told to stop (so the doctor's
    publish waits on the test, never ends before the signal)."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.texts: list[bytes] = []
        self.done = False

    def run(self) -> None:
        while not self.done:
            with open(self.path, "rb") as fifo:
                self.texts.append(fifo.read())

    def stop(self) -> None:
        self.done = True
        fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)  # NOTE: wakes a waiting open
        os.close(fd)
        self.join(30)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_the_writes_lands_after_the_last_one(
    tmp_path: Path, state_home: Path, python: str, sig: signal.Signals
) -> None:
    """Signalled once its undo record exists (the writes have begun), the doctor finishes every
    write, then publishes the report marked incomplete naming every rewritten file and the
    undo command, and exits 130 / 143; the disk agrees with the report, and undo restores all.

    The JSON report goes to a FIFO, which the test reads only after the signal: the doctor
    cannot end before the signal, however fast the machine."""
    tree = tmp_path / "tree"
    files = _many(tree, 60)
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    out, err = (tmp_path / "stdout").open("wb"), (tmp_path / "stderr").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-c", "import os, signal, sys; signal.signal(signal.SIGINT, "
         "signal.SIG_DFL); os.execv(sys.executable, [sys.executable, '-m', 'ipex_doctor', "
         "*sys.argv[1:]])", "scan", str(tree), "--fix", "-q", "--python", python, "--json",
         str(fifo)],
        stdout=out, stderr=err, stdin=subprocess.DEVNULL,
        env=doctor_env({"XDG_STATE_HOME": str(state_home)}),
    )  # fmt: skip
    reader = _FifoReader(fifo)
    try:
        _wait_for(lambda: _records(state_home), process, "the undo record")
        process.send_signal(sig)
        reader.start()
        code = process.wait(300)
    finally:
        if process.poll() is None:
            process.kill()
        reader.stop()
        out.close(), err.close()
    stderr = (tmp_path / "stderr").read_text()
    _clean(stderr)
    assert code == (130 if sig == signal.SIGINT else 143), stderr
    report = json.loads([text for text in reader.texts if text.strip()][-1])
    assert report["complete"] is False
    assert sorted(_rewritten(report)) == sorted(files) == sorted(_each_old_or_new(tree, files))
    record = report["scan"]["fix"]["undo_record"]
    assert f"to undo: ipex-doctor scan --undo {record}" in stderr
    assert "incomplete" in (tmp_path / "stdout").read_text()
    undone = _doctor(state_home, "scan", "--undo", record, "--yes")
    assert undone.returncode == 0, undone.stdout
    assert _each_old_or_new(tree, files) == set()


def test_a_signal_before_the_writes_changes_nothing(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """Ctrl-C while the files are read and fixed in memory: exit 130, every file old, no
    record; should it land during the writes after all, every file is new and said so."""
    tree = tmp_path / "tree"
    files = _many(tree, 60)
    process = subprocess.Popen(
        [sys.executable, "-c", "import os, signal, sys; signal.signal(signal.SIGINT, "
         "signal.SIG_DFL); os.execv(sys.executable, [sys.executable, '-m', 'ipex_doctor', "
         "*sys.argv[1:]])", "scan", str(tree), "--fix", "-q", "--python", python],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        env=doctor_env({"XDG_STATE_HOME": str(state_home)}),
    )  # fmt: skip

    def reading_the_tree() -> bool:
        links = []
        for fd in Path(f"/proc/{process.pid}/fd").iterdir():
            try:
                links.append(os.readlink(fd))
            except OSError:
                continue
        return any(link.startswith(str(tree)) for link in links)

    try:
        _wait_for(reading_the_tree, process, "reading the tree")
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
    _clean(stderr)
    assert process.returncode == 130, stderr
    new = _each_old_or_new(tree, files)
    if _records(state_home):
        assert new == set(files) and "stay rewritten" in stderr
    else:
        assert new == set() and "interrupted" in stderr


def test_a_report_that_cannot_be_written_keeps_the_files_and_says_so(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """``--sarif /dev/full``: the files are rewritten and recorded; the one error line says
    the report could not be written, that the files stay rewritten, and the undo command
    (exit 2); undo then restores them."""
    tree = tmp_path / "tree"
    files = _many(tree, 5)
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", "scan", str(tree), "--fix", "--python", python,
         "--sarif", "/dev/full"],
        capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
        env=doctor_env({"XDG_STATE_HOME": str(state_home)}), check=False,
    )  # fmt: skip
    _clean(done.stderr)
    assert done.returncode == 2
    error = next(line for line in done.stderr.splitlines() if "error:" in line)
    (record,) = _records(state_home)
    assert error == (
        "ipex-doctor: error: cannot write report to /dev/full: the disk is full; the 5 files "
        f"rewritten stay rewritten (to undo: ipex-doctor scan --undo {record})"
    )
    assert _each_old_or_new(tree, files) == set(files)
    assert f"Rewrote 5 files (to undo: ipex-doctor scan --undo {record})" in done.stdout
    assert _doctor(state_home, "scan", "--undo", str(record), "--yes").returncode == 0
    assert _each_old_or_new(tree, files) == set()


def test_the_state_a_kill_mid_write_leaves_is_found_and_undone(
    tmp_path: Path, state_home: Path, python: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What SIGKILL in the middle of the writes leaves, made exactly: the record still
    ``applying``, one file written, one half-written (the new bytes up to a point, the old
    after it), one not yet. The next scan says so and how to restore; ``--fix`` refuses to
    run over it; undo restores all three byte for byte and marks the record undone."""
    monkeypatch.setenv("XDG_STATE_HOME", str(state_home))
    tree = tmp_path / "tree"
    _write(tree, {"a.py": SAMPLE, "b.py": SAMPLE * 3, "c.py": SAMPLE})
    originals = {name: (tree / name).read_bytes() for name in ("a.py", "b.py", "c.py")}
    fix_plan = fix_run.plan([tree], dict.fromkeys(originals, {"autocast-xpu"}))
    files = [fix_run._recorded(display, fixed) for display, fixed in fix_plan.changes]
    record = fix_journal.begin([str(tree.resolve())], files)
    (tree / "a.py").write_bytes(files[0].after)
    half = files[1].after[:40] + files[1].before[40:]
    with open(tree / "b.py", "r+b") as handle:  # NOTE: in place, as the fix writes
        handle.write(half[:40])
    assert (tree / "b.py").read_bytes() == half
    code, report, stderr = _scan(state_home, python, str(tree))
    assert report is not None and code == _gate(report)
    assert f"to restore them: ipex-doctor scan --undo {record.path}" in stderr
    refused, _, stderr = _scan(state_home, python, str(tree), "--fix")
    assert refused == 2 and "stopped mid-way" in stderr
    assert (tree / "c.py").read_bytes() == originals["c.py"]
    undone = _doctor(state_home, "scan", "--undo", str(record.path), "--yes")
    assert undone.returncode == 0, undone.stdout
    assert {name: (tree / name).read_bytes() for name in originals} == originals
    assert json.loads(record.final_path.read_text())["state"] == "undone"
    assert not record.path.exists()


def test_an_undo_killed_mid_restore_can_be_run_again(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """What SIGKILL in the middle of an undo's writes leaves, made exactly: one file restored,
    one half-restored (the old bytes up to a point, the fixed ones after it, in place), the
    record still ``applied``. Running the undo again restores both byte for byte (before: the
    half-restored file, neither old nor new, was left alone as edited since the fix)."""
    tree, record = _fixed_tree(tmp_path, state_home, python)
    loaded = fix_journal.load(record)
    first, second = loaded.files[0], loaded.files[1]
    Path(first.place.path).write_bytes(first.before)
    cut = len(os.path.commonprefix([second.before, second.after])) + 5
    with open(second.place.path, "r+b") as handle:  # NOTE: in place, as the undo writes
        handle.write(second.before[:cut])
    assert Path(second.place.path).read_bytes() not in (second.before, second.after)
    again = _doctor(state_home, "scan", "--undo", str(record), "--yes")
    assert again.returncode == 0, again.stdout + again.stderr
    assert all((tree / name).read_text() == SAMPLE for name in ("a.py", "b.py", "c.py"))
    assert json.loads(record.read_text())["state"] == "undone"


def test_sigkill_in_the_middle_of_the_writes_then_undo(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """A real SIGKILL once the writes have begun (the doctor stopped with SIGSTOP first, so
    the state is the one it had): every file is old, new or half-written; while the record is
    still ``applying`` the next scan says how to restore; undo restores every byte."""
    tree = tmp_path / "tree"
    files = _many(tree, 200)
    originals = {name: (tree / name).read_bytes() for name in files}
    process = subprocess.Popen(
        [sys.executable, "-m", "ipex_doctor", "scan", str(tree), "--fix", "-q", "--python",
         python],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
        env=doctor_env({"XDG_STATE_HOME": str(state_home)}),
    )  # fmt: skip
    try:
        _wait_for(lambda: _records(state_home), process, "the undo record")
        process.send_signal(signal.SIGSTOP)
        process.kill()
        process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
    (record,) = _records(state_home)
    for name, before in originals.items():
        data = (tree / name).read_bytes()
        common = len(os.path.commonprefix([data, FIXED.encode()]))
        assert data in (before, FIXED.encode()) or data[common:] == before[common:], name
    _, _, stderr = _scan(state_home, python, str(tree))
    assert (f"ipex-doctor scan --undo {record}" in stderr) is record.name.endswith(".applying.json")
    undone = _doctor(state_home, "scan", "--undo", str(record), "--yes")
    assert undone.returncode == 0, undone.stdout
    assert {name: (tree / name).read_bytes() for name in files} == originals


# -- undo ------------------------------------------------------------------------------------


def _fixed_tree(tmp_path: Path, state_home: Path, python: str) -> tuple[Path, Path]:
    """A tree of three fixed files, and the record of that fix."""
    tree = tmp_path / "tree"
    _write(tree, {"a.py": SAMPLE, "b.py": SAMPLE, "c.py": SAMPLE})
    code, report, _ = _scan(state_home, python, str(tree), "--fix")
    assert report is not None and code == 0 and len(_rewritten(report)) == 3
    (record,) = _records(state_home)
    return tree, record


def test_undo_leaves_a_file_edited_since_alone(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """Without approval undo only shows what it would do (exit 1); approved, it restores the
    files as the fix left them and leaves the one edited since, with one line saying why
    (exit 1)."""
    tree, record = _fixed_tree(tmp_path, state_home, python)
    (tree / "b.py").write_text(FIXED + "# my edit\n")
    shown = _doctor(state_home, "scan", "--undo", str(record))
    assert shown.returncode == 1 and "Nothing was restored" in shown.stdout
    assert (tree / "a.py").read_text() == FIXED
    done = _doctor(state_home, "scan", "--undo", str(record), "--yes")
    assert done.returncode == 1
    assert (tree / "a.py").read_text() == (tree / "c.py").read_text() == SAMPLE
    assert (tree / "b.py").read_text() == FIXED + "# my edit\n"
    said = [line for line in done.stdout.splitlines() if line.lstrip().startswith("left alone")]
    assert len(said) == 1 and "b.py: edited since the fix" in said[0]


def test_an_undo_run_twice_restores_once(tmp_path: Path, state_home: Path, python: str) -> None:
    """A second undo of the same record finds every file as it was: it says so, restores
    nothing and writes nothing (exit 0)."""
    tree, record = _fixed_tree(tmp_path, state_home, python)
    first = _doctor(state_home, "scan", "--undo", str(record), "--yes")
    assert first.returncode == 0 and "Restored 3 files." in first.stdout
    before = _states(tree)
    again = _doctor(state_home, "scan", "--undo", str(record), "--yes")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.count("as it was") == 3 and "Nothing to restore." in again.stdout
    assert _states(tree) == before


def test_names_with_line_breaks_escapes_and_bytes_outside_utf8_are_fixed_and_undone(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """Files named with a line break, an escape sequence and bytes that are not UTF-8 are
    fixed, recorded and restored by undo byte for byte; the undo's list shows each name
    quoted on one line, never the raw control."""
    tree = tmp_path / "tree"
    tree.mkdir()
    names = [b"a\nb.py", b"x\x1b[31m.py", b"\xff\xfe.py"]
    for name in names:
        (tree / os.fsdecode(name)).write_text(SAMPLE)
    code, report, _ = _scan(state_home, python, str(tree), "--fix")
    assert report is not None and code == 0 and len(_rewritten(report)) == 3
    assert all((tree / os.fsdecode(name)).read_text() == FIXED for name in names)
    (record,) = _records(state_home)
    done = _doctor(state_home, "scan", "--undo", str(record), "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert all((tree / os.fsdecode(name)).read_text() == SAMPLE for name in names)
    assert "\x1b" not in done.stdout and '/\\377\\376.py"' in done.stdout
    assert sum(line.lstrip().startswith("restore") for line in done.stdout.splitlines()) == 3


def test_a_record_from_elsewhere_is_never_restored_on_yes_alone(
    tmp_path: Path, state_home: Path, python: str
) -> None:
    """A record outside the records directory (an artifact, a download: it names its own
    roots, checksums and inodes) is refused under ``--yes`` (exit 2, one line, nothing
    restored); the same record in the records directory is restored."""
    tree, record = _fixed_tree(tmp_path, state_home, python)
    elsewhere = tmp_path / "artifact.json"
    elsewhere.write_bytes(record.read_bytes())
    elsewhere.chmod(record.stat().st_mode)
    before = _states(tree)
    refused = _doctor(state_home, "scan", "--undo", str(elsewhere), "--yes")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "--yes restores only those" in refused.stderr
    assert refused.stderr.count("\n") <= 2 and "Traceback" not in refused.stderr
    assert _states(tree) == before
    done = _doctor(state_home, "scan", "--undo", str(record), "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tree / "a.py").read_text() == SAMPLE


def _forge(record: Path, change: Any) -> None:
    document = json.loads(record.read_text())
    change(document)
    record.write_text(json.dumps(document))


@pytest.mark.parametrize(
    ("forgery", "code", "said"),
    [
        ("a path out of its root", 2, "is not a plain path below its root"),
        ("a root of its own", 2, "is not below a root of the record"),
        ("roots of its own", 1, "another file has its name since the fix"),
        ("bytes that do not match", 2, "do not match their checksums"),
        ("a directory link inside the root", 1, "(a symbolic link?): not followed"),
        ("writable by others", 2, "open to other users (mode 666)"),
        ("another user's", 2, "not yours"),
        ("not JSON", 2, "not JSON"),
        ("a device as its file", 1, "left alone  /dev/null: not a regular file"),
    ],
)
def test_a_forged_record_restores_nothing_outside_its_root(
    tmp_path: Path, state_home: Path, python: str, forgery: str, code: int, said: str
) -> None:
    """A record edited to reach outside its root, one others may have written, one of another
    user, or no record at all: refused (exit 2, one line), or for a link inside the root that
    leads out, that file left alone (exit 1). Nothing outside the tree changes."""
    if forgery == "another user's" and os.geteuid() != 0:
        pytest.skip("giving the record to another user needs root")
    tree, record = _fixed_tree(tmp_path, state_home, python)
    outside = tmp_path / "outside"
    _write(outside, {"a.py": FIXED})
    victim = str(outside / "a.py")

    def point_out(document: dict[str, Any]) -> None:
        document["files"][0]["path"] = "../outside/a.py"

    def own_root(document: dict[str, Any]) -> None:
        document["files"][0]["root"] = str(outside)

    def own_roots(document: dict[str, Any]) -> None:
        document["roots"] = document["roots"] + [str(outside)]
        own_root(document)

    def wrong_bytes(document: dict[str, Any]) -> None:
        document["files"][0]["before"] = "aGFja2Vk"

    def through_link(document: dict[str, Any]) -> None:
        os.symlink(outside, tree / "link")
        document["files"][0]["path"] = "link/a.py"
        stat_of = os.stat(victim)
        document["files"][0].update(device=stat_of.st_dev, inode=stat_of.st_ino)

    def a_device(document: dict[str, Any]) -> None:
        document["roots"] = document["roots"] + ["/dev"]
        stat_of = os.stat("/dev/null")
        document["files"][0].update(root="/dev", path="null", device=stat_of.st_dev,
                                    inode=stat_of.st_ino)  # fmt: skip

    changes = {"a path out of its root": point_out, "a root of its own": own_root,
               "roots of its own": own_roots, "a device as its file": a_device,
               "bytes that do not match": wrong_bytes,
               "a directory link inside the root": through_link}  # fmt: skip
    if forgery in changes:
        _forge(record, changes[forgery])
    elif forgery == "writable by others":
        record.chmod(0o666)
    elif forgery == "another user's":
        os.chown(record, 4321, 4321)
    else:
        record.write_text("{ not json")
    before = _states(outside)
    done = _doctor(state_home, "scan", "--undo", str(record), "--yes")
    assert done.returncode == code, done.stdout + done.stderr
    assert said in done.stdout + done.stderr
    assert _states(outside) == before
    if code == 2:
        assert done.stderr.count("\n") <= 2  # the error line, and at most its tip
