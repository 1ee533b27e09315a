"""The reference stack as a CI gate: --fail-on warn, ignores with reason, an expired ignore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import real_env, run_doctor
from junitparser import JUnitXml

pytestmark = pytest.mark.envs


def test_fail_on_warn_then_ignore_then_expired(tmp_path: Path) -> None:
    """bf16-linear's warning fails --fail-on warn; ignores with a reason pass; expired fails.

    The warnings are the ones this CPU class gives (an AVX2-only CPU adds bf16-prepack-isa):
    the gate is held to the report's own findings, one JUnit failure per warning."""
    python = real_env("reference")
    junit = tmp_path / "gate.xml"
    report = tmp_path / "gate.json"
    strict = run_doctor(
        "check",
        "--python",
        python,
        "--skip-sanity",
        "--fail-on",
        "warn",
        "--junit-xml",
        str(junit),
        "--json",
        str(report),
        "-q",
    )
    assert strict.returncode == 1, strict.stdout
    assert "bf16-linear" in strict.stdout
    warned = [f["id"] for f in json.loads(report.read_text())["findings"] if f["status"] == "warn"]
    assert "bf16-linear" in warned
    xml = JUnitXml.fromfile(str(junit))
    xml.update_statistics()
    assert xml.failures == len(warned) and xml.errors == 0

    ignores = [f"--ignore={i}=we always run ipex.optimize under autocast" for i in warned]
    ignored = run_doctor(
        "check", "--python", python, "--skip-sanity", "--fail-on", "warn", *ignores, "-q",
    )  # fmt: skip
    assert ignored.returncode == 0, ignored.stdout

    entries = "".join(
        f"  - id: {i}\n    reason: accepted until the Q3 upgrade\n    expires: 2026-06-30\n"
        for i in warned
    )
    (tmp_path / ".ipex-doctor.yaml").write_text(f"fail_on: warn\nignore:\n{entries}")
    expired = run_doctor("check", "--python", python, "--skip-sanity", "-q", cwd=tmp_path)
    assert expired.returncode == 1
    assert "expired on 2026-06-30" in expired.stdout


def test_unknown_ignore_id_is_config_error() -> None:
    """An ignore naming no finding fails before anything runs, naming the id."""
    done = run_doctor("check", "--python", real_env("bare"), "--ignore", "bf16-lineer")
    assert done.returncode == 2
    assert "unknown finding id 'bf16-lineer'" in done.stderr and "bf16-linear" in done.stderr
