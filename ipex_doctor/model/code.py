"""What a scan of the user's code found: rule matches at source locations, and files skipped.

The scanner (``ipex_doctor.scan``) produces a ``ScanResult`` from files alone; joining each
match with an examined environment (``--python``) happens in the verdicts room and gives each
match its status. A location is 1-based in lines and 0-based in columns, as Python's ``ast``
and LibCST report them (SARIF wants 1-based columns: its writer adds one).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ipex_doctor.model.codec import JsonModel
from ipex_doctor.model.terms import TextEnum


@enum.unique
class FileKind(TextEnum):
    """What a scanned file is, which decides how it is read and which rules apply."""

    PYTHON = "python"
    NOTEBOOK = "notebook"
    """A Jupyter notebook: its code cells are read as Python, located by cell and line."""
    REQUIREMENTS = "requirements"
    """``requirements*.txt`` / ``constraints*.txt``."""
    PYPROJECT = "pyproject"
    SETUP = "setup"
    """``setup.py`` is read as Python too; ``setup.cfg`` as text."""
    CONDA = "conda"
    """conda ``environment.yml`` / ``environment.yaml``."""
    DOCKERFILE = "dockerfile"
    SHELL = "shell"
    """``*.sh`` / ``*.bash`` scripts, and Windows installers: PowerShell (``*.ps1`` /
    ``*.psm1``) and batch (``*.bat`` / ``*.cmd``), each read in its language."""
    CONFIG = "config"
    """YAML / JSON / TOML configs that can switch IPEX on (accelerate's ``ipex: true``)."""
    CI = "ci"
    """CI and task-runner files (GitHub Actions, GitLab CI, Azure Pipelines, Makefiles,
    justfiles, ``tox.ini``...): their commands are read as shell lines."""
    CMAKE = "cmake"
    """``CMakeLists.txt`` and ``*.cmake``: a C++ build, which may find and link IPEX's C++
    library (LibTorch programs built against ``libintel-ext-pt-cpu`` / ``-gpu``)."""
    DOCS = "docs"
    """Markdown / reStructuredText: their Python and shell code blocks, read like notebook
    cells (``scan --docs``, or a document named on the command line)."""


@dataclass(frozen=True)
class LineEdit(JsonModel):
    """A changed range of a file ``scan --fix`` rewrote: the lines ``start``..``end`` (1-based,
    inclusive, in the file before; ``end`` = ``start`` - 1 for an insertion before ``start``)
    replaced by ``text`` (a SARIF fix's replacement)."""

    start: int
    end: int
    text: str

    def covers(self, line: int) -> bool:
        """Whether ``line`` (of the file before) lies in the range, or is the insertion point."""
        return self.start <= line <= max(self.end, self.start)


@dataclass(frozen=True)
class CodeLocation(JsonModel):
    """Where a match is: the file (relative to the scan root it was found under, in POSIX form),
    the 1-based line and 0-based column span, and for a notebook the 1-based code cell (lines
    then count within the cell)."""

    path: str
    line: int
    column: int = 0
    end_line: int = 0
    """0: the same as ``line``."""
    end_column: int = 0
    """0 with ``end_line`` 0: to the end of the line."""
    cell: int | None = None


@dataclass(frozen=True)
class CodeMatch(JsonModel):
    """One rule matched at one place."""

    rule_id: str
    location: CodeLocation
    symbol: str
    """What matched: the resolved dotted name (``torch.xpu.amp.autocast``, whatever alias the
    code used), or the matched text in a non-Python file."""
    snippet: str
    """The source line (stripped of its line ending), for the report and for SARIF."""
    suppressed: str | None = None
    """The reason given by an inline ``# ipex-doctor: ignore[RULE] reason`` on that line (or
    the line above), when one applies; ``None`` otherwise."""
    mechanical: bool = False
    """``scan --fix`` rewrites this place: the rule's fix applies to this form of it (the
    scanner checks the fix's conditions; where it cannot tell, this is ``False``)."""
    guard: str | None = None
    """The availability probe (``if is_ipex_available():``, ``hasattr(...)``) or ``try`` /
    ``except ImportError`` under which this place runs only where IPEX is, as written and
    with its line; ``None`` when nothing guards it."""
    assigned_at: int | None = None
    """The line (of the same file, or cell) whose assignment sets the name this place reads
    (``torch.xpu.amp.GradScaler = ...``, an IPEX-era shim), in a statement that has run by the
    time it is read: the name exists here through that assignment, which is the cause to
    report; ``None`` when no assignment of the file's own precedes it so."""
    rewritten_for: str | None = None
    """The rule whose fix ``scan --fix`` removes this line with (an import from IPEX whose
    every name goes with the uses that fix rewrites) where this rule's own fix leaves it;
    ``None`` otherwise."""
    set_at: int | None = None
    """A read of a project's flag (``if xpu_available:``): the line (of the same file, or cell)
    whose assignment sets the flag from an availability probe, the cause this read points to;
    ``None`` for every other match, or a flag set elsewhere."""
    imported_by: str | None = None
    """An import of IPEX in a module that another module of the project imports its name from
    (``from backend.hardware import ipex``): that importer's path and line (``path:line``) and
    the name; ``scan --fix`` then leaves this file's IPEX imports alone (removing one would
    break the importer's import). ``None`` for every other match."""
    embedded: bool = False
    """A Python rule's match in the Python that a shell script, a Dockerfile or a CI file runs
    (a here-document, a ``-c`` string): reported, never rewritten (``scan --fix`` rewrites
    that file as shell text, whose quoting a Python rewrite does not speak). The file's name
    cannot say it: a script without a suffix is Python or shell by its ``#!`` line."""


@dataclass(frozen=True)
class SkippedFile(JsonModel):
    """A file the scan could not read, and why (never a traceback)."""

    path: str
    reason: str


@dataclass(frozen=True)
class ScanResult(JsonModel):
    """A scan's whole outcome: the matches in file order, and the files skipped."""

    roots: tuple[str, ...]
    files_seen: int
    """Candidate files under the roots (after ignores)."""
    files_parsed: int
    """Files that contained a trigger word and were parsed in full."""
    matches: tuple[CodeMatch, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
