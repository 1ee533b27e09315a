"""The catalog of check scripts: the shipped ``checks/`` plus any ``--checks-dir``.

A check script is ``checks/<name>.py``; its id is the name with ``_`` as ``-`` (``dot_half.py`` is
``dot-half``), and its title is the first line of its docstring. The catalog reads scripts as
text (``ast``), never imports them: listing must stay instant and must not import torch.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from ipex_doctor import resources
from ipex_doctor.errors import DoctorError


@dataclass(frozen=True)
class CheckScript:
    """One reproduction script."""

    id: str
    path: Path
    title: str
    doc: str


def _describe(path: Path) -> tuple[str, str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return "(unreadable check script)", ""
    doc = ast.get_docstring(tree) or ""
    title = doc.strip().splitlines()[0] if doc.strip() else "(no docstring)"
    return title, doc


def scan(directory: Path) -> dict[str, CheckScript]:
    """The check scripts in ``directory`` (``*.py`` not starting with ``_``)."""
    found = {}
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_"):
            continue
        check_id = path.stem.replace("_", "-")
        title, doc = _describe(path)
        found[check_id] = CheckScript(id=check_id, path=path.resolve(), title=title, doc=doc)
    return found


def catalog(extra_dirs: tuple[Path, ...] = ()) -> dict[str, CheckScript]:
    """Shipped checks, then each ``--checks-dir`` in order (a same id replaces the shipped one)."""
    found = scan(resources.path("checks"))
    for directory in extra_dirs:
        if not directory.is_dir():
            raise DoctorError(f"--checks-dir {directory}: not a directory")
        found.update(scan(directory))
    return found
