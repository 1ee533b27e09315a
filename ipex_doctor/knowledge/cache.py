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
file ends with a keyed MAC of its content (``seal``): the loader trusts a hit without
validating it again (its regular expressions are compiled only when first searched), and
``explain``, ``check`` and ``fix`` (its remedies) act on what it says.

A checksum anyone can compute is not enough: a cache directory restored as this user's own
from elsewhere (a CI cache of ``~/.cache`` shared between jobs, a copied home directory) would
pass every test above and make the doctor say anything. So the MAC's key is 32 random bytes
that never leave this machine's private state (``key_file``: ``0600`` in the ``0700``
``resources.state_dir()``, which no cache holds), made by the first write; with no key, or one
that is not private (another's, or open to others: they could seal), nothing is kept or taken
(the work is done again), never an error.
"""

from __future__ import annotations

import json
import os
import stat
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ipex_doctor import __version__, atomic, private_state, resources

try:
    # NOTE: the interpreter's own BLAKE2, not ``hashlib`` (``_mac`` says why)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - NOTE: a build without the built-in hashes
    from hashlib import blake2b

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


KEY_BYTES = 32


def key_file() -> Path:
    """The MAC key's file: ``cache-key`` in the doctor's private state directory."""
    return resources.state_dir() / "cache-key"


_keys: dict[Path, bytes] = {}
"""The key read (or made) for each key file this process used: read once, however many
files a run seals or unseals (a scan's derived values)."""


def _key(*, create: bool) -> bytes | None:
    """The private key (``key_file``), made first when ``create`` and missing; ``None`` when
    there is none or it is not private (``private_state``'s tests, the file closed to reading
    by others too)."""
    path = key_file()
    if path in _keys:
        return _keys[path]
    try:
        if private_state.directory_problem(path.parent, create=create) is not None:
            return None
        key = private_state.read_own_file(path, KEY_BYTES, open_to=0o077)
        if key is None and create and not os.path.lexists(path):
            _make_key(path)
            key = private_state.read_own_file(path, KEY_BYTES, open_to=0o077)
    except OSError:
        return None
    if key is None or len(key) != KEY_BYTES:
        return None
    _keys[path] = key
    return key


def _make_key(path: Path) -> None:
    """Write a new key to ``path`` whole or not at all: a temporary file (``0600``) linked to
    the name, which fails when another process made the key first (then that one is used)."""
    fd, temp = atomic.temporary_beside(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(os.urandom(KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, stat.S_IRUSR | stat.S_IWUSR)
        try:
            os.link(temp, path)
        except FileExistsError:
            pass
    finally:
        os.unlink(temp)


def seal(payload: Mapping[str, Any]) -> str:
    """``payload`` as the text of a cache file: its JSON sealed (``seal_text``). ``OSError``
    when there is no private key to seal with: the caller keeps nothing."""
    return seal_text(json.dumps(payload))


def unseal(text: str) -> dict[str, Any] | None:
    """The payload of a cache file's ``text``; ``None`` when its MAC does not match this
    user's private key, or there is no such key."""
    body = unseal_text(text)
    if body is None:
        return None
    data = json.loads(body)
    return data if isinstance(data, dict) else None


def seal_text(body: str) -> str:
    """``body`` (one line of JSON) as the text of a cache file: it, a newline, and its MAC
    under this user's private key (made when missing). ``OSError`` when there is no private
    key to seal with."""
    key = _key(create=True)
    if key is None:
        raise OSError("no private cache key")
    return f"{body}\n{_mac(key, body)}"


def unseal_text(text: str) -> str | None:
    """The body of a cache file's ``text`` (``seal_text``); ``None`` when its MAC does not
    match this user's private key, or there is no such key."""
    key = _key(create=False)
    if key is None:
        return None
    body, _, mac = text.rpartition("\n")
    # NOTE: ``==`` rather than a constant-time compare (hmac's would import OpenSSL): each
    # guess costs a forger a whole run of the doctor, whose start varies by milliseconds,
    # not the nanoseconds a comparison leaks.
    return body if mac == _mac(key, body) else None


def _mac(key: bytes, body: str) -> str:
    # NOTE: BLAKE2b's keyed mode (RFC 7693: a MAC by design, no HMAC construction needed),
    # the interpreter's own; ``hmac`` with SHA-256 would import hashlib, which loads OpenSSL
    # first (about 7 ms of a light command's start on a 2-core EPYC, a tenth of it).
    return blake2b(body.encode("utf-8", "surrogatepass"), key=key, digest_size=32).hexdigest()


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
    identity = _identity(name, text, validator, context)
    payload = {
        "identity": identity,
        "entries": [[dict(r), s] for r, s in entries],
        "warnings": list(warnings),
    }
    try:
        target = _file(identity)
        target.parent.mkdir(parents=True, exist_ok=True)
        # NOTE: not durable: entries lost in a crash are loaded and validated again
        atomic.replace_file(target, seal(payload).encode("utf-8"), durable=False)
        kept = sorted(target.parent.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in kept[:-_MAX_FILES]:
            old.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError):
        return
