"""The registry of finding ids: every id a report can carry is known, described and unique."""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

from conftest import REPO, TESTS

from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.terms import AMP_DTYPES, SANITY_PROFILES
from ipex_doctor.verdicts import registry

KB_IDS = {issue.id for issue in known_issues.load().issues}


def test_builtin_ids_are_unique_and_never_a_knowledge_base_id() -> None:
    ids = [spec.id for spec in registry.BUILTIN]
    assert len(ids) == len(set(ids))
    assert not set(ids) & KB_IDS
    assert registry.finding_ids(KB_IDS) == KB_IDS | set(ids)
    assert registry.builtin("sanity-train") is not None and registry.builtin("dot-half") is None


def test_every_id_in_a_recorded_report_is_registered() -> None:
    for report in (TESTS / "assets" / "reports").glob("*.json"):
        findings = json.loads(report.read_text())["findings"]
        assert {f["id"] for f in findings} <= registry.finding_ids(KB_IDS), report.name


def test_every_id_literal_the_judges_emit_is_registered() -> None:
    """Ids the judges write out (``id="..."``, or a call's first argument) are all known ids."""
    emitted: set[str] = set()
    for module in (REPO / "ipex_doctor" / "verdicts").glob("*.py"):
        if module.name == "registry.py":
            continue
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.keyword) and node.arg == "id":
                value = node.value
            elif isinstance(node, ast.Call) and node.args:
                value = node.args[0]
            else:
                continue
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                if value.value.startswith(("sanity-", "device-", "fleet-")):
                    emitted.add(value.value)
    assert {"sanity-train", "sanity-throughput", "device-outlier", "fleet-outlier"} <= emitted
    assert emitted <= registry.finding_ids(KB_IDS)


def test_the_probe_script_and_the_cli_offer_the_same_profiles_and_dtypes() -> None:
    """The sanity script runs standalone, so it cannot import the vocabulary: compare instead."""
    path = Path(REPO / "ipex_doctor" / "probe" / "scripts" / "sanity.py")
    spec = importlib.util.spec_from_file_location("sanity_script", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)  # the script imports torch only when it runs
    assert tuple(sorted(script.PROFILES)) == tuple(sorted(SANITY_PROFILES))
    parser_source = path.read_text()
    for dtype in AMP_DTYPES:
        assert f'"{dtype}"' in parser_source
