"""scan: find the code of a user's project that depends on IPEX or walks into a known issue.

``scan_paths`` reads files only (it never imports or runs them, and never imports torch) and
returns a ``model.code.ScanResult``. The work is split in rooms that follow the data, each
importing only the rooms before it (read < match < fix), and each module owns one thing:

* ``read/``: which ``FileKind`` a file name is (``kinds``); which files under the roots are
  candidates (``ignores``, ``discovery``: ``.gitignore``, the caller's excludes, virtual
  environments and tool caches left out, symlink loops ended); decoding, lines and columns
  (``source``) and inline ``# ipex-doctor: ignore[RULE] reason`` (``suppressions``);
  notebooks, documents' code blocks and CI files as text to match; top-level statement spans;
* ``match/``: the byte prefilter derived from the rules (``triggers``, with the foundation's
  ``regex_literals``),
  which keeps the scan of a tree without IPEX close to the cost of ``grep -rl``; the rules
  compiled for the readers (``ruleset``) and the check that they can be, without building them
  (``rule_checks``); Python files read with ``ast`` (``python/``: names,
  matches, probes, strings; ``patterns``: the structural patterns by id); ``text`` rules line
  by line, shell lines, launch commands; whether ``--fix`` rewrites a match (``fixable``); the
  readings across files (``project_flags``, ``own_flags``, ``own_extras``) and the ids of the
  rules that need them (``cross_file``);
* ``fix/``: the LibCST rewrites of ``scan --fix`` (``codemods/``, ``rewrite``) and writing
  them, all or none, inside the roots (their docstrings say more);
* here, above the rooms: ``readers`` (one candidate's bytes into matches, an ``outcome``),
  ``one_file`` (a candidate under the rules), ``engine`` (``scan_paths``, which ties them
  together) and its ``outcome_cache``. A scan whose every file comes from the cache imports
  neither the readers nor the matchers (``engine`` imports them at the first miss).

May import the foundation, ``model`` and ``knowledge``; nothing above.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ipex_doctor.scan.engine import DEFAULT_MAX_FILE_BYTES, scan_paths
    from ipex_doctor.scan.match.ruleset import grep_pattern, trigger_words
    from ipex_doctor.scan.read.discovery import ScanError, source_path

_HOMES = {
    "DEFAULT_MAX_FILE_BYTES": "ipex_doctor.scan.engine",
    "scan_paths": "ipex_doctor.scan.engine",
    "grep_pattern": "ipex_doctor.scan.match.ruleset",
    "trigger_words": "ipex_doctor.scan.match.ruleset",
    "ScanError": "ipex_doctor.scan.read.discovery",
    "source_path": "ipex_doctor.scan.read.discovery",
}


def __getattr__(name: str) -> object:
    """The package's names, each imported from its module when first asked for.

    NOTE: lazily (PEP 562): importing any module of the package runs this file first, and an
    eager import of the engine here made a light one (``scan.fix.quoting``, which the report
    and the use case import at their start) load the whole scanner, before ``scan`` has started
    the examination of the interpreter that the scanner's import is meant to overlap."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "ScanError",
    "grep_pattern",
    "scan_paths",
    "source_path",
    "trigger_words",
]
