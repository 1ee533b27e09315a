"""Where the doctor's data files are: in the package (wheel) or in the source tree.

The design card keeps ``checks/`` and ``known_issues.yaml`` at the top of the repository so
users can read and run them by hand. A wheel carries them under ``ipex_doctor/_data/``
(``pyproject.toml``, ``force-include``); an editable install or a source checkout finds them one
level above the package. Files that belong to the package itself (``knowledge/*.json``,
``probe/scripts/``) are always next to this module.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_BUNDLED = _PACKAGE_DIR / "_data"
_SOURCE_TREE = _PACKAGE_DIR.parent

_TOP_LEVEL = {"checks", "known_issues.yaml", "report.schema.json"}


def path(name: str) -> Path:
    """The path of data file ``name`` (``known_issues.yaml``, ``checks``, ``probe/scripts/...``)."""
    top = name.split("/", 1)[0]
    if top not in _TOP_LEVEL:
        return _PACKAGE_DIR / name
    bundled = _BUNDLED / name
    if bundled.exists():
        return bundled
    if name == "report.schema.json":
        return _SOURCE_TREE / "docs" / name
    return _SOURCE_TREE / name


def read_text(name: str) -> str:
    """The text of data file ``name``."""
    return path(name).read_text(encoding="utf-8")
