"""How often ``explain`` names the cause a thread established, on the corpora of real texts.

    python benchmarks/explain_accuracy.py [--part NAME] [--by tracker|layer|why] [--misses]
        [--collection N]...

The corpus (tests/assets/explain_corpus/, sampled from public trackers as its sampling.yaml
records) has a development part (the texts the entries were written from) and a kept-aside
part (split by thread before any entry was written, never used to write one); the earlier
collections (tests/assets/xpu_error_corpus.yaml and xpu_error_holdout.yaml, chosen by cause)
are printed as well. Each text expects a knowledge-base id, ``layer:<name>`` (no entry names
its cause: explain must name no entry, and that layer) or ``unrelated`` (explain must name
nothing: no entry, no layer). For each part, and within it per tracker or per layer:

* first-ranked: the expected entry is the first candidate (or a cause of it, ``Match.names``);
  for ``layer:<name>``, no entry is named and the layer is;
* top-3: the expected entry is among the first three (``layer:<name>``: as first-ranked);
* right layer: the layer explain names (the first candidate's, else the layer it falls back
  to) is the layer of the established cause (texts whose thread established none: any);
* false alarms: unrelated texts for which explain named an entry or a layer;
* no Intel word: related texts that hold no word of the Intel stack (``stack.intel`` in the
  knowledge base: an app's own message, a generic Python error quoted from an XPU thread), and
  how many of those were first-ranked. They stay in every count above: explain names a layer
  only for a text that names the stack, so such a text is right only where an entry names its
  cause (a torch install error); otherwise it is a miss, and the column says how many of the
  misses are of that kind.

``--by why`` groups the related texts without the right layer by why they missed (``WHY``): no
word of the Intel stack, an entry of another layer named, another layer's wording winning, or no
layer at all for a text that names the stack (no layer's wording fits, or another vendor's word
held it back); the rest are one row, and the unrelated texts another.

``--collection N`` counts only the texts of collection N (repeatable): when two collections'
kept-aside parts wait, each is measured once, with the rules final at its own time.

Text alone, no environment: ``--report`` / ``--python`` decide further.
tests/knowledge/test_corpus.py holds explain to the numbers this prints.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ipex_doctor.knowledge import known_issues  # noqa: E402
from ipex_doctor.knowledge.explain import Explanation, diagnose, names_intel_stack  # noqa: E402

ASSETS = ROOT / "tests" / "assets"
PARTS = {
    "development": ASSETS / "explain_corpus" / "development.yaml",
    "kept-aside": ASSETS / "explain_corpus" / "holdout.yaml",
    "earlier (chosen)": ASSETS / "xpu_error_corpus.yaml",
    "earlier held out": ASSETS / "xpu_error_holdout.yaml",
}
UNRELATED = "unrelated"
WHY = {
    "silent": "miss: no Intel word",
    "entry": "miss: an entry of another layer",
    "wording": "miss: another layer's wording",
    "none": "miss: no layer (no wording, or held back)",
}
"""Why a related text missed its layer, as ``--by why`` groups them."""


def cases(path: Path) -> list[dict[str, Any]]:
    """The texts of one part in one form: the earlier collections' ``expect: null`` is
    ``unrelated`` and their tracker is read from the source URL."""
    found: list[dict[str, Any]] = yaml.safe_load(path.read_text(encoding="utf-8"))
    for case in found:
        if "thread" not in case:  # NOTE: the earlier collections' format
            case["thread"] = case["source"]
            case["expect"] = case["expect"] or UNRELATED
        if "tracker" not in case:
            hit = re.match(r"https://github\.com/([^/]+/[^/]+)", case["thread"])
            case["tracker"] = hit[1] if hit else case["thread"].split("/")[2]
    return found


def named_layer(found: Explanation) -> str | None:
    """The layer explain names: the first candidate's, else the one it falls back to."""
    if found.matches:
        return found.matches[0].issue.layer
    return found.layer.layer.id if found.layer else None


def why(case: dict[str, Any], found: Explanation, got: dict[str, bool], silent: bool) -> str:
    """The ``--by why`` group of a text: unrelated, right layer, or one of ``WHY``'s groups."""
    if case["expect"] == UNRELATED:
        return "(unrelated)"
    if got["layer"]:
        return "right layer"
    if silent:
        return WHY["silent"]
    if found.matches:
        return WHY["entry"]
    return WHY["wording"] if found.layer is not None else WHY["none"]


