"""``fix --yes`` on copies of the real broken stacks of tests/testenvs.py, and ``--undo`` back.

Each broken environment is copied (hard links: quick, and pip in the copy leaves the original
as it was); ``fix --yes`` must turn the diagnosis green, and ``fix --undo`` must give back the
exact ``pip freeze --all`` of before. The healthy reference stack has an empty plan, and
``fix --yes`` there changes nothing. pip runs with the machine's configuration, as the user's
would (these install from PyPI, or pip's cache, like the test-environment builder).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, copy_env, freeze, real_env, run_doctor

pytestmark = [pytest.mark.envs, pytest.mark.slow]

SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())

BROKEN = {
    "ipex27-torch28": ("torch-ipex-mismatch", "install", "intel-extension-for-pytorch==2.8.0"),
    "ipex28-torch27": ("torch-ipex-mismatch", "install", "intel-extension-for-pytorch==2.7.0"),
    "tv022-ipex28": ("torchvision-broken", "install", "torchvision==0.23.0"),
    "tv021-torch28": ("torchvision-broken", "install", "torchvision==0.23.0"),
    "ipex28-torch29": ("torch-ipex-mismatch", "uninstall", "intel-extension-for-pytorch"),
}


@pytest.mark.parametrize("env_name", list(BROKEN))
def test_fix_turns_the_broken_stack_green_and_undo_restores_it(
    tmp_path: Path, env_name: str
) -> None:
    """One pinned step resolves the failing finding; the diagnosis after is green (exit 0);
    the report records plan, outcome and verdict; --undo gives back pip freeze exactly."""
    finding, kind, requirement = BROKEN[env_name]
    python = copy_env(real_env(env_name), tmp_path / "env")
    before = freeze(python)
    out = tmp_path / "fix.json"
    done = run_doctor("fix", "--yes", "--python", python, "--json", str(out), timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    jsonschema.validate(report, SCHEMA)
    repair = report["repair"]
    assert repair["verdict"] == "resolved" and report["command"] == "fix"
    (step,) = repair["planned"]
    assert (step["kind"], step["resolves"]) == (kind, [finding])
    assert step["command"][:4] == [python, "-m", "pip", kind] and requirement in step["command"]
    assert [a["status"] for a in repair["applied"]] == ["applied"]
    assert not [f["id"] for f in report["findings"] if f["status"] in ("fail", "error")]
    assert freeze(python) != before
    undo = run_doctor("fix", "--undo", repair["snapshot"], "--yes", timeout=1200)
    assert undo.returncode == 0, undo.stderr[-3000:]
    assert freeze(python) == before


def test_healthy_stack_has_an_empty_plan_and_fix_changes_nothing(tmp_path: Path) -> None:
    """The reference stack: nothing to do, exit 0, no snapshot, pip freeze unchanged."""
    python = copy_env(real_env("reference"), tmp_path / "env")
    before = freeze(python)
    out = tmp_path / "fix.json"
    done = run_doctor("fix", "--yes", "--python", python, "--json", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Plan: nothing pip can apply here." in done.stdout
    repair = json.loads(out.read_text())["repair"]
    assert (repair["verdict"], repair["planned"], repair["applied"]) == ("nothing-to-do", [], [])
    assert freeze(python) == before and not list(tmp_path.glob("*.snapshot.json"))
