"""Planning the ResNet-50 AMP sanity run: its options, its script, the devices it runs on.

The run itself is ``probe/scripts/resnet_sanity.py`` in the worker; its findings are judged in
``verdicts/sanity_findings.py``. Here: what the CLI's options mean, and whether (and where) it runs.
"""

from __future__ import annotations

from ipex_doctor import resources
from ipex_doctor.model.device_spec import ALL, AUTO, DeviceSpec
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.runs.catalog import CheckScript
from ipex_doctor.runs.device_selection import first_device
from ipex_doctor.runs.runner import Task
from ipex_doctor.runs.sanity_options import SanityOptions

TASK_ID = "sanity"
"""The sanity run's id among the runner's tasks (its findings are ``sanity-*``)."""


def script() -> CheckScript:
    """The sanity run as a task the worker can run like a check."""
    return CheckScript(
        id=TASK_ID,
        path=resources.path("probe/scripts/resnet_sanity.py"),
        title="ResNet-50 AMP sanity train/infer run",
        doc="",
    )


def plan(
    env: Environment, options: SanityOptions, device_spec: DeviceSpec = AUTO, *, rank: int = 0
) -> tuple[list[Task], list[CheckRun]]:
    """The sanity run's tasks, or the runs that say why it does not run.

    ``device_spec`` (a validated ``--device``): ``all`` runs it on every device, ``auto`` on
    the first accelerator (else the cpu), ``local`` on this rank's first device, a device or
    kind on that one.

    A device asked for that is absent is an error (the user's request cannot be met); torch
    that does not import, or no usable torchvision, makes it not applicable.
    """
    torch_import = env.runtime.import_of("torch")
    if torch_import is None or not torch_import.ok:
        return [], [_not_run(str(device_spec), "torch does not import")]
    if device_spec == ALL:
        # NOTE: --device all: a sanity run on every device, so a slow or broken card shows.
        devices = env.device_labels
    else:
        device, missing = first_device(device_spec, env, rank=rank)
        if device is None and not missing:
            return [], [_not_run(str(device_spec), f"local rank {rank} of a node without accelerators: "
                                 "the node's first rank runs it")]  # fmt: skip
        if device is None:
            absent = CheckRun(
                TASK_ID, missing, Outcome.DEVICE_ABSENT, error=f"{missing} is not present"
            )
            return [], [absent]
        devices = [device]
    cannot = _without_torchvision(env)
    if cannot is not None:
        return [], [_not_run(str(device_spec), cannot, needs="torchvision")]
    return [Task(script(), d, options.args()) for d in devices], []


def _not_run(device_spec: str, why: str, *, needs: str | None = None) -> CheckRun:
    result = {"needs": needs} if needs else {}
    return CheckRun(TASK_ID, device_spec, Outcome.SKIPPED, result=result, error=why)


def _without_torchvision(env: Environment) -> str | None:
    """Why the sanity run cannot run in ``env`` (it needs torchvision's ResNet-50), or None."""
    if env.package("torchvision") is None:
        return "torchvision is not installed (the sanity run trains torchvision's ResNet-50)"
    outcome = env.runtime.import_of("torchvision")
    if outcome is not None and not outcome.ok:
        return "torchvision does not import (see the torchvision-broken finding)"
    return None
