"""docs/ci.md: its YAML is valid and does what the text says."""

from __future__ import annotations

import re

import yaml
from conftest import REPO

from ipex_doctor.errors import ExitCode

TEXT = (REPO / "docs" / "ci.md").read_text()
BLOCKS = re.findall(r"```yaml\n(.*?)```", TEXT, re.DOTALL)


def test_yaml_blocks_parse() -> None:
    """Every YAML block is valid YAML (safe loader)."""
    assert len(BLOCKS) == 3
    for block in BLOCKS:
        assert yaml.safe_load(block)


def test_policy_example_is_a_valid_policy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The policy example loads with the doctor's own policy reader."""
    from ipex_doctor.policy import FailOn, read_policy_file

    path = tmp_path / "p.yaml"
    path.write_text(BLOCKS[0])
    fail_on, ignores = read_policy_file(path)
    assert fail_on is FailOn.WARN and ignores[0].id == "bf16-linear" and ignores[0].reason


def test_github_job_runs_the_gate_and_publishes_junit() -> None:
    """The Actions job installs the doctor beside the stack, gates, and publishes JUnit."""
    job = yaml.safe_load(BLOCKS[1])["jobs"]["ipex-doctor"]
    runs = " ".join(str(step.get("run", "")) for step in job["steps"])
    assert "--python /tmp/stack/bin/python" in runs and "--junit-xml ipex-doctor.xml" in runs
    assert any(
        step.get("with", {}).get("report_paths") == "ipex-doctor.xml" for step in job["steps"]
    )


def test_gitlab_job_publishes_junit() -> None:
    """The GitLab job reports JUnit as a test report artifact."""
    job = yaml.safe_load(BLOCKS[2])["ipex-doctor"]
    assert job["artifacts"]["reports"]["junit"] == "ipex-doctor.xml"
    assert any("--fail-on warn" in line for line in job["script"])


def test_exit_code_table_is_complete() -> None:
    """Every exit code is in the table."""
    for code in ExitCode:
        assert re.search(rf"^\| {int(code)} \|", TEXT, re.MULTILINE), code
