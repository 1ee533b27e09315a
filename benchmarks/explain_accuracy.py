"""How often ``explain`` names the cause a thread established, on the corpora of real texts.

    python benchmarks/explain_accuracy.py [--misses]

Reads ``tests/assets/xpu_error_corpus.yaml`` (development: the texts the entries were written
from) and ``tests/assets/xpu_error_holdout.yaml`` (held out: never used to write an entry) and
prints, for each part, first-ranked and top-3 accuracy over the related texts and the false
alarms over the unrelated ones (``expect: null``: explain must name nothing). A candidate is
right when it is the expected entry, or a cause of it (``Match.names``): a text whose thread
established no single cause expects the message's entry, and any of its causes names that.
Text alone, no environment: ``--report`` / ``--python`` decide further. tests/knowledge/
test_corpus.py holds explain to the numbers printed here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ipex_doctor.knowledge import known_issues  # noqa: E402
from ipex_doctor.knowledge.explain import Match, explain  # noqa: E402

PARTS = {
    "development": ROOT / "tests" / "assets" / "xpu_error_corpus.yaml",
    "held-out": ROOT / "tests" / "assets" / "xpu_error_holdout.yaml",
}


def within(matches: list[Match], expect: str, k: int) -> bool:
    """Whether ``expect`` is among the first ``k`` candidates."""
    return any(expect in m.names for m in matches[:k])


def score(cases: list[dict[str, Any]], kb: known_issues.KnowledgeBase) -> dict[str, Any]:
    """Counts for one part: related texts, right first, right in the top 3, unrelated texts,
    false alarms, and the misses (expected, first named, source)."""
    related = [c for c in cases if c["expect"] is not None]
    unrelated = [c for c in cases if c["expect"] is None]
    found = {id(c): explain(c["text"], kb) for c in cases}
    first = sum(within(found[id(c)], c["expect"], 1) for c in related)
    top3 = sum(within(found[id(c)], c["expect"], 3) for c in related)
    alarms = sum(bool(found[id(c)]) for c in unrelated)
    misses = [
        (c["expect"], found[id(c)][0].issue.id if found[id(c)] else None, c["source"])
        for c in cases
        if (c["expect"] is None and found[id(c)])
        or (c["expect"] is not None and not within(found[id(c)], c["expect"], 1))
    ]
    return {"related": len(related), "first": first, "top3": top3,
            "unrelated": len(unrelated), "alarms": alarms, "misses": misses}  # fmt: skip


def main() -> int:
    """Print the table (and with --misses every text explain got wrong)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--misses", action="store_true", help="List the texts named wrong.")
    args = parser.parse_args()
    kb = known_issues.load()
    print(f"{'part':<12} {'texts':>5} {'first-ranked':>14} {'top-3':>14} {'false alarms':>13}")
    for part, path in PARTS.items():
        cases = yaml.safe_load(path.read_text(encoding="utf-8"))
        got = score(cases, kb)
        n = got["related"]
        print(
            f"{part:<12} {n:>5} {got['first']:>4}/{n} {got['first'] / n:6.1%} "
            f"{got['top3']:>4}/{n} {got['top3'] / n:6.1%} {got['alarms']:>6}/{got['unrelated']}"
        )
        if args.misses:
            for expect, named, source in got["misses"]:
                print(f"    expected {expect}, named {named}: {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
