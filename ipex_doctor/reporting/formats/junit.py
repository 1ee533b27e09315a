"""JUnit XML: one testcase per finding, so CI dashboards show the diagnosis as tests.

Mapping (pytest's conventions): a finding at or above the gate's threshold is a ``failure``
(the environment has the problem); ``error`` status (a check crashed or timed out: the
harness broke) is an ``error``; ``skip`` and ignored findings are ``skipped`` with the reason.
Findings below the threshold (a warning under ``--fail-on fail``) pass and carry their
evidence in ``system-out``. Installed versions are ``properties`` of the suite.

A testcase's name never depends on the finding's status, so CI test history can follow a
finding across runs: it is the finding id, plus the device or node the finding is *about*
when one id can occur once per device (``sanity-train [cuda:1]``, ``device-outlier [xpu:2]``).
The devices a known issue reproduced on are evidence, not identity, and stay out of the name.

In a fleet report one testcase stands for each (finding, device) across the nodes, at its
worst status, and says where each status holds (``fail on 3 of 1000: node[0007,0412,0913]``):
a thousand nodes make as many testcases as one node. A ``fleet-outlier`` is about its nodes,
and is named after them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Collection

from ipex_doctor.model.findings import Command, Finding, FindingKind, Report, Status
from ipex_doctor.reporting.formats.shown import shown_in_file
from ipex_doctor.reporting.formats.views import baseline_lines, coverage, fleet_size
from ipex_doctor.reporting.policy import Gate, Policy
from ipex_doctor.verdicts.hostlist import compress
from ipex_doctor.verdicts.registry import builtin


def _detail(finding: Finding, where: str = "") -> str:
    lines = [f"Where: {where}"] if where else []
    lines.append(finding.evidence.summary)
    if finding.remediation:
        lines.append(f"Fix: {finding.remediation}")
    lines.extend(f"Run: {command}" for command in finding.commands)
    if finding.workaround:
        lines.append(f"Workaround: {finding.workaround}")
    lines.extend(f"See: {ref.url}" for ref in finding.references)
    return "\n".join(lines)


def case_name(finding: Finding) -> str:
    """The testcase name of ``finding``: stable whatever its status (see the module doc)."""
    if finding.id == "fleet-outlier" and finding.nodes:
        return f"{finding.id} [{compress(finding.nodes)}]"
    if finding.device is None:
        return finding.id
    spec = builtin(finding.id)
    subject = finding.device if spec is not None and spec.one_per_subject else None
    return f"{finding.id} [{subject}]" if subject else finding.id


def _cases(report: Report, findings: list[Finding]) -> list[tuple[Finding, str]]:
    """``(finding, where)`` per testcase: in a fleet, the worst of the findings sharing a
    name, and where each status of it holds; else every finding, as it is."""
    if report.command is not Command.FLEET:
        return [(finding, "") for finding in findings]
    total = fleet_size(report)
    by_name: dict[str, list[Finding]] = {}
    for finding in findings:
        by_name.setdefault(case_name(finding), []).append(finding)
    cases = []
    for same in by_name.values():
        worst = max(same, key=lambda f: f.status.rank)
        where = "; ".join(
            f"{f.status} {coverage(f, total)}"
            for f in sorted(same, key=lambda f: -f.status.rank)
            if coverage(f, total)
        )
        cases.append((worst, where))
    return cases


def _testcase(
    suite: ET.Element, finding: Finding, failing: Collection[Status], *, where: str = ""
) -> str:
    name = case_name(finding)
    case = ET.SubElement(
        suite, "testcase", classname=f"ipex-doctor.{finding.kind.value}", name=name
    )
    message = f"{finding.title} ({finding.verdict or finding.status})"
    if finding.ignored is not None:
        ET.SubElement(case, "skipped", message=f"ignored: {finding.ignored.reason}").text = (
            f"was {finding.ignored.status}; {finding.ignored.source}"
            + (f"; expires {finding.ignored.expires}" if finding.ignored.expires else "")
        )
        return "skipped"
    if finding.status is Status.SKIP:
        ET.SubElement(case, "skipped", message=finding.evidence.summary[:500])
        return "skipped"
    if finding.status is Status.ERROR:
        ET.SubElement(case, "error", message=message, type="check-error").text = _detail(
            finding, where
        )
        return "errors"
    if finding.status in failing:
        ET.SubElement(
            case, "failure", message=message, type=str(finding.verdict or finding.status)
        ).text = _detail(finding, where)
        return "failures"
    ET.SubElement(case, "system-out").text = _detail(finding, where)
    return "passed"


def render_junit(report: Report, gate: Gate | None = None) -> str:
    """The report as JUnit XML: a finding the gate fails on is a ``failure`` (an ``error``
    when it could not be judged); ``gate`` defaults to ``--fail-on fail``."""
    failing = (gate or Policy().decide(report)).failing
    root = ET.Element("testsuites", name="ipex-doctor")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for kind in FindingKind:
        findings = [f for f in report.findings if f.kind is kind]
        if not findings:
            continue
        suite = ET.SubElement(
            root, "testsuite", name=f"ipex-doctor.{kind.value}", timestamp=report.created_at
        )
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="doctor_version", value=report.doctor_version)
        ET.SubElement(
            properties, "property", name="python", value=report.environment.interpreter.version
        )
        for package in report.environment.packages:
            ET.SubElement(properties, "property", name=package.name, value=package.version)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for finding, where in _cases(report, findings):
            outcome = _testcase(suite, finding, failing, where=where)
            counts["tests"] += 1
            if outcome != "passed":
                counts[outcome] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    if report.baseline is not None:
        # NOTE: CI systems show a suite's system-out beside its cases: the "since baseline"
        # section rides on the sanity suite (perf-regression's own), else the last suite.
        suites = root.findall("testsuite")
        sanity = [s for s in suites if s.get("name") == f"ipex-doctor.{FindingKind.SANITY.value}"]
        target = (
            (sanity or suites)[-1]
            if suites
            else ET.SubElement(root, "testsuite", name="ipex-doctor")
        )
        since = [f"Since the baseline ({report.baseline.source}, {report.baseline.created_at}):"]
        since += [f"  {text}" for _, text in baseline_lines(report.baseline)]
        ET.SubElement(target, "system-out").text = "\n".join(since)
    if report.repair is not None:
        from ipex_doctor.reporting.formats.repair_text import outcome_text, plan_text

        # NOTE: a fix's plan and outcome ride on a suite of their own: no testcase, so the
        # counts stay the findings'; the verdict is a property CI can read.
        repair = ET.SubElement(root, "testsuite", name="ipex-doctor.fix", tests="0",
                               failures="0", errors="0", skipped="0")  # fmt: skip
        properties = ET.SubElement(repair, "properties")
        ET.SubElement(
            properties, "property", name="repair.verdict", value=str(report.repair.verdict)
        )
        text = plan_text(report.repair) + outcome_text(report.repair)
        ET.SubElement(repair, "system-out").text = text
    ET.indent(root)
    # NOTE: ElementTree escapes markup but writes any other character as given, and XML 1.0
    # forbids most C0 controls: a path or a line of code holding one made a file no CI parser
    # reads. Its own markup holds none of them, so the whole text is made safe at once.
    return shown_in_file(ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
