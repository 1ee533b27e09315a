"""What changed since a saved report of the same machine (``check --baseline``): the facts,
the throughput per device and mode, and what could not be compared, with why.

Apart from ``model.findings`` because only a comparison with a baseline makes them: a report
holds one in ``Report.baseline``, named there in ``LATE_HINTS``, so a run without a baseline
(every scan) never imports this module (four frozen dataclasses and an enum, about 7 ms of
CPU to build, most of it compiling the methods ``dataclasses`` writes).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ipex_doctor.model.codec import JsonModel
from ipex_doctor.model.terms import TextEnum


@dataclass(frozen=True)
class Change(JsonModel):
    """One fact that differs between a baseline report and this one."""

    what: str
    """``package torch``, ``driver cuda:0``, ``variable OMP_NUM_THREADS``, ``torch threads``..."""
    before: str | None
    after: str | None


@dataclass(frozen=True)
class ThroughputDelta(JsonModel):
    """One device's throughput in one mode, in the baseline and now, and whether it fell."""

    device: str
    mode: str
    """``train_fp32``, ``train_amp``, ``infer_fp32`` or ``infer_amp``."""
    before: float
    after: float
    noise: float
    """The larger relative spread of the two runs' rounds in this mode (0.05: 5 %)."""
    tolerance: float
    """How far it may fall before it is a regression: a floor, or twice the noise."""
    regressed: bool

    @property
    def change(self) -> float:
        """Relative change (-0.4: 40 % slower)."""
        return self.after / self.before - 1 if self.before else 0.0


@enum.unique
class Incomparable(TextEnum):
    """Why a throughput was not compared with the baseline (schema 1.8): each is an explicit
    inconclusive outcome, never a regression."""

    NOT_MEASURED = "not-measured"
    """One of the runs (or both) measured no throughput on this device (the quick profile
    does not measure AMP speed without native AMP math; the sanity run did not run)."""
    OTHER_REGIME = "other-regime"
    """The runs measured different work (batch, image size, layout, AMP dtype)."""
    BUSY = "busy"
    """Other processes used more than a quarter of the CPUs during one of the runs."""
    NOISY = "noisy"
    """A mode's rounds varied too much to tell a slowdown from noise."""


@dataclass(frozen=True)
class NotCompared(JsonModel):
    """A throughput that could not be compared with the baseline, and why (schema 1.8)."""

    device: str
    reason: Incomparable
    detail: str
    """The reason in words, with the numbers behind it."""
    mode: str | None = None
    """The one mode it concerns (``NOISY``); ``None``: the whole device."""

    def __str__(self) -> str:
        return f"{self.device}: {self.detail}"


@dataclass(frozen=True)
class BaselineComparison(JsonModel):
    """What changed since a saved report of the same machine (or fleet)."""

    source: str
    """The baseline report's path, as given."""
    created_at: str
    """When the baseline ran."""
    appeared: tuple[str, ...] = ()
    """Problems now that the baseline did not have (``id [device]: status``)."""
    resolved: tuple[str, ...] = ()
    """Problems of the baseline that are gone."""
    changes: tuple[Change, ...] = ()
    throughput: tuple[ThroughputDelta, ...] = ()
    not_compared: tuple[str, ...] = ()
    """Throughput that could not be judged, each with why (another regime, a busy machine)."""
    incomparable: tuple[NotCompared, ...] = ()
    """The same, typed: the device, the reason and the mode (schema 1.8)."""
