"""The schema-subset validator agrees with the jsonschema library on the documents that matter.

``knowledge.schema`` exists so that light commands need not import jsonschema; it is only
correct if it accepts and refuses exactly what jsonschema does. Hypothesis mutates the shipped
knowledge base (and policy documents) and both validators judge every mutant.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import REPO, TESTS, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipex_doctor.knowledge import known_issues, schema
from ipex_doctor.reporting import policy
from ipex_doctor.verdicts.fleet import REPORT_READS

SHIPPED = yaml.safe_load(known_issues.shipped_path().read_text())
KB_SCHEMA = schema.knowledge_base_schema()
ISSUE_KEYS = sorted(schema.issue_keys())

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False)
    | st.sampled_from(["", "x", "torch", "2.8.0", "error", "https://example.org", "known-issue"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from([*ISSUE_KEYS, "package", "zzz"]), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip


def by_library(document: Any, against: dict[str, Any]) -> set[tuple[Any, ...]]:
    validator = jsonschema.validators.validator_for(against)(against)
    return {tuple(error.absolute_path) for error in validator.iter_errors(document)}


def by_subset(document: Any, against: dict[str, Any] | None = None) -> set[tuple[Any, ...]]:
    return {error.path for error in schema.errors(document, against)}


def test_the_shipped_document_is_valid_for_both() -> None:
    assert by_subset(SHIPPED) == by_library(SHIPPED, KB_SCHEMA) == set()


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entry=st.integers(0, len(SHIPPED["issues"]) - 1),
    key=st.sampled_from([*ISSUE_KEYS, "unknown_key"]),
    value=json_values,
    delete=st.booleans(),
)
def test_both_refuse_the_same_places_in_a_mutated_entry(
    entry: int, key: str, value: Any, delete: bool
) -> None:
    document = copy.deepcopy(SHIPPED)
    if delete:
        document["issues"][entry].pop(key, None)
    else:
        document["issues"][entry][key] = value
    assert by_subset(document) == by_library(document, KB_SCHEMA)


@settings(max_examples=examples(200), deadline=None)
@given(document=json_values | st.fixed_dictionaries({"schema_version": json_values,
                                                       "issues": json_values}))  # fmt: skip
def test_both_refuse_the_same_places_in_any_document(document: Any) -> None:
    assert by_subset(document) == by_library(document, KB_SCHEMA)


@settings(max_examples=examples(200), deadline=None)
@given(
    fail_on=st.sampled_from(["error", "warning", "never", "loud"]) | json_values,
    ignore=st.lists(
        st.fixed_dictionaries(
            {"id": st.sampled_from(["dot-half", "", 3])},
            optional={"reason": json_values, "expires": st.sampled_from(["2027-01-01", 5]),
                      "zzz": json_values},
        ),
        max_size=3,
    ) | json_values,
)  # fmt: skip
def test_both_judge_policies_alike(fail_on: Any, ignore: Any) -> None:
    document = {"fail_on": fail_on, "ignore": ignore}
    against = policy._SCHEMA
    assert by_subset(document, against) == by_library(document, against)


def test_a_keyword_outside_the_subset_is_refused_not_ignored() -> None:
    with pytest.raises(ValueError, match="not supported"):
        schema.errors({"a": 1}, {"type": "object", "maxProperties": 0})
    with pytest.raises(ValueError, match="local references"):
        schema.errors(1, {"$ref": "https://example.org/schema.json"})


def test_the_entry_keys_are_the_schemas() -> None:
    assert "affected" in ISSUE_KEYS and "id" in ISSUE_KEYS
    assert schema.range_keys() == set(KB_SCHEMA["$defs"]["range"]["properties"])


REPORT = json.loads((TESTS / "assets" / "reports" / "cpu-reference-check.json").read_text())
REPORT_SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())


def test_a_real_report_is_valid_for_both() -> None:
    assert by_subset(REPORT, REPORT_SCHEMA) == by_library(REPORT, REPORT_SCHEMA) == set()


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    finding=st.integers(0, len(REPORT["findings"]) - 1),
    key=st.sampled_from(["id", "status", "verdict", "device", "per_device", "ignored",
                         "commands", "versions", "evidence", "zzz"]),
    value=json_values | st.sampled_from(["pass", "fail", "cpu", {"cpu": "pass"}, None]),
)  # fmt: skip
def test_both_judge_a_mutated_report_alike(finding: int, key: str, value: Any) -> None:
    """The published report schema (oneOf, minimum, additionalProperties as a schema...)."""
    document = copy.deepcopy(REPORT)
    document["findings"][finding][key] = value
    assert by_subset(document, REPORT_SCHEMA) == by_library(document, REPORT_SCHEMA)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    where=st.sampled_from(["summary", "environment", "baseline", "complete", "schema_version"]),
    value=json_values,
)
def test_both_judge_a_mutated_report_top_alike(where: str, value: Any) -> None:
    document = copy.deepcopy(REPORT)
    document[where] = value
    assert by_subset(document, REPORT_SCHEMA) == by_library(document, REPORT_SCHEMA)


FLEET_SCHEMA = schema.subset(REPORT_SCHEMA, REPORT_READS)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    where=st.sampled_from([
        ("environment", "host", "cpu_flags"), ("environment", "host", "cpu_model"),
        ("environment", "host", "kernel"), ("environment", "interpreter", "version"),
        ("environment", "runtime", "devices"), ("environment", "env_vars"),
        ("complete",), ("findings", 3, "status"), ("findings", 3, "evidence"),
    ]),
    value=json_values,
)  # fmt: skip
def test_a_subset_refuses_what_the_full_schema_refuses_where_it_reads(
    where: tuple[Any, ...], value: Any
) -> None:
    """``subset`` keeps each read part's checks exactly (the places jsonschema refuses under
    the full schema inside a read part are the places the subset refuses), and checks nothing
    the reader leaves alone; jsonschema agrees on the subset schema itself."""
    document = copy.deepcopy(REPORT)
    parent = document
    for step in where[:-1]:
        parent = parent[step]
    parent[where[-1]] = value
    full = by_library(document, REPORT_SCHEMA)
    read = {path for path in full if _reads(path)}
    assert by_subset(document, FLEET_SCHEMA) == by_library(document, FLEET_SCHEMA) == read


def _reads(path: tuple[Any, ...]) -> bool:
    """Whether the fleet reads the place ``path`` (as REPORT_READS names it)."""
    reads: Any = REPORT_READS
    for step in path:
        if isinstance(step, int):
            continue  # an array's reads apply to its items
        if reads is True:
            return True
        if step not in reads:
            return False
        reads = reads[step]
    return True
