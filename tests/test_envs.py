"""The doctor against the real environments of tests/testenvs.py (built by ``make test``).

These are the judged scenarios of the foundation issue, all built from PyPI alone: the reference
stack, a bare venv, torch 2.8 with IPEX 2.7 (a real mismatch that pip installs silently) and
torch 2.8 with torchvision 0.22 (a real broken torchvision). Each runs the doctor as a user
would, through ``--python``. No assertion depends on which build of torch PyPI serves (the CUDA
build today, ``2.8.0+cu128``): versions are compared without their local label.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import REPO, real_env, run_doctor

pytestmark = pytest.mark.envs

SECRETS = {
    "HF_TOKEN": "hf_plantedsecretvalue0123456789abcd",
    "CCL_SECRET_KEY": "planted-ccl-secret-42",
    "IPEX_MIRROR": "https://planted-user:planted-pass@mirror.example.org/simple",
    "GITHUB_TOKEN": "ghp_" + "Z" * 36,
}
PLANTED = ("plantedsecretvalue", "planted-ccl-secret", "planted-pass", "Z" * 36)


@cache
def _run(env_name: str, command: str) -> tuple[int, str, str, dict[str, Any]]:
    done = run_doctor(command, "--python", real_env(env_name), "--json", "-", extra_env=SECRETS)
    return done.returncode, done.stdout, done.stderr, json.loads(done.stdout or "{}")


def _findings(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in report["findings"]}


SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())

ALL = [
    ("reference", "check"),
    ("reference", "env"),
    ("bare", "check"),
    ("ipex27-torch28", "check"),
    ("tv022-torch28", "env"),
    ("tv022-torch28", "check"),
]


@pytest.mark.parametrize(("env_name", "command"), ALL)
def test_report_matches_schema_and_leaks_nothing(env_name: str, command: str) -> None:
    """Every report validates against the published schema; no planted secret appears."""
    _code, stdout, stderr, report = _run(env_name, command)
    jsonschema.validate(report, SCHEMA, format_checker=jsonschema.FormatChecker())
    for secret in PLANTED:
        assert secret not in stdout and secret not in stderr, secret
    assert "Traceback" not in stderr


def test_reference_stack_is_healthy_with_bf16_warning() -> None:
    """torch 2.8 + IPEX 2.8 (CPU): exit 0, imports fine, bf16-linear warned, IPEX retired noted."""
    code, _out, stderr, report = _run("reference", "check")
    assert code == 0, stderr
    findings = _findings(report)
    assert findings["torch-ipex-mismatch"]["status"] == "pass"
    assert findings["torch-import-failed"]["status"] == "pass"
    assert findings["ipex-import-failed"]["status"] == "pass"
    assert findings["torchvision-broken"]["status"] == "pass"
    assert findings["ipex-retired"]["verdict"] == "affected"
    runtime = report["environment"]["runtime"]
    assert runtime["torch"]["version"].startswith("2.8.0")
    assert runtime["ipex"]["version"] == "2.8.0+cpu"
    assert runtime["torch"]["xpu_compiled"] is False
    packages = {p["name"]: p for p in report["environment"]["packages"]}
    assert packages["intel-extension-for-pytorch"]["variant"]["accelerator"] == "cpu"


def test_env_command_judges_environment_only() -> None:
    """env reports environment findings only."""
    _code, _out, _err, report = _run("reference", "env")
    assert {f["kind"] for f in report["findings"]} == {"environment"}


def test_bare_venv() -> None:
    """No torch: torch-missing fails, exit 1, no runtime probe."""
    code, _out, stderr, report = _run("bare", "check")
    assert code == 1
    assert _findings(report)["torch-missing"]["status"] == "fail"
    assert report["environment"]["runtime"]["ran"] is False
    assert "PyTorch is not installed" in stderr


def test_ipex27_with_torch28_mismatch() -> None:
    """torch 2.8.0 + IPEX 2.7.0: the mismatch with both versions and the fix, exit 1."""
    code, _out, stderr, report = _run("ipex27-torch28", "check")
    assert code == 1
    mismatch = _findings(report)["torch-ipex-mismatch"]
    assert mismatch["status"] == "fail"
    evidence = mismatch["evidence"]["summary"]
    assert "IPEX 2.7.0+cpu needs torch 2.7.*, but torch 2.8.0" in evidence
    assert "needs to work with PyTorch 2.7.*" in evidence  # what IPEX itself printed
    os_exit = _findings(report)["ipex-os-exit"]
    assert (
        os_exit["verdict"] == "affected"
        and "has no attribute 'exit'" in os_exit["evidence"]["summary"]
    )
    assert "IPEX and torch major.minor versions differ" in stderr


def test_tv022_with_torch28_is_a_broken_torchvision() -> None:
    """torch 2.8.0 + torchvision 0.22.0 (built for torch 2.7): broken torchvision, why, exit 1."""
    code, _out, _err, report = _run("tv022-torch28", "env")
    assert code == 1
    finding = _findings(report)["torchvision-broken"]
    assert finding["status"] == "fail"
    summary = finding["evidence"]["summary"]
    assert "operator torchvision::nms does not exist" in summary
    assert "torchvision 0.22.0 is built for torch 2.7, not 2.8.0" in summary
    assert "torchvision==0.23.*" in finding["remediation"]


def test_overlay_entry_is_judged(tmp_path: Path) -> None:
    """A site's own KB entry (--kb) is judged like a shipped one."""
    overlay = tmp_path / "site.yaml"
    overlay.write_text(
        "schema_version: 1\nissues:\n  - id: site-torch-28\n    title: Our site forbids torch 2.8\n"
        "    kind: environment\n    severity: error\n    summary: Site policy.\n"
        "    remediation: Use the approved image.\n    affected:\n      - package: torch\n"
        '        introduced: "2.8.0"\n        fixed: "2.9.0"\n'
        "    references:\n      - url: https://example.org/policy\n"
    )
    done = run_doctor("env", "--python", real_env("reference"), "--kb", str(overlay), "--json", "-")
    assert done.returncode == 1
    finding = _findings(json.loads(done.stdout))["site-torch-28"]
    assert (finding["verdict"], finding["status"]) == ("affected", "fail")


