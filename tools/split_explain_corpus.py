"""Split the texts collected for explain's corpus into a development and a kept-aside part.

    python tools/split_explain_corpus.py --collection N COLLECTED.yaml  # adds collection N, once
    python tools/split_explain_corpus.py --check                        # the parts are the split
    python tools/split_explain_corpus.py --move-measured                # after adding to MEASURED

The corpus grows by collections, each sampled as sampling.yaml records and each with its own
seed (``SEEDS``). A text of a collection goes to the kept-aside part when a generator seeded with
its collection's seed and its thread's URL draws below ``KEPT_ASIDE``: the split is by thread
(every text of a thread lands in the same part), decided before any rule was changed for that
collection, and does not depend on the order of the collection, so ``--check`` recomputes it from
the two parts alone. When a kept-aside part has been measured and reported, it has been seen:
its collection joins ``MEASURED`` and all its texts move to the development part
(``--move-measured``; a later collection keeps its own texts aside). Each text records its
``collection``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "assets" / "explain_corpus"
PARTS = {"development": CORPUS / "development.yaml", "kept-aside": CORPUS / "holdout.yaml"}
SEEDS = {
    4: 20261125, 5: 20261126, 6: 20261127, 7: 20261128, 8: 20261130, 9: 20261131, 10: 20261203,
    11: 20261204, 12: 20261205, 13: 20261206, 14: 20261207, 15: 20261208, 16: 20261213,
    17: 20261214, 19: 20261215, 20: 20261217, 21: 20261219,
    22: 20261220, 23: 20261221, 24: 20261222, 25: 20261223, 26: 20261224,
    27: 20261225, 28: 20261226, 29: 20261227, 30: 20261228, 31: 20261229,
    32: 20261230, 33: 20261231, 34: 20270101, 35: 20270102, 36: 20270103,
    37: 20270104, 38: 20270105, 39: 20270106, 40: 20270107,
    41: 20270108, 42: 20270109, 43: 20270110, 44: 20270111,
    45: 20270112,
}  # fmt: skip
"""The seed of each collection (sampling.yaml numbers them: the fourth to the nineteenth
corpora, the twentieth to the forty-fifth; the eighteenth was attempted and recorded, not added, and drew no seed)."""
KEPT_ASIDE = 0.4
"""The share of a collection's threads kept aside."""
MEASURED = frozenset(
    {
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        11,
        12,
        13,
        14,
        15,
        16,
        17,
        19,
        20,
        21,
        22,
        23,
        24,
        25,
        26,
        27,
        28,
        29,
        30,
        31,
        32,
        33,
        34,
        35,
        36,
        37,
        38,
        39,
        40,
        41,
        42,
        43,
        44,
        45,
    }
)
"""Collections whose kept-aside part was measured once and reported: it is development now."""

HEADERS = {
    "development": """\
# The development part of explain's corpus: error texts quoted from public trackers, sampled as
# tests/assets/explain_corpus/sampling.yaml records (never chosen by cause), collection by
# collection. Each collection was split by thread at random (tools/split_explain_corpus.py, its
# own seed) before any rule was changed for it; this part holds every collection's development
# texts, and the whole of every collection whose kept-aside part was measured once and reported
# (the fourth, at 53.8 % right cause first; the fifth, at 78.6 %; the sixth and seventh together,
# at 38.5 %; the eighth and ninth together, at 46.7 %; the tenth and eleventh together, at
# 45.0 %; the twelfth and thirteenth together, at 47.1 %; the fourteenth, at 33.3 %; the
# fifteenth, at 25.0 %; the sixteenth and seventeenth together, at 25.0 %; the nineteenth, at
# 30.0 %; the twentieth, at 16.7 %; the twenty-first, at 26.9 %; the twenty-second, at 50.0 %;
# the twenty-third, at 50.0 %; the twenty-fourth and twenty-fifth together, at 44.0 %; the
# twenty-sixth, at 32.3 %; the twenty-seventh, at 32.1 %; the twenty-eighth, at 21.7 %; the twenty-ninth, at 28.6 %; the thirtieth, at 33.3 %; the thirty-first, at 37.5 %; the thirty-second, at 38.1 %; the thirty-third, at 37.5 %; the thirty-fourth, at 25.0 %): those joined this part. Each text: its thread, tracker, date
# (null when the search result showed none), the layer of the cause the thread established (null
# for a text outside the Intel stack), that cause in words, whether the thread or only the text
# itself established it, what explain must name (a knowledge-base id, "layer:<name>" where no
# entry names the cause, or "unrelated"), and the collection it was sampled in.
""",
    "kept-aside": """\
# The kept-aside part of explain's corpus (format of development.yaml): the texts of each
# collection not yet measured that its seeded split by thread (tools/split_explain_corpus.py) kept
# aside before any rule was changed for it, and not read while rules were changed. Measured by benchmarks/explain_accuracy.py;
# never tune on it.
""",
}


