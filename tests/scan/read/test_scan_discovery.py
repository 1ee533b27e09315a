"""Discovery: file kinds, .gitignore (root and nested), the caller's excludes, directories that
are never a user's source, symlink loops, and paths relative to their root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pathspec import GitIgnoreSpec
from scan_rules import GIT_WORK_TREE, write

from ipex_doctor.model.code import FileKind, SkippedFile
from ipex_doctor.scan import ScanError, source_path
from ipex_doctor.scan.read.discovery import Candidate, NotRegularFile, discover, read_candidate
from ipex_doctor.scan.read.git_index import find_git_dir
from ipex_doctor.scan.read.ignores import Ignores
from ipex_doctor.scan.read.kinds import by_shebang, classify


def _found(*roots: Path, exclude: tuple[str, ...] = ()) -> list[str]:
    return [
        item.display if isinstance(item, Candidate) else f"SKIPPED {item.path}"
        for item in discover(list(roots), exclude=exclude)
    ]


@pytest.mark.parametrize(
    ("name", "parent", "kind"),
    [
        ("train.py", "", FileKind.PYTHON),
        ("setup.py", "", FileKind.SETUP),
        ("setup.cfg", "", FileKind.SETUP),
        ("Run.ipynb", "", FileKind.NOTEBOOK),
        ("requirements.txt", "", FileKind.REQUIREMENTS),
        ("requirements-xpu.txt", "", FileKind.REQUIREMENTS),
        ("constraints.txt", "", FileKind.REQUIREMENTS),
        ("requirements.in", "", FileKind.REQUIREMENTS),
        ("base.txt", "requirements", FileKind.REQUIREMENTS),
        ("pip_requirements.txt", "", FileKind.REQUIREMENTS),  # open-omics-alphafold's
        ("dev-requirements.in", "", FileKind.REQUIREMENTS),
        ("requirements2.txt", "", FileKind.REQUIREMENTS),
        ("myrequirements.txt", "", None),
        ("pyproject.toml", "", FileKind.PYPROJECT),
        ("Pipfile", "", FileKind.PYPROJECT),
        ("Pipfile.gpu", "", FileKind.PYPROJECT),  # opendatahub-io/notebooks' Intel images
        ("Pipfile.lock", "", None),
        ("Pipfile.lock.gpu", "", None),
        ("uv.toml", "", FileKind.PYPROJECT),
        ("uv.xpu.toml", "", FileKind.PYPROJECT),  # time-serie-explo's
        ("pixi.toml", "", FileKind.PYPROJECT),
        ("uvicorn.toml", "", FileKind.CONFIG),
        ("uv.lock", "", None),
        ("environment.yml", "", FileKind.CONDA),
        ("environment-xpu.yaml", "", FileKind.CONDA),
        # the sixteenth audit's notebook environment (vampireLibrarianMonk/intel-gpu-hello)
        ("jupyter-notebook-environment.yml", "", FileKind.CONDA),
        ("environment_xpu.yml", "", FileKind.CONDA),
        ("conda-env.yaml", "", FileKind.CONDA),
        ("environments.yml", "", FileKind.CONFIG),
        ("anaconda.yml", "", FileKind.CONFIG),
        ("conda.yml", "workflows", FileKind.CI),  # a GitHub workflow named for conda
        ("environment.yml", "workflows", FileKind.CI),
        ("conda-build.yaml", ".circleci", FileKind.CI),
        ("conda.yml", "ci", FileKind.CONDA),  # the environment a project's CI creates
        ("azure-pipelines-conda.yml", "", FileKind.CI),
        ("Dockerfile", "", FileKind.DOCKERFILE),
        ("Dockerfile.xpu", "", FileKind.DOCKERFILE),
        ("gpu.dockerfile", "", FileKind.DOCKERFILE),
        ("dockerfile-cpu", "", FileKind.DOCKERFILE),
        ("Dockerfile.cuda12", "", FileKind.DOCKERFILE),
        # a name that starts with "dockerfile" and ends as another kind of file: a picture of
        # the build's stages (a contributing guide's), a script, a configuration, Docker's
        # ignore list
        ("dockerfile-stages-dependency.png", "", None),
        ("Dockerfile.dockerignore", "", None),
        ("dockerfile-build.sh", "", FileKind.SHELL),
        ("dockerfile-settings.yml", "", FileKind.CONFIG),
        ("Dockerfile.md", "", FileKind.DOCS),
        ("run.sh", "", FileKind.SHELL),
        ("run.bash", "", FileKind.SHELL),
        ("default_config.yaml", "", FileKind.CONFIG),
        ("ds.json", "", FileKind.CONFIG),
        ("tox.toml", "", FileKind.CONFIG),
        ("other.cfg", "", FileKind.CONFIG),
        ("notes.txt", "", None),
        ("README.md", "", FileKind.DOCS),
        ("guide.rst", "", FileKind.DOCS),
        ("module.pyc", "", None),
        ("Makefile", "", FileKind.CI),
        # a C++ build (the eighteenth audit's LibTorch examples link IPEX's library)
        ("CMakeLists.txt", "", FileKind.CMAKE),
        ("cmakelists.txt", "requirements", FileKind.CMAKE),
        ("FindIPEX.cmake", "cmake", FileKind.CMAKE),
        ("CMakeCache.txt", "", None),
    ],
)
def test_kinds_by_name(name: str, parent: str, kind: FileKind | None) -> None:
    """Specific names before extensions; unknown names are not read."""
    assert classify(name, parent) is kind


def test_walk_order_and_relative_posix_paths(tmp_path: Path) -> None:
    """Files before subdirectories, names sorted, paths relative to the root with ``/``."""
    write(tmp_path, {"b.py": "", "a/z.py": "", "a/y/x.py": "", "README.md": "", "Dockerfile": ""})
    assert _found(tmp_path) == ["Dockerfile", "b.py", "a/z.py", "a/y/x.py"]


def test_environments_tool_caches_and_vcs_are_never_entered(tmp_path: Path) -> None:
    """A venv (pyvenv.cfg), a conda env (conda-meta), site-packages, node_modules, caches."""
    write(
        tmp_path,
        {
            "src/app.py": "",
            "myenv/pyvenv.cfg": "",
            "myenv/lib/x.py": "",
            "conda/conda-meta/history": "",
            "conda/lib/y.py": "",
            "lib/site-packages/pkg/z.py": "",
            "web/node_modules/a.py": "",
            "src/__pycache__/app.py": "",
            ".tox/py/t.py": "",
            ".nox/s/t.py": "",
            ".mypy_cache/m.py": "",
            ".git/hooks/h.py": "",
            "nb/.ipynb_checkpoints/n-checkpoint.ipynb": "",
        },
    )
    assert _found(tmp_path) == ["src/app.py"]


def test_gitignore_at_the_root_and_nested(tmp_path: Path) -> None:
    """Patterns are relative to their file's directory; a deeper file overrides; ``!``
    re-includes; an ignored directory is not entered (so nothing under it comes back)."""
    write(
        tmp_path,
        {
            **GIT_WORK_TREE,
            ".gitignore": "build/\n*.gen.py\n/top_only.py\n# a comment\n",
            "build/a.py": "",
            "top_only.py": "",
            "x.gen.py": "",
            "keep.py": "",
            "pkg/top_only.py": "",
            "pkg/.gitignore": "!keep.gen.py\nlocal.py\nbuild/\n!build/\n",
            "pkg/keep.gen.py": "",
            "pkg/drop.gen.py": "",
            "pkg/local.py": "",
            "other/local.py": "",
        },
    )
    assert _found(tmp_path) == ["keep.py", "other/local.py", "pkg/keep.gen.py", "pkg/top_only.py"]


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"#!/bin/bash\nset -e\n", FileKind.SHELL),
        (b"#!/bin/sh", FileKind.SHELL),
        (b"#! /usr/bin/env bash\n", FileKind.SHELL),
        (b"#!/usr/bin/env -S bash -e\n", FileKind.SHELL),
        (b"#!/usr/bin/env -u HOME LC_ALL=C zsh\n", FileKind.SHELL),
        (b"#!/usr/local/bin/dash -eu\n", FileKind.SHELL),
        (b"#!/usr/bin/env python3\nimport intel_extension_for_pytorch\n", FileKind.PYTHON),
        (b"#!/opt/conda/bin/python -u\n", FileKind.PYTHON),
        (b"#!/usr/bin/env -S python3.11 -X dev\n", FileKind.PYTHON),
        (b"#!/usr/bin/python3.13t\n", FileKind.PYTHON),
        (b"#!/usr/bin/python2\nprint 'hi'\n", None),
        (b"#!/usr/bin/env python2.7\n", None),
        (b"#!/usr/bin/env pythonista\n", None),
        (b"#!/usr/bin/env perl\n", None),
        (b"#!/usr/bin/env\n", None),
        (b"#!\n", None),
        (b"echo hi\n#!/bin/bash\n", None),
        (b"\xef\xbb\xbf#!/bin/bash\n", None),
        (b"", None),
    ],
)
def test_a_shebang_names_a_shell_or_nothing(head: bytes, kind: FileKind | None) -> None:
    """``by_shebang``: a POSIX shell or a Python that may be Python 3 named by the ``#!`` line,
    directly or through ``env`` and its options and settings; Python 2, another program, an
    ``env`` with no command, or a ``#!`` not first (a byte-order mark before it: the kernel
    runs no such file) is nothing."""
    assert by_shebang(head) is kind


def test_a_script_without_a_suffix_is_read_by_its_shebang(tmp_path: Path) -> None:
    """A file with no suffix whose ``#!`` line names a shell is a ``SHELL`` candidate, in a
    walk and named as a root (the eighteenth audit's installer keeps its IPEX steps in
    ``libref-forge``), one whose ``#!`` names Python 3 a ``PYTHON`` one (an entry script in
    ``bin/``); any other such file (a ``LICENSE``, a Python 2 script, a FIFO, a link out of
    the tree) is no candidate and goes unsaid, as every file of no kind does."""
    write(
        tmp_path,
        {
            "bin/run_xpu": "#!/usr/bin/env bash\npip install intel-extension-for-pytorch\n",
            "bin/tool": "#!/usr/bin/env python3\nimport intel_extension_for_pytorch\n",
            "bin/old": "#!/usr/bin/python2\nimport intel_extension_for_pytorch\n",
            "LICENSE": "intel_extension_for_pytorch\n",
            "bin/setup.cfg.bak": "#!/bin/sh\n",
        },
    )
    os.mkfifo(tmp_path / "bin" / "pipe")
    os.symlink("/etc/hostname", tmp_path / "bin" / "outside")
    found = [
        (item.display, item.kind) if isinstance(item, Candidate) else ("SKIPPED", item.path)
        for item in discover([tmp_path])
    ]
    assert found == [("bin/run_xpu", FileKind.SHELL), ("bin/tool", FileKind.PYTHON)]
    (named,) = discover([tmp_path / "bin" / "run_xpu"])
    assert isinstance(named, Candidate) and named.kind is FileKind.SHELL
    (named,) = discover([tmp_path / "bin" / "tool"])
    assert isinstance(named, Candidate) and named.kind is FileKind.PYTHON


def test_a_gitignore_outside_every_git_work_tree_is_not_applied(tmp_path: Path) -> None:
    """A tree with no ``.git`` in it or above it (a source archive, a ZIP download of a
    repository: its tracked files alone, its ``.gitignore`` among them) is read whole, as git
    applies no ignore file there, and its ``.gitignore`` is never opened (a FIFO in its place
    is no wait and no note); a directory below that is a work tree of its own has its own
    applied. With a ``.git`` at the root, the root's applies too."""
    if find_git_dir(tmp_path) is not None:
        pytest.skip(f"the temporary directory {tmp_path} lies inside a git work tree")
    write(
        tmp_path,
        {
            ".gitignore": "/vendor/\n*.gen.py\n",
            "vendor/a.py": "",
            "b.gen.py": "",
            "c.py": "",
            "repo/.git/HEAD": "ref: refs/heads/main\n",
            "repo/.gitignore": "*.py\n",
            "repo/d.py": "",
            "repo/e.sh": "",
        },
    )
    os.mkfifo(tmp_path / "vendor" / ".gitignore")
    assert _found(tmp_path) == ["b.gen.py", "c.py", "repo/e.sh", "vendor/a.py"]
    (tmp_path / ".git").mkdir()
    assert _found(tmp_path) == ["c.py", "repo/e.sh"]


