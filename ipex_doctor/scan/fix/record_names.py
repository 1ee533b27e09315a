"""Where the undo records of ``scan --fix`` live, and the name of a stopped run's record.

What a plain ``scan`` needs to tell whether any earlier ``--fix`` run stopped while rewriting
(``any_pending``: one listing of a directory), apart from ``journal``, which reads, checks and
writes the records and whose imports (the schema, the confined paths, bounded JSON) a scan
without such a record never needs. ``journal`` takes both names from here, so the two cannot
disagree.
"""

from __future__ import annotations

import os
from pathlib import Path

from ipex_doctor import resources

PENDING_SUFFIX = ".applying.json"
"""A record named ``fix-TIME-ID`` with this suffix is of a run still rewriting (or killed)."""


def records_dir() -> Path:
    """Where the records live: ``fixes/`` in the doctor's state directory."""
    return resources.state_dir() / "fixes"


def is_pending(name: str) -> bool:
    """Whether a file of the records' directory, by its name, is a run's ``applying`` record."""
    return name.startswith("fix-") and name.endswith(PENDING_SUFFIX)


def any_pending() -> bool:
    """Whether the records' directory holds any ``applying`` record; ``False`` where it cannot
    be listed (``journal.stopped_runs`` finds nothing there either)."""
    try:
        names = os.listdir(records_dir())
    except OSError:
        return False
    return any(is_pending(name) for name in names)
