"""JUnit XML: one testcase per finding, so CI dashboards show the diagnosis as tests.

Mapping (pytest's conventions): a finding at or above the gate's threshold is a ``failure``
(the environment has the problem); ``error`` status (a check crashed or timed out: the
harness broke) is an ``error``; ``skip`` and ignored findings are ``skipped`` with the reason.
Findings below the threshold (a warning under ``--fail-on fail``) pass and carry their
evidence in ``system-out``. Installed versions are ``properties`` of the suite.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Collection

from ipex_doctor.model import Finding, FindingKind, Report, Status


def _detail(finding: Finding) -> str:
    lines = [finding.evidence.summary]
    if finding.remediation:
        lines.append(f"Fix: {finding.remediation}")
    if finding.workaround:
        lines.append(f"Workaround: {finding.workaround}")
    lines.extend(f"See: {ref.url}" for ref in finding.references)
    return "\n".join(lines)


def _testcase(suite: ET.Element, finding: Finding, failing: Collection[Status]) -> str:
    name = finding.id if finding.device is None else f"{finding.id} [{finding.device}]"
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
        ET.SubElement(case, "error", message=message, type="check-error").text = _detail(finding)
        return "errors"
    if finding.status in failing:
        ET.SubElement(
            case, "failure", message=message, type=str(finding.verdict or finding.status)
        ).text = _detail(finding)
        return "failures"
    ET.SubElement(case, "system-out").text = _detail(finding)
    return "passed"


def render_junit(report: Report, *, failing: Collection[Status]) -> str:
    """The report as JUnit XML; ``failing`` are the statuses the gate fails on."""
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
        for finding in findings:
            outcome = _testcase(suite, finding, failing)
            counts["tests"] += 1
            if outcome != "passed":
                counts[outcome] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
