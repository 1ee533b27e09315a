"""The doctor against the real environments of tests/testenvs.py (built by ``make test``).

These are the judged scenarios, all built from PyPI alone: the reference stack, a bare venv,
torch 2.8 with IPEX 2.7 (a real mismatch that pip installs silently), torch 2.8 and IPEX 2.8
with torchvision 0.22 (a real broken torchvision), and torch 2.8 alone (the upstream-torch
setup). Each runs the doctor as a user would, through ``--python``; remedies are applied to
copies of the broken environments and the doctor run again. No assertion depends on which build of torch PyPI serves (the CUDA
build today, ``2.8.0+cu128``): versions are compared without their local label.
"""

from __future__ import annotations

import json
import re
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import REPO, copy_env, doctor_env, real_env, run_doctor

from ipex_doctor.knowledge import known_issues

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
    ("tv022-ipex28", "env"),
    ("tv022-ipex28", "check"),
    ("torch28-only", "check"),
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
    # NOTE: titles read right for the status (not "PyTorch is not installed" next to a pass).
    assert findings["torch-missing"]["title"] == "PyTorch is installed"
    assert findings["torch-ipex-mismatch"]["title"] == "IPEX and torch are on the same major.minor"
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
    missing = _findings(report)["torch-missing"]
    assert (missing["status"], missing["title"]) == ("fail", "PyTorch is not installed")
    assert missing["commands"] and missing["commands"][0].startswith(real_env("bare"))
    assert report["environment"]["runtime"]["ran"] is False
    assert "PyTorch is not installed" in stderr


def test_ipex27_with_torch28_mismatch() -> None:
    """torch 2.8.0 + IPEX 2.7.0: the mismatch with both versions, exit 1, and the one-package
    fix that names the examined interpreter: move IPEX to 2.8 (not torch to 2.7)."""
    code, _out, stderr, report = _run("ipex27-torch28", "check")
    assert code == 1
    mismatch = _findings(report)["torch-ipex-mismatch"]
    assert mismatch["status"] == "fail"
    evidence = mismatch["evidence"]["summary"]
    assert "IPEX 2.7.0+cpu needs torch 2.7.*, but torch 2.8.0" in evidence
    assert "needs to work with PyTorch 2.7.*" in evidence  # what IPEX itself printed
    python = real_env("ipex27-torch28")
    assert mismatch["commands"] == [f"{python} -m pip install 'intel-extension-for-pytorch==2.8.*'"]
    assert "torch==2.7" not in json.dumps(mismatch)
    os_exit = _findings(report)["ipex-os-exit"]
    assert (
        os_exit["verdict"] == "affected"
        and "has no attribute 'exit'" in os_exit["evidence"]["summary"]
    )
    assert "IPEX and torch major.minor versions differ" in stderr


def test_an_explained_import_failure_points_at_its_cause() -> None:
    """IPEX does not import because of the mismatch: one cause is one finding, so
    ipex-import-failed does not fail a second time; it names its cause and points there."""
    _code, _out, _err, report = _run("ipex27-torch28", "check")
    failed = _findings(report)["ipex-import-failed"]
    assert (failed["status"], failed["verdict"]) == ("skip", "not-applicable")
    assert failed["title"] == "IPEX does not import: the cause is torch-ipex-mismatch"
    assert "explained by torch-ipex-mismatch" in failed["evidence"]["summary"]
    assert _findings(report)["torch-ipex-mismatch"]["status"] == "fail"


def test_tv022_with_ipex28_is_a_broken_torchvision() -> None:
    """torch 2.8.0 + IPEX 2.8.0 + torchvision 0.22.0 (built for torch 2.7): broken torchvision,
    why, the fix naming the interpreter; and the IPEX error a fresh interpreter gives."""
    code, _out, _err, report = _run("tv022-ipex28", "env")
    assert code == 1
    finding = _findings(report)["torchvision-broken"]
    assert finding["status"] == "fail"
    summary = finding["evidence"]["summary"]
    assert "operator torchvision::nms does not exist" in summary
    assert "torchvision 0.22.0 is built for torch 2.7, not 2.8.0" in summary
    python = real_env("tv022-ipex28")
    assert finding["commands"] == [f"{python} -m pip install 'torchvision==0.23.*'"]
    ipex = next(
        i for i in report["environment"]["runtime"]["imports"]
        if i["module"] == "intel_extension_for_pytorch"
    )  # fmt: skip
    # NOTE: a fresh `import intel_extension_for_pytorch` fails on torchvision's operator; the
    # worker's second import after torchvision failed said "partially initialized module".
    assert "operator torchvision::nms does not exist" in ipex["error"]
    assert "partially initialized" not in json.dumps(report)
    failed = _findings(report)["ipex-import-failed"]
    assert (
        failed["status"] == "skip"
        and "explained by torchvision-broken" in failed["evidence"]["summary"]
    )


