"""Which kind of file a path is, by its name alone (``FileKind``), or ``None``: not read (but
for a name without a suffix, which the walk asks for its ``#!`` line: ``by_shebang``).

Names are compared case-insensitively (``Dockerfile``, ``dockerfile``, ``DOCKERFILE.xpu``).
Specific names win over extensions: ``setup.py`` is ``SETUP`` (read as Python and as text),
``pyproject.toml``, a ``Pipfile`` (``Pipfile.gpu``, not a ``Pipfile.lock``) and uv's and pixi's
own TOML (``uv.toml``, ``uv.xpu.toml``, ``pixi.toml``) are ``PYPROJECT``,
a YAML file with ``environment`` or ``conda`` as a word of its name (``environment.yml``,
``jupyter-notebook-environment.yml``, ``conda-xpu.yaml``; not a pipeline) is ``CONDA``; a
``*.txt`` or ``*.in`` whose name has ``requirements`` / ``constraints`` as a word
(``requirements-xpu.txt``, ``pip_requirements.txt``) or that lies anywhere under a
``requirements/`` or ``constraints/`` directory (``constraints/extra/torch.xpu.txt``) is
``REQUIREMENTS`` (another ``*.txt`` may still be one by use: ``named_requirements``); a CI or
task-runner file is ``CI`` (a YAML
file directly inside ``workflows/`` (GitHub's ``.github/workflows``), ``.circleci/``,
``.buildkite/``, ``.azure-pipelines/`` or ``ci/``, an ``action.yml``, ``.gitlab-ci.yml``,
``azure-pipelines*.yml``, a ``Makefile`` or ``*.mk``, a ``justfile``, ``tox.ini``, a
``Jenkinsfile``); any other ``*.yaml``, ``*.yml``, ``*.json``, ``*.toml`` or ``*.cfg`` is a
``CONFIG`` that may switch IPEX on; ``CMakeLists.txt`` and ``*.cmake`` are ``CMAKE`` (a C++
build that may link IPEX's C++ library); ``*.md``, ``*.markdown``, ``*.rst`` and ``*.rest`` are
``DOCS`` (a walk of a directory takes them only when asked to, ``scan --docs``). ``SHELL`` is a
POSIX script (``*.sh``, ``*.bash``) or a Windows installer, PowerShell (``*.ps1``, ``*.psm1``)
or batch (``*.bat``, ``*.cmd``): the same rules read them, each in its language
(``shell_dialect``).
"""

from __future__ import annotations

import enum
import re

from ipex_doctor.model.code import FileKind

_EXACT = {
    "setup.py": FileKind.SETUP,
    "setup.cfg": FileKind.SETUP,
    "pyproject.toml": FileKind.PYPROJECT,
    "containerfile": FileKind.DOCKERFILE,
    "cmakelists.txt": FileKind.CMAKE,
}
_POWERSHELL_SUFFIXES = (".ps1", ".psm1")
_BATCH_SUFFIXES = (".bat", ".cmd")
_SHELL_SUFFIXES = (".sh", ".bash", *_POWERSHELL_SUFFIXES, *_BATCH_SUFFIXES)
_CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".cfg")
_CONDA_STEM = re.compile(r"(?:^|[-_.])(?:environment|conda)(?:[-_.]|$)")
"""A conda environment file's name: ``environment`` or ``conda`` as a word of it
(``environment-xpu.yml``, ``jupyter-notebook-environment.yml``, ``conda_xpu.yaml``: the
sixteenth audit's notebook environment pinned IPEX in its ``pip:`` section under such a name)."""
_CI_NAMES = frozenset(
    {"makefile", "gnumakefile", "justfile", ".justfile", "tox.ini", "jenkinsfile"}
    | {"action.yml", "action.yaml", ".gitlab-ci.yml", ".gitlab-ci.yaml"}
)
_PIPELINE_DIRECTORIES = frozenset({"workflows", ".circleci", ".buildkite", ".azure-pipelines"})
"""Directories that hold only pipelines (``.github/workflows``; and GitLab's ``.gitlab/ci``)."""
_CI_DIRECTORIES = _PIPELINE_DIRECTORIES | {"ci"}
"""Directories whose YAML files are pipelines (``.github/workflows``, ``.gitlab/ci``...); a
conda environment's name wins in ``ci/`` alone."""
_DOC_SUFFIXES = (".md", ".markdown", ".rst", ".rest")
_NOT_A_DOCKERFILE = frozenset(
    {*_SHELL_SUFFIXES, *_CONFIG_SUFFIXES, *_DOC_SUFFIXES, ".txt", ".html", ".dockerignore"}
    | {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".ico", ".bmp", ".pdf"}
    | {".zip", ".tar", ".gz", ".tgz", ".xz", ".bz2", ".zst"}
)
"""Suffixes that make a name starting with ``dockerfile`` another kind of file: a Dockerfile's
variant is named by a tag (``Dockerfile.xpu``, ``dockerfile-cpu``), while ``dockerfile-build.sh``
is a script, ``dockerfile-stages.png`` a picture of the build (a project's contributing guide:
read as a Dockerfile, it was reported as a file that could not be read) and
``Dockerfile.dockerignore`` Docker's ignore list; a script, configuration or document is then
read as its suffix says."""
_REQUIREMENTS_STEM = re.compile(
    r"^(?:requirements|constraints)|[-_.](?:requirements|constraints)(?:$|[-_.])"
)
"""A name that starts with ``requirements`` or ``constraints`` (``requirements-xpu``,
``requirements2``), or has it as a word after a prefix (``pip_requirements``,
``dev-requirements``); not ``myrequirements``."""


