"""tests/testenvs.py itself: recipes from PyPI alone, a reused reference, shared files."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
import testenvs
from conftest import TESTS, doctor_env, real_env


def test_every_recipe_pins_versions_pypi_serves() -> None:
    """No recipe depends on a local wheel: every torch pin is a release PyPI has (2.8.0), not
    the machine's local 2.13.0+cpu file; the builder runs pip with --isolated by default."""
    pinned = [arg for steps in testenvs.RECIPES.values() for step in steps for arg in step]
    assert "torch==2.8.0" in pinned and not any("2.13" in arg for arg in pinned)
    done = _testenvs("reference", IPEX_DOCTOR_TEST_PIP="local-wheels")
    assert done.returncode == 2 and "expected 'isolated' or 'config'" in done.stderr


def _testenvs(*args: str, **variables: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TESTS / "testenvs.py"), *args],
        capture_output=True, text=True, env=doctor_env(variables), check=False, timeout=120,
    )  # fmt: skip


@pytest.mark.envs
def test_a_matching_reference_is_reused_not_rebuilt() -> None:
    """IPEX_DOCTOR_REFERENCE_PYTHON naming a reference stack: used as it is, nothing built."""
    python = real_env("reference")
    done = _testenvs("reference", IPEX_DOCTOR_REFERENCE_PYTHON=python)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"reference={python}"
    assert "building" not in done.stderr


@pytest.mark.envs
def test_a_reference_with_other_versions_is_refused() -> None:
    """Naming an environment that is not the reference stack: one line, exit 2, nothing built."""
    done = _testenvs("reference", IPEX_DOCTOR_REFERENCE_PYTHON=real_env("bare"))
    assert done.returncode == 2
    assert "is not the reference stack: torch missing (want 2.8.0)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "building" not in done.stderr


def test_identical_files_become_hard_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large file identical to one in another complete environment is linked, not copied;
    a file that differs, or is small, stays as it is."""
    monkeypatch.setenv("IPEX_DOCTOR_TEST_ENVS", str(tmp_path))
    monkeypatch.setenv(testenvs.REFERENCE_VARIABLE, "")
    testenvs._reused_reference.cache_clear()
    site = "lib/python3.11/site-packages/torch/lib"
    big = os.urandom(testenvs._LINK_MIN_BYTES + 1)
    for env in ("peer", "new"):
        (tmp_path / env / site).mkdir(parents=True)
        (tmp_path / env / site / "libbig.so").write_bytes(big)
        (tmp_path / env / site / "small.py").write_text("x = 1\n")
    (tmp_path / "peer" / site / "other.so").write_bytes(big)
    (tmp_path / "new" / site / "other.so").write_bytes(big[:-1] + b"!")
    (tmp_path / "peer" / ".complete").write_text("[]")
    saved = testenvs.link_identical_files(tmp_path / "new")
    testenvs._reused_reference.cache_clear()
    assert saved == len(big)
    inode = lambda env, name: (tmp_path / env / site / name).stat().st_ino  # noqa: E731
    assert inode("new", "libbig.so") == inode("peer", "libbig.so")
    assert inode("new", "other.so") != inode("peer", "other.so")
    assert inode("new", "small.py") != inode("peer", "small.py")
    assert (tmp_path / "new" / site / "libbig.so").read_bytes() == big


def _wheel(directory: Path, name: str, version: str, requires: tuple[str, ...] = ()) -> None:
    """A tiny pure-Python wheel whose metadata requires ``requires``."""
    info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {requirement}\n" for requirement in requires)
    files = {
        f"{name}/__init__.py": b"",
        f"{info}/METADATA": metadata.encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    # NOTE: RECORD may leave hashes out (PEP 376); pip installs without checking them
    record = "".join(f"{member},,\n" for member in [*files, f"{info}/RECORD"])
    files[f"{info}/RECORD"] = record.encode()
    with zipfile.ZipFile(directory / f"{name}-{version}-py3-none-any.whl", "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)


def test_the_resolver_complaint_of_a_deliberate_pair_is_labelled(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A recipe's way of breaking a pin on purpose (one package --no-deps, then the others), in
    a real venv with real pip, offline: pip's resolver ERROR lines come out labelled with the
    recipe's reason; the same complaint in a recipe without a reason comes out as pip said it."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "alpha", "1.0", ("beta==1.0", "gamma"))
    for name, version in (("beta", "1.0"), ("beta", "2.0"), ("gamma", "1.0")):
        _wheel(wheels, name, version)
    venv.EnvBuilder(with_pip=True, symlinks=True).create(tmp_path / "venv")
    python = tmp_path / "venv" / "bin" / "python"
    offline = ["--isolated", "--no-index", "--find-links", str(wheels)]
    testenvs.install_step(python, [*offline, "beta==2.0"], deliberate=None, label="t")
    testenvs.install_step(python, [*offline, "--no-deps", "alpha==1.0"], deliberate=None, label="t")
    capfd.readouterr()
    testenvs.install_step(python, [*offline, "gamma"], deliberate="beta 2 on purpose", label="t")
    lines = capfd.readouterr().err.splitlines()
    complaint = [line for line in lines if "pip's dependency resolver" in line]
    conflict = [line for line in lines if "alpha 1.0 requires beta==1.0" in line]
    assert complaint and conflict, lines
    assert all(line.startswith("[testenvs] t, expected (beta 2 on purpose): ") for line in lines)
    subprocess.run([str(python), "-m", "pip", "uninstall", "-qq", "-y", "gamma"], check=True)
    testenvs.install_step(python, [*offline, "gamma"], deliberate=None, label="t")
    plain = capfd.readouterr().err.splitlines()
    assert any(line.startswith("ERROR: pip's dependency resolver") for line in plain), plain


@pytest.mark.envs
def test_every_environment_that_breaks_a_pin_says_why() -> None:
    """Each built environment whose requirements do not hold (pip check) was made so on
    purpose and has its reason in NOTES, so its build labels pip's complaint; the others have
    no note to hide a real complaint behind."""
    for name in testenvs.RECIPES:
        done = subprocess.run(
            [real_env(name), "-m", "pip", "check"], capture_output=True, text=True, check=False
        )
        assert (done.returncode != 0) == (name in testenvs.NOTES), (name, done.stdout)
