"""The gate policy: thresholds, ignores with reason and expiry, and policy-file errors."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, doctor_env

from ipex_doctor.errors import ExitCode
from ipex_doctor.model.findings import Status
from ipex_doctor.reporting.policy import FailOn, Policy, PolicyError, build_policy, read_policy_file
from ipex_doctor.reporting.saved_reports import load_report

FIXTURE = REPO / "tests" / "assets" / "reports" / "xpu-ipex2120-arc-a770.json"
TODAY = datetime.date(2026, 11, 21)


def test_thresholds() -> None:
    """fail: fail+error; warn: also warn; never: nothing."""
    assert FailOn.FAIL.failing() == {Status.FAIL, Status.ERROR}
    assert FailOn.WARN.failing() == {Status.WARN, Status.FAIL, Status.ERROR}
    assert FailOn.NEVER.failing() == frozenset()


def test_ignore_turns_finding_into_skip_with_reason() -> None:
    """An ignored finding is a skip that keeps its former status and the reason."""
    report = load_report(FIXTURE)
    policy = build_policy(
        fail_on="warn",
        ignore_args=["dot-half=tracked in TICKET-1"],
        policy_file=None,
        cwd=Path("/"),
    )
    applied = policy.apply(report, today=TODAY)
    finding = next(f for f in applied.findings if f.id == "dot-half")
    assert finding.status is Status.SKIP and finding.ignored is not None
    assert (finding.ignored.reason, finding.ignored.status) == ("tracked in TICKET-1", Status.FAIL)
    assert policy.decide(applied).exit_code is ExitCode.FINDINGS  # grad-mode still fails


def test_policy_file_with_expiry(tmp_path: Path) -> None:
    """A valid ignore applies; an expired one does not, and the finding says so."""
    path = tmp_path / ".ipex-doctor.yaml"
    path.write_text(
        "fail_on: warn\nignore:\n"
        "  - id: dot-half\n    reason: fixed by our image upgrade next sprint\n    expires: 2027-01-31\n"
        "  - id: grad-mode-divergence\n    reason: validated manually\n    expires: 2026-01-01\n"
    )
    policy = build_policy(fail_on=None, ignore_args=[], policy_file=None, cwd=tmp_path)
    assert policy.fail_on is FailOn.WARN
    applied = policy.apply(load_report(FIXTURE), today=TODAY)
    by_id = {f.id: f for f in applied.findings}
    assert by_id["dot-half"].status is Status.SKIP
    assert by_id["grad-mode-divergence"].status is Status.FAIL
    assert "expired on 2026-01-01" in by_id["grad-mode-divergence"].evidence.summary


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ignore:\n  - id: dot-half\n", "'reason' is a required property"),
        ("ignore:\n  - id: dot-half\n    reason: ok ok\n    expires: soon\n", "not a date"),
        ("fail_on: sometimes\n", "is not one of"),
        ("ignore: [\n", "malformed YAML"),
        ("surprise: 1\n", "Additional properties"),
    ],
)
def test_bad_policy_files(tmp_path: Path, text: str, message: str) -> None:
    """Each mistake is a PolicyError naming the file (and line where there is one)."""
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    with pytest.raises(PolicyError) as caught:
        read_policy_file(path)
    assert message in str(caught.value) and str(path) in str(caught.value)
    assert caught.value.exit_code is ExitCode.USAGE


def test_unknown_id_is_refused_with_suggestion() -> None:
    """A typo in an ignore is an error naming the id, with the closest real one."""
    policy = Policy(
        ignores=(
            build_policy(
                fail_on=None, ignore_args=["bf16-linaer"], policy_file=None, cwd=Path("/")
            ).ignores
        )
    )
    with pytest.raises(PolicyError, match="unknown finding id 'bf16-linaer'") as caught:
        policy.check_ids({"bf16-linear", "dot-half"})
    assert "bf16-linear" in str(caught.value)


_YAML_LOADED_AT_EXIT = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('yaml loaded:', 'yaml' in sys.modules,"
    " 'ipex_doctor.knowledge.schema' in sys.modules))\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)


@pytest.mark.parametrize("with_policy", [False, True], ids=["no policy file", "a policy file"])
def test_pyyaml_is_imported_only_to_read_a_policy_file(tmp_path: Path, with_policy: bool) -> None:
    """A scan of a project without a policy file never imports PyYAML (the knowledge base and
    the rules come from their caches): importing it cost every scan about 15 ms; nor the
    schema's checker, which only a policy file asks (about 3 ms). Given a policy file, it is
    read (its ignore takes effect)."""
    (tmp_path / "train.py").write_text("import intel_extension_for_pytorch\n")
    policy = tmp_path / "policy.yaml"
    policy.write_text("ignore:\n  - id: ipex-import\n    reason: moving off IPEX next release\n")
    args = ["scan", str(tmp_path), "--no-cache", "--json", "-"]
    for _ in range(2):  # NOTE: the first run may fill the knowledge base's cache from YAML
        done = subprocess.run(
            [sys.executable, "-c", _YAML_LOADED_AT_EXIT, *args,
             *(["--policy", str(policy)] if with_policy else [])],
            capture_output=True, text=True, env=doctor_env(), check=False,
            stdin=subprocess.DEVNULL, cwd=tmp_path,  # NOTE: no ./.ipex-doctor.yaml there
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith(f"yaml loaded: {with_policy} {with_policy}")
    assert ('"reason": "moving off IPEX next release"' in done.stdout) is with_policy


_OPENS_OF_POLICY_AT_EXIT = (
    "import atexit, runpy, sys\n"
    "opened = []\n"
    "sys.addaudithook(lambda event, args: opened.append(str(args[0]))"
    " if event == 'open' and str(args[0]).endswith('policy.yaml') else None)\n"
    "atexit.register(lambda: print('policy opened:', len(opened)))\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)


def test_a_policy_file_is_read_once_for_its_gate_and_its_scan_exclude(tmp_path: Path) -> None:
    """The ignores, the threshold and ``scan.exclude`` come from one read and one parse of the
    policy file (it was read and parsed twice: a file changed in between gave a gate of one
    version and the exclusions of another): all three take effect (the warning of the
    requirement fails the run at ``fail_on: warn``)."""
    project = tmp_path / "project"
    (project / "vendored").mkdir(parents=True)
    (project / "train.py").write_text("import intel_extension_for_pytorch\n")
    (project / "requirements.txt").write_text("intel-extension-for-pytorch==2.8.0\n")
    (project / "vendored" / "old.py").write_text("import intel_extension_for_pytorch\n")
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "fail_on: warn\n"
        "ignore:\n  - id: ipex-import\n    reason: moving off IPEX next release\n"
        "scan:\n  exclude: [vendored/]\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", _OPENS_OF_POLICY_AT_EXIT, "scan", str(project), "--no-cache",
         "--policy", str(policy), "--json", str(tmp_path / "report.json"), "-q"],
        capture_output=True, text=True, env=doctor_env(), check=False,
        stdin=subprocess.DEVNULL, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == ExitCode.FINDINGS, done.stderr
    assert done.stdout.rstrip().endswith("policy opened: 1")
    report = json.loads((tmp_path / "report.json").read_text())
    found = sorted((f["id"], f["location"]["path"], f["status"]) for f in report["findings"])
    assert found == [
        ("ipex-import", "train.py", "skip"),
        ("ipex-requirement", "requirements.txt", "warn"),
    ]
