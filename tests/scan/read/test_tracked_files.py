"""Tracked files of a git checkout are read whatever its ``.gitignore`` says (``git_index``,
``discovery``): real repositories made with the ``git`` binary here (the product never runs
it), read by ``discover`` in a fresh interpreter."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from scan_rules import found, scan, write
from unprivileged import Someone

from ipex_doctor.scan.read.discovery import Candidate, discover
from ipex_doctor.scan.read.git_index import MAX_INDEX_BYTES, IndexUnread, parse_index

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

_GITIGNORE = "/*.txt\nbuild/\n*.log\n"
_TREE = {
    ".gitignore": _GITIGNORE,
    "requirements.txt": "intel_extension_for_pytorch\n",
    "notes.txt": "intel_extension_for_pytorch\n",
    "build/kept.py": "import intel_extension_for_pytorch\n",
    "build/scratch.py": "import intel_extension_for_pytorch\n",
    "src/train.py": "import torch\n",
}
_TRACKED = (".gitignore", "requirements.txt", "build/kept.py", "src/train.py")
_FOUND_WITH_INDEX = ["requirements.txt", "build/kept.py", "src/train.py"]
_FOUND_WITHOUT = ["src/train.py"]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True, capture_output=True, timeout=60,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent)},
    )  # fmt: skip


def _repo(root: Path, *, commit: bool = True) -> Path:
    """A checkout of ``_TREE`` that tracks ``_TRACKED`` (some of which ``.gitignore`` ignores)."""
    write(root, _TREE)
    _git(root, "init", "-q")
    _git(root, "add", "-f", *_TRACKED)
    if commit:
        _git(root, "commit", "-q", "-m", "start")
    return root


def _found(root: Path, exclude: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """The candidates' paths and the skipped items (``path: reason``) ``discover`` yields."""
    found: list[str] = []
    skipped: list[str] = []
    for item in discover([root], exclude=exclude):
        if isinstance(item, Candidate):
            found.append(item.display)
        else:
            skipped.append(f"{item.path}: {item.reason}")
    return found, skipped


def _version(root: Path) -> int:
    data = (root / ".git" / "index").read_bytes()
    version: int = struct.unpack_from(">I", data, 4)[0]
    return version


def test_a_tracked_file_that_gitignore_names_is_read(tmp_path: Path) -> None:
    """``requirements.txt`` (``/*.txt``) and ``build/kept.py`` (in the ignored ``build/``) are
    tracked, so read; ``notes.txt`` and ``build/scratch.py`` are not, so stay ignored."""
    root = _repo(tmp_path / "repo")
    assert _version(root) == 2
    assert _found(root) == (_FOUND_WITH_INDEX, [])


def test_a_scan_reports_what_a_tracked_ignored_file_holds_or_says_why_it_could_not(
    tmp_path: Path,
) -> None:
    """Through the engine: the IPEX requirement of the tracked ``requirements.txt`` is a match
    (issue 31's flozi00/atra), and with a split index the scan lists the index among the
    files it could not read, with the reason, instead of the match."""
    root = _repo(tmp_path / "repo")
    result = scan(root)
    assert ("requirements.txt", 1, "pip-ipex") in {m[:3] for m in found(result)}
    assert result.skipped == ()
    _git(root, "update-index", "--split-index")
    result = scan(root)
    assert "requirements.txt" not in {m[0] for m in found(result)}
    assert [(s.path, "split index" in s.reason) for s in result.skipped] == [(".git/index", True)]


def test_a_subdirectory_of_a_checkout_is_read_against_the_index_above_it(tmp_path: Path) -> None:
    """The work tree is found above the scanned directory; paths are matched below it."""
    root = _repo(tmp_path / "repo")
    write(root, {"src/.gitignore": "*.py\n", "src/local.py": ""})
    assert _found(root / "src") == (["train.py"], [])


def test_the_callers_exclude_still_leaves_out_tracked_files(tmp_path: Path) -> None:
    """``--exclude`` and ``scan.exclude`` are the user's words: they win over the index."""
    root = _repo(tmp_path / "repo")
    assert _found(root, exclude=("requirements.txt", "build/"))[0] == ["src/train.py"]


