"""The one result model: findings, their statuses and verdicts, and the report that holds them.

Everything here is a frozen dataclass or an enum, free of I/O. ``to_dict`` gives the JSON
shape published in ``docs/report.schema.json`` and ``from_dict`` reads it back (report
replay); both come from the one generic codec (``model.codec``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TypeAlias

from ipex_doctor.model.code import CodeLocation, SkippedFile
from ipex_doctor.model.codec import JsonModel
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.terms import (
    Command,
    FindingKind,
    Reference,
    Severity,
    Status,
    Verdict,
)
from ipex_doctor.secret_shapes import mask

if TYPE_CHECKING:
    from ipex_doctor.model.baseline import BaselineComparison
    from ipex_doctor.model.fix_summary import FixSummary
    from ipex_doctor.model.remedy import PipAction
    from ipex_doctor.model.repair import Repair

LATE_HINTS = {
    "BaselineComparison": "ipex_doctor.model.baseline",
    "FixSummary": "ipex_doctor.model.fix_summary",
    "PipAction": "ipex_doctor.model.remedy",
    "Repair": "ipex_doctor.model.repair",
}
"""The modules of type hints here that the codec imports only when it reads them
(``codec._hints``): a report that is written (a scan's) never needs the repair's model,
about 14 ms of CPU to import, nor the comparison with a baseline (``check --baseline``'s:
four classes and an enum, about 7 ms), nor what ``scan --fix`` changed (two classes)."""

__all__ = [
    "JSON", "SCHEMA_VERSION", "Command", "Evidence", "Finding", "FindingKind", "Ignored",
    "Reference", "Report", "Severity", "Status", "Summary", "Verdict", "VersionFact", "now_utc",
]  # fmt: skip
"""The vocabulary of ``model.terms`` is part of this module's surface too."""

JSON: TypeAlias = Any
"""A value that ``json.dumps`` accepts; the report's free-form data fields hold these."""

SCHEMA_VERSION = "1.9"
"""Version of the report's JSON shape. Bump the minor for additions, the major for breaks."""


@dataclass(frozen=True)
class VersionFact(JsonModel):
    """One version fact a verdict was judged on: what is installed against what the KB says."""

    package: str
    installed: str | None
    """The installed version (``None``: not installed)."""
    variant: str | None
    """Build variant of the installed package (``xpu``, ``cpu``, ``cuda``...), when known."""
    affected: str
    """The affected range in words, e.g. ``>=2.1.20, <2.1.30 (xpu)``."""
    fixed_in: str | None
    """The first fixed version, when one exists."""
    in_range: bool | None
    """Whether the installed version is in the affected range (``None``: not installed)."""


@dataclass(frozen=True)
class Evidence(JsonModel):
    """What was observed: a sentence for people and the data behind it for machines."""

    summary: str
    data: Mapping[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True)
class Ignored(JsonModel):
    """Why a finding is ignored: the policy's reason, its expiry, and the status it had."""

    reason: str
    status: Status
    """The status the finding had before the ignore applied."""
    expires: str | None = None
    """ISO date after which the ignore stops applying."""
    source: str = ""
    """Where the ignore came from (``--ignore``, a policy file)."""


@dataclass(frozen=True)
class Finding(JsonModel):
    """One verdict of the diagnosis, with the evidence and what to do about it."""

    id: str
    """The knowledge-base id this finding judges (kebab-case)."""
    kind: FindingKind
    status: Status
    severity: Severity
    title: str
    evidence: Evidence
    remediation: str
    """What to do; empty when nothing needs doing."""
    references: tuple[Reference, ...] = ()
    verdict: Verdict | None = None
    """Set on every finding judged against the knowledge base."""
    versions: tuple[VersionFact, ...] = ()
    """The version facts the verdict was judged on."""
    workaround: str = ""
    device: str | None = None
    """The device the observation was made on (``cpu``, ``xpu:0``), when it concerns one."""
    ignored: Ignored | None = None
    """Set when a policy ignore turned this finding into a skip (the status it had is kept)."""
    actions: tuple[PipAction, ...] = ()
    """The pip commands that apply the remediation here, typed (schema 1.9): each names the
    examined interpreter, never a bare ``python`` that may be another one."""
    manual_commands: tuple[str, ...] = ()
    """Other commands for the user to judge and run (schema 1.9); ``fix`` never runs them."""
    per_device: Mapping[str, Status] = field(default_factory=dict)
    """The finding's status on each device it was observed on: what the finding x device
    matrix shows, decided by the judge, not a formatter."""
    nodes: tuple[str, ...] = ()
    """In a fleet report, the nodes this finding holds on (with this status and device); a
    finding every node shares is written once with every node's name, not once per node."""
    location: CodeLocation | None = None
    """For a ``code`` finding of ``scan``: the place in the user's code (one finding per place)."""
    snippet: str = ""
    """For a ``code`` finding: the source line at ``location``, its secrets masked (an index
    URL's password, a token, a value assigned to ``*_TOKEN``; ``secret_shapes.mask``) on
    construction, so that no report, nor a saved report read back, quotes one; the line keeps
    its length, so ``location``'s columns still index it."""

    JSON_EXTRAS = ("commands",)
    """The commands are written for people and scripts, and rendered again when read back."""

    def __post_init__(self) -> None:
        if self.snippet:
            # NOTE: here rather than in the scan's verdicts, so that every way a finding is
            # made (a scan, a saved report replayed, merged or turned into SARIF) masks it
            object.__setattr__(self, "snippet", mask(self.snippet))

    @property
    def is_problem(self) -> bool:
        """Whether the finding needs the user's attention (anything but pass and skip)."""
        return self.status in (Status.WARN, Status.FAIL, Status.ERROR)

    @property
    def commands(self) -> tuple[str, ...]:
        """The shell commands that apply the remediation here, each runnable as it is: the
        actions rendered, then the manual commands."""
        return (*(action.render() for action in self.actions), *self.manual_commands)


@dataclass(frozen=True)
class Summary(JsonModel):
    """Counts per status and the worst status of a report."""

    counts: Mapping[Status, int]
    worst: Status
    JSON_EXTRAS = ("total",)

    @property
    def total(self) -> int:
        """How many findings there are."""
        return sum(self.counts.values())

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> Summary:
        """Summarise findings; an empty list is a pass."""
        counts = dict.fromkeys(Status, 0)
        for finding in findings:
            counts[finding.status] += 1
        present = [status for status, n in counts.items() if n]
        worst = max(present, key=lambda s: s.rank) if present else Status.PASS
        return cls(counts=counts, worst=worst)


@dataclass(frozen=True)
class ScanSummary(JsonModel):
    """What a code scan read: its roots, how many files it saw and parsed, what it skipped."""

    roots: tuple[str, ...]
    files_seen: int
    files_parsed: int
    skipped: tuple[SkippedFile, ...] = ()
    fix: FixSummary | None = None
    """For ``scan --fix``: the files it rewrote and the undo record (schema 1.8)."""


@dataclass(frozen=True)
class Report(JsonModel):
    """Everything one run of the doctor found, in the order it should be read."""

    doctor_version: str
    created_at: str
    """ISO 8601 UTC timestamp of the run."""
    command: Command
    """The doctor command that produced the report."""
    environment: Environment
    findings: tuple[Finding, ...]
    complete: bool = True
    """False when the run was interrupted and the report is partial."""
    baseline: BaselineComparison | None = None
    """What changed since ``--baseline``, when one was given."""
    scan: ScanSummary | None = None
    """For ``scan``: what was read (roots, counts) and the files skipped, with why."""
    repair: Repair | None = None
    """For ``fix``: what was planned, what was applied, and the verdict after (schema 1.7)."""
    schema_version: str = SCHEMA_VERSION
    JSON_EXTRAS = ("summary",)
    """The summary is written for readers, and recomputed (never trusted) when read back."""

    @property
    def summary(self) -> Summary:
        """Counts and worst status of the findings."""
        return Summary.of(self.findings)


def now_utc() -> str:
    """The current time as an ISO 8601 UTC timestamp (seconds), as reports carry it."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
