"""The reference stack as a CI gate: --fail-on warn, ignores with reason, an expired ignore."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import real_env, run_doctor
from junitparser import JUnitXml

pytestmark = pytest.mark.envs


def test_fail_on_warn_then_ignore_then_expired(tmp_path: Path) -> None:
    """bf16-linear's warning fails --fail-on warn; an ignore with a reason passes; expired fails."""
    python = real_env("reference")
    junit = tmp_path / "gate.xml"
    strict = run_doctor(
        "check",
        "--python",
        python,
        "--skip-sanity",
        "--fail-on",
        "warn",
        "--junit-xml",
        str(junit),
        "-q",
    )
    assert strict.returncode == 1, strict.stdout
    assert "bf16-linear" in strict.stdout
    xml = JUnitXml.fromfile(str(junit))
    xml.update_statistics()
    assert xml.failures == 1 and xml.errors == 0

    ignored = run_doctor(
        "check", "--python", python, "--skip-sanity", "--fail-on", "warn",
        "--ignore", "bf16-linear=we always run ipex.optimize under autocast", "-q",
    )  # fmt: skip
    assert ignored.returncode == 0, ignored.stdout

    (tmp_path / ".ipex-doctor.yaml").write_text(
        "fail_on: warn\nignore:\n  - id: bf16-linear\n    reason: accepted until the Q3 upgrade\n"
        "    expires: 2026-06-30\n"
    )
    expired = run_doctor("check", "--python", python, "--skip-sanity", "-q", cwd=tmp_path)
    assert expired.returncode == 1
    assert "expired on 2026-06-30" in expired.stdout


def test_unknown_ignore_id_is_config_error() -> None:
    """An ignore naming no finding fails before anything runs, naming the id."""
    done = run_doctor("check", "--python", real_env("bare"), "--ignore", "bf16-lineer")
    assert done.returncode == 2
    assert "unknown finding id 'bf16-lineer'" in done.stderr and "bf16-linear" in done.stderr
