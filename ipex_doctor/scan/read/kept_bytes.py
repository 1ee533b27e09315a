"""The bytes of the Python files a scan read, kept for the judgements made across files.

A scan reads every candidate once; the judgements that look across files (``own_flags``:
which modules import a flag another sets from a probe; ``own_aliases``; ``project_flags``) then
read some files a second time, and the flags' pass reads every Python file of the tree again.
On a large tree that second read was about a sixth of a cold scan (a vLLM-based tree: 1,444
Python files, 16 MB, 70 to 95 ms of a 0.5 s scan), nearly all of it the system calls of
opening and reading files that the scan had held a moment before.

``KeptBytes`` holds what the first read got, up to ``BUDGET_BYTES`` in all (the first files
read keep theirs; later ones are read again, as before), and gives it back in place of a second
read. The bytes are those the first read saw, so a file changed while the scan runs is judged
on one version throughout. Only this process's reads are kept: a file a spawned worker read is
read again here.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ipex_doctor.scan.read.discovery import read_candidate

BUDGET_BYTES = 64 * 1024 * 1024
"""The most bytes kept in all: a tree's Python sources rarely come near (the vLLM-based tree's
are 16 MB); an environment's site-packages can hold hundreds of MB, and past this its files
are read a second time instead of held."""


class KeptBytes:
    """Files' bytes as a scan's first read got them, by path, up to ``budget`` bytes in all."""

    def __init__(self, budget: int = BUDGET_BYTES) -> None:
        self._budget = budget
        self._held = 0
        self._by_path: dict[Path, bytes] = {}

    def keep(self, path: Path, data: bytes) -> None:
        """Hold ``data``, the bytes read from ``path``, if the budget has room for them."""
        if path in self._by_path or self._held + len(data) > self._budget:
            return
        self._by_path[path] = data
        self._held += len(data)

    def get(self, path: Path) -> bytes | None:
        """The bytes kept for ``path``, or ``None`` where none were."""
        return self._by_path.get(path)

    def read(self, path: Path) -> bytes:
        """The bytes kept for ``path``, else those read from it now (``OSError`` as
        ``read_candidate`` raises it)."""
        data = self._by_path.get(path)
        return data if data is not None else read_candidate(path, sys.maxsize)
