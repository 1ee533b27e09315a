"""The registry of finding ids: every id a report can carry is known, described and unique."""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest
from conftest import REPO, TESTS

from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.findings import Evidence, Severity, Status
from ipex_doctor.model.terms import AMP_DTYPES, SANITY_PROFILES
from ipex_doctor.verdicts import registry
from ipex_doctor.verdicts.xpu_ladder import rung_ids

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
    path = Path(REPO / "ipex_doctor" / "probe" / "scripts" / "resnet_sanity.py")
    spec = importlib.util.spec_from_file_location("sanity_script", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)  # the script imports torch only when it runs
    assert tuple(sorted(script.PROFILES)) == tuple(sorted(SANITY_PROFILES))
    parser_source = path.read_text()
    for dtype in AMP_DTYPES:
        assert f'"{dtype}"' in parser_source


def _calls(path: Path) -> list[ast.Call]:
    return [node for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Call)]


def _called(call: ast.Call) -> str:
    """The name a call calls: ``Finding`` for ``Finding(...)`` and ``model.Finding(...)``."""
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def test_a_finding_is_built_only_by_a_spec_or_by_the_judge_from_its_entry() -> None:
    """No emitter types a built-in finding's id, kind or severity again: only the registry's
    ``FindingSpec.finding``, the judge (for a knowledge-base entry, from the entry) and the code
    join (for a code rule, from the rule) call ``Finding(...)``, and nothing re-labels a finding
    with ``replace(..., id=...)``."""
    package = REPO / "ipex_doctor"
    builders: dict[str, list[ast.Call]] = {}
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).as_posix()
        for call in _calls(path):
            if _called(call) == "Finding":
                builders.setdefault(where, []).append(call)
            if _called(call) == "replace":
                relabelled = {k.arg for k in call.keywords} & {"id", "kind", "severity"}
                assert not relabelled, f"{where}:{call.lineno} replaces {relabelled}"
    assert set(builders) == {
        "verdicts/registry.py", "verdicts/judge.py", "verdicts/code_findings.py"
    }, sorted(builders)  # fmt: skip
    (spec_call,) = builders["verdicts/registry.py"]
    (entry_call,) = builders["verdicts/judge.py"]
    (code_call,) = builders["verdicts/code_findings.py"]
    coded = {k.arg: ast.unparse(k.value) for k in code_call.keywords}
    assert (coded["id"], coded["kind"], coded["severity"]) == (
        "rule.id", "FindingKind.CODE", "rule.severity"
    )  # fmt: skip
    made = {k.arg: ast.unparse(k.value) for k in spec_call.keywords}
    assert (made["id"], made["kind"], made["severity"]) == ("self.id", "self.kind", "self.severity")
    judged = {k.arg: ast.unparse(k.value) for k in entry_call.keywords}
    assert (judged["id"], judged["kind"], judged["severity"]) == (
        "issue.id", "issue.kind", "issue.severity"
    )  # fmt: skip


def test_every_spec_an_emitter_looks_up_is_registered() -> None:
    """``spec("...")`` literals name built-in ids; an f-string (the ladder's) a prefix of some."""
    builtin_ids = {spec.id for spec in registry.BUILTIN}
    literal, prefixes = set(), set()
    for module in (REPO / "ipex_doctor" / "verdicts").glob("*.py"):
        for call in _calls(module):
            if _called(call) != "spec" or not call.args:
                continue
            argument = call.args[0]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                literal.add(argument.value)
            elif isinstance(argument, ast.JoinedStr):
                head = argument.values[0]
                assert isinstance(head, ast.Constant), ast.unparse(argument)
                prefixes.add(str(head.value))
    assert literal <= builtin_ids, literal - builtin_ids
    assert prefixes == {"xpu-rung-"}
    # NOTE: every built-in id is looked up by a literal but the ladder's seven
    assert builtin_ids - literal == {i for i in builtin_ids if i.startswith("xpu-rung-")}


def test_spec_fails_loudly_on_an_id_it_does_not_have() -> None:
    assert registry.spec("fleet-launch").id == "fleet-launch"
    for unknown in ("dot-half", "fleet-lunch"):  # a KB id is no built-in one; nor is a typo
        with pytest.raises(KeyError, match=unknown):
            registry.spec(unknown)


def test_a_spec_makes_its_finding_with_the_judgement_s_status() -> None:
    """Id, kind and severity are the spec's; status and the rest the judgement's; the title
    is the spec's unless the judgement words its own."""
    spec = registry.spec("fleet-launch")
    found = spec.finding(Status.WARN, Evidence("seen"), remediation="fix", device="xpu:0")
    assert (found.id, found.kind, found.severity) == (spec.id, spec.kind, Severity.ERROR)
    assert (found.status, found.title, found.remediation) == (Status.WARN, spec.title, "fix")
    assert found.device == "xpu:0" and found.per_device == {}
    assert spec.finding(Status.PASS, Evidence("seen"), title="Worded").title == "Worded"


def test_the_ladder_climbs_the_registry_s_rungs_in_its_order() -> None:
    registered = [spec.id for spec in registry.BUILTIN if spec.id.startswith("xpu-rung-")]
    assert list(rung_ids()) == registered
