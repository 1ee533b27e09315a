"""The accelerator the checks use first is initialised beside the probe's imports
(``--prepare``): which device is chosen, and that preparing one never fails the probe."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from typing import Any

import pytest
from conftest import REPO, real_env

from ipex_doctor.model.device_spec import DeviceSpec
from ipex_doctor.probe.session import Session
from ipex_doctor.runs.device_selection import accelerators_to_prepare

_SCRIPT = REPO / "ipex_doctor" / "probe" / "scripts" / "worker.py"
_SPEC = importlib.util.spec_from_file_location("doctor_worker", _SCRIPT)
assert _SPEC is not None and _SPEC.loader is not None
worker = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(worker)


@pytest.mark.parametrize(
    ("spec", "rank", "candidates"),
    [
        ("cpu", 0, ()),
        ("auto", 0, ("xpu:0", "cuda:0")),
        ("all", 0, ("xpu:0", "cuda:0")),
        ("auto", 3, ()),  # a further rank: the first GPU is another rank's
        ("local", 3, ("xpu:3", "cuda:3")),
        ("cuda", 0, ("cuda:0",)),
        ("cuda:1", 0, ("cuda:1",)),
        ("xpu:2", 5, ("xpu:2",)),  # named: that one, whatever the rank
    ],
)
def test_the_device_prepared_is_the_one_the_run_uses_first(
    spec: str, rank: int, candidates: tuple[str, ...]
) -> None:
    assert accelerators_to_prepare(DeviceSpec.parse(spec), rank) == candidates


def _group(kind: str, count: int) -> dict[str, Any]:
    return {"type": kind, "available": count > 0, "count": count, "devices": [], "messages": []}


@pytest.mark.parametrize(
    ("xpus", "cudas", "candidates", "chosen"),
    [
        (0, 1, ["xpu:0", "cuda:0"], "cuda:0"),
        (2, 1, ["xpu:0", "cuda:0"], "xpu:0"),
        (0, 0, ["xpu:0", "cuda:0"], None),  # no accelerator: nothing to prepare
        (0, 4, ["xpu:5", "cuda:5"], "cuda:1"),  # local rank 5 of 4 GPUs, as local_devices
        (0, 2, [], None),
    ],
)
def test_the_first_candidate_present_is_chosen(
    xpus: int, cudas: int, candidates: list[str], chosen: str | None
) -> None:
    devices = [_group("xpu", xpus), _group("cuda", cudas)]
    assert worker._first_present(devices, candidates) == chosen


@pytest.mark.envs
@pytest.mark.parametrize("device", ["cpu", "cuda:0"])
def test_preparing_a_device_records_and_never_raises(device: str) -> None:
    """In a real torch (a CPU build): the CPU prepares; a CUDA device that is not there is an
    error recorded, not raised (the checks meet it again and judge it)."""
    code = (
        "import importlib.util, json, sys, torch\n"
        f"spec = importlib.util.spec_from_file_location('w', {str(_SCRIPT)!r})\n"
        "w = importlib.util.module_from_spec(spec); spec.loader.exec_module(w)\n"
        f"out = {{}}; w._prepare(torch, {device!r}, out); print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [real_env("reference"), "-c", code], capture_output=True, text=True, timeout=300,
        check=True,
    )  # fmt: skip
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["seconds"] >= 0
    assert ("error" in outcome) is (device != "cpu"), outcome


@pytest.mark.envs
def test_a_probe_asked_to_prepare_an_absent_device_is_the_plain_probe() -> None:
    """No accelerator here: the probe runs as without ``--prepare`` (no preparing stage, the
    same imports), and the worker then serves checks."""
    session = Session(real_env("reference"), prepare=("xpu:0", "cuda:0"))
    try:
        probe = session.start_up(300)
        assert session.ready and probe.unfinished_stage is None
        assert all(i.ok for i in probe.imports), probe.imports
        assert not [r for r in session.records if str(r.get("stage", "")).startswith("prepare")]
    finally:
        session.close(grace=0)
