"""``scan-unread``: the files a scan could not read, as one finding the gate judges.

A file the scan skipped (over the size limit, binary, not text in its encoding, not Python 3,
a notebook that is not JSON or a cell of one that does not parse, a directory or file it
cannot open) may hold exactly what the rules look for: a report that stays silent about it
reads as "nothing found". So the skipped files become one finding of status ``warn``: the
default gate (``--fail-on fail``) still passes, ``--fail-on warn`` fails on it, and
``--ignore scan-unread=REASON`` (or an ignore in the policy file) accepts it knowingly, like
any finding. One finding for all of them, not one per file: the gate's question is whether
the scan saw everything, and a tree of generated data should not drown the code findings.
The scan's summary keeps each file and why (``scan.skipped`` in JSON); SARIF carries each as
a tool execution notification.
"""

from __future__ import annotations

from collections.abc import Sequence

from ipex_doctor.model.code import SkippedFile
from ipex_doctor.model.findings import Evidence, Finding, Status, Verdict
from ipex_doctor.scan.fix.quoting import shown_name
from ipex_doctor.verdicts.registry import spec

SPEC = spec("scan-unread")
NAMED = 3
"""How many files the summary names (all of them are in the evidence's data)."""


def unread_finding(skipped: Sequence[SkippedFile]) -> Finding | None:
    """The ``scan-unread`` finding for ``skipped`` (``None``: the scan read everything)."""
    if not skipped:
        return None
    files = len(dict.fromkeys(s.path for s in skipped))
    noun = "file" if files == 1 else "files"
    named = "; ".join(f"{shown_name(s.path)}: {s.reason}" for s in skipped[:NAMED])
    more = f"; and {len(skipped) - NAMED} more" if len(skipped) > NAMED else ""
    return SPEC.finding(
        Status.WARN,
        Evidence(
            f"{files} {noun} could not be read, so the report says nothing of what they hold "
            f"({named}{more})",
            {"skipped": [s.to_dict() for s in skipped]},
        ),
        title=f"{files} {noun} could not be read",
        verdict=Verdict.AFFECTED,
        remediation=(
            "Read what each file's reason says: leave generated or vendored files out "
            "(scan.exclude in the policy file, or --exclude), make the rest readable, or accept "
            "it with --ignore scan-unread=REASON"
        ),
    )
