"""Values a scan derives from its rules or a tree's ignore files, kept between runs as inert data.

Every scan worked out the same things again before reading a file: each reader's prefilter
from the rules' triggers (about 40 ms of CPU for a small project's six readers on a 2-core
EPYC), and each ``.gitignore``'s patterns as regexes, which needed pathspec's import (about
20 ms). Both are pure functions of what they are derived from, so a value is kept here once
worked out and taken back by the next run that derives from the same input.

A value is plain JSON (lists, strings, numbers; never code, never pickle) in a file under
``$XDG_CACHE_HOME/ipex-doctor/scan-derived/`` (``resources.cache_dir``), written whole or not
at all (a rename; mode ``0600``) and sealed with a keyed MAC of its text
(``knowledge.cache.seal``). It is found by a BLAKE2b digest of its ``key``: the caller's text of
everything the value depends on, the code that derives it included (``code_stamp``), to which
the doctor's version and this module's format are added. A hit needs the whole identity stored
in the file to agree; a missing, unreadable, damaged, foreign or hand-edited file is a miss,
never an error (so is one that is no regular file of this user's that only this user may
write, or is beyond ``MAX_FILE_BYTES``: ``private_state.read_own_file``), and a cache directory that cannot be written only means the value is derived
again next time. The caller checks the value's shape before it uses it.

It lives in ``read``, the lowest of the scan's rooms, so that both the reading of ignore files
(``read.ignores``) and the rules' prefilters (``match.ruleset``) can keep values here.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ipex_doctor import __version__, atomic, private_state, resources
from ipex_doctor.knowledge.cache import files_stamp, seal, unseal

try:
    # NOTE: the interpreter's own BLAKE2, not ``hashlib``: ``import hashlib`` loads OpenSSL's
    # ``_hashlib`` first (3 to 15 ms of CPU, a percent or more of a warm scan of a small
    # project, which needs no other hash). BLAKE2b is as collision-resistant a name for a key
    # as SHA-256 was; an interpreter built without it has it from hashlib.
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - NOTE: a build without the built-in hashes
    from hashlib import blake2b

_FORMAT = 2
"""1: a key's SHA-256; 2: its BLAKE2b digest (32 bytes)."""
MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest value file read. A value is a rule set's prefilter or one ignore file's
patterns joined (a few kB for the shipped rules); 64 MiB leaves room for an ignore file of
a hundred thousand patterns while bounding what a file planted there costs: a miss."""
_MAX_FILES = 1024
"""More values than this (trees with many distinct ``.gitignore`` files) and the oldest files
are removed, at a process's first write."""


def directory() -> Path:
    """Where the values live: ``scan-derived/`` in the doctor's cache directory."""
    return resources.cache_dir() / "scan-derived"


def code_stamp(paths: Iterable[Path]) -> str:
    """The name, modification time and size of each of ``paths``: what a key holds of the code
    that derives a value (a development checkout keeps its version while that code changes)."""
    return files_stamp(paths)


def _identity(kind: str, key: str) -> list[str]:
    digest = blake2b(key.encode("utf-8", "surrogatepass"), digest_size=32).hexdigest()
    return [str(_FORMAT), __version__, kind, digest]


def _file(identity: list[str]) -> Path:
    return directory() / f"{identity[2]}-{identity[3][:32]}.json"


def get(kind: str, key: str) -> Any:
    """The value kept for ``kind`` (a short name: ``prefilter``, ``gitignore``) and ``key``;
    ``None`` when there is none (see the module)."""
    identity = _identity(kind, key)
    kept = private_state.read_own_file(_file(identity), MAX_FILE_BYTES)
    try:
        data = None if kept is None else unseal(kept.decode("utf-8", "surrogatepass"))
    except (OSError, ValueError, UnicodeError):
        return None
    if data is None or data.get("identity") != identity:
        return None
    return data.get("value")


def put(kind: str, key: str, value: Any) -> None:
    """Keep ``value`` (plain JSON data) for ``kind`` and ``key``; silently nothing when it
    cannot be written."""
    identity = _identity(kind, key)
    target = _file(identity)
    try:
        text = seal({"identity": identity, "value": value})
        target.parent.mkdir(parents=True, exist_ok=True)
        if not _pruned:
            _prune(target.parent)
        # NOTE: whole or not at all (a rename), but not durable: a value lost in a crash is
        # derived again (atomic.replace_file says why that matters)
        data = text.encode("utf-8", errors="surrogatepass")
        atomic.replace_file(target, data, durable=False)
    except (OSError, TypeError, ValueError):
        return


_pruned: list[bool] = []
"""Whether this process has pruned the directory already (once is enough: a scan's writes
are a few, or one per ignore file of a tree)."""


def _prune(folder: Path) -> None:
    """Remove the oldest files beyond ``_MAX_FILES`` (before this process adds its own)."""
    _pruned.append(True)
    kept = sorted(folder.glob("*.json"), key=_age)
    for old in kept[: max(len(kept) - _MAX_FILES + 1, 0)]:
        old.unlink(missing_ok=True)


def _age(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
