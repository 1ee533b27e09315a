"""Where the doctor's data files are: in the package (wheel) or in the source tree.

The design card keeps ``checks/`` and ``known_issues.yaml`` at the top of the repository so
users can read and run them by hand. A wheel carries them under ``ipex_doctor/_data/``
(``pyproject.toml``, ``force-include``); an editable install or a source checkout finds them one
level above the package. Files that belong to the package itself (``knowledge/*.json``,
``probe/scripts/``) are always next to this module.

The doctor's own writable directories, the per-user cache (``cache_dir``) and state
(``state_dir``: what must outlive a cache, ``scan --fix``'s undo records), are named here too, so
that every writer agrees on them.
"""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_BUNDLED = _PACKAGE_DIR / "_data"
_SOURCE_TREE = _PACKAGE_DIR.parent

_TOP_LEVEL = {"checks", "code_rules.yaml", "known_issues.yaml", "report.schema.json"}


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


def cache_dir() -> Path:
    """The doctor's per-user cache directory: ``$XDG_CACHE_HOME/ipex-doctor``, or
    ``~/.cache/ipex-doctor`` when the variable is unset or empty.

    Read from the environment on every call (never cached), so a test or a caller that moves
    ``XDG_CACHE_HOME`` or ``HOME`` moves the cache with it. The directory may not exist: a
    writer creates it, and one that cannot must cope (nothing here touches the disk).
    """
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ipex-doctor"


def state_dir() -> Path:
    """The doctor's per-user state directory: ``$XDG_STATE_HOME/ipex-doctor``, or
    ``~/.local/state/ipex-doctor`` when the variable is unset or empty (the XDG base directory
    specification). Read from the environment on every call, like ``cache_dir``; a cache may be
    wiped at any time, this directory holds what may not (``scan --fix``'s undo records)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "ipex-doctor"
