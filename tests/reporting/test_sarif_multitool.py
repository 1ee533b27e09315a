"""Microsoft's SARIF Multitool validates the scan's SARIF with the GitHub ingestion rules and the
SARIF rules (``--rule-kind "Gh;Sarif"``): zero errors, zero warnings, with results in files
whose names need percent-encoding (spaces, ``%``, ``#``, ``?``, a colon, non-ASCII, control
characters, a line break), a fix, and notifications for the files the scan could not read.

The Multitool comes from npm (``@microsoft/sarif-multitool``) and runs offline once
installed; it is installed once beside the real test environments (same network, same
cache), and the test is skipped where npm is absent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import testenvs
from conftest import make_fake_env, run_doctor

pytestmark = [pytest.mark.envs, pytest.mark.slow]

PACKAGE = "@microsoft/sarif-multitool@5.7.0"


def _multitool() -> Path:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    prefix = testenvs.root() / "sarif-multitool"
    binary = prefix / "node_modules" / "@microsoft" / "sarif-multitool-linux" / "Sarif.Multitool"
    if not binary.is_file():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", PACKAGE],
            check=True, capture_output=True, timeout=900,
        )  # fmt: skip
    # NOTE: npm leaves the package's postinstall (a chmod) unrun unless scripts are approved.
    binary.chmod(binary.stat().st_mode | 0o100)
    return binary


@pytest.mark.parametrize("fix", [False, True], ids=["scan", "scan --fix"])
def test_the_scan_sarif_passes_the_github_and_sarif_rules(tmp_path: Path, fix: bool) -> None:
    """The log of a scan, and of a scan --fix (whose rewritten file is a modified artifact)."""
    multitool = _multitool()
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(
        "import torch\nimport intel_extension_for_pytorch as ipex\n"
        "with torch.xpu.amp.autocast():\n    pass\n"
        "print(torch.xpu.has_xmx())  # ipex-doctor: ignore[xpu-has-xmx-2d-block] checked\n"
    )
    (project / "requirements.txt").write_text("intel-extension-for-pytorch==2.8.0\n")
    odd = project / "odd dir #1"
    odd.mkdir()
    for name in ("with space.py", "per%cent?.py", "colon:first.py", "ünï 日本.py", "new\nline.py",
                 "bell\x07.py"):  # fmt: skip
        (odd / name).write_text("import torch\nwith torch.xpu.amp.autocast():\n    pass\n")
    (odd / "blob #2.py").write_bytes(b"\x00intel_extension_for_pytorch")
    (odd / "old ü.py").write_text("import intel_extension_for_pytorch\nprint 'py2'\n")
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", "")})
    sarif = tmp_path / "scan.sarif"
    done = run_doctor(
        "scan", str(project), "--python", python, "--sarif", str(sarif), "-q",
        "--fix" if fix else "--diff", extra_env={"XDG_STATE_HOME": str(tmp_path / "state")},
    )  # fmt: skip
    assert done.returncode == 1 and sarif.is_file(), done.stderr
    run = json.loads(sarif.read_text())["runs"][0]
    assert len(run["invocations"][0]["toolExecutionNotifications"]) == 2
    artifacts = run.get("artifacts", [])
    assert all(a["roles"] == ["modified"] for a in artifacts)
    assert ("train.py" in {a["location"]["uri"] for a in artifacts}) is fix
    if not fix:
        assert any("fixes" in result for result in run["results"])
    verdict = tmp_path / "validation.sarif"
    checked = subprocess.run(
        [str(multitool), "validate", str(sarif), "--rule-kind", "Gh;Sarif",
         "--output", str(verdict), "--log", "ForceOverwrite"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    results = json.loads(verdict.read_text())["runs"][0]["results"]
    problems = [(r["ruleId"], r.get("level", "warning"), r["message"]) for r in results]
    assert problems == [], problems
