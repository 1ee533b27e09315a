"""explain against real XPU-era error texts quoted from public trackers.

Two corpora, both lists of {expect, source, text} (``expect: null`` marks an unrelated error):

* ``tests/assets/xpu_error_corpus.yaml``, the development part: the texts the knowledge base's
  symptoms and ``match`` signatures were written from. explain names the right entry first for
  every related text;
* ``tests/assets/xpu_error_holdout.yaml``, the held-out part: drawn at random from the second
  collection before any structured matcher was written, never used to write a rule, measured
  once afterwards. explain must stay at or above what was measured then.

For unrelated texts of either part, explain names nothing: a false alarm is as bad as a miss.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from conftest import REPO

from ipex_doctor.knowledge import known_issues
from ipex_doctor.knowledge.explain import explain

ASSETS = REPO / "tests" / "assets"
DEVELOPMENT: list[dict[str, Any]] = yaml.safe_load(
    (ASSETS / "xpu_error_corpus.yaml").read_text(encoding="utf-8")
)
HELD_OUT: list[dict[str, Any]] = yaml.safe_load(
    (ASSETS / "xpu_error_holdout.yaml").read_text(encoding="utf-8")
)
HELD_OUT_REQUIRED = 14 / 14
"""Measured once, after the rules were written: 14 of the 14 related held-out texts named right
(10 of 14 with the symptom regexes alone, before the structured matchers)."""
KNOWLEDGE = known_issues.load_files((), lambda _: None)


def _first(text: str) -> str | None:
    found = explain(text, KNOWLEDGE)
    return found[0].issue.id if found else None


@pytest.mark.parametrize(("corpus", "size"), [(DEVELOPMENT, 78), (HELD_OUT, 18)])
def test_the_corpus_is_real_and_names_known_entries(
    corpus: list[dict[str, Any]], size: int
) -> None:
    ids = {issue.id for issue in KNOWLEDGE.issues}
    assert len(corpus) == size  # NOTE: update when adding texts (held-out ones: never to tune)
    for case in corpus:
        assert case["source"].startswith("https://"), case
        assert case["expect"] is None or case["expect"] in ids, case


def test_the_held_out_part_is_a_third_and_disjoint() -> None:
    """The held-out texts are at least a third of the second collection and none is also a
    development text (the first 42 development texts predate the split)."""
    second_collection = len(DEVELOPMENT) - 42 + len(HELD_OUT)
    assert len(HELD_OUT) * 3 >= second_collection
    assert not {c["text"] for c in DEVELOPMENT} & {c["text"] for c in HELD_OUT}


def test_explain_names_the_right_entry_first_for_every_development_text() -> None:
    related = [case for case in DEVELOPMENT if case["expect"] is not None]
    wrong = [(case["expect"], _first(case["text"]), case["source"])
             for case in related if _first(case["text"]) != case["expect"]]  # fmt: skip
    assert not wrong, wrong


def test_explain_holds_its_measured_accuracy_on_the_held_out_texts() -> None:
    related = [case for case in HELD_OUT if case["expect"] is not None]
    right = sum(1 for case in related if _first(case["text"]) == case["expect"])
    assert right / len(related) >= HELD_OUT_REQUIRED, f"{right} of {len(related)}"


@pytest.mark.parametrize("corpus", [DEVELOPMENT, HELD_OUT], ids=["development", "held-out"])
def test_explain_names_nothing_for_unrelated_errors(corpus: list[dict[str, Any]]) -> None:
    named = [(case["source"], _first(case["text"])) for case in corpus if case["expect"] is None]
    assert named and all(found is None for _, found in named), named
