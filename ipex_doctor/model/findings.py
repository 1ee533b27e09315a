"""The one result model: findings, their statuses and verdicts, and the report that holds them.

Everything here is a frozen dataclass or an enum, free of I/O. ``to_dict`` gives the JSON
shape published in ``docs/report.schema.json``; ``from_dict`` reads it back (report replay),
so the two must stay inverse to each other (tested by a round trip).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ipex_doctor.model.environment import Environment

JSON: TypeAlias = Any
"""A value that ``json.dumps`` accepts; the report's free-form data fields hold these."""

SCHEMA_VERSION = "1.2"
"""Version of the report's JSON shape. Bump the minor for additions, the major for breaks."""


@enum.unique
class Status(str, enum.Enum):
    """How a finding affects the gate, from best to worst (``ERROR`` = could not be judged)."""

    PASS = "pass"
    SKIP = "skip"
    WARN = "warn"
    FAIL = "fail"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value

    @property
    def rank(self) -> int:
        """Ordering for "worst status": pass < skip < warn < error < fail."""
        return _STATUS_RANK[self]


_STATUS_RANK = {Status.PASS: 0, Status.SKIP: 1, Status.WARN: 2, Status.ERROR: 3, Status.FAIL: 4}


@enum.unique
class Severity(str, enum.Enum):
    """How bad a known issue is when it applies (set in the knowledge base)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    def __str__(self) -> str:
        return self.value


@enum.unique
class FindingKind(str, enum.Enum):
    """Which part of the diagnosis produced a finding."""

    ENVIRONMENT = "environment"
    KNOWN_ISSUE = "known-issue"
    SANITY = "sanity"

    def __str__(self) -> str:
        return self.value


@enum.unique
class Verdict(str, enum.Enum):
    """What the doctor concluded about one knowledge-base entry in this environment.

    Version facts say what *should* happen; observations (probe, repro) say what *does*.
    """

    AFFECTED = "affected"
    """Observed here (or, for environment entries, the condition holds)."""
    REGRESSION = "regression"
    """Reproduced although the knowledge base says this version is fixed: report it upstream."""
    LATENT = "latent"
    """The version is in the affected range but the issue did not reproduce here."""
    PREDICTED = "predicted"
    """The version is in the affected range; nothing was run that could confirm it."""
    NOT_AFFECTED = "not-affected"
    """Outside the affected range, or the condition does not hold."""
    NOT_APPLICABLE = "not-applicable"
    """The entry concerns software or hardware this environment does not have."""
    INCONCLUSIVE = "inconclusive"
    """A measurement was made but cannot be judged here (the machine was too busy or too noisy
    while it ran); the evidence says why. Never blamed on the software stack."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Reference:
    """A public source backing a fact (issue, PR, commit, documentation page)."""

    url: str
    title: str = ""

    def to_dict(self) -> dict[str, JSON]:
        """JSON shape of a reference."""
        return {"url": self.url, "title": self.title}

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> Reference:
        """Inverse of ``to_dict``."""
        return cls(url=str(data["url"]), title=str(data.get("title", "")))


@dataclass(frozen=True)
class VersionFact:
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

    def to_dict(self) -> dict[str, JSON]:
        """JSON shape of a version fact."""
        return {
            "package": self.package,
            "installed": self.installed,
            "variant": self.variant,
            "affected": self.affected,
            "fixed_in": self.fixed_in,
            "in_range": self.in_range,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> VersionFact:
        """Inverse of ``to_dict``."""
        return cls(
            package=str(data["package"]),
            installed=data.get("installed"),
            variant=data.get("variant"),
            affected=str(data.get("affected", "")),
            fixed_in=data.get("fixed_in"),
            in_range=data.get("in_range"),
        )


@dataclass(frozen=True)
class Evidence:
    """What was observed: a sentence for people and the data behind it for machines."""

    summary: str
    data: Mapping[str, JSON] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSON]:
        """JSON shape of evidence."""
        return {"summary": self.summary, "data": dict(self.data)}

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> Evidence:
        """Inverse of ``to_dict``."""
        return cls(summary=str(data.get("summary", "")), data=dict(data.get("data") or {}))


