"""Which devices a run uses: ``--device`` specs against the devices the probe found."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from ipex_doctor.errors import DoctorError
from ipex_doctor.model.environment import Environment

_DEVICE_SPEC = re.compile(r"^(auto|all|local|cpu|xpu|cuda)(:\d+)?$")
LOCAL = "local"
"""This rank's device under a launcher: the accelerator at its local rank, plus the CPU on the
node's first local rank (node-wide checks run once per node, each GPU once per job)."""
_LOCAL_RANK_VARIABLES = (
    "LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "MPI_LOCALRANKID",
    "SLURM_LOCALID",
)


def parse_device_spec(spec: str) -> str:
    """Validate a ``--device`` value (auto, all, local, cpu, xpu, xpu:N, cuda, cuda:N)."""
    spec = spec.strip().lower()
    match = _DEVICE_SPEC.match(spec)
    if match is None or (match.group(2) and match.group(1) in ("auto", "all", LOCAL, "cpu")):
        raise DoctorError(
            f"--device {spec!r}: not a device",
            tip="use auto, all, local, cpu, xpu, xpu:N, cuda or cuda:N",
        )
    return spec


def local_rank(environ: Mapping[str, str] | None = None) -> int:
    """This process's rank on its node, as torchrun, mpirun or Slurm set it (0 without one)."""
    environ = os.environ if environ is None else environ
    for variable in _LOCAL_RANK_VARIABLES:
        value = environ.get(variable, "").strip()
        if value.isdigit():
            return int(value)
    return 0


def accelerators_to_prepare(spec: str, rank: int) -> tuple[str, ...]:
    """The accelerator a run with ``spec`` uses first, as candidates by kind (xpu, then cuda),
    for the probe's worker to initialise while it imports the rest (``()`` for ``cpu``, and for
    ``auto``/``all`` on a further local rank, whose first GPU is another rank's)."""
    kind, _, index = spec.partition(":")
    if kind == "cpu":
        return ()
    if kind == LOCAL:
        return (f"xpu:{rank}", f"cuda:{rank}")
    if kind in ("auto", "all"):
        return ("xpu:0", "cuda:0") if rank == 0 else ()
    return (f"{kind}:{index or 0}",)


def local_devices(env: Environment, rank: int) -> list[str]:
    """The devices of ``LOCAL``: the ``rank``-th accelerator of the first kind present (xpu,
    then cuda, as a job would pick), and ``cpu`` when ``rank`` is 0."""
    devices = ["cpu"] if rank == 0 else []
    for kind in ("xpu", "cuda"):
        mine = [d for d in env.device_labels if d.split(":")[0] == kind]
        if mine:
            return [mine[rank % len(mine)], *devices]
    return devices


def select_devices(spec: str, env: Environment, *, rank: int = 0) -> tuple[list[str], list[str]]:
    """The devices ``spec`` names that exist here, and the ones it names that do not
    (``rank``: the local rank, for ``local``)."""
    present = env.device_labels
    if spec == LOCAL:
        return local_devices(env, rank), []
    if spec in ("auto", "all"):
        return present, []
    if ":" in spec:
        return ([spec], []) if spec in present else ([], [spec])
    matching = [d for d in present if d.split(":")[0] == spec]
    return (matching, []) if matching else ([], [spec])


def first_device(spec: str | None, env: Environment, *, rank: int = 0) -> tuple[str | None, str]:
    """One device for a run: the one ``spec`` names, else the first accelerator, else cpu
    (``local``: this rank's first device; ``(None, "")`` for a further rank of a CPU node).

    Returns ``(device, "")``, or ``(None, spec)`` when the device asked for is not present.
    """
    if spec == LOCAL:
        mine = local_devices(env, rank)
        return (mine[0] if mine else None), ""
    present = env.device_labels
    if spec in (None, "auto", "all"):
        return (present[1] if len(present) > 1 else "cpu"), ""
    assert spec is not None
    matching = [d for d in present if d == spec or d.split(":")[0] == spec]
    return (matching[0], "") if matching else (None, spec)
