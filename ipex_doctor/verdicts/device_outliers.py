"""Devices of one node that differ from their peers: properties, drivers, throughput.

A server carries 4 to 8 cards (Max-series cards expose tiles as devices); a job fails when one
of them differs. Devices of the same kind are compared property by property, and their sanity
throughput against the best of them.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence

from ipex_doctor.model.environment import Environment, device_label
from ipex_doctor.model.findings import Evidence, Finding, Status
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.verdicts.majority import odd_members
from ipex_doctor.verdicts.registry import spec

_OUTLIER = spec("device-outlier")
PROPERTIES = ("name", "total_memory", "driver_version", "has_fp64", "has_fp16", "max_compute_units",
              "gpu_eu_count", "multi_processor_count", "major", "minor")  # fmt: skip
SLOW_FRACTION = 0.5
"""A device with less than half the best same-kind device's sanity throughput is an outlier."""


def device_outliers(env: Environment, sanity_runs: Sequence[CheckRun] = ()) -> list[Finding]:
    """One ``device-outlier`` finding per device that differs from its same-kind peers."""
    by_kind: dict[str, list[dict[str, object]]] = collections.defaultdict(list)
    for device in env.runtime.devices:
        by_kind[str(device.get("type"))].append(dict(device))
    differences: dict[str, list[str]] = collections.defaultdict(list)
    for devices in by_kind.values():
        if len(devices) < 2:
            continue
        for key in PROPERTIES:
            values = {device_label(d): repr(d.get(key)) for d in devices if key in d}
            for label, odd in odd_members(values).items():
                others = ", ".join(f"{v} x{n}" for v, n in odd.others.items())
                differences[label].append(f"{key} {odd.value} (others: {others})")
    throughput = {
        run.device: float(run.result.get("phases", {}).get("throughput", {}).get("train_amp", 0.0))
        for run in sanity_runs
        if run.outcome is Outcome.OK and run.device != "cpu"
    }
    for kind in {d.split(":")[0] for d in throughput}:
        same = {d: v for d, v in throughput.items() if d.startswith(kind)}
        best = max(same.values(), default=0.0)
        for name, speed in same.items():
            if len(same) > 1 and best and speed < SLOW_FRACTION * best:
                differences[name].append(
                    f"AMP training {speed:.1f} img/s, the best {kind} device {best:.1f}"
                )
    return [
        _OUTLIER.finding(
            Status.WARN,
            Evidence("; ".join(found), {"device": device, "differences": found}),
            title=f"{device} differs from the other devices of this node",
            remediation="Check this device's driver, firmware and placement (PCIe slot, tile mode "
            "ZE_FLAT_DEVICE_HIERARCHY); a job spread over these devices runs at the slowest one's pace.",
            device=device,
        )
        for device, found in sorted(differences.items())
    ]
