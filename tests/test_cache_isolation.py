"""The tests leave the user's home and cache alone: every test and every process it starts
has a home and a cache of its own (conftest), while the test environments in the real cache
are still found and reused. And the doctor itself names its cache directory in one place."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import testenvs
from conftest import (
    REAL_CACHE,
    REAL_HOME,
    REPO,
    TEST_CACHE,
    TEST_HOME,
    TESTS,
    doctor_env,
    real_env,
    run_doctor,
)

from ipex_doctor import resources
from ipex_doctor.cli import main
from ipex_doctor.knowledge import cache
from ipex_doctor.reporting.output import write_crash_log


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
    """Where the environments are was settled before the home moved: the tests and the
    children they start look in the same place, and not in the tests' home."""
    where = testenvs.root()
    assert str(where) == os.environ["IPEX_DOCTOR_TEST_ENVS"]
    assert not where.is_relative_to(TEST_HOME)
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


def test_every_test_and_child_has_a_home_of_its_own() -> None:
    """HOME and XDG_CACHE_HOME are temporary for the tests and for the processes they start,
    and the doctor's cache directory follows them."""
    assert TEST_HOME != REAL_HOME and not TEST_HOME.is_relative_to(REAL_HOME)
    assert Path.home() == TEST_HOME and TEST_CACHE.is_relative_to(TEST_HOME)
    assert resources.cache_dir() == TEST_CACHE / "ipex-doctor"
    seen = subprocess.run(
        [sys.executable, "-c", "import os, pathlib; print(pathlib.Path.home()); "
         "print(os.environ['XDG_CACHE_HOME'])"],
        capture_output=True, text=True, env=doctor_env(), check=True,
    )  # fmt: skip
    assert seen.stdout.split() == [str(TEST_HOME), str(TEST_CACHE)]


def test_the_environments_are_resolved_before_home_is_replaced(tmp_path: Path) -> None:
    """conftest reads the environments' place from the real home, then replaces HOME: a run
    with no IPEX_DOCTOR_TEST_ENVS finds them in that home's cache, never in its own home."""
    home = tmp_path / "someone"
    home.mkdir()
    env = {k: v for k, v in doctor_env({"HOME": str(home), "PYTHONPATH": str(TESTS)}).items()
           if k not in ("IPEX_DOCTOR_TEST_ENVS", "XDG_CACHE_HOME")}  # fmt: skip
    code = (
        "import os, shutil, conftest\n"
        "print(os.environ['IPEX_DOCTOR_TEST_ENVS']); print(os.environ['HOME'])\n"
        "shutil.rmtree(conftest.TEST_HOME)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    envs, replaced = done.stdout.split()
    assert envs == str(home / ".cache" / "ipex-doctor" / "test-envs")
    assert not Path(replaced).is_relative_to(home) and not Path(replaced).exists()


def test_the_cache_directory_is_named_in_one_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The knowledge-base cache and the crash log share the doctor's cache directory:
    $XDG_CACHE_HOME/ipex-doctor, else ~/.cache/ipex-doctor (an empty variable is unset)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for xdg, expected in ((str(tmp_path / "xdg"), tmp_path / "xdg"),
                          ("", tmp_path / "home" / ".cache")):  # fmt: skip
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
        assert resources.cache_dir() == expected / "ipex-doctor"
        assert cache.directory() == resources.cache_dir() / "kb"
        written = write_crash_log(ZeroDivisionError("boom"), "0.0-test")
        assert written == str(resources.cache_dir() / "ipex-doctor-crash.md")
        assert "ZeroDivisionError: boom" in Path(written).read_text()


def _snapshot(directory: Path) -> dict[str, str]:
    """Every file and folder under ``directory`` with its content's digest and its mtime."""
    found = {}
    for path in sorted(directory.rglob("*")):
        stat = path.lstat()
        digest = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
        found[str(path.relative_to(directory))] = f"{digest} {stat.st_mtime_ns}"
    return found


def test_a_unit_run_leaves_the_real_home_untouched(tmp_path: Path) -> None:
    """pytest run as a user would, on tests that load and cache the knowledge base, run the
    doctor in-process and as children, and write crash logs: the user's home, with a cache
    the doctor had filled before, is exactly as it was, to the byte and the mtime."""
    home = tmp_path / "user"
    own = home / ".cache" / "ipex-doctor"
    (own / "kb").mkdir(parents=True)
    (own / "test-envs").mkdir()
    (own / "kb" / "0badcafe.json").write_text('{"identity": ["from an earlier run"]}')
    (own / "ipex-doctor-crash.md").write_text("an earlier crash\n")
    before = _snapshot(home)
    env = {k: v for k, v in doctor_env({"HOME": str(home)}).items()
           if k not in ("IPEX_DOCTOR_TEST_ENVS", "XDG_CACHE_HOME")}  # fmt: skip
    chosen = [
        f"{TESTS / 'test_cache_isolation.py'}::test_a_doctor_run_does_not_touch_the_real_cache",
        f"{TESTS / 'test_cache_isolation.py'}::test_every_test_and_child_has_a_home_of_its_own",
        f"{TESTS / 'test_cache_isolation.py'}::test_the_cache_directory_is_named_in_one_place",
        f"{TESTS / 'knowledge' / 'test_explain.py'}::test_cli_exit_codes_and_json",
        f"{TESTS / 'cli' / 'test_main.py'}::test_an_internal_error_is_exit_3_with_a_crash_log",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *chosen],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=600, check=False,
    )  # fmt: skip
    after = _snapshot(home)
    changed = sorted(
        name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
    )
    assert not changed, f"the run wrote to the user's home: {changed}"
    assert done.returncode == 0 and f"{len(chosen)} passed" in done.stdout, done.stdout[-3000:]