def test_the_callers_excludes_win_over_gitignore(tmp_path: Path) -> None:
    """``exclude`` patterns (gitignore syntax, relative to the root) leave files out even when a
    ``.gitignore`` re-includes them."""
    write(
        tmp_path,
        {".gitignore": "!vendor/\n", "vendor/lib.py": "", "tests/t.py": "", "main.py": ""},
    )
    assert _found(tmp_path, exclude=("vendor/", "tests/*.py")) == ["main.py"]


def test_an_invalid_exclude_pattern_is_a_scan_error(tmp_path: Path) -> None:
    """The caller's pattern must be valid; a .gitignore's invalid line is dropped, as git does."""
    with pytest.raises(ScanError, match="invalid exclude pattern"):
        _found(tmp_path, exclude=("!",))
    write(tmp_path, {**GIT_WORK_TREE, ".gitignore": "!\n*.gen.py\n", "a.gen.py": "", "b.py": ""})
    assert _found(tmp_path) == ["b.py"]


def test_a_missing_root_is_a_scan_error(tmp_path: Path) -> None:
    """Before anything is found, naming the root."""
    with pytest.raises(ScanError, match="no-such: no such file or directory"):
        _found(tmp_path / "no-such")


def test_a_file_root_is_read_as_given(tmp_path: Path) -> None:
    """A file named as a root is found even if ignored; its display path is the root as given;
    an unknown kind is skipped with the reason."""
    write(tmp_path, {".gitignore": "*.py\n", "x.py": "", "notes.txt": ""})
    assert _found(tmp_path / "x.py") == [(tmp_path / "x.py").as_posix()]
    items = list(discover([tmp_path / "notes.txt"]))
    assert items == [
        SkippedFile((tmp_path / "notes.txt").as_posix(), "not a kind of file the scan reads")
    ]
    assert source_path(tmp_path / "x.py", (tmp_path / "x.py").as_posix()) == tmp_path / "x.py"
    assert source_path(tmp_path, "a/b.py") == tmp_path / "a" / "b.py"