def drawn_part(thread: str, collection: int) -> str:
    """The part the seeded draw of a collection gives a thread (see the module docstring)."""
    draw = random.Random(f"{SEEDS[collection]}:{thread}").random()
    return "kept-aside" if draw < KEPT_ASIDE else "development"


def part_of(thread: str, collection: int) -> str:
    """The part a thread of a collection belongs to now: its draw, unless the collection's
    kept-aside part has been measured (then development)."""
    return "development" if collection in MEASURED else drawn_part(thread, collection)


def split(cases: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The cases of each part, in their given order."""
    parts: dict[str, list[dict[str, Any]]] = {name: [] for name in PARTS}
    for case in cases:
        parts[part_of(case["thread"], case["collection"])].append(case)
    return parts


def read_parts() -> list[dict[str, Any]]:
    """Every text of both parts, development first."""
    return [c for path in PARTS.values() for c in yaml.safe_load(path.read_text(encoding="utf-8"))]


def write(parts: dict[str, list[dict[str, Any]]]) -> None:
    """Write both parts and say how many texts each holds."""
    for name, cases in parts.items():
        body = yaml.safe_dump(cases, allow_unicode=True, sort_keys=False, width=100)
        PARTS[name].write_text(HEADERS[name] + body, encoding="utf-8")
        print(f"{name}: {len(cases)} texts -> {PARTS[name].relative_to(ROOT)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("collected", nargs="?", type=Path, help="The collected texts (YAML).")
    parser.add_argument("--collection", type=int, choices=sorted(SEEDS), help="Its number.")
    parser.add_argument("--check", action="store_true", help="Verify the parts instead.")
    parser.add_argument(
        "--move-measured", action="store_true", help="Move MEASURED collections to development."
    )
    args = parser.parse_args()
    if args.check:
        wrong = [
            (name, case["thread"])
            for name, path in PARTS.items()
            for case in yaml.safe_load(path.read_text(encoding="utf-8"))
            if part_of(case["thread"], case["collection"]) != name
        ]
        for name, thread in wrong:
            print(f"{thread} is in the {name} part, but the split puts it in the other")
        return 1 if wrong else 0
    if args.move_measured:
        write(split(read_parts()))
        return 0
    if args.collected is None or args.collection is None:
        parser.error("give --collection and the collected file, or --check")
    known = read_parts()
    if any(c["collection"] == args.collection for c in known):
        parser.error(f"collection {args.collection} is already split: a split is made once")
    added: list[dict[str, Any]] = yaml.safe_load(args.collected.read_text(encoding="utf-8"))
    threads = {c["thread"] for c in known}
    if repeated := sorted(c["thread"] for c in added if c["thread"] in threads):
        parser.error(f"already in the corpus: {', '.join(repeated)}")
    write(split(known + [{**c, "collection": args.collection} for c in added]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
