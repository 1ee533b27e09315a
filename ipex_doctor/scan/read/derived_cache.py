"""Values a scan derives from its rules or a tree's ignore files, kept between runs as inert data.

Every scan worked out the same things again before reading a file: each reader's prefilter
from the rules' triggers (about 40 ms of CPU for a small project's six readers on a 2-core
EPYC), and each ``.gitignore``'s patterns as regexes, which needed pathspec's import (about
20 ms). Both are pure functions of what they are derived from, so a value is kept here once
worked out and taken back by the next run that derives from the same input.

A value is plain JSON (lists, strings, numbers; never code, never pickle) in a file under
``$XDG_CACHE_HOME/ipex-doctor/scan-derived/`` (``resources.cache_dir``), written whole or not
at all (``atomic.replace_file``, mode ``0600``) and sealed with a checksum of its text
(``knowledge.cache.seal``). It is found by a SHA-256 of its ``key``: the caller's text of
everything the value depends on, the code that derives it included (``code_stamp``), to which
the doctor's version and this module's format are added. A hit needs the whole identity stored
in the file to agree; a missing, unreadable, damaged, foreign or hand-edited file is a miss,
never an error, and a cache directory that cannot be written only means the value is derived
again next time. The caller checks the value's shape before it uses it.

It lives in ``read``, the lowest of the scan's rooms, so that both the reading of ignore files
(``read.ignores``) and the rules' prefilters (``match.ruleset``) can keep values here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ipex_doctor import __version__, resources
from ipex_doctor.knowledge.cache import files_stamp, seal, unseal

_FORMAT = 1
_MAX_FILES = 256
"""More values than this (trees with many distinct ``.gitignore`` files) and the oldest files
are removed on a write."""


def directory() -> Path:
    """Where the values live: ``scan-derived/`` in the doctor's cache directory."""
    return resources.cache_dir() / "scan-derived"


def code_stamp(paths: Iterable[Path]) -> str:
    """The name, modification time and size of each of ``paths``: what a key holds of the code
    that derives a value (a development checkout keeps its version while that code changes)."""
    return files_stamp(paths)


def _identity(kind: str, key: str) -> list[str]:
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return [str(_FORMAT), __version__, kind, digest]


def _file(identity: list[str]) -> Path:
    return directory() / f"{identity[2]}-{identity[3][:32]}.json"


def get(kind: str, key: str) -> Any:
    """The value kept for ``kind`` (a short name: ``prefilter``, ``gitignore``) and ``key``;
    ``None`` when there is none (see the module)."""
    identity = _identity(kind, key)
    try:
        data = unseal(_file(identity).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeError):
        return None
    if data is None or data.get("identity") != identity:
        return None
    return data.get("value")


def put(kind: str, key: str, value: Any) -> None:
    """Keep ``value`` (plain JSON data) for ``kind`` and ``key``; silently nothing when it
    cannot be written."""
    from ipex_doctor.atomic import replace_file  # NOTE: tempfile's import; only a miss writes

    identity = _identity(kind, key)
    target = _file(identity)
    try:
        text = seal({"identity": identity, "value": value})
        target.parent.mkdir(parents=True, exist_ok=True)
        replace_file(target, text.encode("utf-8", "surrogatepass"))
        kept = sorted(target.parent.glob("*.json"), key=_age)
        for old in kept[:-_MAX_FILES]:
            old.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError):
        return


def _age(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
