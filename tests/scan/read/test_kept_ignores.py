"""Ignore files' layers kept between scans (``ignores``, ``derived_cache``): a scan that has
seen a tree's ``.gitignore`` before finds the same files, and imports pathspec only where a
path matches a pattern."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pathspec import GitIgnoreSpec
from scan_rules import GIT_WORK_TREE, write

from ipex_doctor.scan import ScanError
from ipex_doctor.scan.read import derived_cache
from ipex_doctor.scan.read.discovery import Candidate, discover
from ipex_doctor.scan.read.ignores import Ignores

_DISCOVER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from ipex_doctor.scan.read.discovery import Candidate, discover
    exclude = tuple(json.loads(sys.argv[2]))
    found = [i.display if isinstance(i, Candidate) else "SKIPPED " + i.path
             for i in discover([Path(sys.argv[1])], exclude=exclude)]
    print(json.dumps({"found": found, "pathspec": "pathspec" in sys.modules}))
    """
)


def _fresh_discover(root: Path, cache: Path, exclude: tuple[str, ...] = ()) -> dict[str, object]:
    """What ``discover`` finds under ``root`` in a fresh interpreter with ``cache`` as its
    cache directory, and whether it imported pathspec."""
    done = subprocess.run(
        [sys.executable, "-c", _DISCOVER, str(root), json.dumps(list(exclude))],
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_kept_layer_spares_pathspec_until_a_path_matches(tmp_path: Path) -> None:
    """The second scan of a tree whose ``.gitignore`` (and excludes) match no path there finds
    the same files without importing pathspec; once a path matches, pathspec decides it, as
    the first scan's did (a ``!`` re-inclusion, a directory left out)."""
    tree, cache = tmp_path / "tree", tmp_path / "cache"
    write(
        tree,
        {**GIT_WORK_TREE, ".gitignore": "build/\n*.log\n!keep.log\n", "a.py": "", "src/b.py": ""},
    )
    first = _fresh_discover(tree, cache, exclude=("vendor/",))
    again = _fresh_discover(tree, cache, exclude=("vendor/",))
    assert first == {"found": ["a.py", "src/b.py"], "pathspec": True}
    assert again == {"found": ["a.py", "src/b.py"], "pathspec": False}
    write(tree, {"build/c.py": "", "x.log": "", "keep.log": "", "vendor/v.py": ""})
    matched = _fresh_discover(tree, cache, exclude=("vendor/",))
    assert matched == {"found": ["a.py", "src/b.py"], "pathspec": True}


def test_a_kept_layer_drops_the_lines_git_drops(tmp_path: Path) -> None:
    """A ``.gitignore`` line pathspec refuses is dropped from the kept layer as from the first:
    the patterns after it still apply."""
    tree, cache = tmp_path / "tree", tmp_path / "cache"
    write(
        tree,
        {
            **GIT_WORK_TREE,
            ".gitignore": "!\n*.gen.py\n!keep.gen.py\n",
            "a.gen.py": "",
            "keep.gen.py": "",
        },
    )
    runs = [_fresh_discover(tree, cache)["found"] for _ in range(2)]
    assert runs == [["keep.gen.py"], ["keep.gen.py"]]


def test_an_invalid_exclude_is_refused_every_time(tmp_path: Path) -> None:
    """The caller's invalid pattern is never kept: it is refused again in the next scan."""
    write(tmp_path, {"a.py": ""})
    for _ in range(2):
        with pytest.raises(ScanError, match="invalid exclude pattern"):
            list(discover([tmp_path], exclude=("!",)))


def test_a_damaged_kept_layer_is_a_miss(tmp_path: Path) -> None:
    """A kept value of another shape, or a union that is no regex, is worked out again."""
    tree, cache = tmp_path / "tree", tmp_path / "cache"
    write(tree, {**GIT_WORK_TREE, ".gitignore": "*.gen.py\n", "a.gen.py": "", "b.py": ""})
    assert _fresh_discover(tree, cache)["found"] == ["b.py"]
    (kept,) = (cache / "ipex-doctor" / "scan-derived").glob("gitignore-*.json")
    from ipex_doctor.knowledge.cache import seal, unseal

    payload = unseal(kept.read_text(encoding="utf-8"))
    assert payload is not None
    damaged = (
        {"none": False, "dropped": [], "union": "("},
        {"none": False, "dropped": ["0"], "union": "a"},
        {"none": False, "dropped": []},
        {"none": "no"},
        ["none"],
    )
    for value in damaged:
        payload["value"] = value
        kept.write_text(seal(payload), encoding="utf-8")
        assert _fresh_discover(tree, cache)["found"] == ["b.py"]


_SEGMENT = st.sampled_from(["a", "b", "build", "x.py", "y.gen.py", "lib", "keep.py"])
_PATTERN = st.sampled_from(
    ["*.py", "!keep.py", "build/", "/a", "a/**/x.py", "lib", "!lib/", "*.gen.py", "b/*", "**/y*"]
)


@settings(max_examples=examples(60), deadline=None)
@given(
    patterns=st.lists(_PATTERN, max_size=6),
    segments=st.lists(_SEGMENT, min_size=1, max_size=4),
    is_dir=st.booleans(),
)
def test_a_kept_layer_agrees_with_pathspec(
    patterns: list[str], segments: list[str], is_dir: bool
) -> None:
    """The layer made from the kept value answers as pathspec's GitIgnoreSpec does, as the
    layer worked out does (the cache directory is the session's: the first of two is often
    kept already, the second always)."""
    path = "/".join(segments)
    expected = GitIgnoreSpec.from_lines(patterns).check_file(path + ("/" if is_dir else ""))
    for _ in range(2):
        ignores = Ignores().with_gitignore("", "\n".join(patterns))
        assert ignores.ignored(path, is_dir=is_dir) is bool(expected.include)
    assert derived_cache.directory().is_dir() or not patterns


def test_discover_in_process_agrees_twice(tmp_path: Path) -> None:
    """The same walk twice in one process (the second from kept layers, nested ones too)."""
    write(
        tmp_path,
        {
            **GIT_WORK_TREE,
            ".gitignore": "build/\n*.gen.py\n",
            "keep.py": "",
            "x.gen.py": "",
            "pkg/.gitignore": "!keep.gen.py\nlocal.py\n",
            "pkg/keep.gen.py": "",
            "pkg/local.py": "",
        },
    )
    runs = [[i.display for i in discover([tmp_path]) if isinstance(i, Candidate)] for _ in range(2)]
    assert runs == [["keep.py", "pkg/keep.gen.py"]] * 2