@dataclass(frozen=True)
class Ignored:
    """Why a finding is ignored: the policy's reason, its expiry, and the status it had."""

    reason: str
    status: Status
    """The status the finding had before the ignore applied."""
    expires: str | None = None
    """ISO date after which the ignore stops applying."""
    source: str = ""
    """Where the ignore came from (``--ignore``, a policy file)."""

    def to_dict(self) -> dict[str, JSON]:
        """JSON shape."""
        return {
            "reason": self.reason,
            "status": self.status.value,
            "expires": self.expires,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> Ignored:
        """Inverse of ``to_dict``."""
        return cls(
            reason=str(data.get("reason", "")),
            status=Status(data["status"]),
            expires=data.get("expires"),
            source=str(data.get("source", "")),
        )


@dataclass(frozen=True)
class Finding:
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
    commands: tuple[str, ...] = ()
    """Shell commands that apply the remediation here, each runnable as it is (they name the
    examined interpreter, never a bare ``python`` that may be another one)."""

    @property
    def is_problem(self) -> bool:
        """Whether the finding needs the user's attention (anything but pass and skip)."""
        return self.status in (Status.WARN, Status.FAIL, Status.ERROR)

    def to_dict(self) -> dict[str, JSON]:
        """JSON shape of a finding."""
        return {
            "id": self.id,
            "kind": self.kind.value,
            "status": self.status.value,
            "severity": self.severity.value,
            "title": self.title,
            "verdict": None if self.verdict is None else self.verdict.value,
            "device": self.device,
            "evidence": self.evidence.to_dict(),
            "versions": [fact.to_dict() for fact in self.versions],
            "remediation": self.remediation,
            "workaround": self.workaround,
            "references": [ref.to_dict() for ref in self.references],
            "ignored": None if self.ignored is None else self.ignored.to_dict(),
            "commands": list(self.commands),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> Finding:
        """Inverse of ``to_dict``; raises ``KeyError``/``ValueError`` on a malformed finding."""
        verdict = data.get("verdict")
        return cls(
            id=str(data["id"]),
            kind=FindingKind(data["kind"]),
            status=Status(data["status"]),
            severity=Severity(data["severity"]),
            title=str(data["title"]),
            evidence=Evidence.from_dict(data.get("evidence") or {}),
            remediation=str(data.get("remediation", "")),
            references=tuple(Reference.from_dict(r) for r in data.get("references") or ()),
            verdict=None if verdict is None else Verdict(verdict),
            versions=tuple(VersionFact.from_dict(v) for v in data.get("versions") or ()),
            workaround=str(data.get("workaround", "")),
            device=data.get("device"),
            ignored=None if not data.get("ignored") else Ignored.from_dict(data["ignored"]),
            commands=tuple(str(c) for c in data.get("commands") or ()),
        )


@dataclass(frozen=True)
class Summary:
    """Counts per status and the worst status of a report."""

    counts: Mapping[Status, int]
    worst: Status

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> Summary:
        """Summarise findings; an empty list is a pass."""
        counts = dict.fromkeys(Status, 0)
        for finding in findings:
            counts[finding.status] += 1
        present = [status for status, n in counts.items() if n]
        worst = max(present, key=lambda s: s.rank) if present else Status.PASS
        return cls(counts=counts, worst=worst)

    def to_dict(self) -> dict[str, JSON]:
        """JSON shape of a summary."""
        return {
            "counts": {status.value: n for status, n in self.counts.items()},
            "total": sum(self.counts.values()),
            "worst": self.worst.value,
        }


@dataclass(frozen=True)
class Report:
    """Everything one run of the doctor found, in the order it should be read."""

    doctor_version: str
    created_at: str
    """ISO 8601 UTC timestamp of the run."""
    command: str
    """The doctor command that produced the report (``check``, ``env``)."""
    environment: Environment
    findings: tuple[Finding, ...]
    complete: bool = True
    """False when the run was interrupted and the report is partial."""
    schema_version: str = SCHEMA_VERSION

    @property
    def summary(self) -> Summary:
        """Counts and worst status of the findings."""
        return Summary.of(self.findings)

    def to_dict(self) -> dict[str, JSON]:
        """JSON shape of the report (``docs/report.schema.json``)."""
        return {
            "schema_version": self.schema_version,
            "doctor_version": self.doctor_version,
            "created_at": self.created_at,
            "command": self.command,
            "complete": self.complete,
            "environment": self.environment.to_dict(),
            "findings": [finding.to_dict() for finding in self.findings],
            "summary": self.summary.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> Report:
        """Inverse of ``to_dict`` (the summary is recomputed, never trusted)."""
        return cls(
            schema_version=str(data["schema_version"]),
            doctor_version=str(data["doctor_version"]),
            created_at=str(data["created_at"]),
            command=str(data.get("command", "check")),
            complete=bool(data.get("complete", True)),
            environment=Environment.from_dict(data["environment"]),
            findings=tuple(Finding.from_dict(f) for f in data["findings"]),
        )
