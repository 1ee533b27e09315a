"""The shipped check scripts: their contract, their imports, and running them by hand."""

from __future__ import annotations

import ast
import json
import subprocess

import pytest
from conftest import REPO, doctor_env, real_env

from ipex_doctor.knowledge import known_issues
from ipex_doctor.runs.catalog import catalog

SHIPPED = catalog()
ALLOWED_IMPORTS = {
    "argparse", "copy", "json", "os", "re", "sys", "math", "time", "warnings",
    "torch", "torchvision", "intel_extension_for_pytorch", "ctypes",
}  # fmt: skip


def test_one_script_per_known_issue() -> None:
    """Every known-issue entry's repro exists, and every shipped script is used."""
    repros = {i.repro for i in known_issues.load().issues if i.repro}
    assert (
        repros
        == set(SHIPPED)
        == {"dot-half", "bf16-linear", "grad-mode-divergence", "qconv-op-name"}
    )


@pytest.mark.parametrize("check_id", sorted(SHIPPED))
def test_script_contract(check_id: str) -> None:
    """A docstring naming the upstream issue, run(device), main(), stdlib + torch only."""
    script = SHIPPED[check_id]
    tree = ast.parse(script.path.read_text())
    assert "https://github.com/" in script.doc
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert {"run", "main"} <= functions
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported <= ALLOWED_IMPORTS, imported - ALLOWED_IMPORTS


@pytest.mark.envs
def test_scripts_run_by_hand_on_the_reference_stack() -> None:
    """`python checks/X.py --device cpu --json` prints the dict; without --json a readable line."""
    python = real_env("reference")
    procs = {
        check_id: subprocess.Popen(
            [python, str(script.path), "--device", "cpu", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=doctor_env(),
        )
        for check_id, script in SHIPPED.items()
    }
    results = {
        check_id: json.loads(proc.communicate(timeout=300)[0]) for check_id, proc in procs.items()
    }
    assert results["bf16-linear"]["reproduced"] is True
    for check_id in ("dot-half", "grad-mode-divergence", "qconv-op-name"):
        assert results[check_id]["reproduced"] is False, check_id
        assert results[check_id]["evidence"]
    readable = subprocess.run(
        [python, str(REPO / "checks" / "bf16_linear.py")],
        capture_output=True,
        text=True,
        env=doctor_env(),
        check=False,
    )
    assert readable.returncode == 1  # reproduced
    assert "on cpu: REPRODUCED" in readable.stdout and "workaround verified" in readable.stdout


def test_scripts_compile_for_old_pythons() -> None:
    """Scripts run inside the examined interpreter: no syntax newer than Python 3.8."""
    for script in SHIPPED.values():
        ast.parse(script.path.read_text(), feature_version=(3, 8))
    for name in ("worker.py", "sanity.py", "cpu_isa.py"):
        ast.parse(
            (REPO / "ipex_doctor" / "probe" / "scripts" / name).read_text(),
            feature_version=(3, 8),
        )


@pytest.mark.envs
@pytest.mark.parametrize(
    ("env_name", "device", "said"),
    [
        ("torch28-only", "xpu:0", "no xpu device is available here"),
        ("torch28-only", "cuda", "no cuda device is available here"),
        ("torch28-only", "gpu:0", "is not a device"),
        ("bare", "cpu", "torch does not import"),
    ],
)
def test_scripts_that_cannot_run_here_say_why_in_one_line(
    env_name: str, device: str, said: str
) -> None:
    """By hand on a device this machine lacks: one line, exit 2 (not 1, which means reproduced)."""
    python = real_env(env_name)
    for script in SHIPPED.values():
        done = subprocess.run(
            [python, str(script.path), "--device", device],
            capture_output=True, text=True, env=doctor_env(), check=False, timeout=300,
        )  # fmt: skip
        assert done.returncode == 2, (script.path.name, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and said in lines[0], done.stderr
        assert lines[0].startswith(f"{script.path.name}: cannot run on {device}: ")
        assert done.stdout == ""
