"""The schema subset and the jsonschema library give the same verdict on the same documents.

``knowledge.schema`` stands in for jsonschema on the doctor's hot path (its docstring says why,
with the numbers), so it is right only where it judges documents as the library does. Here both
judge an enumerated corpus against every schema the doctor ships (each ``*.schema.json`` of the
package and of ``docs/``, and the policy schema): the shipped ``known_issues.yaml`` and
``code_rules.yaml`` and every saved report under ``tests/assets/reports`` as they are, and each
of them mutated at every node (for the two YAML documents, whose entries repeat one shape: at
the first few nodes of every place, see ``_place``) in many ways: the node replaced by a value of every JSON type, or
by a near miss of its own type (a string with a space, a dash or 60 times longer; a number off
by one, negated or written as a float; a list shortened, with its first item repeated or wrapped
in a list; an object with an unknown key, or without each of its keys in turn). Unlike the
Hypothesis tests of ``test_schema.py`` the corpus is the same on every run and reaches every
place; a disagreement names the document, the path and the change. Some 47,000 documents take
the library about a minute, hence ``slow`` (``make unit`` leaves them to ``make test``).

The one deliberate difference, an integral float (``2.0``) where the schema says ``integer``,
is pinned by its own test, and the library is told the subset's rule for the comparison.
"""

from __future__ import annotations

import ast
import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import REPO, TESTS

from ipex_doctor import resources
from ipex_doctor.errors import KnowledgeBaseError
from ipex_doctor.knowledge import code_rules, known_issues, schema, yamldoc
from ipex_doctor.reporting import policy

PACKAGE = REPO / "ipex_doctor"
REPORTS = sorted((TESTS / "assets" / "reports").glob("*.json"))
REPORT_SCHEMA_FILE = resources.path("report.schema.json")

# A labelled document: (what it is, the schema to judge it by, the document).
Case = tuple[str, dict[str, Any], Any]

OTHER_TYPES: tuple[Any, ...] = (None, True, 0, -1, 1.5, "", "x", [], {})
"""What any node is replaced by: one value (or two) of every JSON type."""


def _near_misses(value: Any) -> Iterator[Any]:
    """Values of ``value``'s own type just beside it: where length, pattern, minimum, enum,
    uniqueItems, required and additionalProperties decide."""
    if isinstance(value, str):
        yield from (value + " ", "-" + value, value.upper(), value * 60)
    elif isinstance(value, bool):
        yield not value
    elif isinstance(value, int):
        yield from (value + 1, -value - 1, float(value))
    elif isinstance(value, float):
        yield from (value + 1.0, -value - 1.0)
    elif isinstance(value, list):
        yield from (value[1:], value + value[:1], [value])
    elif isinstance(value, dict):
        yield {**value, "zzz-unknown": "x"}
        for key in value:
            yield {k: v for k, v in value.items() if k != key}