def test_reference_repro_verdicts() -> None:
    """IPEX 2.8.0+cpu: bf16-linear affected on cpu with the workaround verified; the XPU seed
    issues not affected on cpu with their numbers; qconv's kernel facts and a real CPU call."""
    _code, _out, _err, report = _run("reference", "check")
    findings = _findings(report)
    bf16 = findings["bf16-linear"]
    assert (bf16["verdict"], bf16["status"], bf16["device"]) == ("affected", "warn", "cpu")
    assert (
        "could not create a primitive descriptor for the inner product"
        in bf16["evidence"]["summary"]
    )
    assert "workaround verified" in bf16["evidence"]["summary"]
    run = bf16["evidence"]["data"]["runs"][0]
    assert run["result"]["workaround"]["ok"] is True
    assert run["result"]["workaround"]["rel_error"] < run["result"]["workaround"]["tolerance"]
    dot = findings["dot-half"]
    assert (dot["verdict"], dot["status"]) == ("not-affected", "pass")
    assert "dot works in Half and BFloat16" in dot["evidence"]["summary"]
    grad = findings["grad-mode-divergence"]
    assert grad["verdict"] == "not-affected"
    assert grad["evidence"]["data"]["runs"][0]["result"]["mae_grad_vs_no_grad"] == 0.0
    qconv = findings["qconv-op-name"]
    assert qconv["verdict"] == "not-affected"
    result = qconv["evidence"]["data"]["runs"][0]["result"]
    assert set(result["ops"]) == {"onednn::qconv_pointwise", "onednn::qconv2d_pointwise"}
    assert result["inductor_emits"] == "onednn::qconv_pointwise.default"
    assert result["calls"]["onednn::qconv_pointwise"]["ok"] is True
    assert "XPU part not applicable" in qconv["evidence"]["summary"]


def test_bf16_linear_not_applicable_without_ipex() -> None:
    """torch 2.8.0 without IPEX: bf16-linear not applicable, saying why."""
    _code, _out, _err, report = _run("tv022-torch28", "check")
    bf16 = _findings(report)["bf16-linear"]
    assert (bf16["verdict"], bf16["status"]) == ("not-applicable", "skip")
    assert "intel_extension_for_pytorch" in bf16["evidence"]["summary"]


def test_bf16_linear_not_applicable_when_ipex_cannot_import() -> None:
    """torch 2.8.0 with IPEX 2.7.0: IPEX cannot load, so bf16-linear cannot arise."""
    _code, _out, _err, report = _run("ipex27-torch28", "check")
    bf16 = _findings(report)["bf16-linear"]
    assert bf16["verdict"] == "not-applicable"
    assert "does not import" in bf16["evidence"]["summary"]
