"""An install of a project's own extra that pulls IPEX is IPEX's install: the tree's own
metadata (``pyproject.toml``, ``setup.cfg``) says which extras do, exactly.

The snippets are trimmed from PrunaAI/pruna before its removal of IPEX (#667): its ``intel``
extra required IPEX, and its IPEX algorithm told users to ``pip install pruna[intel]``, a line
its maintainers removed with the rest; its test marks name the extra in a description."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.match.own_extras import ipex_extras

SHIPPED = code_rules.load()

PYPROJECT = """\
[project]
name = "pruna"
dependencies = ["torch"]

[project.optional-dependencies]
full = [
    "pruna[stable-fast]",
]
rapidata = [
    "rapidata>=3.0.0"
]
cpu = []
evaluation = [
    "pruna[rapidata]",
]
# Intel extension is tightly coupled with the torch version
intel = [
    "intel-extension-for-pytorch>=2.7.0",
    "torch>=2.7.0,<2.9.0",
]
everything = ["pruna[evaluation,intel]"]
"""
ALGORITHM = """\
class IPEXLLM:
    algorithm_name: str = "ipex_llm"
    required_install = (
        "``pip install pruna[intel]`` "
        "``--extra-index-url https://pytorch-extension.intel.com/release-whl/stable/cpu/cn/``"
    )
    other_install = "``pip install pruna[rapidata]``"
"""
CONFTEST = """\
MARKS = {
    "requires_intel": "mark test that needs pruna[intel]",
}
"""
INSTALL = 'pip install "pruna[everything]"\npip install pruna[evaluation]\n'


def _extras_found(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str, str]]:
    write(tmp_path, files)
    return [f for f in found(scan(tmp_path, SHIPPED)) if "pruna" in f[3]]


def test_an_install_of_the_projects_ipex_extra_is_found_and_its_neighbours_are_not(
    tmp_path: Path,
) -> None:
    """Pruna's install string (in a file that imports nothing of IPEX), an extra of extras
    and a shell install of it are found; an extra that pulls no IPEX, a test mark's description
    and a tree whose metadata declares no such extra are not."""
    files = {
        "pyproject.toml": PYPROJECT,
        "src/pruna/algorithms/ipex_llm.py": ALGORITHM,
        "tests/conftest.py": CONFTEST,
        "scripts/install.sh": INSTALL,
    }
    assert _extras_found(tmp_path / "pruna", files) == [
        # NOTE: an extra of the project's own extras that pulls the IPEX one pulls IPEX too
        ("pyproject.toml", 21, "ipex-requirement", "pruna[evaluation,intel]"),
        ("scripts/install.sh", 1, "ipex-requirement", "pruna[everything]"),
        ("src/pruna/algorithms/ipex_llm.py", 4, "ipex-install-string", "pruna[intel]"),
    ]
    without_metadata = {k: v for k, v in files.items() if k != "pyproject.toml"}
    assert _extras_found(tmp_path / "other", without_metadata) == []


def test_setup_cfg_declares_extras_too_and_the_cache_keeps_the_fact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    setup_cfg = (
        "[metadata]\nname = Pruna\n\n[options.extras_require]\n"
        "intel =\n    intel_extension_for_pytorch>=2.7.0\ndev =\n    pytest\n"
    )
    root = write(
        tmp_path / "tree",
        {"setup.cfg": setup_cfg, "requirements-intel.txt": "Pruna[intel]\nPruna[dev]\n"},
    )
    expected = [("requirements-intel.txt", 1, "ipex-requirement", "Pruna[intel]")]
    first = scan(root, SHIPPED, cache=True)
    assert [f for f in found(first) if "runa" in f[3]] == expected
    assert scan(root, SHIPPED, cache=True) == first


@pytest.mark.parametrize(
    ("name", "data", "extras"),
    [
        ("pyproject.toml", PYPROJECT, ("pruna[everything]", "pruna[intel]")),
        # NOTE: a name of IPEX in a comment or another table is no extra of the project
        ("pyproject.toml", "# intel-extension-for-pytorch\n[project]\nname = 'x'\n", ()),
        ("pyproject.toml", "[project\nintel-extension-for-pytorch", ()),  # not TOML
        ("setup.py", "extras_require={'intel': ['intel-extension-for-pytorch']}", ()),
    ],
)
def test_the_extras_come_from_the_metadata_alone(
    name: str, data: str, extras: tuple[str, ...]
) -> None:
    assert ipex_extras(data.encode(), name) == extras
