"""Every repository path the documentation names exists: a page that cites a moved or deleted
test, module or benchmark misleads the reader who follows it (the guarantees tables of
docs/reliability.md name the tests that hold each guarantee)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

PAGES = sorted([REPO / "README.md", REPO / "CONTRIBUTING.md", *(REPO / "docs").glob("*.md")])
PATH = re.compile(
    r"(?<![\w/.-])(?:tests|ipex_doctor|benchmarks|tools|checks|docs|\.ci)/[\w./-]+\.(?:py|md|yaml|json|sh)\b"
)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_path_a_page_names_exists(page: Path) -> None:
    named = set(PATH.findall(page.read_text(encoding="utf-8")))
    missing = sorted(p for p in named if not (REPO / p).exists())
    assert not missing, f"{page.name} names paths that do not exist: {', '.join(missing)}"


def test_the_pattern_sees_a_moved_test() -> None:
    text = "held by tests/scan/test_fix_hostile.py `test_x` and ipex_doctor/scan/fix/run.py."
    assert PATH.findall(text) == ["tests/scan/test_fix_hostile.py", "ipex_doctor/scan/fix/run.py"]
