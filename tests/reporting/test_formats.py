"""The pure formatters, on the constructed XPU report: JUnit, Markdown, console, JSON."""

from __future__ import annotations

import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
from conftest import REPO, run_doctor
from junitparser import JUnitXml

from ipex_doctor.app.replay import rejudge
from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.findings import FindingKind, Report, Status, Verdict
from ipex_doctor.reporting.formats.junit import case_name, render_junit
from ipex_doctor.reporting.formats.markdown import render_markdown
from ipex_doctor.reporting.policy import FailOn, build_policy
from ipex_doctor.reporting.saved_reports import load_report

FIXTURE = REPO / "tests" / "assets" / "reports" / "xpu-ipex2120-arc-a770.json"
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())


def _junit(tmp_path: Path, *extra: str) -> JUnitXml:
    path = tmp_path / "report.xml"
    done = run_doctor("report", str(FIXTURE), "--junit-xml", str(path), "-q", *extra)
    # NOTE: exit 1 under either gate used here: the fixture has fail findings (dot-half,
    # grad-mode-divergence) and no call ignores both.
    assert done.returncode == 1, done.stderr
    return JUnitXml.fromfile(str(path))


def _counts(xml: JUnitXml) -> tuple[int, int, int, int]:
    xml.update_statistics()
    return xml.tests, xml.failures, xml.errors, xml.skipped


def test_junit_counts_match_the_report(tmp_path: Path) -> None:
    """One testcase per finding of the report as 'report' renders it (re-judged against the
    shipped knowledge base, which may judge more entries than the recorded run did);
    failures = fail findings; skipped = skip findings."""
    report = rejudge(load_report(FIXTURE), known_issues.load())
    statuses = [f.status.value for f in report.findings]
    tests, failures, errors, skipped = _counts(_junit(tmp_path))
    assert tests == len(report.findings)
    assert failures == statuses.count("fail")
    assert errors == statuses.count("error")
    assert skipped == statuses.count("skip")


def test_junit_fail_on_warn_and_ignores(tmp_path: Path) -> None:
    """Under --fail-on warn warnings are failures; an ignored finding is skipped with its reason."""
    report = load_report(FIXTURE)
    statuses = [f.status.value for f in report.findings]
    xml = _junit(tmp_path, "--fail-on", "warn", "--ignore", "dot-half=tracked upstream")
    tests, failures, _errors, skipped = _counts(xml)
    assert failures == statuses.count("fail") + statuses.count("warn") - 1
    assert skipped == statuses.count("skip") + 1
    cases = {case.name: case for suite in xml for case in suite}
    assert "ignored: tracked upstream" in cases["dot-half"].result[0].message
    properties = {p.name: p.value for p in next(iter(xml)).properties()}
    assert properties["intel-extension-for-pytorch"] == "2.1.20+xpu"


def test_markdown_has_environment_findings_and_evidence() -> None:
    """Markdown: environment table, problems first, collapsible evidence, the fix."""
    text = render_markdown(load_report(FIXTURE))
    assert "| intel-extension-for-pytorch | 2.1.20+xpu |" in text
    assert text.index("## Problems") < text.index("## Other findings")
    assert "<details><summary>evidence data</summary>" in text
    assert "**Fix:** Upgrade to IPEX >= 2.1.30+xpu" in text


def test_several_sinks_at_once(tmp_path: Path) -> None:
    """--json, --junit-xml and --markdown in one run; the JSON validates."""
    done = run_doctor(
        "report", str(FIXTURE), "--json", str(tmp_path / "r.json"), "--junit-xml", str(tmp_path / "r.xml"),
        "--markdown", str(tmp_path / "r.md"),
    )  # fmt: skip
    assert done.returncode == 1
    jsonschema.validate(json.loads((tmp_path / "r.json").read_text()), SCHEMA)
    assert (tmp_path / "r.md").read_text().startswith("## ipex-doctor")
    assert JUnitXml.fromfile(str(tmp_path / "r.xml"))


def test_two_formats_on_stdout_is_a_usage_error() -> None:
    """Only one format may go to stdout."""
    done = run_doctor("report", str(FIXTURE), "--json", "-", "--markdown", "-")
    assert done.returncode == 2 and "only one format can go to stdout" in done.stderr


def test_quiet_prints_only_problems() -> None:
    """-q: no environment block, only problems and the summary."""
    done = run_doctor("report", str(FIXTURE), "-q")
    assert "Environment\n  python" not in done.stdout
    assert "dot-half" in done.stdout and "Summary:" in done.stdout
    assert "torch-missing" not in done.stdout


