"""A wheel built from the repo, installed non-editable into a fresh venv, works on its own."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, doctor_env, make_fake_env

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(wheel, venv) after building the wheel and installing it into a fresh venv."""
    base = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-qq",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(base / "dist"),
            str(REPO),
        ],
        check=True,
    )
    wheel = next((base / "dist").glob("ipex_doctor-*.whl"))
    target = base / "venv"
    venv.EnvBuilder(with_pip=True, symlinks=True).create(target)
    subprocess.run(
        [str(target / "bin" / "python"), "-m", "pip", "install", "-qq", str(wheel)], check=True
    )
    return wheel, target


def test_wheel_carries_data(installed: tuple[Path, Path]) -> None:
    """checks/, known_issues.yaml, the schemas and the probe script are inside the wheel."""
    names = zipfile.ZipFile(installed[0]).namelist()
    assert "ipex_doctor/_data/known_issues.yaml" in names
    assert "ipex_doctor/_data/code_rules.yaml" in names
    assert "ipex_doctor/knowledge/code_rules.schema.json" in names
    assert "ipex_doctor/_data/report.schema.json" in names
    assert "ipex_doctor/knowledge/known_issues.schema.json" in names
    assert "ipex_doctor/probe/scripts/worker.py" in names
    assert "ipex_doctor/_data/checks/dot_half.py" in names
    assert any(n.startswith("ipex_doctor/_data/checks/") for n in names)


def test_installing_does_not_pull_torch(installed: tuple[Path, Path]) -> None:
    """The doctor's dependencies never bring (or replace) torch."""
    listing = subprocess.run(
        [str(installed[1] / "bin" / "python"), "-m", "pip", "list", "--format=json"],
        capture_output=True,
        text=True,
        check=True,
    )
    names = {p["name"].lower() for p in json.loads(listing.stdout)}
    assert "ipex-doctor" in names and "torch" not in names


def test_installed_doctor_runs_outside_the_repo(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    """From another directory: kb validate, kb list and env --python on a bare venv."""
    exe = str(installed[1] / "bin" / "ipex-doctor")
    env = doctor_env()
    validate = subprocess.run(
        [exe, "kb", "validate"], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert validate.returncode == 0 and "_data/known_issues.yaml" in validate.stdout
    listing = subprocess.run(
        [exe, "kb", "list"], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert "dot-half" in listing.stdout
    checks = subprocess.run(
        [exe, "repro", "--list"], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert "qconv-op-name" in checks.stdout and "(judges qconv-op-name)" in checks.stdout
    bare = make_fake_env(tmp_path / "bare", {})
    done = subprocess.run(
        [exe, "env", "--python", bare, "--json", "-"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 1, done.stderr
    ids = {f["id"]: f["status"] for f in json.loads(done.stdout)["findings"]}
    assert ids["torch-missing"] == "fail"
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text("import torch\nwith torch.xpu.amp.autocast():\n    pass\n")
    scanned = subprocess.run(
        [exe, "scan", str(project), "--python", bare, "--json", "-"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    found = {f["id"]: f["status"] for f in json.loads(scanned.stdout)["findings"]}
    assert scanned.returncode == 1 and found == {"xpu-amp-autocast": "fail"}, scanned.stderr
