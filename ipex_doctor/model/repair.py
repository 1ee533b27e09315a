"""What ``fix`` planned, what it applied, and what the doctor found afterwards.

A repair is recorded in the report (``Report.repair``) so every format can say what changed:
the ordered pip steps (each with the findings it resolves, what it downloads and what it
removes), the advice left to the user, the outcome of each step that ran, the snapshot that
undoes it, and the verdict of the diagnosis run after. Frozen dataclasses, no I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from ipex_doctor.model.codec import JsonModel
from ipex_doctor.model.terms import StepKind, TextEnum


@dataclass(frozen=True)
class Distribution(JsonModel):
    """One installed distribution, as a snapshot records it."""

    name: str
    version: str
    source: str | None = None
    """The URL or file it was installed from, where pip recorded one (``direct_url.json``);
    ``None`` for an install from an index, which pip does not record."""


@dataclass(frozen=True)
class Download(JsonModel):
    """One distribution a step installs, as ``pip install --dry-run --report`` resolved it."""

    name: str
    version: str
    url: str
    size: int | None
    """Bytes, from the index (``Content-Length``) or the local file; ``None``: not known."""


@dataclass(frozen=True)
class PlannedStep(JsonModel):
    """One pip command of the plan, runnable as it is, and what it does to the environment."""

    kind: StepKind
    command: tuple[str, ...]
    """The argument vector: ``<examined python> -m pip install|uninstall ...``, every
    requirement pinned to one version."""
    resolves: tuple[str, ...]
    """The ids of the findings whose remedy this step is."""
    downloads: tuple[Download, ...] = ()
    removes: tuple[Distribution, ...] = ()
    """Installed distributions the step uninstalls or replaces by another version."""
    resolved: bool = True
    """Whether pip resolved the step (its pins, downloads and removals). ``False``: the
    interpreter a saved report names was not run, for want of approval (schema 1.9)."""
    JSON_EXTRAS = ("download_bytes",)

    @property
    def download_bytes(self) -> int | None:
        """The bytes the step downloads at most (``None`` when a size is unknown, or the step
        was not resolved)."""
        return total_size(d.size for d in self.downloads) if self.resolved else None


def total_size(sizes: Iterable[int | None]) -> int | None:
    """The sum of ``sizes``; ``None`` when any of them is unknown (an estimate with a hole is
    no estimate)."""
    known = list(sizes)
    return None if None in known else sum(s for s in known if s is not None)


@dataclass(frozen=True)
class ManualStep(JsonModel):
    """A remedy ``fix`` does not apply (a driver, a group, a variable): advice for the user."""

    finding: str
    advice: str
    commands: tuple[str, ...] = ()
    """The finding's commands, shown for the user to judge and run."""
    reason: str = ""
    """Why ``fix`` does not run these commands itself (schema 1.9): what the repair policy
    refused, or what pip would have done that a fix never does."""


@enum.unique
class StepStatus(TextEnum):
    """What became of one planned step."""

    APPLIED = "applied"
    FAILED = "failed"
    """pip exited non-zero (pip rolls back the package it was installing)."""
    INTERRUPTED = "interrupted"
    """Stopped mid-way (Ctrl-C twice, SIGTERM, pip killed): the environment may be half-way."""
    NOT_RUN = "not-run"


@dataclass(frozen=True)
class StepOutcome(JsonModel):
    """One step as it ran: its status, pip's exit code, what pip fetched, how long it took."""

    step: int
    """The step's index in ``Repair.planned``."""
    status: StepStatus
    returncode: int | None = None
    downloaded_bytes: int = 0
    """What pip reported downloading (its ``Downloading ... (N MB)`` lines); cached files
    count nothing."""
    seconds: float = 0.0
    detail: str = ""
    """pip's last error line, or what stopped the step."""


@enum.unique
class RepairVerdict(TextEnum):
    """Where the repair left the environment."""

    NOTHING_TO_DO = "nothing-to-do"
    """No finding at the gate has a remedy pip can apply."""
    PLANNED = "planned"
    """The plan was shown and nothing changed (no ``--yes``, or the user declined)."""
    RESOLVED = "resolved"
    """Applied; the diagnosis after finds nothing at the gate."""
    REMAINING = "remaining"
    """Applied; findings remain at the gate (none of them worse)."""
    REGRESSED = "regressed"
    """Applied; a finding got worse or a new failure appeared (the snapshot is kept)."""
    ROLLED_BACK = "rolled-back"
    """Applied, regressed, and undone at once (``--rollback-on-regression``)."""
    STOPPED = "stopped"
    """A step failed or was interrupted: later steps did not run (the snapshot is kept)."""
    UNDONE = "undone"
    """``fix --undo``: the snapshot's distributions were restored."""


@dataclass(frozen=True)
class Repair(JsonModel):
    """Everything one ``fix`` run planned and did, for the report."""

    verdict: RepairVerdict
    planned: tuple[PlannedStep, ...] = ()
    manual: tuple[ManualStep, ...] = ()
    applied: tuple[StepOutcome, ...] = ()
    snapshot: str | None = None
    """The snapshot file written before the first change (``fix --undo`` reads it)."""
    undo_command: str | None = None
    """The command that restores the snapshot, when the environment changed."""
    regressions: tuple[str, ...] = ()
    """Findings that got worse or newly failed (``id [device]: before -> after``)."""
    seconds: float = 0.0
    """From the command's start to the verdict (the diagnosis after included)."""
    planning_bytes: int = 0
    """What pip fetched while the plan was resolved: a dry run downloads every wheel it
    resolves unless the index serves the wheel's metadata file (PEP 658)."""
    JSON_EXTRAS = ("download_bytes",)

    @property
    def download_bytes(self) -> int | None:
        """The plan's download estimate (``None`` when a size is unknown)."""
        return total_size(step.download_bytes for step in self.planned)


@dataclass(frozen=True)
class Snapshot(JsonModel):
    """An environment's installed distributions, recorded before ``fix`` changed anything."""

    python: str
    """The interpreter whose environment it records (``fix --undo`` restores that one)."""
    created_at: str
    distributions: tuple[Distribution, ...]
    format: str = "ipex-doctor-snapshot/1"
