"""Remedies: the smallest consistent change of the torch / torchvision / IPEX triple, as
commands that name the examined interpreter (judged on environments described by versions;
tests/test_envs.py applies them to real broken environments)."""

from __future__ import annotations

import re

import pytest
from builders import make_env

from ipex_doctor.knowledge import known_issues, remedies
from ipex_doctor.verdicts.judge import judge

KB = known_issues.load()
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


@pytest.mark.parametrize(
    ("torch", "torchvision", "expected"),
    [
        # PyPI's CUDA torchvision beside a CPU torch of its line: name torch's label, or pip
        # calls 'torchvision==0.28.*' satisfied by the CUDA build and changes nothing
        ("2.13.0+cpu", "0.28.0+cu126", [f"{PY} -m pip install torchvision==0.28.0+cpu --index-url https://download.pytorch.org/whl/cpu"]),
        ("2.9.1+cu126", "0.24.1+cpu", [f"{PY} -m pip install torchvision==0.24.1+cu126 --index-url https://download.pytorch.org/whl/cu126"]),
        # a CPU torchvision beside PyPI's (unlabelled) torch: no requirement excludes a
        # label, so the labelled build goes first
        ("2.8.0", "0.23.0+cpu", [f"{PY} -m pip uninstall -y torchvision", f"{PY} -m pip install 'torchvision==0.23.*'"]),
    ],
)  # fmt: skip
def test_a_build_of_the_right_line_is_replaced_not_called_satisfied(
    torch: str, torchvision: str, expected: list[str]
) -> None:
    """torchvision of torch's line but another build: the commands really replace it."""
    packages = {"torch": torch, "torchvision": torchvision}
    facts = {} if "+" in torch else {"cuda": "12.8"}  # PyPI's torch says its build at run time
    assert _commands(packages, "torchvision-broken", **facts) == expected


def test_a_path_with_spaces_is_quoted() -> None:
    """The interpreter's path is quoted for the shell."""
    env = make_env({"torch": "2.8.0"})
    env = type(env)(**{**env.__dict__, "interpreter": type(env.interpreter)(
        "/My Envs/py/bin/python", "3.11", "CPython", "/My Envs/py", True)})  # fmt: skip
    action = remedies.install(env, "torch")
    assert action.render() == "'/My Envs/py/bin/python' -m pip install torch"


def _mismatch(packages: dict[str, str], **torch: object) -> tuple[str, list[str]]:
    env = make_env(packages, torch_facts=dict(torch) or None)
    finding = next(f for f in judge(env, KB) if f.id == "torch-ipex-mismatch")
    return finding.remediation, [r.url for r in finding.references]


@pytest.mark.parametrize(
    ("torch", "ipex", "tag", "pair", "other_lines"),
    [
        ("2.7.1", "2.6.0+cpu", "v2.6.0%2Bcpu", "torch==2.7.* with intel-extension-for-pytorch==2.7.*",
         ("2.8",)),
        ("2.8.0", "2.7.0+cpu", "v2.7.0%2Bcpu", "torch==2.8.* with intel-extension-for-pytorch==2.8.*",
         ("2.6",)),
    ],
)  # fmt: skip
def test_mismatch_text_and_reference_follow_the_versions_found(
    torch: str, ipex: str, tag: str, pair: str, other_lines: tuple[str, ...]
) -> None:
    """The fix names torch's line, the installed IPEX's line and the pair to pin, and nothing
    of a third release; the code cited is the installed IPEX's own __init__.py, at its tag."""
    fix, urls = _mismatch({"torch": torch, "intel-extension-for-pytorch": ipex})
    torch_line, ipex_line = torch[:3], ipex[:3]
    assert fix.startswith(f"Install the IPEX release built for torch {torch_line} ")
    assert f"Moving torch to {ipex_line}.*, the line of the installed IPEX {ipex}" in fix
    assert f"pin the pair that matches, {pair}," in fix
    assert not any(line in fix for line in other_lines), fix
    assert urls[0] == (
        f"https://github.com/intel/intel-extension-for-pytorch/blob/{tag}/"
        "intel_extension_for_pytorch/__init__.py"
    )
    releases = [u for u in urls if "/blob/v" in u]
    assert releases == [urls[0]], urls  # no other release's file is cited


def test_mismatch_on_xpu_pins_the_xpu_pair_and_cites_the_xpu_tag() -> None:
    packages = {"torch": "2.7.0+xpu", "intel-extension-for-pytorch": "2.8.10+xpu"}
    fix, urls = _mismatch(packages, xpu_compiled=True)
    assert "torch==2.7.* with intel-extension-for-pytorch==2.7.10+xpu" in fix
    assert "/blob/v2.8.10%2Bxpu/" in urls[0]


def test_mismatch_kb_text_names_no_release() -> None:
    """The entry's general text (kb show, explain) names no release line of its own."""
    entry = next(i for i in KB.issues if i.id == "torch-ipex-mismatch")
    assert not re.search(r"\d+\.\d+", entry.remediation)
    assert not any("/blob/v" in r.url for r in entry.references)


@pytest.mark.parametrize(
    ("version", "variant", "tag"),
    [
        ("2.6.0+cpu", "cpu", "v2.6.0+cpu"),
        ("2.6.0", None, "v2.6.0+cpu"),
        ("2.7.10+xpu", "xpu", "v2.7.10+xpu"),
        ("2.1.40+xpu", None, "v2.1.40+xpu"),
        ("not a version", None, None),
    ],
)
def test_ipex_tag(version: str, variant: str | None, tag: str | None) -> None:
    assert remedies.ipex_tag(version, variant) == tag