def test_symlink_loops_end_and_files_are_visited_once(tmp_path: Path) -> None:
    """A link to an ancestor is not walked again; two names of one file give one candidate;
    overlapping roots do not scan a file twice; a broken link is no candidate (it is said,
    as a file that cannot be read)."""
    write(tmp_path, {"pkg/a.py": "", "pkg/sub/b.py": ""})
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "sub" / "loop")
    os.symlink(tmp_path / "pkg" / "a.py", tmp_path / "pkg" / "also_a.py")
    os.symlink(tmp_path / "missing.py", tmp_path / "pkg" / "broken.py")
    assert _found(tmp_path) == ["pkg/a.py", "SKIPPED pkg/broken.py", "pkg/sub/b.py"]
    assert _found(tmp_path / "pkg", tmp_path) == ["a.py", "SKIPPED broken.py", "sub/b.py"]


def test_a_hard_link_under_a_name_of_another_kind_hides_no_file(tmp_path: Path) -> None:
    """A module's second name (a hard link, which a tarball can carry) of a kind the scan does
    not read, found first in name order, does not take the module's visit: the module is a
    candidate (before: it was never read, and nothing said so); two names of one kind are
    still one candidate (the link is ``a.py``'s second name as ``z.py``)."""
    write(tmp_path, {"train.py": "", "a.py": ""})
    os.link(tmp_path / "train.py", tmp_path / "notes.txt")  # a candidate read only if named
    assert _found(tmp_path) == ["a.py", "notes.txt", "train.py"]
    os.link(tmp_path / "a.py", tmp_path / "z.py")
    assert _found(tmp_path) == ["a.py", "notes.txt", "train.py"]


