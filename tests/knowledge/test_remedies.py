"""Remedies: the smallest consistent change of the torch / torchvision / IPEX triple, as
commands that name the examined interpreter (judged on environments described by versions;
tests/test_envs.py applies them to real broken environments)."""

from __future__ import annotations

import pytest
from builders import make_env

from ipex_doctor.knowledge import kb, remedies
from ipex_doctor.verdicts.judge import judge

KB = kb.load()
PY = "/x/bin/python"


def _commands(packages: dict[str, str], finding_id: str, **torch: object) -> list[str]:
    env = make_env(packages, torch_facts=dict(torch) or None)
    finding = next(f for f in judge(env, KB) if f.id == finding_id)
    return list(finding.commands)


@pytest.mark.parametrize(
    ("torch", "ipex", "expected"),
    [
        # IPEX has a release for the installed torch: move IPEX (PyPI serves 2.6-2.8)
        ("2.8.0", "2.7.0", f"{PY} -m pip install 'intel-extension-for-pytorch==2.8.*'"),
        ("2.7.1", "2.8.0", f"{PY} -m pip install 'intel-extension-for-pytorch==2.7.*'"),
        # an older CPU line comes from Intel's index
        (
            "2.3.1",
            "2.8.0",
            f"{PY} -m pip install 'intel-extension-for-pytorch==2.3.*' --extra-index-url "
            f"{remedies.INTEL_CPU_INDEX}",
        ),
        # torch newer than any IPEX: uninstall the retired IPEX
        ("2.13.0", "2.8.0", f"{PY} -m pip uninstall -y intel-extension-for-pytorch"),
    ],
)
def test_cpu_mismatch_moves_ipex_or_removes_it(torch: str, ipex: str, expected: str) -> None:
    """The mismatch fix is one command on IPEX whenever IPEX has a release for this torch."""
    packages = {"torch": torch, "intel-extension-for-pytorch": ipex}
    assert _commands(packages, "torch-ipex-mismatch") == [expected]


def test_xpu_mismatch_names_the_xpu_release_and_index() -> None:
    """An XPU IPEX next to another XPU torch line: that line's one +xpu release, Intel's index."""
    packages = {"torch": "2.7.0+xpu", "intel-extension-for-pytorch": "2.8.10+xpu"}
    assert _commands(packages, "torch-ipex-mismatch", xpu_compiled=True) == [
        f"{PY} -m pip install intel-extension-for-pytorch==2.7.10+xpu --extra-index-url "
        f"{remedies.INTEL_XPU_INDEX}"
    ]


def test_torch_older_than_every_ipex_line_moves_torch_with_torchvision() -> None:
    """torch 2.2.0+xpu has no XPU IPEX: torch (and the torchvision it pairs with) move to
    IPEX's line, from the index torch came from."""
    packages = {
        "torch": "2.2.0+xpu",
        "torchvision": "0.17.0+xpu",
        "intel-extension-for-pytorch": "2.3.110+xpu",
    }
    assert _commands(packages, "torch-ipex-mismatch", xpu_compiled=True) == [
        f"{PY} -m pip install 'torch==2.3.*' 'torchvision==0.18.*' --index-url "
        "https://download.pytorch.org/whl/xpu"
    ]


@pytest.mark.parametrize(
    ("torch", "expected"),
    [
        ("2.8.0", f"{PY} -m pip install 'torchvision==0.23.*'"),
        ("2.8.0+cpu", f"{PY} -m pip install 'torchvision==0.23.*' --index-url https://download.pytorch.org/whl/cpu"),
        ("2.9.1+cu126", f"{PY} -m pip install 'torchvision==0.24.*' --index-url https://download.pytorch.org/whl/cu126"),
    ],
)  # fmt: skip
def test_torchvision_comes_from_torchs_index(torch: str, expected: str) -> None:
    """The paired torchvision, from the index the installed torch came from."""
    packages = {"torch": torch, "torchvision": "0.20.0"}
    assert _commands(packages, "torchvision-broken") == [expected]


def test_a_path_with_spaces_is_quoted() -> None:
    """The interpreter's path is quoted for the shell."""
    env = make_env({"torch": "2.8.0"})
    env = type(env)(**{**env.__dict__, "interpreter": type(env.interpreter)(
        "/My Envs/py/bin/python", "3.11", "CPython", "/My Envs/py", True)})  # fmt: skip
    assert remedies.pip(env, "install", "torch") == "'/My Envs/py/bin/python' -m pip install torch"