_MANIFEST_STEM = re.compile(r"^(?:uv|pixi)(?:$|[-_.])")
"""uv's and pixi's own TOML (``uv.toml``, ``uv.xpu.toml``, ``pixi.toml``): the packages, sources
and indexes of a project, as ``pyproject.toml``'s ``[tool.uv.sources]`` and pixi's
``[pypi-dependencies]`` name them (time-serie-explo keeps IPEX's source in ``uv.xpu.toml``)."""


_LIST_DIRECTORIES = frozenset({"requirements", "constraints"})
"""Directories whose ``*.txt`` and ``*.in`` files, at any depth, are requirement lists."""


def classify(name: str, parent: str = "", ancestors: str = "") -> FileKind | None:
    """The kind of a file called ``name`` in a directory called ``parent`` (its last component,
    which matters for ``requirements/*.txt`` and the pipelines of ``CI`` directories), or
    ``None`` when the scan does not read it. ``ancestors``, the directories above it (a POSIX
    path relative to the scan's root), matters for lists kept deeper under ``constraints/``."""
    lower = name.lower()
    exact = _EXACT.get(lower)
    if exact is not None:
        return exact
    if lower == "pipfile" or (
        lower.startswith("pipfile.") and not lower.startswith("pipfile.lock")
    ):
        # NOTE: pipenv's TOML (and the variants images keep, Pipfile.cpu, Pipfile.gpu): its
        # [packages] and [[source]] name requirements and indexes as pyproject.toml's do; a lock
        # file only records what they resolved to
        return FileKind.PYPROJECT
    stem, dot, suffix = lower.rpartition(".")
    suffix = dot + suffix if dot else ""
    if suffix == ".toml" and _MANIFEST_STEM.match(stem):
        return FileKind.PYPROJECT
    if suffix == ".py":
        return FileKind.PYTHON
    if suffix == ".ipynb":
        return FileKind.NOTEBOOK
    if suffix in (".txt", ".in") and (
        _REQUIREMENTS_STEM.search(stem) is not None
        or parent.lower() == "requirements"
        or not _LIST_DIRECTORIES.isdisjoint(ancestors.lower().split("/"))
    ):
        return FileKind.REQUIREMENTS
    if (
        lower.startswith("dockerfile") and suffix not in _NOT_A_DOCKERFILE
    ) or suffix == ".dockerfile":
        return FileKind.DOCKERFILE
    if suffix in _SHELL_SUFFIXES:
        return FileKind.SHELL
    if suffix == ".cmake":
        return FileKind.CMAKE
    if lower in _CI_NAMES or suffix in (".mk", ".just") or lower.endswith(".gitlab-ci.yml"):
        return FileKind.CI
    yaml_file = suffix in (".yml", ".yaml")
    pipelines = parent.lower() in _PIPELINE_DIRECTORIES or (
        parent.lower() == "ci" and ".gitlab" in ancestors.lower().split("/")
    )
    if yaml_file and (pipelines or stem.startswith("azure-pipelines")):
        return FileKind.CI
    # NOTE: after the directories that hold only pipelines (a workflow named for conda,
    # .github/workflows/conda.yml, is a workflow whose run: steps are read as shell), before a
    # ci/ directory's (ci/environment.yml is the environment a project's CI creates)
    if yaml_file and _CONDA_STEM.search(stem) is not None:
        return FileKind.CONDA
    if yaml_file and parent.lower() in _CI_DIRECTORIES:
        return FileKind.CI
    if suffix in _CONFIG_SUFFIXES:
        return FileKind.CONFIG
    if suffix in _DOC_SUFFIXES:
        return FileKind.DOCS
    return None


SHEBANG_BYTES = 256
"""The most of a file's start read to find its ``#!`` line (``by_shebang``)."""
_SHELLS = frozenset({"sh", "bash", "dash", "ash", "ksh", "mksh", "zsh"})
"""POSIX shells (and zsh, whose commands the shell rules read as they read bash's)."""
_PYTHON_3 = re.compile(r"python(?:3(?:\.\d+)?t?)?")
"""A Python interpreter's name that may be Python 3 (``python``, ``python3``, ``python3.11``,
``python3.13t``): ``python2`` names one whose scripts this parser does not read (IPEX never
ran there, and a Python 2 script would only be said to be unparsable)."""