def test_index_version_4_is_read(tmp_path: Path) -> None:
    """Version 4 compresses each path against the one before it (a long path makes the next
    one strip more than 127 bytes: a varint of two bytes)."""
    root = _repo(tmp_path / "repo")
    deep = "build/" + "d" * 150 + "/deep.py"
    write(root, {deep: ""})
    _git(root, "add", "-f", deep)
    _git(root, "update-index", "--index-version", "4")
    assert _version(root) == 4
    assert _found(root) == ([*_FOUND_WITH_INDEX[:2], deep, "src/train.py"], [])


def test_index_version_3_is_read(tmp_path: Path) -> None:
    """An intent-to-add entry (``git add -N``) has extended flags, so git writes version 3."""
    root = _repo(tmp_path / "repo")
    write(root, {"build/later.py": "import intel_extension_for_pytorch\n"})
    _git(root, "add", "-f", "-N", "build/later.py")
    assert _version(root) == 3
    assert _found(root) == ([*_FOUND_WITH_INDEX[:2], "build/later.py", "src/train.py"], [])


def test_a_sha256_repository_is_read(tmp_path: Path) -> None:
    """Object names and the checksum are 32 bytes there."""
    root = tmp_path / "repo"
    write(root, _TREE)
    try:
        _git(root, "init", "-q", "--object-format=sha256")
    except subprocess.CalledProcessError:
        pytest.skip("this git cannot make a SHA-256 repository")
    _git(root, "add", "-f", *_TRACKED)
    assert _found(root) == (_FOUND_WITH_INDEX, [])


def test_an_index_written_without_its_checksum_is_read(tmp_path: Path) -> None:
    """``index.skipHash`` (git 2.40) writes zeros where the checksum would be; git reads it."""
    root = _repo(tmp_path / "repo")
    index = root / ".git" / "index"
    index.write_bytes(index.read_bytes()[:-20] + bytes(20))
    assert _found(root) == (_FOUND_WITH_INDEX, [])


def _only_gitignore(root: Path, where: str, why: str) -> None:
    found, skipped = _found(root)
    assert found == _FOUND_WITHOUT
    assert len(skipped) == 1 and skipped[0].startswith(f"{where}: ") and why in skipped[0]
    assert skipped[0].endswith(".gitignore alone decided what was read") and "\n" not in skipped[0]


