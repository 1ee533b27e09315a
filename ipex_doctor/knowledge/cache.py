"""A cache of validated knowledge documents, so light commands need not parse YAML.

``kb list``, ``kb show`` and ``explain`` load the knowledge base on every run, ``scan`` the
code rules; PyYAML alone takes longer to import than their whole budget allows. A document that validated is kept as
JSON under ``$XDG_CACHE_HOME/ipex-doctor/kb/`` (default ``~/.cache``) with the text it was
made from; a hit needs the same text, name and doctor version, compared in full (the file
name is only a checksum of them), so an edit, another file of the same name or a new doctor
all miss. Only valid documents are kept; anything unusable (a missing or unwritable
cache directory, a damaged, foreign or hand-edited file; one that is not a regular file of
this user's that only this user may write, or is beyond ``MAX_FILE_BYTES``:
``private_state.read_own_file``) is a miss, never an error. A kept
file ends with a checksum of its content (``seal``): the loader trusts a hit without
validating it again (its regular expressions are compiled only when first searched), so an
edit made behind the doctor's back must miss rather than reach the matcher.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ipex_doctor import __version__, private_state, resources

_FORMAT = 2

Entries = Sequence[tuple[Mapping[str, Any], str]]


def directory() -> Path:
    """Where the cache lives: ``kb/`` in the doctor's cache directory (``resources.cache_dir``)."""
    return resources.cache_dir() / "kb"


MAX_FILE_BYTES = 32 * 1024 * 1024
"""The largest cache file read: one holds a document (at most 1 MiB, the knowledge loader's and
the code rules' limit) twice, as text and as entries, and JSON's ``\\u`` escapes take up to 6
bytes a byte of it (12 MiB at worst). A larger file is not one this cache wrote: a miss."""
_MAX_FILES = 64
"""More documents than this (overlays come and go) and the oldest are removed on a write."""
KNOWN_ISSUES = ("known_issues.py", "rule_names.py", "schema.py", "known_issues.schema.json")
"""The files (in ``knowledge/``) that validate a knowledge-base document."""
CODE_RULES = ("code_rules.py", "schema.py", "code_rules.schema.json")
"""The files that validate a code-rules document."""


def files_stamp(paths: Iterable[Path]) -> str:
    """Each file's name, modification time and size, in order (``?`` for one that cannot be
    read): what a cache keyed on the code that made it compares."""
    stamps = []
    for path in paths:
        try:
            stat = path.stat()
            stamps.append(f"{path.name}:{stat.st_mtime_ns}:{stat.st_size}")
        except OSError:
            stamps.append(f"{path.name}:?")
    return ";".join(stamps)


def _validator_stamp(validator: Sequence[str]) -> str:
    """What validated the document: a change to the loader, rules or schema is a miss (a
    development checkout keeps the same version while that code changes)."""
    here = Path(__file__).resolve().parent
    return files_stamp(here / name for name in validator)


def _identity(name: str, text: str, validator: Sequence[str], context: str) -> list[str]:
    return [str(_FORMAT), __version__, _validator_stamp(validator), context, name, text]


def _file(identity: list[str]) -> Path:
    checksum = zlib.crc32("\0".join(identity).encode("utf-8", "surrogatepass"))
    return directory() / f"{checksum:08x}.json"


def seal(payload: Mapping[str, Any]) -> str:
    """``payload`` as the text of a cache file: its JSON, a newline, and the CRC-32 of the JSON."""
    body = json.dumps(payload)
    return f"{body}\n{_checksum(body)}"


def unseal(text: str) -> dict[str, Any] | None:
    """The payload of a cache file's ``text``; ``None`` when its checksum does not match."""
    body, _, checksum = text.rpartition("\n")
    if checksum != _checksum(body):
        return None
    data = json.loads(body)
    return data if isinstance(data, dict) else None


def _checksum(body: str) -> str:
    # NOTE: CRC-32 (zlib, as the file names) finds an edit, not an attacker: the cache is the
    # user's own, and what reads it only ever takes data from it.
    return f"{zlib.crc32(body.encode('utf-8', 'surrogatepass')):08x}"


def get(
    name: str, text: str, validator: Sequence[str] = KNOWN_ISSUES, context: str = ""
) -> tuple[list[tuple[dict[str, Any], str]], list[str]] | None:
    """The entries (as parsed, with their sources) and warnings of a document seen valid by
    ``validator`` (the files that check it) in ``context`` (anything else its validity
    depends on, such as the ids a code rule may name)."""
    identity = _identity(name, text, validator, context)
    try:
        kept = private_state.read_own_file(_file(identity), MAX_FILE_BYTES)
        data = None if kept is None else unseal(kept.decode("utf-8"))
        if data is None or data.get("identity") != identity:
            return None
        entries = [(dict(raw), str(source)) for raw, source in data["entries"]]
        return entries, [str(w) for w in data["warnings"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def put(
    name: str,
    text: str,
    entries: Entries,
    warnings: Sequence[str],
    validator: Sequence[str] = KNOWN_ISSUES,
    context: str = "",
) -> None:
    """Keep a valid document's entries and warnings (see ``get``); silently nothing when it
    cannot."""
    import tempfile  # NOTE: lazy; only a miss writes, and tempfile is slow to import

    identity = _identity(name, text, validator, context)
    payload = {
        "identity": identity,
        "entries": [[dict(r), s] for r, s in entries],
        "warnings": list(warnings),
    }
    try:
        target = _file(identity)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".kb.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(seal(payload))
        os.replace(temp, target)
        kept = sorted(target.parent.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in kept[:-_MAX_FILES]:
            old.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError):
        return
