"""Split the texts collected for explain's corpus into a development and a kept-aside part.

    python tools/split_explain_corpus.py COLLECTED.yaml   # writes both parts, once
    python tools/split_explain_corpus.py --check           # the parts are the split of their union

A text goes to the kept-aside part when a generator seeded with ``SEED`` and its thread's URL
draws below ``KEPT_ASIDE``: the split is by thread (every text of a thread lands in the same
part), decided before any entry was written, and does not depend on the order of the
collection, so ``--check`` recomputes it from the two parts alone. The collected file is the
input of one run; the parts are what the tests and ``benchmarks/explain_accuracy.py`` read.
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
SEED = 20261125
KEPT_ASIDE = 0.4
"""The share of threads kept aside."""

HEADERS = {
    "development": """\
# The development part of explain's fourth corpus: error texts quoted from public trackers,
# sampled as tests/assets/explain_corpus/sampling.yaml records (never chosen by cause), and split
# by thread at random (tools/split_explain_corpus.py, seed {seed}) before any entry was written.
# Each text: its thread, tracker, date (null when the search result showed none), the layer of
# the cause the thread established (null for a text outside the Intel stack), that cause in
# words, whether the thread or only the text itself established it, and what explain must name:
# a knowledge-base id, "layer:<name>" where no entry names the cause, or "unrelated".
""",
    "kept-aside": """\
# The kept-aside part of explain's fourth corpus (format of development.yaml): split by thread at
# random (tools/split_explain_corpus.py, seed {seed}) before any entry was written, and not read
# while entries were written. Measured by benchmarks/explain_accuracy.py; never tune on it.
""",
}


def part_of(thread: str) -> str:
    """The part a thread belongs to (see the module docstring)."""
    draw = random.Random(f"{SEED}:{thread}").random()
    return "kept-aside" if draw < KEPT_ASIDE else "development"


def split(cases: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The cases of each part, in their collected order."""
    parts: dict[str, list[dict[str, Any]]] = {name: [] for name in PARTS}
    for case in cases:
        parts[part_of(case["thread"])].append(case)
    return parts


def write(parts: dict[str, list[dict[str, Any]]]) -> None:
    for name, cases in parts.items():
        body = yaml.safe_dump(cases, allow_unicode=True, sort_keys=False, width=100)
        PARTS[name].write_text(HEADERS[name].format(seed=SEED) + body, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("collected", nargs="?", type=Path, help="The collected texts (YAML).")
    parser.add_argument("--check", action="store_true", help="Verify the parts instead.")
    args = parser.parse_args()
    if args.check:
        wrong = [
            (name, case["thread"])
            for name, path in PARTS.items()
            for case in yaml.safe_load(path.read_text(encoding="utf-8"))
            if part_of(case["thread"]) != name
        ]
        for name, thread in wrong:
            print(f"{thread} is in the {name} part, but the split puts it in the other")
        return 1 if wrong else 0
    if args.collected is None:
        parser.error("give the collected file, or --check")
    parts = split(yaml.safe_load(args.collected.read_text(encoding="utf-8")))
    write(parts)
    for name, cases in parts.items():
        print(f"{name}: {len(cases)} texts -> {PARTS[name].relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