def test_a_corrupt_index_is_said_and_gitignore_alone_decides(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    index = root / ".git" / "index"
    data = bytearray(index.read_bytes())
    data[-30] ^= 0xFF  # a byte of the last extension or entry, not of the checksum
    index.write_bytes(bytes(data))
    _only_gitignore(root, ".git/index", "checksum")


def test_a_truncated_index_is_said(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    index = root / ".git" / "index"
    index.write_bytes(index.read_bytes()[:40])
    _only_gitignore(root, ".git/index", "the git index")


def test_a_split_index_is_said(tmp_path: Path) -> None:
    """``.git/index`` of a split index holds only the changes to a shared index."""
    root = _repo(tmp_path / "repo")
    _git(root, "update-index", "--split-index")
    _only_gitignore(root, ".git/index", "split index")


def test_a_gitfile_is_not_followed(tmp_path: Path) -> None:
    """A worktree's ``.git`` is a file naming a git directory elsewhere: not followed."""
    main = _repo(tmp_path / "main")
    _git(main, "worktree", "add", "-q", str(tmp_path / "other"))
    other = tmp_path / "other"
    assert (other / ".git").is_file() and (other / "requirements.txt").is_file()
    _only_gitignore(other, ".git", "not followed")


def test_a_symlinked_index_is_not_followed(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    index = root / ".git" / "index"
    index.rename(tmp_path / "elsewhere")
    index.symlink_to(tmp_path / "elsewhere")
    _only_gitignore(root, ".git/index", "symbolic link")


def test_a_repository_without_an_index_tracks_nothing(tmp_path: Path) -> None:
    """``git init`` alone writes no index: nothing is tracked, and nothing is wrong."""
    write(tmp_path / "repo", _TREE)
    _git(tmp_path / "repo", "init", "-q")
    assert _found(tmp_path / "repo") == (_FOUND_WITHOUT, [])


_OPENS = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    opened = []
    sys.addaudithook(lambda event, args: opened.append(str(args[0]))
                     if event == "open" and "/.git/" in str(args[0]) else None)
    from ipex_doctor.scan.read.discovery import Candidate, discover
    found = [i.display if isinstance(i, Candidate) else "SKIPPED " + i.path
             for i in discover([Path(sys.argv[1])])]
    print(json.dumps({"found": found, "opened": opened}))
    """
)


def _opens(root: Path) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _OPENS, str(root)],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


def test_a_scan_whose_gitignore_ignores_nothing_never_opens_the_index(tmp_path: Path) -> None:
    """The index is read at the first path a ``.gitignore`` ignores, never before (an audit
    hook sees every open): here no pattern matches a file the scan would read (``*.log`` is no
    kind it reads), and nothing under ``.git`` is opened; once one does, the index is."""
    root = _repo(tmp_path / "repo")
    for name in ("notes.txt", "requirements.txt"):
        (root / name).unlink()
    shutil.rmtree(root / "build")
    write(root, {"debug.log": ""})
    assert _opens(root) == {"found": ["src/train.py"], "opened": []}
    write(root, {"build/scratch.py": ""})
    assert _opens(root)["opened"] == [str(root / ".git" / "index")]


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"DIRC" + struct.pack(">II", 5, 0) + bytes(20), "version 5"),
        (b"PACK" + bytes(40), "not a git index"),
        (b"DIRC", "not a git index"),
    ],
)
def test_indexes_that_are_not_plain_are_refused(data: bytes, why: str) -> None:
    with pytest.raises(IndexUnread, match=why):
        parse_index(data)


def test_an_index_over_the_bound_is_refused() -> None:
    with pytest.raises(IndexUnread, match="larger than"):
        parse_index(b"DIRC" + bytes(MAX_INDEX_BYTES))


def _scan_json_as(who: Someone, home: Path, tree: Path) -> dict[str, Any]:
    """``scan TREE --json -`` run as ``who`` with ``home`` (``Someone.home``); the report."""
    done = subprocess.run(
        who.command("scan", str(tree), "--json", "-"), capture_output=True, text=True,
        timeout=600, cwd="/", env=who.env(home), stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _paths(report: dict[str, Any]) -> set[str]:
    return {f["location"]["path"] for f in report["findings"] if f.get("location")}


def _unread(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (s["path"], s["reason"])
        for f in report["findings"]
        if f["id"] == "scan-unread"
        for s in f["evidence"]["data"]["skipped"]
    ]


def test_an_index_the_user_may_not_read_is_said_and_gitignore_alone_decides(
    other: Someone, shared_tmp: Path
) -> None:
    """Run as an unprivileged user on a checkout whose index only root may read: the scan
    says it could not read the index (one line, the kernel's reason) and reads what
    ``.gitignore`` leaves, no tracked ignored file; with no ignore rule firing it never opens
    the index, so says nothing of it."""
    if not other.is_other:
        pytest.skip("an index the user may not read needs root to make")
    root = _repo(shared_tmp / "repo")
    os.chmod(root / ".git" / "index", 0o600)  # root's own, read by root alone
    home = other.home(shared_tmp)
    report = _scan_json_as(other, home, root)
    assert _unread(report) == [
        (
            ".git/index",
            "the git index cannot be read: Permission denied; .gitignore alone decided what was read",
        )
    ]
    assert "requirements.txt" not in _paths(report)
    (root / ".gitignore").write_text("*.log\n")  # NOTE: nothing of the tree is ignored now
    report = _scan_json_as(other, home, root)
    assert _unread(report) == []
    assert "requirements.txt" in _paths(report)