def test_a_link_out_of_the_tree_is_skipped_with_the_reason(tmp_path: Path) -> None:
    """A link to a file or a directory outside every root (directly, or through a chain of
    links) is never read, and is said; links whose target is inside a root are followed; a
    root the user names is taken wherever its own link leads."""
    write(
        tmp_path, {"tree/a.py": "", "tree/in/b.py": "", "outside/secret.py": "", "other/c.py": ""}
    )
    tree = tmp_path / "tree"
    os.symlink(tmp_path / "outside" / "secret.py", tree / "x.py")
    os.symlink(tmp_path / "outside", tree / "elsewhere")
    os.symlink(tree / "x.py", tree / "chain.py")  # inside, but ends outside
    os.symlink(tree / "in", tree / "again")  # inside: followed (b.py visited once)
    os.symlink(tmp_path / "other" / "c.py", tree / "c.py")  # inside the second root
    os.symlink(tree, tmp_path / "named")
    assert _found(tree) == [
        "a.py", "SKIPPED c.py", "SKIPPED chain.py", "SKIPPED elsewhere", "SKIPPED x.py",
        "again/b.py",
    ]  # fmt: skip
    assert _found(tree, tmp_path / "other") == [
        "a.py", "c.py", "SKIPPED chain.py", "SKIPPED elsewhere", "SKIPPED x.py", "again/b.py",
    ]  # fmt: skip
    assert _found(tmp_path / "named")[0] == "a.py"
    reasons = {i.reason for i in discover([tree]) if isinstance(i, SkippedFile)}
    assert reasons == {"a symbolic link out of the scanned tree: not followed"}


