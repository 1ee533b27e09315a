"""The pre-commit hook, run by the real pre-commit (from PyPI) on a throwaway git repository:
it fails on a planted ``torch.xpu.amp.autocast``, and passes once ``scan --fix`` rewrote it.

pre-commit installs this repository (``try-repo``, uncommitted changes included) into a hook
environment of its own, from PyPI: the test needs the network that built the test
environments, and is marked like them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, doctor_env, run_doctor

pytestmark = [pytest.mark.envs, pytest.mark.slow]

PLANTED = "import torch\n\nwith torch.xpu.amp.autocast():\n    pass\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=doctor_env())


def _pre_commit(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = doctor_env({"PRE_COMMIT_HOME": str(home)})
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "ipex-doctor-scan",
         "--all-files", "--verbose"],
        cwd=repo, capture_output=True, text=True, env=env, timeout=900, check=False,
    )  # fmt: skip


def test_the_hook_fails_on_planted_code_and_passes_after_fix(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "train.py").write_text(PLANTED)
    _git(repo, "add", "train.py")
    home = tmp_path / "pre-commit-home"
    failed = _pre_commit(repo, home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "xpu-amp-autocast" in failed.stdout
    fixed = run_doctor("scan", str(repo), "--fix", "-q")
    assert "Traceback" not in fixed.stderr, fixed.stderr
    assert 'torch.amp.autocast("xpu"' in (repo / "train.py").read_text()
    _git(repo, "add", "train.py")
    passed = _pre_commit(repo, home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert os.path.isdir(home)
