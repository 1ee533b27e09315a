"""scan: find the code of a user's project that depends on IPEX or walks into a known issue.

``scan_paths`` reads files only (it never imports or runs them, and never imports torch) and
returns a ``model.code.ScanResult``. The work is split so each module owns one thing:

* ``kinds``: which ``FileKind`` a file name is (or none: not read);
* ``ignores`` and ``discovery``: which files under the roots are candidates (``.gitignore``,
  the caller's excludes, virtual environments and tool caches left out, symlink loops ended);
* ``regex_literals`` and ``triggers``: the byte prefilter, derived from the rules, that keeps
  the scan of a tree without IPEX close to the cost of ``grep -rl``;
* ``ruleset``: the rules compiled for the readers (symbol and import indexes, patterns, text
  regexes, prefilters per reader);
* ``python_names`` (imports, aliases and scopes), ``python_matches`` (symbols and imports) and
  ``patterns`` (the structural patterns by id): Python files, read with ``ast``;
* ``notebooks``: Jupyter notebooks as cells of Python and shell text;
* ``text_matches``: ``text`` rules line by line; ``suppressions``: inline
  ``# ipex-doctor: ignore[RULE] reason``; ``source``: decoding, lines and columns;
* ``readers``: one candidate's bytes into matches (Python, notebook, text);
* ``engine``: ``scan_paths``, which ties them together;
* ``fix`` and ``codemods*``: the LibCST rewrites of ``scan --fix`` (their docstrings say more).

May import the foundation, ``model`` and ``knowledge``; nothing above.
"""

from __future__ import annotations

from ipex_doctor.scan.engine import DEFAULT_MAX_FILE_BYTES, scan_paths
from ipex_doctor.scan.match.ruleset import grep_pattern, trigger_words
from ipex_doctor.scan.read.discovery import ScanError, source_path

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "ScanError",
    "grep_pattern",
    "scan_paths",
    "source_path",
    "trigger_words",
]
