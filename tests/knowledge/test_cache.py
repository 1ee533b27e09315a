"""The cache of validated knowledge-base documents: hits only for the very same document.

Every test points ``XDG_CACHE_HOME`` at its own directory and reads real files through
``known_issues.read_document``, the way ``kb list`` and ``explain`` do.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ipex_doctor.errors import KnowledgeBaseError
from ipex_doctor.knowledge import cache, known_issues

DOCUMENT = """\
schema_version: 1
issues:
  - id: site-issue
    title: {title}
    kind: environment
    severity: warning
    summary: A site-specific issue.
    remediation: Do the site-specific thing.
    surprise: an unknown key is a warning
    affected:
      - package: torch
        introduced: "2.0"
    references:
      - url: https://example.org/ticket/1
"""


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache-home"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state-home"))  # NOTE: the seal's key
    return home


def write(folder: Path, title: str = "Original title", name: str = "site.yaml") -> Path:
    path = folder / name
    path.write_text(DOCUMENT.format(title=title))
    return path


def cached_files() -> list[Path]:
    return sorted(cache.directory().glob("*.json")) if cache.directory().is_dir() else []


def test_a_valid_document_is_kept_and_read_back_with_its_warnings(
    tmp_path: Path, cache_home: Path
) -> None:
    path = write(tmp_path)
    first_warnings: list[str] = []
    first = known_issues.read_document(path, first_warnings)
    assert cache.directory().is_relative_to(cache_home) and len(cached_files()) == 1
    again_warnings: list[str] = []
    again = known_issues.read_document(path, again_warnings)
    assert again == first
    assert again_warnings == first_warnings and "surprise" in first_warnings[0]


def test_a_hit_really_comes_from_the_cache(tmp_path: Path, cache_home: Path) -> None:
    """Rewrite the kept entry behind the loader's back, sealed as the cache seals it: the next
    read returns the rewrite."""
    path = write(tmp_path)
    known_issues.read_document(path)
    (kept,) = cached_files()
    payload = cache.unseal(kept.read_text())
    assert payload is not None
    payload["entries"][0][0]["title"] = "From the cache"
    kept.write_text(cache.seal(payload))
    assert known_issues.read_document(path)[0].title == "From the cache"


def test_an_edit_or_another_file_of_the_same_text_is_a_miss(
    tmp_path: Path, cache_home: Path
) -> None:
    path = write(tmp_path)
    known_issues.read_document(path)
    write(tmp_path, title="Edited title")
    assert known_issues.read_document(path)[0].title == "Edited title"
    other = write(tmp_path, title="Edited title", name="other.yaml")
    (issue,) = known_issues.read_document(other)
    assert issue.source.startswith(str(other))  # errors and sources name the file read
    assert len(cached_files()) == 3


def test_a_damaged_cache_file_is_a_miss_and_is_replaced(tmp_path: Path, cache_home: Path) -> None:
    path = write(tmp_path)
    expected = known_issues.read_document(path)
    (kept,) = cached_files()
    payload = cache.unseal(kept.read_text())
    assert payload is not None
    hand_edited = {**payload, "entries": [[{"id": 1}, "x"]]}
    for damage in ("{not json", cache.seal({"identity": 3}), cache.seal(hand_edited), "",
                   "[1, 2]\n" + kept.read_text().rpartition("\n")[2]):  # fmt: skip
        kept.write_text(damage)
        assert known_issues.read_document(path) == expected
    assert (cache.unseal(kept.read_text()) or {})["entries"]  # rewritten valid by the last miss


def test_an_edit_the_checksum_does_not_cover_is_a_miss(tmp_path: Path, cache_home: Path) -> None:
    """A kept document is trusted without validating it again (its regular expressions are
    compiled when first searched), so any edit that does not reseal it must miss: here a
    symptom that is no regular expression, which would otherwise fail in the matcher."""
    path = write(tmp_path)
    known_issues.read_document(path)
    (kept,) = cached_files()
    body, _, checksum = kept.read_text().rpartition("\n")
    payload = json.loads(body)
    payload["entries"][0][0]["symptoms"] = ["unbalanced ("]
    kept.write_text(f"{json.dumps(payload)}\n{checksum}")
    (issue,) = known_issues.read_document(path)
    assert issue.symptoms == ()  # the document's own entry, read again from its YAML
    assert (cache.unseal(kept.read_text()) or {})["entries"][0][0].get("symptoms") is None


def test_an_unusable_cache_directory_never_fails_a_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache home that is a file (mkdir fails even for root): loads work, nothing is kept."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    path = write(tmp_path)
    assert known_issues.read_document(path)[0].id == "site-issue"
    assert known_issues.read_document(path)[0].id == "site-issue"
    assert blocker.read_text() == ""


def test_a_document_with_errors_is_never_kept(tmp_path: Path, cache_home: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(DOCUMENT.format(title="x").replace("severity: warning", "severity: loud"))
    for _ in range(2):
        with pytest.raises(KnowledgeBaseError, match="loud"):
            known_issues.read_document(path)
    assert cached_files() == []


def test_the_cache_keeps_at_most_its_limit(tmp_path: Path, cache_home: Path) -> None:
    for index in range(cache._MAX_FILES + 6):
        known_issues.read_document(write(tmp_path, title=f"Title {index}", name=f"kb{index}.yaml"))
    assert len(cached_files()) == cache._MAX_FILES
    assert not list(cache.directory().glob(".kb.*.tmp"))  # no temporary file left behind
