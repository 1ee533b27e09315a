"""A code match as a finding: a guarded IPEX path is judged as guarded (it cannot fail where
its probe says no), and the "mechanical" label is given only where ``--fix`` rewrites."""

from __future__ import annotations

import dataclasses

from builders import make_env

from ipex_doctor.knowledge import code_rules
from ipex_doctor.model.code import CodeLocation, CodeMatch
from ipex_doctor.model.findings import Status, Verdict
from ipex_doctor.verdicts.code_findings import code_finding

SHIPPED = code_rules.load()
TORCH_ONLY = make_env({"torch": "2.8.0+xpu"})
MECHANICAL = "(mechanical: ipex-doctor scan --fix)"


def _match(rule_id: str, *, guard: str | None = None, mechanical: bool = False) -> CodeMatch:
    return CodeMatch(
        rule_id=rule_id,
        location=CodeLocation("train.py", 12, 8),
        symbol="torch.xpu.has_fp64_dtype",
        snippet="        x = torch.xpu.has_fp64_dtype()",
        guard=guard,
        mechanical=mechanical,
    )


def test_an_ipex_only_call_fails_where_ipex_is_missing_unless_guarded() -> None:
    """The real false alarm: a torch.xpu function IPEX injects, called behind a hasattr check
    with an upstream fallback, is not a failure without IPEX; the finding names the guard."""
    rule = SHIPPED.get("xpu-has-fp64-dtype")
    assert rule is not None
    plain = code_finding(_match(rule.id), rule, TORCH_ONLY, {})
    assert plain.status is Status.FAIL
    guard = "`hasattr(torch.xpu, 'has_fp64_dtype')` (line 11)"
    guarded = code_finding(_match(rule.id, guard=guard), rule, TORCH_ONLY, {})
    assert guarded.status is Status.WARN and guarded.verdict is Verdict.LATENT
    assert guard in guarded.evidence.summary
    assert guarded.evidence.data["guard"] == guard


def test_a_guarded_finding_that_does_not_fail_keeps_its_status_and_names_its_guard() -> None:
    with_ipex = make_env({"torch": "2.8.0", "intel-extension-for-pytorch": "2.8.0+cpu"})
    rule = SHIPPED.get("ipex-import")
    assert rule is not None
    guard = "try/except ImportError (line 3)"
    finding = code_finding(_match(rule.id, guard=guard), rule, with_ipex, {})
    assert finding.status is Status.WARN
    assert "works with IPEX" in finding.evidence.summary and guard in finding.evidence.summary


def test_the_mechanical_label_follows_the_match_not_the_rule() -> None:
    """A rule with a fix labels only the places the fix rewrites; elsewhere the finding says
    what to do by hand (the rule's recipe)."""
    rule = SHIPPED.get("ipex-import")
    assert rule is not None and rule.fix
    rewritten = code_finding(_match(rule.id, mechanical=True), rule, TORCH_ONLY, {})
    left = code_finding(_match(rule.id), rule, TORCH_ONLY, {})
    assert rewritten.remediation.endswith(MECHANICAL)
    assert MECHANICAL not in left.remediation and rule.recipe in left.remediation


def test_a_read_of_what_the_files_own_assignment_set_points_to_that_assignment() -> None:
    """The RVC forks' hijack assigns IPEX's GradScaler to ``torch.xpu.amp.GradScaler`` (line
    183) and patches it on the next lines: the name exists there, so "does not exist" and a
    failure are untrue of those lines. Each names the assignment as the one cause and warns
    (code to remove with it); the assignment itself, and a plain read, still fail."""
    rule = SHIPPED.get("xpu-amp-grad-scaler")
    assert rule is not None

    def match(line: int, assigned_at: int | None) -> CodeMatch:
        return CodeMatch(
            rule_id=rule.id,
            location=CodeLocation("infer/modules/ipex/gradscaler.py", line, 4),
            symbol="torch.xpu.amp.GradScaler",
            snippet="    torch.xpu.amp.GradScaler.update = update",
            assigned_at=assigned_at,
        )

    for env in (TORCH_ONLY, None):
        cause = code_finding(match(183, None), rule, env, {})
        read = code_finding(match(186, 183), rule, env, {})
        assert cause.status is Status.FAIL and cause.title == rule.title
        assert read.status is Status.WARN and read.verdict is Verdict.LATENT
        assert "does not exist" not in read.title and "line 183" in read.title
        assert read.evidence.data["assigned_at"] == "infer/modules/ipex/gradscaler.py:183"
        assert "line 183" in read.evidence.summary and "line 183" in read.remediation
        assert rule.replacement in read.remediation


def test_a_read_of_a_flag_points_to_the_probe_that_sets_it() -> None:
    """One cause, one finding: a read of ``xpu_available`` (set from ``is_ipex_available()``
    at line 8) is reported where it guards a path, and says where its cause is; the symbol,
    and so the finding's identity in a baseline, stays the flag's name."""
    rule = SHIPPED.get("ipex-probe")
    assert rule is not None
    read = CodeMatch(
        rule_id=rule.id,
        location=CodeLocation("intel_test_llm.py", 11, 3),
        symbol="xpu_available",
        snippet="if xpu_available:",
        set_at=8,
    )
    finding = code_finding(read, rule, None, {})
    assert "xpu_available (set from a probe at line 8)" in finding.evidence.summary
    assert finding.evidence.data["set_at"] == "intel_test_llm.py:8"
    assert finding.evidence.data["symbol"] == "xpu_available"
    plain = code_finding(dataclasses.replace(read, set_at=None), rule, None, {})
    assert "set from" not in plain.evidence.summary and "set_at" not in plain.evidence.data