def _summary_counts(text: str) -> dict[str, int]:
    line = next(x for x in text.splitlines() if x.startswith("Summary: "))
    counts = line.removeprefix("Summary: ").split(" · ")[0]
    return {word: int(number) for number, word in (p.split() for p in counts.split(", "))}


def test_the_summary_says_in_words_whether_the_environment_is_fit_to_deploy() -> None:
    """A first reader learns from the last lines: whether the gate passed, in words, what
    decided, and what the marks and words above mean; the groups' "not shown" counts and the
    shown lines add up to the summary's counts."""
    done = run_doctor("report", str(FIXTURE))
    assert done.returncode == 1
    lines = done.stdout.rstrip().splitlines()
    assert "gate --fail-on fail: failed, NOT fit to deploy" in lines[-2]
    assert "dot-half" in lines[-2] and "grad-mode-divergence" in lines[-2]
    legend = lines[-1]
    assert legend.startswith("Legend: ") and "✗ fail" in legend and "affected:" in legend
    assert "gate:" in legend
    hidden: dict[str, int] = {}
    for line in lines:
        if "not shown; -v shows them" in line:
            for number, word in re.findall(r"(\d+) (\w+)", line.split("(", 1)[1]):
                hidden[word] = hidden.get(word, 0) + int(number)
    summary = _summary_counts(done.stdout)
    assert hidden and all(hidden[word] <= summary[word] for word in hidden), (hidden, summary)
    never = run_doctor("report", str(FIXTURE), "--fail-on", "never")
    assert "gate --fail-on never: off, so nothing is judged fit or unfit" in never.stdout
    assert "NOT fit" not in never.stdout and "passed, fit" not in never.stdout
    quiet = run_doctor("report", str(FIXTURE), "-q")
    assert "Legend:" not in quiet.stdout


def test_a_scan_says_why_it_probed_no_device_and_counts_alike(tmp_path: Path) -> None:
    """scan never imports torch, and says so (the user switched nothing off); its group header
    and its summary count the same findings in the same words."""
    (tmp_path / "train.py").write_text("import torch\n")
    (tmp_path / "old.py").write_text(
        "import intel_extension_for_pytorch  # ipex-doctor: ignore[ipex-import] kept for now\n"
    )
    done = run_doctor("scan", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "switched off" not in done.stdout
    assert "never imports torch" in done.stdout
    header = next(line for line in done.stdout.splitlines() if line.startswith("Your code"))
    hidden = {w: int(n) for n, w in re.findall(r"(\d+) (\w+)", header)}
    assert hidden and hidden == _summary_counts(done.stdout), (header, done.stdout)
    assert "passed, fit to deploy" in done.stdout


def test_policy_exit_codes_on_replay(tmp_path: Path) -> None:
    """--fail-on never exits 0 even with failures; policy applies to replays too."""
    assert run_doctor("report", str(FIXTURE), "--fail-on", "never", "-q").returncode == 0
    assert run_doctor("report", str(FIXTURE), "-q").returncode == 1
    (tmp_path / ".ipex-doctor.yaml").write_text("fail_on: never\n")
    assert (
        build_policy(fail_on=None, ignore_args=[], policy_file=None, cwd=tmp_path).fail_on
        is FailOn.NEVER
    )
    assert run_doctor("report", str(FIXTURE), "-q", cwd=tmp_path).returncode == 0  # found in cwd


def _case_names(report: Report) -> list[str]:
    xml = render_junit(report)
    return [case.get("name") for case in ET.fromstring(xml).iter("testcase")]


def test_junit_names_do_not_depend_on_status() -> None:
    """A finding keeps its testcase name whether it is affected (on a device) or not, so CI
    test history can follow it; per-device findings keep their device in the name."""
    affected = load_report(FIXTURE)
    healthy = dataclasses.replace(
        affected,
        findings=tuple(
            dataclasses.replace(f, status=Status.PASS, verdict=Verdict.NOT_AFFECTED, device=None)
            if f.kind is FindingKind.KNOWN_ISSUE
            else f
            for f in affected.findings
        ),
    )
    assert any(f.device for f in affected.findings if f.kind is FindingKind.KNOWN_ISSUE)
    assert _case_names(affected) == _case_names(healthy)
    sanity = dataclasses.replace(
        affected.findings[0], id="sanity-train", kind=FindingKind.SANITY, device="xpu:1"
    )
    assert case_name(sanity) == "sanity-train [xpu:1]"
    odd = dataclasses.replace(affected.findings[0], id="fleet-outlier", nodes=("n07", "n08"))
    assert case_name(odd) == "fleet-outlier [n[07-08]]"
