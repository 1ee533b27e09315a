"""The cache of values a scan derives (``read.derived_cache``): a value comes back for its own
kind and key only, is written whole and readable by its owner alone, and the directory is
kept to ``_MAX_FILES``."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ipex_doctor.scan.read import derived_cache


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test has a cache directory of its own, not pruned yet by this process."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(derived_cache, "_pruned", [])


def test_a_value_comes_back_for_its_own_kind_and_key_only() -> None:
    value = {"kept": [0, 2], "gate": "torch", "nested": [["a", [1]]]}
    derived_cache.put("prefilter", "the key", value)
    assert derived_cache.get("prefilter", "the key") == value
    assert derived_cache.get("prefilter", "the key ") is None
    assert derived_cache.get("gitignore", "the key") is None


def test_a_file_of_another_identity_is_a_miss() -> None:
    """A kept file copied over another key's (same name on disk: what a checksum of its name
    cannot tell) is refused by the identity it holds."""
    derived_cache.put("prefilter", "one", [1])
    derived_cache.put("prefilter", "two", [2])
    one, two = sorted(derived_cache.directory().glob("*.json"))
    two.write_bytes(one.read_bytes())
    values = [derived_cache.get("prefilter", "one"), derived_cache.get("prefilter", "two")]
    assert values in ([[1], None], [None, [2]])


def test_written_whole_readable_by_its_owner_and_no_temporary_file_left() -> None:
    derived_cache.put("gitignore", "key", {"none": True})
    (kept,) = derived_cache.directory().iterdir()
    assert kept.suffix == ".json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600


def test_a_value_that_is_no_json_is_not_written() -> None:
    derived_cache.put("prefilter", "key", {b"bytes": object()})
    assert not derived_cache.directory().exists() or not list(derived_cache.directory().iterdir())


def test_the_directory_is_kept_to_its_limit_oldest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """At a process's first write, the oldest files go so that its own fits under the limit."""
    monkeypatch.setattr(derived_cache, "_MAX_FILES", 5)
    folder = derived_cache.directory()
    folder.mkdir(parents=True)
    for n in range(8):
        old = folder / f"old-{n}.json"
        old.write_text("{}")
        os.utime(old, (1_000_000 + n, 1_000_000 + n))
    derived_cache.put("prefilter", "new", [1])
    names = sorted(p.name for p in folder.glob("*.json"))
    assert len(names) == 5
    assert [n for n in names if n.startswith("old-")] == [f"old-{n}.json" for n in range(4, 8)]
    assert derived_cache.get("prefilter", "new") == [1]
