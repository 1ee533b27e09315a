"""The floors that benchmarks/scan_speed.py holds the scan to: grep over the same tree, and grep
over the files the scan reads.

grep's ``--exclude-dir`` skips a directory named on its command line too: given a root named
``site-packages`` (an environment's packages, a tree worth scanning) it read nothing, and the
floor was 0.003 s with no file listed. Each floor's command is run here on real files."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from conftest import REPO


def _script() -> ModuleType:
    sys.path.insert(0, str(REPO / "benchmarks"))  # NOTE: the script imports its _timing helper
    spec = importlib.util.spec_from_file_location(
        "scan_speed", REPO / "benchmarks" / "scan_speed.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()


def _listed(argv: list[str]) -> set[str]:
    found = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert found.returncode in (0, 1, 123), found.stderr  # NOTE: 1 / 123: nothing matched
    return {line.removeprefix("./") for line in found.stdout.splitlines()}


def test_a_root_named_like_an_excluded_directory_is_still_grepped(tmp_path: Path) -> None:
    root = tmp_path / "site-packages"
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    (root / "pkg" / "uses.py").write_text("import intel_extension_for_pytorch as ipex\n")
    (root / "pkg" / "plain.py").write_text("import json\n")
    (root / "pkg" / "__pycache__" / "uses.txt").write_text("ipex\n")
    (root / "pkg" / "site-packages").mkdir()
    (root / "pkg" / "site-packages" / "inner.py").write_text("import ipex\n")
    read = tmp_path / "read.list"
    read.write_text("pkg/uses.py\0pkg/plain.py\0")
    excludes = ["--exclude-dir=__pycache__", "--exclude-dir=site-packages"]
    commands = SCRIPT.floor_commands(str(root), "ipex", excludes, read)
    assert _listed(commands["grep"]) == {
        "pkg/uses.py",
        "pkg/__pycache__/uses.txt",
        "pkg/site-packages/inner.py",
    }
    # NOTE: directories of those names below the root are left out, as the scanner does
    assert _listed(commands["floor, the tree"]) == {"pkg/uses.py"}
    assert _listed(commands["floor, files read"]) == {"pkg/uses.py"}


def test_the_small_project_is_under_a_hundred_files_and_timed_in_its_root(tmp_path: Path) -> None:
    """Issue 31's small project has under 100 files, and its scan runs as a hook in the
    project's root runs it: the checkout's doctor imported, no policy file but the project's
    (run from the checkout, it read the checkout's own ``.ipex-doctor.yaml``)."""
    tree = tmp_path / "small"
    SCRIPT.write_small_project(tree)
    files = [path for path in tree.rglob("*") if path.is_file()]
    assert 50 < len(files) < 100
    where = "import os, ipex_doctor; print(os.getcwd()); print(ipex_doctor.__file__)"
    done = subprocess.run(
        SCRIPT.doctor_in(REPO, str(tree), [sys.executable, "-c", where]),
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.splitlines() == [str(tree), str(REPO / "ipex_doctor" / "__init__.py")]
