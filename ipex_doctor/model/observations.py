"""What a check script observed on one device: the record the verdicts are judged from.

An observation is data, produced by the runner (``runs``) from what the worker reported
(``probe``) and read by the judges (``verdicts``); it travels in a finding's evidence, so a
saved report can be judged again (``report.replay``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ipex_doctor.model.codec import JsonModel


@enum.unique
class Outcome(str, enum.Enum):
    """How a check run ended."""

    OK = "ok"
    """It returned a result."""
    EXCEPTION = "exception"
    """It raised."""
    CRASHED = "crashed"
    """The worker died while running it (a signal, ``os._exit``)."""
    TIMEOUT = "timeout"
    """It made no progress within the limit and was stopped."""
    DEVICE_BROKEN = "device-broken"
    """It ran but left its device unable to compute."""
    NOT_RUN = "not-run"
    """It should have run and could not (the worker did not start)."""
    SKIPPED = "skipped"
    """It does not apply here (the sanity run without torchvision)."""
    DEVICE_ABSENT = "device-absent"
    """The device it was asked to run on is not present."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class CheckRun(JsonModel):
    """How one check script went on one device."""

    check_id: str = field(metadata={"json": "check"})
    device: str
    outcome: Outcome
    result: Mapping[str, Any] = field(default_factory=dict)
    error: str = ""
    output: str = ""
    seconds: float = 0.0
    JSON_EXTRAS = ("reproduced",)

    @property
    def reproduced(self) -> bool | None:
        """The script's verdict: True, False, or None when it could not tell."""
        value = self.result.get("reproduced") if self.outcome is Outcome.OK else None
        return value if isinstance(value, bool) else None
