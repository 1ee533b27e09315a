"""Run the runtime probe in a spawned interpreter and turn its records into a ``RuntimeProbe``.

The probe script (``_probes/runtime_probe.py``) reports stage by stage through a result file.
This module reads whatever arrived, even from a process that died half-way, and attributes the
death (exit code, signal, timeout, the last lines it printed) to the stage that was running.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ipex_doctor import resources, spawn
from ipex_doctor.environment import ImportOutcome, RuntimeProbe

DEFAULT_TIMEOUT_S = 180.0
"""Default limit for the runtime probe: ``import torch, intel_extension_for_pytorch`` takes
about 6.4 s on this project's 2-core machines; a hung driver must still end the probe."""

_TAIL_LINES = 25


def _tail(text: str, lines: int = _TAIL_LINES) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def read_records(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The JSON records in ``path`` and the number of lines that were not valid records."""
    records, garbage = [], 0
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return [], 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            garbage += 1
            continue
        if isinstance(record, dict):
            records.append(record)
        else:
            garbage += 1
    return records, garbage


def _import_outcome(data: Mapping[str, Any]) -> ImportOutcome:
    error = data.get("error")
    extension_error = data.get("extension_error")
    if extension_error:
        error = f"{error}\n(loading its native extension says: {extension_error})"
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


def assemble(records: list[dict[str, Any]], run: spawn.Completed | None) -> RuntimeProbe:
    """Build the ``RuntimeProbe`` from the probe's records and how its process ended."""
    imports: list[ImportOutcome] = []
    torch: dict[str, Any] = {}
    ipex: dict[str, Any] = {}
    device_groups: dict[str, dict[str, Any]] = {}
    open_stages: list[str] = []
    done = False
    for record in records:
        event, stage = record.get("event"), record.get("stage")
        if event == "begin" and isinstance(stage, str):
            open_stages.append(stage)
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
    output = "" if run is None else _tail(run.stdout + "\n" + run.stderr)
    if unfinished is not None and unfinished.startswith("import ") and run is not None:
        module = unfinished.removeprefix("import ")
        how = run.describe_end()
        imports.append(
            ImportOutcome(
                module=module,
                ok=False,
                error_type="timeout" if run.timed_out else "died",
                error=f"the interpreter ended while importing {module}: {how}",
                output=output,
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
        duration_s=0.0 if run is None else round(run.duration_s, 3),
        returncode=None if run is None else run.returncode,
        signal=None if run is None or run.timed_out else run.signal_name,
        timed_out=bool(run and run.timed_out),
        unfinished_stage=None if done else (unfinished or "start-up"),
        imports=tuple(imports),
        torch=torch,
        ipex=ipex,
        devices=tuple(devices),
        output_tail=output,
    )


def probe(python: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> RuntimeProbe:
    """Run the runtime probe in ``python``; every failure of the probe becomes data."""
    script = resources.path("_probes/runtime_probe.py")
    with tempfile.TemporaryDirectory(prefix="ipex-doctor-") as scratch:
        result = Path(scratch) / "records.jsonl"
        result.touch()
        env = dict(os.environ)
        # NOTE: -u and PYTHONUNBUFFERED: what an import prints right before os._exit must reach
        # the pipe; the probe never writes .pyc files into the examined environment.
        env["PYTHONUNBUFFERED"] = "1"
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        try:
            run = spawn.run(
                [python, "-u", str(script), str(result)], timeout=timeout, env=env, cwd=scratch
            )
        except OSError as exc:
            return RuntimeProbe(ran=False, skip_reason=f"could not start {python}: {exc.strerror}")
        records, _garbage = read_records(result)
    return assemble(records, run)