def test_torch_alone_passes_the_default_gate() -> None:
    """torch 2.8.0 alone (no torchvision, no IPEX) is healthy: the sanity run does not apply
    (it needs torchvision's ResNet-50) and says how to run it; exit 0."""
    code, _out, stderr, report = _run("torch28-only", "check")
    assert code == 0, stderr
    run = _findings(report)["sanity-run"]
    assert (run["status"], run["verdict"]) == ("skip", "not-applicable")
    assert "torchvision is not installed" in run["evidence"]["summary"]
    assert "--skip-sanity" in run["remediation"]
    python = real_env("torch28-only")
    assert run["commands"] == [f"{python} -m pip install 'torchvision==0.23.*'"]
    assert "torchvision is not installed" in stderr  # shown, with the command
    bf16 = _findings(report)["bf16-linear"]
    assert (bf16["verdict"], bf16["status"]) == ("not-applicable", "skip")
    assert "intel_extension_for_pytorch" in bf16["evidence"]["summary"]


def test_asking_for_an_absent_device_says_only_that() -> None:
    """repro/sanity --device xpu on a machine without XPU: an error saying the device is not
    here and where to look, never an unrelated "upgrade IPEX" fix."""
    python = real_env("torch28-only")
    done = run_doctor("repro", "dot-half", "--device", "xpu", "--python", python, "--json", "-")
    assert done.returncode == 1
    dot = _findings(json.loads(done.stdout))["dot-half"]
    assert dot["status"] == "error"
    assert "xpu was asked for (--device) but is not present here" in dot["evidence"]["summary"]
    assert "--device cpu" in dot["remediation"] and "IPEX" not in dot["remediation"]
    assert dot["workaround"] == "" and dot["title"].startswith("Could not check: ")
    done = run_doctor("sanity", "--device", "xpu", "--python", python, "--json", "-")
    run = _findings(json.loads(done.stdout))["sanity-run"]
    assert run["status"] == "error" and "xpu was asked for" in run["evidence"]["summary"]


@pytest.mark.slow
@pytest.mark.parametrize("env_name", ["ipex27-torch28", "tv022-ipex28"])
def test_remedies_work_when_applied(tmp_path: Path, env_name: str) -> None:
    """Apply every command the doctor gives to a copy of the broken environment, run the
    doctor again: it exits 0, the problems gone."""
    python = copy_env(real_env(env_name), tmp_path / "env")
    before = run_doctor("check", "--skip-sanity", "--python", python, "--json", "-")
    assert before.returncode == 1
    failing = [f for f in json.loads(before.stdout)["findings"] if f["status"] in ("fail", "error")]
    commands = [c for f in failing for c in f["commands"]]
    assert commands and all(c.startswith(python) for c in commands), failing
    for command in dict.fromkeys(commands):
        applied = subprocess.run(
            ["bash", "-c", command], capture_output=True, text=True, timeout=900, check=False
        )
        assert applied.returncode == 0, (command, applied.stderr[-2000:])
    after = run_doctor("check", "--skip-sanity", "--python", python, "--json", "-")
    assert after.returncode == 0, after.stderr[-3000:]
    report = json.loads(after.stdout)
    assert not [f["id"] for f in report["findings"] if f["status"] in ("fail", "error")]


