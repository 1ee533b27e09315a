"""Requirement lists known by their use or their place rather than their name. The lines are
real: YanWenKun/ComfyUI-WinPortable-XPU's builder (stage1.sh installs builder/pakZ.txt, whose
IPEX pin and index its maintainers removed) and mila-iqia/milabench's per-architecture pip
inputs under constraints/extra (torch.hpu.txt, emptied of IPEX by its maintainers), trimmed."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.read.kinds import classify
from ipex_doctor.scan.read.named_requirements import is_named, named_lists

SHIPPED = code_rules.load()

PAK_Z = (
    "# Make sure to use Numpy 1\n"
    "numpy==1.26.4\n"
    "\n"
    "# IPEX will be unneeded in next release\n"
    "intel-extension-for-pytorch\n"
    "--extra-index-url https://pytorch-extension.intel.com/release-whl/stable/xpu/us/\n"
)
STAGE_1 = (
    "#!/bin/bash\n"
    "set -eux\n"
    "workdir=$(pwd)\n"
    'pip_exe="${workdir}/python_standalone/python.exe -s -m pip"\n'
    '$pip_exe install -r "$workdir"/pak2.txt\n'
    '$pip_exe install -r "https://github.com/comfyanonymous/ComfyUI/raw/refs/tags/'
    '${latest_tag}/requirements.txt"\n'
    '$pip_exe install -r "$workdir"/pakZ.txt\n'
)


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _rules_at(root: Path, **options: object) -> list[tuple[str, int, str]]:
    return [(path, line, rule) for path, line, rule, _ in found(scan(root, SHIPPED, **options))]


def test_a_list_a_build_script_installs_is_read_as_requirements(tmp_path: Path) -> None:
    root = write(
        tmp_path / "project",
        {"builder/stage1.sh": STAGE_1, "builder/pakZ.txt": PAK_Z, "builder/pak2.txt": "av\n"},
    )
    assert _rules_at(root) == [
        ("builder/pakZ.txt", 5, "ipex-requirement"),
        ("builder/pakZ.txt", 6, "ipex-wheel-index"),
    ]
    # NOTE: the lists the script names are read and counted; nothing else is
    result = scan(root, SHIPPED)
    assert result.files_seen == 3


def test_a_text_file_nobody_installs_is_neither_read_nor_counted(tmp_path: Path) -> None:
    """The same lines in a note, or in a list no file hands to pip, are not a requirement:
    the file is not opened, and a scan of the tree sees only the script."""
    root = write(
        tmp_path / "project",
        {
            "builder/stage1.sh": "cp -r notes.txt backup.txt\nbash -c notes.txt\n",
            "builder/notes.txt": PAK_Z,
            "builder/pakZ.txt": PAK_Z,
        },
    )
    result = scan(root, SHIPPED)
    assert found(result) == []
    assert result.files_seen == 1


def test_the_naming_survives_the_outcome_cache(tmp_path: Path) -> None:
    """A second scan takes the script's outcome from the cache: what it names must come with
    it, or the list would be found once and not again."""
    root = write(tmp_path / "project", {"builder/stage1.sh": STAGE_1, "builder/pakZ.txt": PAK_Z})
    first = _rules_at(root, cache=True)
    assert first and first == _rules_at(root, cache=True)


def test_a_list_under_constraints_is_one_by_its_place(tmp_path: Path) -> None:
    """milabench keeps its per-architecture pip inputs under constraints/extra/, named by its
    Python code and by no file: the directory says what they are."""
    root = write(
        tmp_path / "project",
        {
            "constraints/extra/torch.hpu.txt": (
                "--extra-index-url https://download.pytorch.org/whl/cpu\n"
                "--extra-index-url https://pytorch-extension.intel.com/release-whl/stable/xpu/us/\n"
                "\n"
                "torch\n"
                "intel-extension-for-pytorch\n"
                "oneccl_bind_pt\n"
                "intel-extension-for-pytorch-deepspeed\n"
            ),
        },
    )
    assert _rules_at(root) == [
        ("constraints/extra/torch.hpu.txt", 2, "ipex-wheel-index"),
        ("constraints/extra/torch.hpu.txt", 5, "ipex-requirement"),
        ("constraints/extra/torch.hpu.txt", 6, "oneccl-bind-pt-requirement"),
        ("constraints/extra/torch.hpu.txt", 7, "ipex-deepspeed-requirement"),
    ]
    assert classify("torch.hpu.txt", "extra", "constraints/extra") is FileKind.REQUIREMENTS
    assert classify("CMakeLists.txt", "src", "src") is FileKind.CMAKE  # a build, not a list
    assert classify("notes.txt", "extra", "myconstraints/extra") is None


def test_what_names_a_list_and_what_does_not() -> None:
    """pip's options in scripts, Dockerfiles and requirements files (pip-compile's ``# via
    -r`` notes too, as milabench's pins hold them); a variable or ``..`` before the path names
    a directory the scan cannot know, so only what follows it is compared."""
    assert named_lists(STAGE_1.encode(), FileKind.SHELL) == (
        "pak2.txt",
        "requirements.txt",
        "pakZ.txt",
    )
    pins = b"torch==2.3.1\n    #   -c .pin/../constraints/hpu.txt\n    #   -r extra/torch.xpu.txt\n"
    assert named_lists(pins, FileKind.REQUIREMENTS) == (
        "constraints/hpu.txt",
        "extra/torch.xpu.txt",
    )
    docker = b"RUN pip install --no-cache-dir --requirement=/app/deps/base.txt\n"
    assert named_lists(docker, FileKind.DOCKERFILE) == ("app/deps/base.txt",)
    # NOTE: the same option in a command that installs nothing, or in a kind that names no list
    assert named_lists(b"cp -r old.txt new.txt\nssh host -c cipher.txt\n", FileKind.SHELL) == ()
    assert named_lists(b"pip install -r reqs.txt\n", FileKind.PYTHON) == ()
    assert is_named("builder/pakZ.txt", ["pakZ.txt"])
    assert not is_named("builder/xpakZ.txt", ["pakZ.txt"])
    assert is_named("constraints/hpu.txt", ["constraints/hpu.txt"])
