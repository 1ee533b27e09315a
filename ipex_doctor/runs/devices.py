"""Which devices a run uses: ``--device`` specs against the devices the probe found."""

from __future__ import annotations

import re

from ipex_doctor.errors import DoctorError
from ipex_doctor.model.environment import Environment

_DEVICE_SPEC = re.compile(r"^(auto|all|cpu|xpu|cuda)(:\d+)?$")


def parse_device_spec(spec: str) -> str:
    """Validate a ``--device`` value (auto, all, cpu, xpu, xpu:N, cuda, cuda:N)."""
    spec = spec.strip().lower()
    match = _DEVICE_SPEC.match(spec)
    if match is None or (match.group(2) and match.group(1) in ("auto", "all", "cpu")):
        raise DoctorError(
            f"--device {spec!r}: not a device",
            tip="use auto, all, cpu, xpu, xpu:N, cuda or cuda:N",
        )
    return spec


def select_devices(spec: str, env: Environment) -> tuple[list[str], list[str]]:
    """The devices ``spec`` names that exist here, and the ones it names that do not."""
    present = env.device_labels
    if spec in ("auto", "all"):
        return present, []
    if ":" in spec:
        return ([spec], []) if spec in present else ([], [spec])
    matching = [d for d in present if d.split(":")[0] == spec]
    return (matching, []) if matching else ([], [spec])


def first_device(spec: str | None, env: Environment) -> tuple[str | None, str]:
    """One device for a run: the one ``spec`` names, else the first accelerator, else cpu.

    Returns ``(device, "")``, or ``(None, spec)`` when the device asked for is not present.
    """
    present = env.device_labels
    if spec in (None, "auto", "all"):
        return (present[1] if len(present) > 1 else "cpu"), ""
    assert spec is not None
    matching = [d for d in present if d == spec or d.split(":")[0] == spec]
    return (matching[0], "") if matching else (None, spec)