def test_an_unlistable_directory_is_skipped_with_the_reason(tmp_path: Path) -> None:
    """A directory that vanishes or cannot be listed is one SkippedFile, not a traceback."""
    write(tmp_path, {"ok.py": ""})
    (tmp_path / "gone").mkdir()
    found = []
    for item in discover([tmp_path]):
        if isinstance(item, Candidate) and item.display == "ok.py":
            (tmp_path / "gone").rmdir()  # the walk lists it next
        found.append(item.display if isinstance(item, Candidate) else (item.path, item.reason))
    assert found == ["ok.py", ("gone", "cannot list the directory: No such file or directory")]


_SEGMENT = st.sampled_from(["a", "b", "build", "x.py", "y.gen.py", "lib", "keep.py"])
_PATTERN = st.sampled_from(
    ["*.py", "!keep.py", "build/", "/a", "a/**/x.py", "lib", "!lib/", "*.gen.py", "b/*", "**/y*"]
)


@settings(max_examples=examples(150), deadline=None)
@given(
    patterns=st.lists(_PATTERN, max_size=6),
    segments=st.lists(_SEGMENT, min_size=1, max_size=4),
    is_dir=st.booleans(),
)
def test_the_fast_path_agrees_with_pathspec(
    patterns: list[str], segments: list[str], is_dir: bool
) -> None:
    """``Ignores`` answers as pathspec's GitIgnoreSpec does (its union regex only skips work)."""
    path = "/".join(segments)
    ignores = Ignores().with_gitignore("", "\n".join(patterns))
    expected = GitIgnoreSpec.from_lines(patterns).check_file(path + ("/" if is_dir else ""))
    assert ignores.ignored(path, is_dir=is_dir) is bool(expected.include)


