"""Run check scripts on devices in worker sessions, replacing a worker that a check broke.

One worker runs every check one after another (torch and IPEX are imported once); a check that
segfaults, hangs, calls ``os._exit`` or leaves its device unusable ends that worker, is reported
as an ``error``, and a fresh worker (``--no-probe``: imports only) runs the remaining checks.
``isolation="process"`` gives every check a fresh worker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.model.terms import Isolation
from ipex_doctor.probe.session import Session, StepProgress
from ipex_doctor.runs.catalog import CheckScript

DEFAULT_CHECK_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Task:
    """One check on one device, with the arguments its ``run`` takes beyond the device."""

    script: CheckScript
    device: str
    args: Mapping[str, Any] = field(default_factory=dict)


def run_tasks(
    python: str,
    tasks: Sequence[Task],
    *,
    session: Session | None,
    timeout: float,
    startup_timeout: float,
    isolation: Isolation = Isolation.WORKER,
    progress: Callable[[str], None] = lambda _: None,
    on_step: StepProgress | None = None,
    on_run: Callable[[CheckRun], None] = lambda _: None,
    refuse: Mapping[str, str] | None = None,
) -> list[CheckRun]:
    """Run ``tasks`` in order; ``session`` (already probed) is reused unless it breaks.

    ``on_run`` hears each run as it finishes, so an interrupted caller keeps what was done.
    ``refuse``: modules a fresh worker must not import, and why (see ``Session``).
    """
    runs: list[CheckRun] = []
    try:
        for task in tasks:
            if isolation is Isolation.PROCESS and session is not None:
                session.close()
                session = None
            if session is None or not session.ready:
                if session is not None:
                    session.close()
                progress("starting a fresh worker")
                session = Session(python, probe=False, refuse=refuse)
                started = session.start_up(startup_timeout)
                if not session.ready:
                    how = started.unfinished_stage or "start-up"
                    failed = CheckRun(
                        task.script.id,
                        task.device,
                        Outcome.NOT_RUN,
                        error=f"a fresh worker could not start (stopped at {how})",
                        output=started.output_tail,
                    )
                    runs.append(failed)
                    on_run(failed)
                    continue
            progress(f"running {task.script.id} on {task.device}")
            run = session.run_check(
                task.script.id,
                str(task.script.path),
                task.device,
                timeout,
                args=task.args,
                on_progress=on_step,
            )
            runs.append(run)
            on_run(run)
    except BaseException:
        if session is not None:
            session.close(grace=0)  # NOTE: interrupted (or broken): stop the worker at once
        raise
    finally:
        if session is not None:
            # NOTE: the tasks are done and the worker holds nothing worth an orderly exit:
            # stopped at once, not after the second or so a torch with a CUDA or Level Zero
            # context takes to tear it down while the diagnosis waits.
            session.close(grace=0)
    return runs
