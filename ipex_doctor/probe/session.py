"""The spawned worker session: the runtime probe, then check scripts, in one interpreter.

A ``Session`` starts ``probe/scripts/worker.py`` in the examined interpreter. The worker imports
torch, torchvision and IPEX once (that import is the floor of every diagnosis: about 6 s for
torch + IPEX on this project's machines), reports the probe, then runs check scripts on demand.
This module reads whatever arrived, even from a worker that died half-way, and attributes the
death (exit code, signal, timeout, the last lines it printed) to the stage that was running.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ipex_doctor import resources
from ipex_doctor.model.environment import ImportOutcome, RuntimeProbe
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.probe import fatal_signal, spawn

"""Default limit for the probe (the imports): a hung driver must still end the probe."""

_TAIL_LINES = 25

StepProgress = Callable[[str, int, int], None]
"""Progress of a phase inside a check: ``(phase, done, total)``."""

RAISE_LIMIT = "the limit is --timeout; raise it (e.g. --timeout 600) on a slow or loaded machine"
"""Appended to every timeout the user can hit, so the message says how to get past it."""


def _tail(text: str, lines: int = _TAIL_LINES) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _import_outcome(data: Mapping[str, Any]) -> ImportOutcome:
    error = data.get("error")
    extension_error = data.get("extension_error")
    if extension_error:
        error = f"{error} (loading its native extension says: {extension_error})"
    return ImportOutcome(
        module=str(data.get("module", "?")),
        ok=bool(data.get("ok", False)),
        version=data.get("version"),
        seconds=data.get("seconds"),
        error_type=data.get("error_type"),
        error=error,
        output=str(data.get("output", "")),
        missing_library=data.get("missing_library"),
    )


def assemble(records: list[dict[str, Any]], run: spawn.Completed) -> RuntimeProbe:
    """Build the ``RuntimeProbe`` from the worker's records and how its process stood."""
    imports: list[ImportOutcome] = []
    torch: dict[str, Any] = {}
    ipex: dict[str, Any] = {}
    device_groups: dict[str, dict[str, Any]] = {}
    open_stages: list[str] = []
    done = False
    libraries: list[str] = []
    roots: list[str] = []
    carriers: list[str] = []
    for record in records:
        event, stage = record.get("event"), record.get("stage")
        if event == "begin" and isinstance(stage, str):
            open_stages.append(stage)
            if isinstance(record.get("sys_path"), list):
                roots = [str(p) for p in record["sys_path"]]
            if isinstance(record.get("carriers"), list):
                carriers = [str(p) for p in record["carriers"] if p]
        elif event == "loading" and isinstance(record.get("library"), str):
            libraries.append(record["library"])
        elif event == "end":
            if stage in open_stages:
                open_stages.remove(stage)
            if isinstance(record.get("import"), dict):
                imports.append(_import_outcome(record["import"]))
            if isinstance(record.get("torch"), dict):
                torch = record["torch"]
            if isinstance(record.get("ipex"), dict):
                ipex = record["ipex"]
            for group in record.get("devices") or ():
                if isinstance(group, dict) and isinstance(group.get("type"), str):
                    # NOTE: a later report of the same kind (after the IPEX import) wins.
                    if group.get("available") or group["type"] not in device_groups:
                        device_groups[group["type"]] = group
        elif event == "done":
            done = True
    unfinished = open_stages[-1] if open_stages else None
    # NOTE: faulthandler's stack is kept in the import's ``fatal``; the tail keeps what was
    # printed before it.
    output = _tail(run.stdout + "\n" + fatal_signal.without_stack(run.stderr))
    if not done and unfinished is not None and unfinished.startswith("import "):
        module = unfinished.removeprefix("import ")
        how = run.describe_end() + (f" ({RAISE_LIMIT})" if run.timed_out else "")
        fatal = None
        if run.signal_name is not None and not run.timed_out:
            fatal = fatal_signal.read(run.signal_name, run.stderr, libraries, roots, carriers)
            where = fatal_signal.describe(fatal)
            how = f"{how} ({run.signal_meaning})" if run.signal_meaning else how
            how += f" {where}" if where else ""
        imports.append(
            ImportOutcome(
                module=module,
                ok=False,
                error_type="timeout" if run.timed_out else "died",
                error=f"the interpreter ended while importing {module}: {how}",
                output=output,
                fatal=fatal,
            )
        )
    devices: list[dict[str, Any]] = []
    availability: dict[str, Any] = {}
    for kind, group in sorted(device_groups.items()):
        availability[kind] = {
            "available": bool(group.get("available")),
            "count": int(group.get("count") or 0),
            "messages": [str(m) for m in group.get("messages") or ()],
        }
        devices.extend(dict(d) for d in group.get("devices") or () if isinstance(d, dict))
    if availability:
        torch = {**torch, "accelerators": availability}
    return RuntimeProbe(
        ran=True,
        duration_s=round(run.duration_s, 3),
        returncode=run.returncode,
        signal=None if run.timed_out else run.signal_name,
        timed_out=run.timed_out,
        unfinished_stage=None if done else (unfinished or "start-up"),
        imports=tuple(imports),
        torch=torch,
        ipex=ipex,
        devices=tuple(devices),
        output_tail="" if done else output,
    )


