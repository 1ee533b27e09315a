"""A module whose import kills the interpreter (SIGILL: IPEX on a CPU without AVX2) is imported
once, by the probe; the checks' workers refuse it, so the checks that need it say why they do
not apply instead of each dying the same way ("Could not check" four times)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from conftest import real_env, run_doctor

pytestmark = pytest.mark.envs

_DIES_ON_IMPORT = """
import os, signal
os.kill(os.getpid(), signal.SIGILL)
"""


def _overlay(root: Path) -> Path:
    """A directory with an ``intel_extension_for_pytorch`` (real dist-info) that dies of SIGILL."""
    package = root / "intel_extension_for_pytorch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(_DIES_ON_IMPORT))
    info = root / "intel_extension_for_pytorch-2.8.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: intel-extension-for-pytorch\nVersion: 2.8.0\n"
    )
    (info / "RECORD").write_text("")
    return root


def test_checks_do_not_die_again_on_an_import_that_killed_the_probe(tmp_path: Path) -> None:
    """torch 2.8 with an IPEX that dies of SIGILL: the import failure is reported once, with
    the signal; bf16-linear is not applicable and says why; no check errs."""
    overlay = _overlay(tmp_path / "overlay")
    done = run_doctor(
        "check", "--skip-sanity", "--python", real_env("torch28-only"), "--json", "-",
        extra_env={"PYTHONPATH": str(overlay)},
    )  # fmt: skip
    report = json.loads(done.stdout)
    findings = {f["id"]: f for f in report["findings"]}
    assert not [f["id"] for f in report["findings"] if f["status"] == "error"], done.stderr
    failing = [f for f in report["findings"] if f["status"] == "fail"]
    assert len(failing) == 1 and "SIGILL" in failing[0]["evidence"]["summary"], failing
    linear = findings["bf16-linear"]
    assert linear["verdict"] == "not-applicable"
    assert "SIGILL" in linear["evidence"]["summary"]
    assert done.returncode == 1
