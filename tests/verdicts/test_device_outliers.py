"""Devices of one node that differ from their peers, and the finding x device matrix."""

from __future__ import annotations

from builders import make_env
from rich.console import Console

from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.findings import Report, Status
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.reporting.formats.console import render_console
from ipex_doctor.verdicts.device_outliers import device_outliers
from ipex_doctor.verdicts.judge import judge

MAX = {"type": "xpu", "name": "Intel(R) Data Center GPU Max 1550", "total_memory": 68719476736,
       "driver_version": "1.3.29735", "has_fp64": True}  # fmt: skip


def _xpus(*changes: dict[str, object]) -> tuple[dict[str, object], ...]:
    return tuple({**MAX, "index": i, **change} for i, change in enumerate(changes))


def test_odd_device_is_named() -> None:
    """Four cards, one with another driver and less memory: that one is the outlier."""
    env = make_env(
        {"torch": "2.8.0+xpu"},
        devices=_xpus({}, {}, {}, {"driver_version": "1.3.26918", "total_memory": 1}),
    )
    found = device_outliers(env)
    assert [f.device for f in found] == ["xpu:3"]
    assert (
        "driver_version '1.3.26918'" in found[0].evidence.summary and found[0].status is Status.WARN
    )


def test_identical_devices_have_no_outlier() -> None:
    """Identical cards: nothing to report."""
    assert device_outliers(make_env({"torch": "2.8.0+xpu"}, devices=_xpus({}, {}, {}))) == []


def test_slow_device_from_sanity_throughput() -> None:
    """A card with under half the best card's AMP training throughput is an outlier."""
    env = make_env({"torch": "2.8.0+xpu"}, devices=_xpus({}, {}))
    runs = [
        CheckRun(
            "sanity", device, Outcome.OK, result={"phases": {"throughput": {"train_amp": speed}}}
        )
        for device, speed in (("xpu:0", 2000.0), ("xpu:1", 700.0), ("cpu", 50.0))
    ]
    found = device_outliers(env, runs)
    assert [f.device for f in found] == ["xpu:1"] and "700.0 img/s" in found[0].evidence.summary


def test_matrix_of_checks_on_several_devices() -> None:
    """A report whose checks ran on cpu and xpu:0 shows the finding x device matrix."""
    env = make_env(
        {"torch": "2.8.0+xpu", "intel-extension-for-pytorch": "2.8.10+xpu"}, devices=_xpus({})
    )
    runs = {
        "dot-half": [
            CheckRun("dot-half", "cpu", Outcome.OK, result={"reproduced": False, "evidence": "ok"}),
            CheckRun(
                "dot-half", "xpu:0", Outcome.OK, result={"reproduced": True, "evidence": "raised"}
            ),
        ]
    }
    report = Report(
        "0.1.0", "2026-11-21T00:00:00Z", "check", env, judge(env, known_issues.load(), runs=runs)
    )
    console = Console(width=120, record=True, color_system=None)
    console.print(render_console(report))
    text = console.export_text()
    assert "Finding x device" in text and "cpu  xpu:0" in text
