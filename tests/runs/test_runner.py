"""The check runner on a real torch: faults end as errors, the other checks still complete.

Runs in the real ``torch28-only`` environment (torch 2.8.0 without IPEX imports in about 2 s),
with the fault-injection scripts of ``tests/assets/faulty_checks`` passed by ``--checks-dir``.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from conftest import TESTS, real_env, run_doctor

from ipex_doctor.errors import DoctorError
from ipex_doctor.runs.device_selection import parse_device_spec

FAULTY = TESTS / "assets" / "faulty_checks"
pytestmark = pytest.mark.envs


def _findings(stdout: str) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in json.loads(stdout)["findings"]}


@cache
def _faults_run() -> tuple[int, str, str]:
    done = run_doctor(
        "repro", "segfaults", "hangs", "hard-exit", "raises", "leaks-state", "reads-state",
        "breaks-device", "qconv-op-name",
        "--checks-dir", str(FAULTY), "--python", real_env("torch28-only"),
        "--device", "cpu", "--timeout", "30", "--json", "-",
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_each_fault_is_an_error_with_what_happened() -> None:
    """segfault, hang, os._exit(3) and an exception: status error, the cause in the evidence."""
    code, stdout, stderr = _faults_run()
    assert code == 1, stderr
    assert "Traceback" not in stderr
    findings = _findings(stdout)
    expected = {
        "segfaults": "killed by SIGSEGV",
        "hangs": "did not finish within 30 s",
        "hard-exit": "exit code 3",
        "raises": "ValueError: planted failure in a check",
        "breaks-device": "no longer works after the check",
    }
    for check_id, said in expected.items():
        finding = findings[check_id]
        assert finding["status"] == "error", (check_id, finding["status"])
        assert said in finding["evidence"]["summary"], (check_id, finding["evidence"]["summary"])
    runs = findings["hard-exit"]["evidence"]["data"]["runs"]
    assert "about to leave" in runs[0]["output"]  # the last thing it printed


def test_other_checks_complete_after_faults() -> None:
    """After every fault a fresh worker ran the rest: the qconv check still reports its facts."""
    _code, stdout, _err = _faults_run()
    qconv = _findings(stdout)["qconv-op-name"]
    # NOTE: it ran to the end on the CPU; an XPU issue is not applicable without an XPU
    assert qconv["evidence"]["data"]["runs"][0]["outcome"] == "ok"
    assert qconv["status"] == "skip" and qconv["verdict"] == "not-applicable"
    assert "qconv_pointwise on cpu matches the float conv" in qconv["evidence"]["summary"]


def test_global_state_is_reset_between_checks() -> None:
    """A check that disabled grad and changed the default dtype does not leak into the next."""
    _code, stdout, _err = _faults_run()
    runs = _findings(stdout)["reads-state"]["evidence"]["data"]["runs"]
    assert runs[0]["result"]["state"] == {"grad_enabled": True, "default_dtype": "torch.float32"}


def test_a_cpu_check_is_given_the_threads_the_worker_chose_and_runs_with_them() -> None:
    """The worker decides the CPU threads of each CPU task from how busy the other processes
    keep its cores (never more than torch's default, never fewer than 1), tells a check that
    asks (a ``threads`` parameter) and sets torch to it; whatever the load, they agree."""
    _, stdout, _ = _faults_run()
    result = _findings(stdout)["reads-state"]["evidence"]["data"]["runs"][0]["result"]
    given = result["threads_given"]
    assert set(given) == {"used", "default", "cores", "others_busy_cores"}
    assert 1 <= given["used"] <= given["default"] and given["others_busy_cores"] >= 0
    assert result["torch_threads"] == given["used"]


def test_process_isolation_gives_each_check_a_fresh_interpreter() -> None:
    """With --isolation process, even a leaked monkeypatch cannot reach the next check."""
    done = run_doctor(
        "repro", "breaks-device", "reads-state", "--isolation", "process",
        "--checks-dir", str(FAULTY), "--python", real_env("torch28-only"),
        "--device", "cpu", "--json", "-",
    )  # fmt: skip
    findings = _findings(done.stdout)
    assert findings["reads-state"]["status"] == "pass"
    assert findings["breaks-device"]["status"] == "error"


def test_check_with_overlay_runs_site_checks(tmp_path: Any) -> None:
    """check --checks-dir with a --kb entry naming a site check judges it like a shipped one."""
    overlay = tmp_path / "site.yaml"
    overlay.write_text(
        "schema_version: 1\nissues:\n  - id: site-raises\n    title: Our site check\n"
        "    kind: known-issue\n    severity: error\n    summary: Site check.\n"
        "    remediation: Ask the platform team.\n    repro: raises\n    affected:\n"
        "      - package: torch\n    references:\n      - url: https://example.org/site\n"
    )
    done = run_doctor(
        "check", "--checks-dir", str(FAULTY), "--kb", str(overlay),
        "--python", real_env("torch28-only"), "--device", "cpu", "--json", "-",
    )  # fmt: skip
    findings = _findings(done.stdout)
    assert done.returncode == 1
    assert findings["site-raises"]["status"] == "error"
    assert findings["dot-half"]["verdict"] == "not-applicable"
    assert findings["dot-half"]["evidence"]["data"]["runs"][0]["outcome"] == "ok"


def test_unknown_repro_name_is_usage_error() -> None:
    """A name that is no check: exit 2 with a suggestion, before anything runs."""
    done = run_doctor("repro", "dot-hlaf")
    assert done.returncode == 2 and "no check named 'dot-hlaf'" in done.stderr
    assert "dot-half" in done.stderr


def test_repro_list_is_instant_and_names_entries() -> None:
    """repro --list names each script and the KB entry it judges."""
    done = run_doctor("repro", "--list")
    assert done.returncode == 0
    assert "dot-half" in done.stdout and "(judges dot-half)" in done.stdout


@pytest.mark.parametrize("spec", ["auto", "all", "cpu", "xpu", "xpu:1", "cuda", "CUDA:0"])
def test_device_specs(spec: str) -> None:
    """Every documented --device form parses."""
    assert str(parse_device_spec(spec)) == spec.lower()


@pytest.mark.parametrize("spec", ["gpu", "cpu:0", "auto:1", "xpu:", "xpu:a"])
def test_bad_device_specs(spec: str) -> None:
    """Anything else is a usage error."""
    with pytest.raises(DoctorError):
        parse_device_spec(spec)
