"""The tests leave the user's cache alone: every doctor they run writes to a cache of its own
(conftest), while the test environments in the real cache are still found and reused."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import testenvs
from conftest import REAL_CACHE, TEST_CACHE, TESTS, doctor_env, real_env, run_doctor

from ipex_doctor.cli import main


def _files_saying(marker: str, directory: Path) -> list[Path]:
    """Files under ``directory`` that contain ``marker`` (the test environments left out)."""
    found = []
    for folder, subfolders, files in os.walk(directory):
        if Path(folder) == directory:
            subfolders[:] = [s for s in subfolders if s != "test-envs"]
        for name in files:
            path = Path(folder, name)
            try:
                if marker in path.read_text(errors="replace"):
                    found.append(path)
            except OSError:
                pass
    return found


def _overlay(directory: Path, marker: str) -> Path:
    directory.mkdir()
    overlay = directory / "site.yaml"
    overlay.write_text(
        "schema_version: 1\nissues:\n  - id: site-cache-probe\n"
        f"    title: Cache probe {marker}\n    kind: environment\n    severity: info\n"
        "    summary: Only here to be cached.\n    remediation: Nothing to do.\n"
        "    references:\n      - url: https://example.org/cache-probe\n"
    )
    return overlay


def test_a_doctor_run_does_not_touch_the_real_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A doctor run as a child and one in-process each cache the knowledge base they load:
    in the tests' cache directory, never in the user's."""
    assert not TEST_CACHE.is_relative_to(REAL_CACHE) and TEST_CACHE.is_dir()
    child, in_process = uuid.uuid4().hex, uuid.uuid4().hex
    done = run_doctor("kb", "list", "--kb", str(_overlay(tmp_path / "child", child)))
    assert done.returncode == 0 and child in done.stdout, done.stderr
    with pytest.raises(SystemExit) as stop:
        main(["kb", "list", "--kb", str(_overlay(tmp_path / "in-process", in_process))])
    assert stop.value.code == 0 and in_process in capsys.readouterr().out
    for marker in (child, in_process):
        assert _files_saying(marker, TEST_CACHE / "ipex-doctor"), "the run cached nothing"
        assert not _files_saying(marker, REAL_CACHE / "ipex-doctor")


def test_the_test_environments_are_still_found_in_the_real_cache() -> None:
    """Where the environments are was settled before the cache moved: the tests and the
    children they start look in the same place, and not in the tests' cache."""
    where = testenvs.root()
    assert str(where) == os.environ["IPEX_DOCTOR_TEST_ENVS"]
    assert not where.is_relative_to(TEST_CACHE)
    listed = subprocess.run(
        [sys.executable, "-c", "import testenvs; print(testenvs.root())"],
        capture_output=True, text=True, env=doctor_env({"PYTHONPATH": str(TESTS)}), check=True,
    )  # fmt: skip
    assert listed.stdout.strip() == str(where)


@pytest.mark.envs
def test_the_built_environments_are_reused() -> None:
    """A built environment is found where the build left it, in the real cache by default."""
    python = Path(real_env("bare"))
    assert python.is_relative_to(testenvs.root()) and not python.is_relative_to(TEST_CACHE)