def _same_json(a: Any, b: Any) -> bool:
    return type(a) is type(b) and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _nodes(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nodes(item, (*path, index))


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _replaced(value: Any, path: tuple[str | int, ...], new: Any) -> Any:
    """``value`` with the node at ``path`` replaced, copying only the containers on the path."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replaced(value[head], rest, new)
    return copy


PER_PLACE = 3
"""How many nodes of one place and type (see ``_place``) are mutated across a corpus's items."""


def _place(path: tuple[str | int, ...], node: Any) -> tuple[str, ...]:
    """Where a node sits as the schema sees it: its path with list positions left out, and its
    type. Two entries' ``title`` strings are judged by the same part of the schema. What a
    conditional part of a schema (``if``/``then``, ``oneOf``) may turn on stays apart: an
    object's set of keys, and a short string's value (an enum, a kind, a version)."""
    kind: str = type(node).__name__
    if isinstance(node, dict):
        kind += ":" + ",".join(sorted(node))
    elif isinstance(node, str) and len(node) <= 24:
        kind += ":" + node
    return (*("*" if isinstance(p, int) else p for p in path), kind)


def _mutants(
    label: str, document: Any, seen: Counter[tuple[str, ...]] | None = None
) -> Iterator[tuple[str, Any]]:
    """Every mutation of ``document`` described above, each with a label naming it. With
    ``seen`` (shared by the items of one corpus), a node is mutated only while fewer than
    ``PER_PLACE`` nodes of its place and type have been: the knowledge base's 60-odd entries
    repeat the same places, and mutating every one of them made a corpus of 245,000 documents
    (15 minutes of the library's time) that judged no part of the schema the first few did not."""
    for path in _nodes(document):
        node = _at(document, path)
        if seen is not None:
            place = _place(path, node)
            if seen[place] >= PER_PLACE:
                continue
            seen[place] += 1
        where = "/".join(str(p) for p in path) or "(top)"
        tried: list[Any] = []
        for new in (*_near_misses(node), *OTHER_TYPES):
            if _same_json(new, node) or any(_same_json(new, t) for t in tried):
                continue
            tried.append(new)
            yield f"{label} at {where} := {json.dumps(new)[:60]}", _replaced(document, path, new)


def _subschema(root: dict[str, Any], definition: str) -> dict[str, Any]:
    """A schema for one ``$defs`` entry of ``root``: judges a part (one report finding) alone,
    which is what ``items: {$ref}`` does for each part of the whole."""
    return {"$schema": root["$schema"], "$defs": root["$defs"], "$ref": f"#/$defs/{definition}"}


def _yaml_cases(path: Path, against: dict[str, Any], entries: str) -> Iterator[Case]:
    """A shipped YAML document read as the doctor reads it, then mutated: its top level whole,
    and each item of its list ``entries`` inside a document of that item alone (the same top
    level), so that the corpus stays seconds, not minutes."""
    data = yamldoc.parse(path.name, path.read_text(encoding="utf-8"), KnowledgeBaseError)
    yield path.name, against, data
    top = {key: value for key, value in data.items() if key != entries}
    for label, mutant in _mutants(path.name, {**top, entries: data[entries][:2]}):
        yield label, against, mutant
    seen: Counter[tuple[str, ...]] = Counter()
    for item in data[entries]:
        yield from (
            (label, against, mutant)
            for label, mutant in _mutants(f"{path.name} {entries} {item.get('id')}",
                                          {**top, entries: [item]}, seen)
        )  # fmt: skip


def _knowledge_base_cases() -> Iterator[Case]:
    against = schema.knowledge_base_schema()
    yield from _yaml_cases(known_issues.shipped_path(), against, "issues")
    # NOTE: no shipped range says `last_affected`, so no mutant reaches the schema's
    # `not: {required: [fixed, last_affected]}`: each range with `fixed` is tried with the
    # version under the other key (valid) and under both (invalid).
    path = known_issues.shipped_path()
    data = yamldoc.parse(path.name, path.read_text(encoding="utf-8"), KnowledgeBaseError)
    top = {key: value for key, value in data.items() if key != "issues"}
    for item in data["issues"]:
        for index, bound in enumerate(item.get("affected", ())):
            if "fixed" in bound:
                other = {k: v for k, v in bound.items() if k != "fixed"}
                for label, new in (("last_affected", {**other, "last_affected": bound["fixed"]}),
                                   ("both", {**bound, "last_affected": bound["fixed"]})):  # fmt: skip
                    ranges = [*item["affected"][:index], new, *item["affected"][index + 1 :]]
                    document = {**top, "issues": [{**item, "affected": ranges}]}
                    yield f"{path.name} {item['id']} range {index} {label}:=", against, document


def _code_rules_cases() -> Iterator[Case]:
    return _yaml_cases(code_rules.shipped_path(), code_rules.rules_schema(), "rules")


def _report_cases() -> Iterator[Case]:
    against = json.loads(REPORT_SCHEMA_FILE.read_text(encoding="utf-8"))
    finding = _subschema(against, "finding")
    for path in REPORTS:
        report = json.loads(path.read_text(encoding="utf-8"))
        yield path.name, against, report
        # NOTE: findings are judged one by one (their schema is `items`), the rest of the
        # report with the findings left out (an empty list is valid).
        for label, mutant in _mutants(path.name, {**report, "findings": []}):
            yield label, against, mutant
        for index, item in enumerate(report["findings"]):
            for label, mutant in _mutants(f"{path.name} finding {index} ({item['id']})", item):
                yield label, finding, mutant
    # NOTE: the scan summary of scan --fix (no saved report has one) is judged alone, as a
    # finding is, against the schema of the report's scan property.
    scanned = _scan_fix_report()
    yield "scan --fix report", against, scanned
    scan = {
        "$schema": against["$schema"],
        "$defs": against["$defs"],
        **against["properties"]["scan"],
    }
    for label, mutant in _mutants("scan --fix report's scan", scanned["scan"]):
        yield label, scan, mutant


def _scan_fix_report() -> dict[str, Any]:
    """A saved report turned into one of ``scan --fix``: its scan summary with a fix."""
    from ipex_doctor.model.code import SkippedFile
    from ipex_doctor.model.findings import ScanSummary
    from ipex_doctor.model.fix_summary import FixSummary, RewrittenFile

    fix = FixSummary(
        (RewrittenFile("a.py", 2, "0" * 64, "f" * 64),),
        (SkippedFile("b.py", "a read-only file"),),
        "/home/me/.local/state/ipex-doctor/fixes/fix-20260101T000000Z-0a1b2c3d.json",
    )
    report = json.loads(REPORTS[0].read_text(encoding="utf-8"))
    summary = ScanSummary(("src",), 3, 2, (SkippedFile("c.py", "binary"),), fix)
    return {**report, "command": "scan", "findings": [], "scan": summary.to_dict()}


def _fix_record_cases() -> Iterator[Case]:
    """A real undo record of scan --fix (written to the tests' own home), and its mutants."""
    from ipex_doctor.scan.fix import journal as fix_journal
    from ipex_doctor.scan.fix.confined import Place

    file = fix_journal.RecordedFile(Place("/src", ("pkg", "a.py")), "pkg/a.py", 1, 2, b"a", b"b")
    record = fix_journal.begin(["/src"], [file])
    document = json.loads(record.path.read_text(encoding="utf-8"))
    fix_journal.discard(record)
    against = json.loads(resources.path("scan/fix/fix_record.schema.json").read_text("utf-8"))
    yield "fix record", against, document
    for label, mutant in _mutants("fix record", document):
        yield label, against, mutant


def _policy_cases() -> Iterator[Case]:
    document = {
        "fail_on": "warn",
        "ignore": [
            {"id": "dot-half", "reason": "tracked upstream (TICKET-1)", "expires": "2027-03-31"},
            {"id": "bf16-linear", "reason": "we always run under autocast"},
        ],
    }
    yield "policy", policy._SCHEMA, document
    for label, mutant in _mutants("policy", document):
        yield label, policy._SCHEMA, mutant


CORPORA: dict[str, Callable[[], Iterator[Case]]] = {
    "known_issues.schema.json": _knowledge_base_cases,
    "code_rules.schema.json": _code_rules_cases,
    "report.schema.json": _report_cases,
    "fix_record.schema.json": _fix_record_cases,
    "policy (reporting/policy.py)": _policy_cases,
}


def _python_int(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


_LIBRARY: dict[int, tuple[dict[str, Any], Any]] = {}
"""The library's validator per schema, built once (the schema kept with it, so its id stays)."""


def _library_says_valid(document: Any, against: dict[str, Any]) -> bool:
    """The library's verdict, told the subset's one deliberate difference: an ``integer`` is a
    number written without a fraction (see test_integral_floats_are_the_one_...)."""
    kept = _LIBRARY.get(id(against))
    if kept is None or kept[0] is not against:
        base = jsonschema.validators.validator_for(against)
        strict = jsonschema.validators.extend(
            base, type_checker=base.TYPE_CHECKER.redefine("integer", _python_int)
        )
        kept = _LIBRARY[id(against)] = (against, strict(against))
    return bool(kept[1].is_valid(document))


def _subset_says_valid(document: Any, against: dict[str, Any]) -> bool:
    return not schema.errors(document, against)


def test_every_shipped_schema_has_a_corpus() -> None:
    """A new schema file is judged here too: the corpora cover every ``*.schema.json``."""
    found = {p.name for p in PACKAGE.rglob("*.schema.json")}
    found |= {p.name for p in (REPO / "docs").glob("*.schema.json")}
    assert found == {name for name in CORPORA if name.endswith(".schema.json")}
    assert REPORT_SCHEMA_FILE.name in found and len(REPORTS) >= 2


@pytest.mark.slow
@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_both_give_the_same_verdict(corpus: str) -> None:
    """Every document of the corpus is valid for both validators or invalid for both."""
    cases = list(CORPORA[corpus]())
    verdicts = []
    disagreements = []
    for label, against, document in cases:
        subset, library = (
            _subset_says_valid(document, against),
            _library_says_valid(document, against),
        )
        verdicts.append(subset)
        if subset != library:
            said = "valid" if subset else "invalid"
            disagreements.append(f"{label}: the subset says {said}, jsonschema does not")
    assert not disagreements, f"{len(disagreements)} of {len(cases)}:\n" + "\n".join(
        disagreements[:20]
    )
    # NOTE: the corpus must put both sides to work: the saved documents are valid, and
    # most mutants are not (a corpus of one kind only would agree trivially).
    saved = [v for (label, _, _), v in zip(cases, verdicts, strict=True) if ":=" not in label]
    assert saved and all(saved), "a saved document is invalid"
    assert verdicts.count(True) >= 10 and verdicts.count(False) >= 50, (
        verdicts.count(True), verdicts.count(False)
    )  # fmt: skip


def test_integral_floats_are_the_one_deliberate_difference() -> None:
    """``26.0`` for an ``integer``: JSON Schema accepts it, the subset refuses it, because the
    doctor writes integers without a fraction and its report decoder (``model.codec``)
    refuses a float for an ``int`` field anyway; a clear schema error names the place first."""
    against = json.loads(REPORT_SCHEMA_FILE.read_text(encoding="utf-8"))
    report = json.loads(REPORTS[0].read_text(encoding="utf-8"))
    total = report["summary"]["total"]
    floated = _replaced(report, ("summary", "total"), float(total))
    plain = jsonschema.validators.validator_for(against)(against)
    assert plain.is_valid(report) and plain.is_valid(floated)
    assert _subset_says_valid(report, against) and not _subset_says_valid(floated, against)
    assert [e.path for e in schema.errors(floated, against)] == [("summary", "total")]
    assert not _library_says_valid(floated, against)


def test_the_package_never_imports_jsonschema() -> None:
    """jsonschema is a test dependency only: no module of the package imports it, at the top
    or inside a function, so an installed doctor runs without it."""
    importing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(name.split(".")[0] == "jsonschema" for name in names):
                importing.append(str(path.relative_to(REPO)))
    assert not importing
