"""tests/testenvs.py itself: recipes from PyPI alone, a reused reference, shared files."""

from __future__ import annotations

import os
import subprocess
import sys
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
