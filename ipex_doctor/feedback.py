"""Live progress on stderr while the doctor works: a status line and a bar per phase.

Only the CLI uses this; the core reports through plain callbacks. On a terminal the bars are
transient (they vanish when the run ends); elsewhere (CI logs, pipes) rich prints nothing.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)


class Feedback:
    """A status line (what the doctor is doing) and one bar per phase of a long check."""

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

    def __enter__(self) -> Feedback:
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
        """Say what the doctor is doing now."""
        self._progress.update(self._status, description=message)

    def step(self, phase: str, done: int, total: int) -> None:
        """Advance the bar of ``phase`` (created on first use)."""
        task = self._phases.get(phase)
        if task is None:
            task = self._progress.add_task(f"  {phase}", total=total or None)
            self._phases[phase] = task
        self._progress.update(task, completed=done, total=total or None)
