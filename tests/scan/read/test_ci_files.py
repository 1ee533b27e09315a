"""CI and task-runner files: their commands are read as shell, each at its own line and
column; a step's name, a path filter or a matrix value is not a command. The workflow lines
are DeepSpeed's and optimum-intel's (their IPEX install and import checks)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.read.ci_files import ci_commands
from ipex_doctor.scan.read.kinds import classify

SHIPPED = code_rules.load()

WORKFLOW = """\
name: xpu-max1100
on:
  pull_request:
    paths:
      - 'accelerator/xpu_accelerator.py'
      - 'intel_extension_for_pytorch/**'
jobs:
  unit-tests:
    steps:
      - name: Install intel-extension-for-pytorch
        run: |
          pip install intel-extension-for-pytorch==2.7.10+xpu oneccl_bind_pt==2.7.0+xpu --extra-index-url https://pytorch-extension.intel.com/release-whl/stable/xpu/us
          echo "intel-extension-for-pytorch installed"
      - name: Check
        run: python3 -c "import torch; import intel_extension_for_pytorch; print(torch.xpu.is_available())"
      - uses: some/action@v1
        with:
          python-version: "3.11"
          command: pip install intel_extension_for_pytorch==${{ matrix.torch-version }}
"""


def test_a_workflow_is_read_as_its_commands(tmp_path: Path) -> None:
    """run: blocks and single-line run: steps, and the inputs under with:, are commands; the
    step names and the path filters that name IPEX are not."""
    write(tmp_path, {".github/workflows/xpu.yml": WORKFLOW})
    assert [(line, rule) for _, line, rule, _ in found(scan(tmp_path, SHIPPED))] == [
        (12, "ipex-requirement"),
        (12, "oneccl-bind-pt-requirement"),
        (12, "ipex-wheel-index"),
        (15, "ipex-python-command"),
        (19, "ipex-requirement"),
    ]


def test_command_columns_are_the_files() -> None:
    """A command on its key's line starts after the key (and its quote); a block's lines
    are the file's lines."""
    lines = [
        "steps:",
        '  - run: "pip install intel-extension-for-pytorch"',
        "  - script: |",
        "      make",
    ]
    commands = [(c.line, c.column, c.text) for c in ci_commands("ci.yml", lines)]
    assert commands == [
        (2, 10, "pip install intel-extension-for-pytorch"),
        (4, 0, "      make"),
    ]


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        (
            ".gitlab-ci.yml",
            "test:\n  script:\n    - pip install intel-extension-for-pytorch\n    - pytest\n",
            3,
        ),
        (
            "azure-pipelines.yml",
            "steps:\n- script: |\n    pip install intel-extension-for-pytorch\n  displayName: x\n",
            3,
        ),
        ("Makefile", "install:\n\tpip install intel-extension-for-pytorch\n", 2),
        ("justfile", "install:\n    pip install intel-extension-for-pytorch\n", 2),
        ("tox.ini", "[testenv]\ndeps =\n    intel-extension-for-pytorch\ncommands = pytest\n", 3),
        (".circleci/config.yml", "jobs:\n  t:\n    steps:\n      - run:\n          name: Install\n          command: pip install intel-extension-for-pytorch\n", 6),
    ],
    ids=["gitlab", "azure", "make", "just", "tox", "circleci"],
)  # fmt: skip
def test_each_ci_format_is_read(tmp_path: Path, name: str, text: str, line: int) -> None:
    write(tmp_path, {name: text})
    assert [(ln, rule) for _, ln, rule, _ in found(scan(tmp_path, SHIPPED))] == [
        (line, "ipex-requirement")
    ]


@pytest.mark.parametrize(
    ("name", "parent", "kind"),
    [
        ("xpu.yml", "workflows", FileKind.CI),
        ("action.yml", "install-ipex", FileKind.CI),
        (".gitlab-ci.yml", "", FileKind.CI),
        ("azure-pipelines-xpu.yaml", "", FileKind.CI),
        ("config.yml", ".circleci", FileKind.CI),
        ("Makefile", "", FileKind.CI),
        ("rules.mk", "", FileKind.CI),
        ("tox.ini", "", FileKind.CI),
        ("Jenkinsfile", "", FileKind.CI),
        ("experiment.yaml", "configs", FileKind.CONFIG),
        ("environment.yml", "ci", FileKind.CONDA),
    ],
)
def test_ci_files_are_named_so(name: str, parent: str, kind: FileKind) -> None:
    assert classify(name, parent) is kind
