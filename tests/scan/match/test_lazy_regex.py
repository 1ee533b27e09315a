"""The text rules' regexes compiled at their first search (``lazy_regex``): a scan that kept
that the rules' regexes compile compiles none of them up front, an invalid one is still
refused before anything is read, and a search finds what ``re`` finds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from scan_rules import rule

from ipex_doctor.errors import KnowledgeBaseError
from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.lazy_pattern import LazyPattern
from ipex_doctor.scan import scan_paths

# NOTE: every pattern text re compiles from nothing while the shipped rules are checked and the
# rule set built, printed with the rules' own regex texts that were among them
_COMPILED = """
import re._compiler as compiler, sys
from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.match import rule_checks, ruleset
rules = code_rules.load()
texts = set()
for r in rules.rules:
    texts.update((*r.match.text, *r.match.unless, *r.match.when))
    texts.update(t.encode() for t in r.match.in_files_with)
compiled = []
original = compiler.compile
def counted(pattern, flags=0):
    compiled.append(pattern)
    return original(pattern, flags)
compiler.compile = counted
rule_checks.refuse_invalid(rules)
ruleset.RuleSet(rules)
print(len(texts), sum(1 for p in compiled if p in texts))
"""


def test_a_second_process_compiles_none_of_the_rules_regexes_up_front(tmp_path: Path) -> None:
    """Once a process kept that the rules' regexes compile (and the rules themselves, in the
    knowledge base's cache), the next compiles none of them to check the rules or to build
    the rule set: each waits for a file whose trigger asks for it."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    counts, kept = [], []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", _COMPILED], capture_output=True, text=True,
                              env=env, check=True, timeout=120)  # fmt: skip
        counts.append([int(word) for word in done.stdout.split()])
        found = sorted((tmp_path / "cache").rglob("regexes-*.json"))
        kept.append([(path, path.stat().st_ino, path.stat().st_mtime_ns) for path in found])
    texts, compiled = counts[1]
    assert texts > 50
    assert compiled == 0
    assert len(kept[0]) == 1
    assert kept[1] == kept[0]  # NOTE: the run that took the value back wrote nothing


def test_an_invalid_regex_among_kept_valid_ones_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rules whose other regexes are known to compile: the invalid one is still compiled, and
    refused, before anything is read."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    good = rule("good", text=[r"\bipex\b"])
    scan_paths([tmp_path], CodeRules((good,)))  # NOTE: keeps that the one regex compiles
    with pytest.raises(KnowledgeBaseError, match="code rule bad: invalid regex '\\('"):
        scan_paths([tmp_path], CodeRules((good, rule("bad", text=["("]))))


@pytest.mark.parametrize(
    ("text", "subject"),
    [(r"ipex\.(\w+)", "x = ipex.optimize(m)"), (r"^\s*RUN pip", "FROM x"), (rb"\bccl\b", b"ccl")],
)
def test_a_search_finds_what_re_finds(text: str | bytes, subject: str | bytes) -> None:
    lazy = LazyPattern(text)
    found, expected = lazy.search(subject), re.compile(text).search(subject)
    assert (found and (found.span(), found.group(0))) == (
        expected and (expected.span(), expected.group(0))
    )
