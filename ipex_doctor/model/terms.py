"""The model's vocabulary: statuses, severities, kinds, verdicts, commands and references.

Small and free of the environment model, so the knowledge base (and with it the light
commands) can load without building the rest of the model.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ipex_doctor.model.codec import JsonModel


class TextEnum(str, enum.Enum):
    """An enum whose members are their text: ``str(Status.PASS) == "pass"`` and equal to it,
    as written in reports, policy files and on the command line.

    Python 3.11's ``enum.StrEnum`` does the same; the package supports 3.10.
    """

    def __str__(self) -> str:
        return str(self.value)


@enum.unique
class Status(TextEnum):
    """How a finding affects the gate, from best to worst (``ERROR`` = could not be judged)."""

    PASS = "pass"
    SKIP = "skip"
    WARN = "warn"
    FAIL = "fail"
    ERROR = "error"

    @property
    def rank(self) -> int:
        """Ordering for "worst status": pass < skip < warn < error < fail."""
        return _STATUS_RANK[self]


_STATUS_RANK = {Status.PASS: 0, Status.SKIP: 1, Status.WARN: 2, Status.ERROR: 3, Status.FAIL: 4}


@enum.unique
class Severity(TextEnum):
    """How bad a known issue is when it applies (set in the knowledge base)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@enum.unique
class FindingKind(TextEnum):
    """Which part of the diagnosis produced a finding."""

    ENVIRONMENT = "environment"
    KNOWN_ISSUE = "known-issue"
    SANITY = "sanity"
    CODE = "code"
    """A place in the user's code (``scan``), judged against the examined environment."""


@enum.unique
class Command(TextEnum):
    """The doctor command a report comes from (``fleet`` for merged and distributed reports)."""

    CHECK = "check"
    ENV = "env"
    REPRO = "repro"
    SANITY = "sanity"
    FLEET = "fleet"
    SCAN = "scan"
    FIX = "fix"


@enum.unique
class Verdict(TextEnum):
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


@enum.unique
class Isolation(TextEnum):
    """How the checks run (``--isolation``)."""

    WORKER = "worker"
    """One spawned interpreter imports torch and IPEX once and runs every check; it is
    replaced when a check crashes, hangs or breaks its device."""
    PROCESS = "process"
    """A fresh interpreter per check."""


@enum.unique
class StepKind(TextEnum):
    """The only changes ``fix`` makes: pip install / uninstall in the examined interpreter (the
    verb of a remedy's ``PipAction`` too)."""

    # NOTE: here, not beside the repair's model (``model.repair``) that records the steps: a
    # remedy names its verb, and every scan that judges the knowledge base builds remedies;
    # the repair's seven dataclasses are built only where a fix plans or a report reads one
    # back (about 4 ms of a small project's scan).

    INSTALL = "install"
    UNINSTALL = "uninstall"


@dataclass(frozen=True)
class Reference(JsonModel):
    """A public source backing a fact (issue, PR, commit, documentation page)."""

    url: str
    title: str = ""


SANITY_PROFILES = ("quick", "full")
"""The sanity run's profiles (``probe/scripts/resnet_sanity.py`` defines them; a test keeps both equal)."""
AMP_DTYPES = ("bfloat16", "float16")
"""The autocast dtypes the sanity run can train with."""
