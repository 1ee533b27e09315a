"""``Wording``: the knowledge base's regular expressions, compiled when first searched."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ipex_doctor.knowledge import known_issues
from ipex_doctor.model import codec, wording
from ipex_doctor.model.wording import Wording


def test_a_wording_searches_without_regard_to_case() -> None:
    found = Wording(r"undefined symbol: \w+").search(
        "ImportError: UNDEFINED SYMBOL: iJIT_NotifyEvent"
    )
    assert found is not None and found.group(0) == "UNDEFINED SYMBOL: iJIT_NotifyEvent"
    assert Wording("device lost").search("all is well") is None


def test_a_wording_is_written_as_its_text() -> None:
    assert codec.to_json({"symptoms": (Wording("a+b"),)}) == {"symptoms": ["a+b"]}


def test_loading_the_knowledge_base_compiles_none_of_its_expressions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kb list, kb show and repro --list load the knowledge base and never search it: they
    must not pay for compiling its expressions; the first search compiles only its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    wording._compiled.cache_clear()
    for _ in range(2):  # a miss (validated from YAML), then a hit (from the cache)
        knowledge = known_issues.load()
        assert wording._compiled.cache_info().currsize == 0
    symptom = next(issue.symptoms[0] for issue in knowledge.issues if issue.symptoms)
    symptom.search("some text")
    assert wording._compiled.cache_info().currsize <= 1  # none where the text lacks its literals


def test_a_text_without_the_literals_is_never_searched() -> None:
    """A text that lacks what every match must hold is answered without the regex (which is
    then not even compiled); one that holds it is searched."""
    wording._compiled.cache_clear()
    pattern = r"\bZE_RESULT_ERROR_[A-Z_]+ on the (NPU|GPU)\b"
    assert Wording(pattern).search("training step 12: loss 0.1\n" * 1000) is None
    assert wording._compiled.cache_info().currsize == 0
    found = Wording(pattern).search("ze_result_error_device_lost on the gpu")
    assert found is not None and wording._compiled.cache_info().currsize == 1


@pytest.mark.parametrize(
    ("pattern", "text"),
    [("setvars", "\u017fetvars.sh"), ("pip install", "P\u0130P \u0131nstall"),
     ("kernel", "\u212aernel"), ("(?-i:Level Zero) loader", "Level Zero LOADER")],
)  # fmt: skip
def test_the_literals_are_folded_as_re_folds_them(pattern: str, text: str) -> None:
    """What ``re`` matches case-insensitively (the long s and the dotless i for s and i, the
    Kelvin sign for k) still passes the literals' check."""
    assert Wording(pattern).search(text) is not None
    assert re.search(pattern, text, re.IGNORECASE) is not None