def test_a_file_of_a_read_kind_that_is_not_regular_is_said_not_passed_over(
    tmp_path: Path,
) -> None:
    """A FIFO (opening it would wait for a writer), a link to a device inside the tree and a
    broken link, each named as a kind the scan reads, are SkippedFiles with the reason; a
    FIFO of a kind read only where another file names it (``notes.txt``) stays silent, as
    the regular one would be, and so does one of no kind the scan reads."""
    write(tmp_path, {"ok.py": "", "dev/null-ish": ""})
    os.mkfifo(tmp_path / "train.py")
    os.mkfifo(tmp_path / "requirements.txt")
    os.mkfifo(tmp_path / "notes.txt")
    os.mkfifo(tmp_path / "data.bin")
    os.symlink(tmp_path / "missing.py", tmp_path / "broken.py")
    (tmp_path / "dev" / "null-ish").unlink()
    os.symlink("/dev/null", tmp_path / "dev" / "null-ish")
    os.symlink(tmp_path / "dev" / "null-ish", tmp_path / "setup.py")  # a chain ending outside
    reasons = {
        item.path: item.reason for item in discover([tmp_path]) if isinstance(item, SkippedFile)
    }
    assert reasons == {
        "broken.py": "a symbolic link to nothing (broken): not read",
        "requirements.txt": (
            "a FIFO, not a regular file: not read (reading it would wait for a writer)"
        ),
        "setup.py": "a symbolic link out of the scanned tree: not followed",
        "train.py": "a FIFO, not a regular file: not read (reading it would wait for a writer)",
    }
    assert [i.display for i in discover([tmp_path]) if isinstance(i, Candidate)] == ["ok.py"]


def test_a_gitignore_that_cannot_be_read_is_said_and_never_waited_on(tmp_path: Path) -> None:
    """A ``.gitignore`` that is a FIFO (its read waited forever) or a link to ``/dev/zero``
    (read until memory ran out) is not read: it ignores nothing, as an unreadable one does in
    git, and the walk says so."""
    write(tmp_path, {**GIT_WORK_TREE, "a.py": "", "sub/b.py": "", "other/c.py": ""})
    os.mkfifo(tmp_path / ".gitignore")
    os.symlink("/dev/zero", tmp_path / "sub" / ".gitignore")
    (
        tmp_path / "other" / ".gitignore"
    ).mkdir()  # a directory of that name: passed over, as git does
    found = _found(tmp_path)
    assert found == [
        "SKIPPED .gitignore", "a.py", "other/c.py", "SKIPPED sub/.gitignore", "sub/b.py"
    ]  # fmt: skip
    reasons = {i.reason for i in discover([tmp_path]) if isinstance(i, SkippedFile)}
    assert reasons == {"not a regular file: not read, so its patterns are not applied"}


def test_a_candidate_replaced_by_a_fifo_after_the_walk_is_refused_without_waiting(
    tmp_path: Path,
) -> None:
    """The walk saw a regular file; a FIFO put in its place before the read is refused at
    once (``read_bytes`` waited for a writer forever), and a read never takes more than the
    limit and one byte, whatever the file's size says."""
    write(tmp_path, {"train.py": "import intel_extension_for_pytorch\n" * 100})
    (candidate,) = [i for i in discover([tmp_path]) if isinstance(i, Candidate)]
    assert read_candidate(candidate.path, 10**6) == candidate.path.read_bytes()
    assert len(read_candidate(candidate.path, 100)) == 101
    candidate.path.unlink()
    os.mkfifo(candidate.path)
    with pytest.raises(NotRegularFile):
        read_candidate(candidate.path, 10**6)
    with pytest.raises(NotRegularFile):
        read_candidate(Path("/dev/zero"), 10**6)


@pytest.mark.parametrize(
    ("ancestors", "kind"),
    [(".gitlab/ci", FileKind.CI), ("ci", FileKind.CONDA), ("tools/ci", FileKind.CONDA)],
)
def test_a_conda_name_in_a_ci_directory(ancestors: str, kind: FileKind) -> None:
    """GitLab's ``.gitlab/ci`` holds pipeline includes (``conda.yml`` a job's definition); a
    project's own ``ci/`` holds the environment its CI creates."""
    assert classify("conda.yml", "ci", ancestors) is kind
