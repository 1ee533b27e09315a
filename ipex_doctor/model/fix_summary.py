"""What ``scan --fix`` changed: the files it rewrote, those it left alone, its undo record.

Apart from the scan's own model (``model.code``): only a ``--fix`` makes one, and a report
read back (``codec``) imports this module when it meets one (``model.findings``'
``LATE_HINTS``), so a scan without ``--fix`` never builds these two dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass

from ipex_doctor.model.code import SkippedFile
from ipex_doctor.model.codec import JsonModel


@dataclass(frozen=True)
class RewrittenFile(JsonModel):
    """A file ``scan --fix`` rewrote: its path (as a match's), how many rewrites, and the
    SHA-256 of its bytes before and after."""

    path: str
    rewrites: int
    sha256_before: str
    sha256_after: str


@dataclass(frozen=True)
class FixSummary(JsonModel):
    """What ``scan --fix`` changed: every file rewritten (all of them or none), the files with
    fixable matches left alone and why, and the undo record that restores the rewritten ones
    (``ipex-doctor scan --undo RECORD``)."""

    rewritten: tuple[RewrittenFile, ...] = ()
    left_alone: tuple[SkippedFile, ...] = ()
    undo_record: str | None = None