class Session:
    """One worker process in the examined interpreter."""

    def __init__(
        self,
        python: str,
        *,
        probe: bool = True,
        environ: Mapping[str, str] | None = None,
        only_import: str | None = None,
        refuse: Mapping[str, str] | None = None,
        prepare: Sequence[str] = (),
    ) -> None:
        """Start the worker; raises ``OSError`` when ``python`` cannot be started.

        ``only_import`` makes a worker that imports that one module in a fresh interpreter,
        reports it and exits (see ``fresh_import``). ``refuse`` maps modules the worker must
        not import (their import killed an interpreter) to why: an import of one of them, by
        the worker or a check, raises ImportError with that reason. ``prepare`` names candidate
        accelerators (``cuda:0``...): the probe initialises the first one present (its context,
        BLAS and convolution libraries) in a thread while it imports torchvision and IPEX, so
        the checks do not pay for it after the imports.
        """
        script = str(resources.path("probe/scripts/worker.py"))
        env = dict(os.environ if environ is None else environ)
        # NOTE: unbuffered, so what an import prints right before os._exit reaches the pipe;
        # and no .pyc files written into the examined environment.
        env["PYTHONUNBUFFERED"] = "1"
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        extra = [] if probe else ["--no-probe"]
        if only_import is not None:
            extra = ["--import", only_import]
        for device in prepare:
            extra += ["--prepare", device]
        for module, why in (refuse or {}).items():
            extra += ["--refuse", f"{module}={why}"]
        self.worker = spawn.Worker(lambda fd: [python, "-u", script, str(fd), *extra], env=env)
        self.records: list[dict[str, Any]] = []
        self.ready = False

    def _pending(self) -> spawn.Completed:
        elapsed = time.monotonic() - self.worker.started
        return spawn.Completed(self.worker.argv, None, False, elapsed, "", "")

    def start_up(self, timeout: float) -> RuntimeProbe:
        """Wait for the probe (or, with ``probe=False``, the imports) to finish."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                record = self.worker.next_record(deadline - time.monotonic())
            except spawn.WorkerTimeout:
                return assemble(self.records, self.worker.close(timed_out=True))
            if record is None:
                return assemble(self.records, self.worker.close())
            self.records.append(record)
            if record.get("event") == "done":
                self.ready = self.worker.alive()
                probe = assemble(self.records, self._pending())
                if not self.ready:
                    self.worker.close()
                return probe

    def run_check(
        self,
        check_id: str,
        path: str,
        device: str,
        timeout: float,
        *,
        args: Mapping[str, Any] | None = None,
        on_progress: StepProgress | None = None,
    ) -> CheckRun:
        """Run one check; a crash, hang or broken device ends this session (``ready`` False).

        ``args`` are passed to the script's ``run(device, **args)``; a script that takes a
        ``progress`` argument reports its phases through ``on_progress``. ``timeout`` bounds the
        time without news: a check that reports progress (the sanity run does, step by step)
        gets ``timeout`` seconds again after each report, so a loaded machine that makes the
        run slow does not turn it into a timeout, while a hang is still caught.
        """
        key = f"{check_id}@{device}"
        started = time.monotonic()
        task = {"id": check_id, "path": path, "device": device, "args": dict(args or {})}
        if not self.ready or not self.worker.send(task):
            self.ready = False
            return CheckRun(check_id, device, Outcome.NOT_RUN, error="the worker was not running")
        deadline = started + timeout
        while True:
            try:
                record = self.worker.next_record(deadline - time.monotonic())
            except spawn.WorkerTimeout:
                end = self.worker.close(timed_out=True)
                self.ready = False
                quiet_for = (
                    "did not finish" if deadline == started + timeout else "made no progress"
                )
                return CheckRun(
                    check_id,
                    device,
                    Outcome.TIMEOUT,
                    error=f"{quiet_for} within {timeout:.0f} s and was stopped ({RAISE_LIMIT})",
                    output=_tail(end.stdout + "\n" + end.stderr, 10),
                    seconds=round(time.monotonic() - started, 3),
                )
            if record is None:
                end = self.worker.close()
                self.ready = False
                return CheckRun(
                    check_id,
                    device,
                    Outcome.CRASHED,
                    error=f"the worker died running it: {end.describe_end()}",
                    output=_tail(end.stdout + "\n" + end.stderr, 10),
                    seconds=round(time.monotonic() - started, 3),
                )
            if record.get("event") == "progress" and record.get("task") == key:
                deadline = time.monotonic() + timeout
            if record.get("event") == "progress" and record.get("task") == key and on_progress:
                on_progress(
                    str(record.get("phase")),
                    int(record.get("done") or 0),
                    int(record.get("total") or 0),
                )
            if record.get("event") == "end" and record.get("task") == key:
                return self._finished(check_id, device, record)

    def _finished(self, check_id: str, device: str, record: Mapping[str, Any]) -> CheckRun:
        seconds = float(record.get("seconds") or 0.0)
        output = str(record.get("output") or "")
        if record.get("device_error"):
            self.close()
            return CheckRun(
                check_id,
                device,
                Outcome.DEVICE_BROKEN,
                result=dict(record.get("result") or {}),
                error=f"{device} no longer works after the check: {record['device_error']}",
                output=output,
                seconds=seconds,
            )
        if not record.get("ok"):
            error = f"{record.get('error_type')}: {record.get('error')}"
            trace = str(record.get("traceback") or "")
            return CheckRun(
                check_id,
                device,
                Outcome.EXCEPTION,
                error=error,
                output=_tail(trace or output, 12),
                seconds=seconds,
            )
        return CheckRun(
            check_id,
            device,
            Outcome.OK,
            result=dict(record.get("result") or {}),
            output=output,
            seconds=seconds,
        )

    def close(self, *, grace: float = 5.0) -> None:
        """End the worker (its whole process group), after ``grace`` seconds to exit by itself.

        On an interrupt the caller passes ``grace=0``: Ctrl-C must stop the doctor at once,
        not after the worker has been given time to finish what it was doing.
        """
        self.ready = False
        self.worker.close(grace=grace)


def fresh_import(
    python: str, module: str, timeout: float, environ: Mapping[str, str] | None = None
) -> ImportOutcome | None:
    """What ``import MODULE`` does in a fresh interpreter (``None``: it could not start)."""
    try:
        session = Session(python, probe=False, environ=environ, only_import=module)
    except OSError:
        return None
    try:
        probe = session.start_up(timeout)
    finally:
        session.close()
    return probe.import_of(module)
