"""Live progress on stderr while the doctor works.

The CLI hands these to the core, which reports through plain callbacks (``status(message)`` and
``step(phase, done, total)``). Two renderings, chosen by whether stderr is a terminal:

- on a terminal, a transient status line and one bar per phase (they vanish when the run ends);
- anywhere else (a CI log, a file, a pipe), one plain line per status change and per phase,
  each with the seconds since the start, so a log shows what the doctor was doing and when
  even when a run takes minutes. Nothing is ever erased or redrawn there.

A phase counts in the unit its evidence will name: SGD steps unless the phase says otherwise
as ``NAME: UNIT`` (the sanity run's ``throughput: rounds``, whose evidence says "best of 3
rounds"), so the progress and the report describe one phase the same way.
"""

from __future__ import annotations

import re
import sys
import time
from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

DEFAULT_UNIT = "steps"
_UNIT = re.compile(r"^(?P<name>.+?):\s*(?P<unit>[a-z][a-z -]*)$")


def phase_unit(phase: str) -> tuple[str, str]:
    """``(name, unit)`` of a phase as a check reports it: ``throughput: rounds`` is the phase
    ``throughput`` counted in rounds; a phase without ``: UNIT`` counts ``steps``."""
    match = _UNIT.match(phase.strip())
    if match is None:
        return phase, DEFAULT_UNIT
    return match.group("name"), match.group("unit").strip()


def phase_line(phase: str, total: int) -> str:
    """How a log names a phase: ``train (AMP) (12 steps)``, ``throughput (3 rounds)``; a phase
    of one step is named alone."""
    name, unit = phase_unit(phase)
    return f"{name} ({total} {unit})" if total > 1 else name


class Feedback:
    """Progress feedback; use ``Feedback.for_stream()`` to get the right kind for stderr."""

    def __enter__(self) -> Feedback:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        return None

    def status(self, message: str) -> None:
        """Say what the doctor is doing now."""

    def step(self, phase: str, done: int, total: int) -> None:
        """Report ``done`` of ``total`` units of ``phase`` (a phase of a long check; the unit
        is named by the phase, see ``phase_unit``)."""

    @staticmethod
    def for_stream(stream: TextIO | None = None, *, quiet: bool = False) -> Feedback:
        """Bars on a terminal, plain lines elsewhere, nothing when ``quiet``."""
        stream = sys.stderr if stream is None else stream
        if quiet:
            return Feedback()
        if stream.isatty():
            return LiveFeedback()
        return PlainFeedback(stream)


class PlainFeedback(Feedback):
    """One line per status change and per phase, for logs: ``ipex-doctor: [  4.1 s] ...``."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._started = time.monotonic()
        self._last_status = ""
        self._phases: set[str] = set()

    def _line(self, text: str) -> None:
        elapsed = time.monotonic() - self._started
        try:
            self._stream.write(f"ipex-doctor: [{elapsed:6.1f} s] {text}\n")
            self._stream.flush()
        except (OSError, ValueError):
            pass  # NOTE: a closed log must not end the diagnosis

    def status(self, message: str) -> None:
        if message != self._last_status:
            self._last_status = message
            self._phases.clear()  # NOTE: the next check (or device) has phases of its own
            self._line(message)

    def step(self, phase: str, done: int, total: int) -> None:
        if phase not in self._phases:
            self._phases.add(phase)
            self._line(f"  {phase_line(phase, total)}")


class LiveFeedback(Feedback):
    """A transient status line and one bar per phase of a long check, on a terminal."""

    def __init__(self) -> None:
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._status = self._progress.add_task("examining the environment", total=None)
        self._phases: dict[str, TaskID] = {}

    def __enter__(self) -> LiveFeedback:
        self._progress.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.__exit__(kind, value, traceback)

    def status(self, message: str) -> None:
        if message == self._progress.tasks[0].description:
            return
        self._progress.update(self._status, description=message)
        for task in self._phases.values():  # NOTE: the bars of the check that just finished
            self._progress.remove_task(task)
        self._phases.clear()

    def step(self, phase: str, done: int, total: int) -> None:
        task = self._phases.get(phase)
        if task is None:
            name, unit = phase_unit(phase)
            # NOTE: a phase name is the check's text, not markup ("[" must print as it is)
            task = self._progress.add_task(escape(f"  {name}, {unit}"), total=total or None)
            self._phases[phase] = task
        self._progress.update(task, completed=done, total=total or None)
