"""Which devices a run uses: ``--device`` specs against the devices the probe found."""

from __future__ import annotations

import os
from collections.abc import Mapping

from ipex_doctor.errors import DoctorError
from ipex_doctor.model.device_spec import LOCAL, DeviceSpec
from ipex_doctor.model.environment import Environment

_LOCAL_RANK_VARIABLES = (
    "LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "MPI_LOCALRANKID",
    "SLURM_LOCALID",
)


def parse_device_spec(spec: str) -> DeviceSpec:
    """Validate a ``--device`` value (auto, all, local, cpu, xpu, xpu:N, cuda, cuda:N)."""
    try:
        return DeviceSpec.parse(spec)
    except ValueError:
        raise DoctorError(
            f"--device {spec.strip().lower()!r}: not a device",
            tip="use auto, all, local, cpu, xpu, xpu:N, cuda or cuda:N",
        ) from None


def local_rank(environ: Mapping[str, str] | None = None) -> int:
    """This process's rank on its node, as torchrun, mpirun or Slurm set it (0 without one)."""
    environ = os.environ if environ is None else environ
    for variable in _LOCAL_RANK_VARIABLES:
        value = environ.get(variable, "").strip()
        if value.isdigit():
            return int(value)
    return 0


def accelerators_to_prepare(spec: DeviceSpec, rank: int) -> tuple[str, ...]:
    """The accelerator a run with ``spec`` uses first, as candidates by kind (xpu, then cuda),
    for the probe's worker to initialise while it imports the rest (``()`` for ``cpu``, and for
    ``auto``/``all`` on a further local rank, whose first GPU is another rank's)."""
    if spec.kind == "cpu":
        return ()
    if spec == LOCAL:
        return (f"xpu:{rank}", f"cuda:{rank}")
    if spec.selects:
        return ("xpu:0", "cuda:0") if rank == 0 else ()
    return (f"{spec.kind}:{spec.index or 0}",)


def local_devices(env: Environment, rank: int) -> list[str]:
    """The devices of ``--device local`` (this rank's device under a launcher): the ``rank``-th accelerator of the first kind present (xpu,
    then cuda, as a job would pick), and ``cpu`` when ``rank`` is 0."""
    devices = ["cpu"] if rank == 0 else []
    for kind in ("xpu", "cuda"):
        mine = [d for d in env.device_labels if d.split(":")[0] == kind]
        if mine:
            return [mine[rank % len(mine)], *devices]
    return devices


def select_devices(
    spec: DeviceSpec, env: Environment, *, rank: int = 0
) -> tuple[list[str], list[str]]:
    """The devices ``spec`` names that exist here, and the ones it names that do not
    (``rank``: the local rank, for ``local``)."""
    present = env.device_labels
    if spec == LOCAL:
        return local_devices(env, rank), []
    if spec.selects:
        return present, []
    if spec.index is not None:
        return ([str(spec)], []) if str(spec) in present else ([], [str(spec)])
    matching = [d for d in present if d.split(":")[0] == spec.kind]
    return (matching, []) if matching else ([], [str(spec)])


def first_device(
    spec: DeviceSpec | None, env: Environment, *, rank: int = 0
) -> tuple[str | None, str]:
    """One device for a run: the one ``spec`` names, else the first accelerator, else cpu
    (``local``: this rank's first device; ``(None, "")`` for a further rank of a CPU node).

    Returns ``(device, "")``, or ``(None, spec)`` when the device asked for is not present.
    """
    if spec == LOCAL:
        mine = local_devices(env, rank)
        return (mine[0] if mine else None), ""
    present = env.device_labels
    if spec is None or spec.selects:
        return (present[1] if len(present) > 1 else "cpu"), ""
    named = str(spec)
    kind_only = spec.index is None
    matching = [d for d in present if d == named or (kind_only and d.split(":")[0] == spec.kind)]
    return (matching[0], "") if matching else (None, named)
