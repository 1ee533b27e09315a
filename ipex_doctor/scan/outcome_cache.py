"""Each file's scan outcome kept from one scan to the next, so an unchanged file is not read.

A scan of a tree whose files have not changed (the next commit's hook, a second run in CI with
the cache directory kept) would read and search every byte again; reading is most of a large
tree's cost. The cache keeps, per scanned file, its outcome and the ``stat`` facts any write
to it changes (``discovery.file_stamp``: device, inode, size, modification and status-change
times; an edit that keeps size and modification time still moves the last). The outcome is
reused only when all five are equal.

One cache file per set of scan roots (``scan/`` in the doctor's cache directory, named by a
checksum of the roots' absolute paths and the identity below), holding the files the last scan
of those roots saw; a hit needs the same identity, compared in full:

* the rules, every field of each (an edit to ``code_rules.yaml`` or an overlay is a miss);
* the size limit, the doctor's version, and the size and time of every module of this
  package (a development checkout keeps its version while the readers change).

Only outcomes that follow from a file's content are kept: a file that could not be read
(permissions, vanished) is read again next time. Anything unusable (a missing or read-only
cache directory, a damaged or foreign file) is a miss, never an error; so is a cache file that
is no regular file of this user's that only this user may write (a FIFO, a link, another
user's outcomes that would hide a finding), or is beyond ``MAX_FILE_BYTES``
(``private_state.read_own_file``). The file is replaced atomically, and at most ``MAX_FILES``
sets of roots are kept (the oldest go). Its text is sealed with the knowledge-base cache's keyed
MAC (``knowledge.cache.seal_text``, its key private per-user state): outcomes restored as this
user's own from elsewhere (a CI cache of ``~/.cache`` shared between jobs, a copied home) could
otherwise hide every finding of a tree, and a file that does not unseal is a miss.

A match is kept as the flat list of its fields and its location's (``_MATCH_FIELDS``), not as
the model's generic JSON: rebuilding 2,763 matches through ``codec.from_json`` (type hints
walked per value) was two thirds of a warm scan of the benchmark's synthetic tree. Each value
is still checked against its field's type before it is used (``_CHECKS``: an entry of the wrong
shape is a miss, never a traceback and never anything but inert data).
"""

from __future__ import annotations

import dataclasses
import json
import os
import typing
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ipex_doctor import __version__, atomic, private_state, resources
from ipex_doctor.knowledge.cache import files_stamp, seal_text, unseal_text
from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import CodeLocation, CodeMatch, SkippedFile
from ipex_doctor.scan.outcome import Outcome
from ipex_doctor.scan.read.discovery import Candidate

_FORMAT = 7
"""2: each entry holds the flags the file declares (``Outcome.declares``); 3: and the
requirement lists it names (``Outcome.names``); 4: and ends with the project's own extras that
pull IPEX (``Outcome.extras``); 5: matches and skips as flat lists of their fields; 6: sealed
(``seal_text``); 7: and ends with what a Python file imports by name (``Outcome.imports``)."""
MAX_FILE_BYTES = 256 * 1024 * 1024
"""The largest cache file read or written. This repository's own tree keeps about 800 bytes
a file (its tests are dense with matches): 256 MiB is some 300,000 files. A tree beyond it is
read in full on every scan (a miss), and a file larger than that is not one this cache wrote."""
MAX_FILES = 32
"""Cache files (one per set of scan roots) kept; the oldest go on a write."""


def directory() -> Path:
    """Where the cache lives: ``scan/`` in the doctor's cache directory."""
    return resources.cache_dir() / "scan"


class OutcomeCache:
    """The outcomes kept for the files under one set of scan roots."""

    def __init__(self, roots: Sequence[Path], rules: CodeRules, max_file_bytes: int) -> None:
        self._identity = _identity(roots, rules, max_file_bytes)
        checksum = zlib.crc32("\0".join(self._identity).encode("utf-8", "surrogatepass"))
        self._file = directory() / f"{checksum:08x}.json"
        self._kept: dict[str, list[Any]] = _read(self._file, self._identity)
        self._next: dict[str, list[Any]] = {}

    def get(self, candidate: Candidate) -> Outcome | None:
        """The outcome kept for ``candidate`` when the file is unchanged since, else ``None``."""
        if not candidate.stamp:
            return None
        key = _key(candidate)
        entry = self._kept.get(key)
        if entry is None:
            return None
        try:
            if tuple(entry[0]) != candidate.stamp:
                return None
            outcome = Outcome(
                bool(entry[1]),
                [_match(m) for m in entry[2]],
                [_skip(s) for s in entry[3]],
                declares=tuple(str(flag) for flag in entry[4]),
                names=tuple(str(name) for name in entry[5]),
                extras=tuple(str(extra) for extra in entry[6]),
                imports=tuple(str(word) for word in entry[7]),
            )
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            return None  # NOTE: a cache file edited by hand is a miss, never a traceback
        self._next[key] = entry
        return outcome

    def put(self, candidate: Candidate, outcome: Outcome) -> None:
        """Keep ``outcome`` for ``candidate`` (only when it follows from the content)."""
        if candidate.stamp and outcome.lasting:
            matches = [_flat(m) for m in outcome.matches]
            skips = [[s.path, s.reason] for s in outcome.skipped]
            entry = [list(candidate.stamp), outcome.parsed, matches, skips]
            self._next[_key(candidate)] = [
                *entry, outcome.declares, outcome.names, outcome.extras, outcome.imports
            ]  # fmt: skip

    def save(self) -> None:
        """Replace the cache file with this scan's outcomes; silently nothing when it cannot."""
        if self._next == self._kept:
            # NOTE: every file a hit and none gone (an unchanged tree): the file already holds
            # this scan's outcomes, and encoding them again was a tenth of a warm scan. Its time
            # is still moved, as a write would, so the oldest sets of roots are the ones to go.
            try:
                # NOTE: the file itself, never where a link put there since would lead
                os.utime(self._file, follow_symlinks=False)
            except OSError:
                pass
            return
        payload = {"identity": self._identity, "files": self._next}
        try:
            # NOTE: dumps, not dump: json.dump encodes in pure Python (its C encoder serves
            # only one-shot encoding), five times slower on a large file's outcomes.
            text = seal_text(json.dumps(payload, separators=(",", ":")))
            if len(text) > MAX_FILE_BYTES:
                return  # NOTE: ASCII (ensure_ascii): as many bytes; never read back anyway
            self._file.parent.mkdir(parents=True, exist_ok=True)
            # NOTE: not durable: outcomes lost in a crash are read again
            atomic.replace_file(self._file, text.encode("utf-8"), durable=False)
            kept = sorted(self._file.parent.glob("*.json"), key=lambda p: p.stat().st_mtime)
            for old in kept[:-MAX_FILES]:
                old.unlink(missing_ok=True)
        except (OSError, TypeError, ValueError):
            return