def sniffed(name: str) -> bool:
    """Whether a file called ``name``, of no kind by its name, is asked for its ``#!`` line: a
    name without a suffix (``libref-forge``, ``bin/setup``): scripts run by their ``#!`` line
    are named so (the eighteenth audit's Arch Linux installer keeps its IPEX install steps in
    two such bash scripts), while a suffix says what a file is."""
    return "." not in name


def by_shebang(head: bytes) -> FileKind | None:
    """The kind of a file whose first bytes are ``head`` by its ``#!`` line: ``SHELL`` where
    the interpreter is a POSIX shell, directly (``#!/bin/bash``) or through ``env``
    (``#!/usr/bin/env bash``, ``#!/usr/bin/env -S bash -e``); ``PYTHON`` where it is a Python
    that may be Python 3 (``#!/usr/bin/env python3``, ``#!/opt/conda/bin/python -u``: an entry
    script in ``bin/``, as ``*.py`` is read and fixed); ``None`` otherwise."""
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].decode("ascii", "replace")
    words = line.split()
    if words and words[0].rsplit("/", 1)[-1] == "env":
        # NOTE: env's own options (-S splits the rest into words, -i, -u NAME) and NAME=VALUE
        # settings come before the command it runs
        words = words[1:]
        while words and (words[0].startswith("-") or "=" in words[0]):
            words = words[2:] if words[0] in ("-u", "--unset") else words[1:]
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if program in _SHELLS:
        return FileKind.SHELL
    return FileKind.PYTHON if _PYTHON_3.fullmatch(program) else None


def reads_as_python(kind: FileKind, name: str) -> bool:
    """Whether a file of ``kind`` called ``name`` is parsed as Python (``*.py`` and ``setup.py``;
    a notebook's cells are Python too, but the notebook reader splits them first)."""
    return kind is FileKind.PYTHON or (kind is FileKind.SETUP and name.lower().endswith(".py"))


@enum.unique
class ShellDialect(enum.Enum):
    """The language of a ``SHELL`` file, which decides what in a line only prints or comments
    (``scan.match.shell_lines``)."""

    POSIX = "posix"
    """sh and bash (and what else is read as shell: Dockerfiles, CI commands, notebook lines)."""
    POWERSHELL = "powershell"
    BATCH = "batch"
    """cmd.exe's ``*.bat`` / ``*.cmd``."""


def shell_dialect(name: str) -> ShellDialect:
    """The language of the shell file called ``name``, by its extension (POSIX by default)."""
    lower = name.lower()
    if lower.endswith(_POWERSHELL_SUFFIXES):
        return ShellDialect.POWERSHELL
    if lower.endswith(_BATCH_SUFFIXES):
        return ShellDialect.BATCH
    return ShellDialect.POSIX


def decodes_wide(kind: FileKind, name: str) -> bool:
    """Whether a file of ``kind`` called ``name`` is read as UTF-16 or UTF-32 text where its
    byte order mark says so (``source.decode_text``), as the program that runs it reads it:
    PowerShell reads a script by its BOM (Windows PowerShell's ISE, Notepad and ``>`` save
    UTF-16), and pip a requirement list (``pip freeze > requirements.txt`` in Windows
    PowerShell writes UTF-16). Not cmd.exe (``wide_text_unrun``), nor a POSIX shell, nor
    Python, which refuse it; nor the other kinds, whose files Windows tools do not write so."""
    if kind is FileKind.SHELL:
        return shell_dialect(name) is ShellDialect.POWERSHELL
    return kind is FileKind.REQUIREMENTS


def wide_text_unrun(kind: FileKind, name: str) -> str | None:
    """Why a UTF-16 or UTF-32 file of ``kind`` called ``name`` that is not read as such
    (``decodes_wide``) runs nothing, where that is known, or ``None``: cmd.exe reads a batch
    file byte by byte and stops at the first NUL, so a wide batch file runs nothing at all."""
    if kind is FileKind.SHELL and shell_dialect(name) is ShellDialect.BATCH:
        return "UTF-16 or UTF-32 text, which cmd.exe does not run: it stops at the first NUL byte"
    return None


def rewritten_by_fix(path: str) -> bool:
    """Whether ``scan --fix`` may rewrite a match in the file at ``path``. A document's code
    block is reported but never rewritten: it is an example inside prose (often with output
    lines and prompts), which the author words around it. Nor is a Windows script: the
    rewrites speak POSIX shell (a launcher's options, ``\\`` continuations), not PowerShell's
    or cmd.exe's quoting and continuations."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    kind = classify(name)
    if kind is FileKind.SHELL:
        return shell_dialect(name) is ShellDialect.POSIX
    return kind is not FileKind.DOCS
