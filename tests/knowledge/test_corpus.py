"""explain against a corpus of real XPU-era error texts (tests/assets/xpu_error_corpus.yaml):
the right entry first for at least 90 % of them, and nothing for the unrelated ones."""

from __future__ import annotations

from typing import Any

import yaml
from conftest import REPO

from ipex_doctor.knowledge import kb
from ipex_doctor.knowledge.explain import explain

CORPUS: list[dict[str, Any]] = yaml.safe_load(
    (REPO / "tests" / "assets" / "xpu_error_corpus.yaml").read_text(encoding="utf-8")
)
REQUIRED = 0.9


def _first(text: str) -> str | None:
    found = explain(text, kb.load_files((), lambda _: None))
    return found[0].issue.id if found else None


def test_the_corpus_is_real_and_names_known_entries() -> None:
    ids = {issue.id for issue in kb.load_files((), lambda _: None).issues}
    assert len(CORPUS) >= 40
    for case in CORPUS:
        assert case["source"].startswith("https://"), case
        assert case["expect"] is None or case["expect"] in ids, case


def test_explain_names_the_right_entry_first_for_nine_in_ten() -> None:
    related = [case for case in CORPUS if case["expect"] is not None]
    wrong = [(case["expect"], _first(case["text"]), case["text"][:80])
             for case in related if _first(case["text"]) != case["expect"]]  # fmt: skip
    accuracy = 1 - len(wrong) / len(related)
    assert accuracy >= REQUIRED, wrong


def test_explain_names_nothing_for_unrelated_errors() -> None:
    named = [(case["text"][:80], _first(case["text"])) for case in CORPUS if case["expect"] is None]
    assert all(found is None for _, found in named), named