_LOCATION_FIELDS = tuple(f.name for f in dataclasses.fields(CodeLocation))
_MATCH_FIELDS = tuple(f.name for f in dataclasses.fields(CodeMatch) if f.name != "location")
"""A kept match: ``_MATCH_FIELDS``' values, then ``_LOCATION_FIELDS``' (derived from the
model, so a field added there is kept too, or the cache turns itself off: ``_CHECKS``)."""


def _flat(match: CodeMatch) -> list[Any]:
    """``match`` as the flat list ``_match`` reads back."""
    at = match.location
    return [getattr(match, name) for name in _MATCH_FIELDS] + [
        getattr(at, name) for name in _LOCATION_FIELDS
    ]


def _match(item: Any) -> CodeMatch:
    """The match ``_flat`` kept; ``ValueError`` when ``item`` is not of that shape."""
    if type(item) is not list or len(item) != len(_CHECKS):
        raise ValueError("not a kept match")
    for check, value in zip(_CHECKS, item, strict=True):
        if not check(value):
            raise ValueError("not a kept match")
    split = len(_MATCH_FIELDS)
    location = CodeLocation(*item[split:])
    return CodeMatch(**dict(zip(_MATCH_FIELDS, item[:split], strict=True)), location=location)


def _skip(item: Any) -> SkippedFile:
    if type(item) is not list or len(item) != 2 or not all(type(v) is str for v in item):
        raise ValueError("not a kept skip")
    return SkippedFile(item[0], item[1])


def _check_of(hint: Any) -> Callable[[Any], bool]:
    """Whether a JSON value is one of ``hint`` (exactly: JSON's ``true`` is no ``int``)."""
    options = typing.get_args(hint) if typing.get_origin(hint) is not None else (hint,)
    kinds = tuple(option for option in options if option in (str, int, bool, type(None)))
    if len(kinds) != len(options):  # NOTE: a field of another type: every entry is a miss
        return lambda value: False
    return lambda value: type(value) in kinds


def _field_checks() -> tuple[Callable[[Any], bool], ...]:
    """A check (``_check_of``) for each value of a kept match, in ``_flat``'s order."""
    checks: list[Callable[[Any], bool]] = []
    for cls, names in ((CodeMatch, _MATCH_FIELDS), (CodeLocation, _LOCATION_FIELDS)):
        # NOTE: each class's hints resolved once: get_type_hints evaluates every annotation of
        # the class, and asking it again for each field was most of this module's import (a
        # few ms of every warm scan)
        hints = typing.get_type_hints(cls)
        checks.extend(_check_of(hints[name]) for name in names)
    return tuple(checks)


_CHECKS = _field_checks()


def _key(candidate: Candidate) -> str:
    """A file's key: where it is and its path in results (both fixed by the roots)."""
    return f"{candidate.path}\0{candidate.display}"


def _identity(roots: Sequence[Path], rules: CodeRules, max_file_bytes: int) -> list[str]:
    # NOTE: the rules as their dataclasses' repr, every field of every rule (none hides one
    # from it, and it holds no set, whose order would change from process to process: tests
    # hold both), not as JSON: ``codec.to_json`` walked them in 35 ms, a tenth of a warm scan.
    rules_text = repr(rules.rules)
    return [
        str(_FORMAT),
        __version__,
        _package_stamp(),
        "\0".join(os.path.abspath(root) for root in roots),
        os.getcwd(),
        str(max_file_bytes),
        rules_text,
    ]


def _package_stamp() -> str:
    """The size and modification time of every module of this package (its rooms too), by
    name."""
    return files_stamp(sorted(Path(__file__).resolve().parent.rglob("*.py")))


def _read(file: Path, identity: Sequence[str]) -> dict[str, list[Any]]:
    kept = private_state.read_own_file(file, MAX_FILE_BYTES)
    if kept is None:
        return {}
    try:
        body = unseal_text(kept.decode("utf-8", "surrogatepass"))
        if body is None:
            return {}
        data = json.loads(body)
        if data.get("identity") != list(identity):
            return {}
        files = data["files"]
        return files if isinstance(files, dict) else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}
