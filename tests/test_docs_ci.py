"""docs/ci.md: its YAML is valid and does what the text says."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
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
    from ipex_doctor.reporting.policy import FailOn, read_policy_file

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


def _install_step(job_steps: list[dict[str, object]]) -> str:
    return next(str(s["run"]) for s in job_steps if "ipex-doctor" in str(s.get("name", "")).lower()
                and "install" in str(s.get("name", "")).lower())  # fmt: skip


@pytest.mark.slow
def test_the_jobs_install_command_works_from_a_git_url(tmp_path: Path) -> None:
    """The install step, run as written with the job's variables pointing at a clone of this
    repository, gives a working doctor; both jobs use the same command; no torch comes with it."""
    github = yaml.safe_load(BLOCKS[1])["jobs"]["ipex-doctor"]
    gitlab = yaml.safe_load(BLOCKS[2])["ipex-doctor"]
    step = _install_step(github["steps"])
    pip_line = next(line for line in step.splitlines() if "pip install" in line).strip()
    assert any(pip_line in line for line in gitlab["script"])
    assert set(github["env"]) == set(gitlab["variables"]) == {"IPEX_DOCTOR_GIT", "IPEX_DOCTOR_REF"}
    mirror = tmp_path / "ipex-doctor.git"
    subprocess.run(["git", "clone", "--quiet", "--bare", str(REPO), str(mirror)], check=True)
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV"))}
    # NOTE: as on a fresh runner: no pip configuration of this machine (local wheels, mirrors).
    env.update(PIP_CONFIG_FILE=os.devnull, IPEX_DOCTOR_GIT=mirror.as_uri(), IPEX_DOCTOR_REF=head)
    script = step.replace("/tmp/doctor", str(tmp_path / "doctor"))
    done = subprocess.run(
        ["bash", "-euc", script], env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    doctor = tmp_path / "doctor" / "bin" / "ipex-doctor"
    listed = subprocess.run(
        [str(doctor), "kb", "list"], capture_output=True, text=True, check=False
    )
    assert listed.returncode == 0 and "dot-half" in listed.stdout
    has_torch = subprocess.run(
        [str(tmp_path / "doctor" / "bin" / "python"), "-c", "import importlib.util as u; print(u.find_spec('torch'))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert has_torch.stdout.strip() == "None"
