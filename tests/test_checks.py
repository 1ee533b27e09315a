"""The shipped check scripts: their contract, their imports, and running them by hand."""

from __future__ import annotations

import ast
import json
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, doctor_env, real_env

from ipex_doctor import resources
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


# NOTE: every script that runs inside the examined interpreter, found rather than listed, so a
# new or renamed one is covered: the probe scripts (worker, sanity run, CPUID, Level Zero,
# collectives) and the check scripts (run by the worker, or by hand).
OLD_PYTHON = (3, 8)
IN_EXAMINED_INTERPRETER = sorted(
    [*resources.path("probe/scripts").glob("*.py"), *resources.path("checks").glob("*.py")]
)


def test_the_scripts_of_the_examined_interpreter_are_all_found() -> None:
    """The list below is complete: every probe script the doctor starts and every check."""
    names = {p.name for p in IN_EXAMINED_INTERPRETER}
    assert {"worker.py", "resnet_sanity.py", "cpu_isa.py", "level_zero.py"} <= names
    assert {s.path.name for s in SHIPPED.values()} <= names


@pytest.mark.parametrize(
    "script", IN_EXAMINED_INTERPRETER, ids=lambda p: p.parent.name + "/" + p.name
)
def test_scripts_parse_as_python_3_8(script: Path) -> None:
    """Scripts run inside the examined interpreter, which may be as old as Python 3.8: no
    syntax newer than 3.8, such as a match statement or parenthesized context managers. (What
    is not syntax, ``list[int]`` evaluated at run time say, is beyond a parse.)"""
    try:
        ast.parse(script.read_text(encoding="utf-8"), str(script), feature_version=OLD_PYTHON)
    except SyntaxError as error:
        pytest.fail(f"{script.name}:{error.lineno}: not Python 3.8 syntax: {error.msg}")


def test_the_python_3_8_parse_refuses_newer_syntax() -> None:
    """The check above has teeth: the same parse refuses syntax that 3.8 lacks."""
    for newer in (
        "match x:\n    case 1:\n        pass\n",
        "with (open(a) as b, open(c) as d):\n    pass\n",
    ):
        with pytest.raises(SyntaxError):
            ast.parse(newer, feature_version=OLD_PYTHON)
        ast.parse(newer)  # NOTE: the interpreter running the tests accepts it


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
