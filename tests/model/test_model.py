"""The result model: JSON round trip and summary."""

from __future__ import annotations

from builders import ARC, XPU_TORCH, make_env

from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.findings import Report, Status, Summary
from ipex_doctor.verdicts.judge import judge


def test_report_round_trip() -> None:
    """from_dict(to_dict(r)) == r for a report with every kind of data in it."""
    env = make_env(
        {"torch": "2.1.0.post0+cxx11.abi", "intel-extension-for-pytorch": "2.1.20+xpu"},
        devices=(ARC,),
        torch_facts=XPU_TORCH,
        env_vars={"ZE_AFFINITY_MASK": "0.0"},
    )
    report = Report("0.1.0", "2026-11-21T00:00:00Z", "check", env, judge(env, known_issues.load()))
    assert Report.from_dict(report.to_dict()) == report


def test_summary_worst_and_counts() -> None:
    """The worst status ranks fail above error above warn; an empty report passes."""
    env = make_env({"torch": "2.8.0", "intel-extension-for-pytorch": "2.5.0"})
    findings = judge(env, known_issues.load())
    summary = Summary.of(findings)
    assert summary.worst is Status.FAIL
    assert sum(summary.counts.values()) == len(findings)
    assert Summary.of(()).worst is Status.PASS