def test_ipex_optimize_casts_linear_layers_inside_containers_only() -> None:
    """What bf16-linear's summary says, on the real IPEX 2.8: ipex.optimize(dtype=bfloat16)
    casts a Linear inside a container to bf16 (fp32 input then fails), but a bare top-level
    nn.Linear keeps fp32 weights, and bf16 input then fails with a dtype mismatch. On a CPU
    that cannot prepack BF16 weights (AVX2 only) the path IPEX allows, weights_prepack=False,
    casts the same way; the boxed failure is then spelled by torch ("mat1 and mat2")."""
    script = (
        "import torch, intel_extension_for_pytorch as ipex\n"
        "kw = {} if ipex._C.onednn_has_bf16_support() else {'weights_prepack': False}\n"
        "bare = ipex.optimize(torch.nn.Linear(64, 64).eval(), dtype=torch.bfloat16, **kw)\n"
        "print('bare weight', bare.weight.dtype)\n"
        "try:\n    bare(torch.randn(4, 64, dtype=torch.bfloat16))\n"
        "except RuntimeError as e:\n    print('bare bf16 input:', e)\n"
        "boxed = ipex.optimize(torch.nn.Sequential(torch.nn.Linear(64, 64)).eval(), "
        "dtype=torch.bfloat16, **kw)\n"
        "try:\n    boxed(torch.randn(4, 64))\n    print('boxed fp32 input: ok')\n"
        "except RuntimeError as e:\n    print('boxed fp32 input:', e)\n"
    )
    done = subprocess.run(
        [real_env("reference"), "-c", script], capture_output=True, text=True, check=False,
        env=doctor_env(), timeout=300,
    )  # fmt: skip
    assert "bare weight torch.float32" in done.stdout, done.stderr[-2000:]
    assert "bare bf16 input: mat1 and mat2 must have the same dtype" in done.stdout
    assert re.search(
        r"boxed fp32 input: (could not create a primitive descriptor|mat1 and mat2 must have the "
        r"same dtype)",
        done.stdout,
    ), done.stdout
    summary = " ".join(known_issues.load().get("bf16-linear").summary.split())  # type: ignore[union-attr]
    assert "mat1 and mat2 must have the same dtype" in summary and "inside the model" in summary


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
    issues not applicable (no XPU) with their CPU numbers; qconv's kernel facts and a CPU call."""
    _code, _out, _err, report = _run("reference", "check")
    findings = _findings(report)
    bf16 = findings["bf16-linear"]
    assert (bf16["verdict"], bf16["status"], bf16["device"]) == ("affected", "warn", "cpu")
    # NOTE: where IPEX cannot prepack BF16 weights (AVX2 only) the check takes the path IPEX
    # allows, weights_prepack=False, and torch spells the same failure "mat1 and mat2 ...".
    assert re.search(
        r"could not create a primitive descriptor for the inner product|mat1 and mat2 must have "
        r"the same dtype.*weights_prepack=False",
        bf16["evidence"]["summary"],
    ), bf16["evidence"]["summary"]
    assert "workaround verified" in bf16["evidence"]["summary"]
    run = bf16["evidence"]["data"]["runs"][0]
    assert run["result"]["workaround"]["ok"] is True
    assert run["result"]["workaround"]["rel_error"] < run["result"]["workaround"]["tolerance"]
    # NOTE: one rule for entries that concern a device this machine lacks (XPU): not
    # applicable, with what the check measured on the CPU kept as evidence.
    dot = findings["dot-half"]
    assert (dot["verdict"], dot["status"]) == ("not-applicable", "skip")
    assert (
        "only affects other builds than intel-extension-for-pytorch 2.8.0 (cpu build)"
        in (dot["evidence"]["summary"])
    )
    assert "dot works in Half and BFloat16" in dot["evidence"]["summary"]
    grad = findings["grad-mode-divergence"]
    assert (grad["verdict"], grad["status"]) == ("not-applicable", "skip")
    assert grad["evidence"]["data"]["runs"][0]["result"]["mae_grad_vs_no_grad"] == 0.0
    qconv = findings["qconv-op-name"]
    assert (qconv["verdict"], qconv["status"]) == ("not-applicable", "skip")
    result = qconv["evidence"]["data"]["runs"][0]["result"]
    assert set(result["ops"]) == {"onednn::qconv_pointwise", "onednn::qconv2d_pointwise"}
    assert result["inductor_emits"] == "onednn::qconv_pointwise.default"
    assert result["calls"]["onednn::qconv_pointwise"]["ok"] is True
    assert "XPU part not applicable" in qconv["evidence"]["summary"]


def test_bf16_linear_not_applicable_when_ipex_cannot_import() -> None:
    """torch 2.8.0 with IPEX 2.7.0: IPEX cannot load, so bf16-linear cannot arise."""
    _code, _out, _err, report = _run("ipex27-torch28", "check")
    bf16 = _findings(report)["bf16-linear"]
    assert bf16["verdict"] == "not-applicable"
    assert "does not import" in bf16["evidence"]["summary"]


def test_checks_see_the_fresh_import_error_not_a_second_import_artifact() -> None:
    """torchvision broken: the checks run in a fresh worker that refuses the modules whose
    import failed, so their evidence gives the error a user's fresh interpreter gives
    ("operator torchvision::nms does not exist"), never "partially initialized module"."""
    _code, _out, _err, report = _run("tv022-ipex28", "check")
    assert "partially initialized" not in json.dumps(report)
    linear = _findings(report)["bf16-linear"]
    assert linear["verdict"] == "not-applicable"
    assert "operator torchvision::nms does not exist" in linear["evidence"]["summary"]


def test_a_python_named_relative_to_here_is_that_one_not_one_on_path(tmp_path: Path) -> None:
    """``--python ./python`` from the environment's bin directory examines that interpreter.
    Before, ``Path("./python")`` dropped the ``./`` and the start looked ``python`` up on PATH:
    another interpreter was examined (and ``fix`` would have changed it), or none was found."""
    python = Path(copy_env(real_env("bare"), tmp_path / "env"))
    out = tmp_path / "report.json"
    done = run_doctor("env", "--python", f"./{python.name}", "--json", str(out), "-q",
                      cwd=python.parent)  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]  # torch is missing
    assert json.loads(out.read_text())["environment"]["interpreter"]["executable"] == str(python)