def judge(case: dict[str, Any], found: Explanation) -> dict[str, bool]:
    """Which measures a text counts in and whether explain got it right."""
    expect = case["expect"]
    if expect == UNRELATED:
        return {"alarm": bool(found.matches) or found.layer is not None}
    if expect.startswith("layer:"):
        first = not found.matches and named_layer(found) == expect.split(":", 1)[1]
        top3 = first
    else:
        first = any(expect in m.names for m in found.matches[:1])
        top3 = any(expect in m.names for m in found.matches[:3])
    layer = case["layer"] is None or named_layer(found) == case["layer"]
    return {"first": first, "top3": top3, "layer": layer}


@dataclass
class Tally:
    """Counts of one group of texts."""

    related: int = 0
    first: int = 0
    top3: int = 0
    layer: int = 0
    unrelated: int = 0
    alarms: int = 0
    silent: int = 0
    """Related texts with no word of the Intel stack."""
    silent_first: int = 0
    """Those of them that were first-ranked all the same."""
    misses: list[str] = field(default_factory=list)

    def add(self, case: dict[str, Any], got: dict[str, bool], named: str, silent: bool) -> None:
        if "alarm" in got:
            self.unrelated += 1
            self.alarms += got["alarm"]
            if got["alarm"]:
                self.misses.append(f"unrelated, named {named}: {case['thread']}")
            return
        self.related += 1
        self.first += got["first"]
        self.top3 += got["top3"]
        self.layer += got["layer"]
        self.silent += silent
        self.silent_first += silent and got["first"]
        if not (got["first"] and got["layer"]):
            self.misses.append(
                f"expected {case['expect']} ({case['layer']}), named {named}: {case['thread']}"
            )


def score(
    found_cases: Iterable[dict[str, Any]], kb: known_issues.KnowledgeBase, by: str | None = None
) -> dict[str, Tally]:
    """The tally of every text (key ``all``), and per ``by`` (``tracker``, ``layer`` or
    ``why``)."""
    tallies: dict[str, Tally] = defaultdict(Tally)
    tallies["all"] = Tally()  # NOTE: a part may be empty (kept aside, between two collections)
    for case in found_cases:
        found = diagnose(case["text"], kb)
        got = judge(case, found)
        named = (
            found.matches[0].issue.id
            if found.matches
            else (f"layer:{found.layer.layer.id}" if found.layer else "nothing")
        )
        silent = case["expect"] != UNRELATED and not names_intel_stack(case["text"], kb)
        tallies["all"].add(case, got, named, silent)
        if by == "why":
            tallies[why(case, found, got, silent)].add(case, got, named, silent)
        elif by is not None:
            key = case["tracker"] if by == "tracker" else (case["layer"] or "(unrelated / none)")
            tallies[key].add(case, got, named, silent)
    return dict(tallies)


def _ratio(right: int, total: int) -> str:
    return f"{right:>3}/{total:<3} {right / total:6.1%}" if total else f"{'-':>14}"


def _row(name: str, tally: Tally) -> str:
    alarms = f"{tally.alarms:>3}/{tally.unrelated:<3}" if tally.unrelated else f"{'-':>7}"
    silent = f"{tally.silent:>3} ({tally.silent_first} right)" if tally.silent else ""
    return (f"{name[:44]:<44} {_ratio(tally.first, tally.related)} {_ratio(tally.top3, tally.related)} "
            f"{_ratio(tally.layer, tally.related)} {alarms}  {silent}")  # fmt: skip


def main() -> int:
    """Print the table per part (and per tracker or layer, and the misses, when asked)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=list(PARTS), action="append", help="Only this part.")
    parser.add_argument("--by", choices=["tracker", "layer", "why"], help="Also one row per group.")
    parser.add_argument("--misses", action="store_true", help="List the texts explain got wrong.")
    parser.add_argument(
        "--collection", type=int, action="append", help="Only the texts of this collection."
    )
    args = parser.parse_args()
    kb = known_issues.load()
    header = (
        f"{'part / group':<44} {'first-ranked':>14} {'top-3':>14} {'right layer':>14} {'alarms':>7}"
        "  no Intel word"
    )
    print(header)
    for part in args.part or list(PARTS):
        texts = cases(PARTS[part])
        if args.collection:  # NOTE: the earlier collections' texts carry no collection number
            texts = [case for case in texts if case.get("collection") in args.collection]
        tallies = score(texts, kb, args.by)
        print(_row(part, tallies["all"]))
        for key in sorted(k for k in tallies if k != "all"):
            print(_row(f"  {key}", tallies[key]))
        if args.misses:
            for miss in tallies["all"].misses:
                print(f"    {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
