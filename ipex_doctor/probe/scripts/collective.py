"""Join the job's process group, check the collectives, gather every rank's report on rank 0.

Runs inside the doctor's worker under torchrun / mpirun (RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT in the environment; mpirun's OMPI_COMM_WORLD_* / PMI_* are mapped). The backend is
the one the job would use: xccl on XPU when torch.distributed.is_xccl_available(), nccl on CUDA,
gloo on the CPU. Checks: all_reduce and all_gather give the exact expected values, and the
all_reduce bus bandwidth of a few MiB after warm-up. Standard library and torch; Python >= 3.8.
"""

import datetime
import importlib
import importlib.util
import os
import socket
import time
from typing import Any, Dict, List, Optional

_MPI_VARIABLES = (
    ("RANK", ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")),
    ("WORLD_SIZE", ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")),
    ("LOCAL_RANK", ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID")),
)


_LAUNCHERS = (
    ("torchrun", "TORCHELASTIC_RUN_ID"),
    ("mpirun (Open MPI)", "OMPI_COMM_WORLD_RANK"),
    ("mpirun (Intel MPI / MPICH, PMI)", "PMI_RANK"),
    ("Slurm", "SLURM_PROCID"),
)


def _launchers() -> List[str]:
    """The launchers whose variables this rank sees (read before any are mapped)."""
    return [name for name, variable in _LAUNCHERS if variable in os.environ]


def _build(torch: Any, dist: Any) -> Dict[str, Any]:
    """What this torch build offers a job: its accelerator, XCCL, the oneCCL bindings."""
    xpu = getattr(torch, "xpu", None)
    compiled = getattr(xpu, "_is_compiled", None)
    xccl = getattr(dist, "is_xccl_available", None)
    return {
        "xpu_build": bool(compiled()) if callable(compiled) else False,
        "cuda_build": bool(getattr(torch.version, "cuda", None)),
        "xccl_available": bool(xccl()) if callable(xccl) else False,
        "xccl_known": callable(xccl),
        "oneccl_bindings": importlib.util.find_spec("oneccl_bindings_for_pytorch") is not None,
    }


def _environment() -> None:
    """Map mpirun's variables onto torch's env:// names where torchrun's are missing."""
    for name, alternatives in _MPI_VARIABLES:
        if name not in os.environ:
            for alternative in alternatives:
                if alternative in os.environ:
                    os.environ[name] = os.environ[alternative]
                    break
    os.environ.setdefault("LOCAL_RANK", "0")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")


def _backend(dist: Any, device: str) -> str:
    kind = device.split(":")[0]
    if (
        kind == "xpu"
        and callable(getattr(dist, "is_xccl_available", None))
        and dist.is_xccl_available()
    ):
        return "xccl"
    if kind == "cuda" and dist.is_nccl_available():
        return "nccl"
    return "gloo"


def run(
    device: str,
    report: str = "{}",
    timeout: float = 120.0,
    megabytes: int = 4,
    progress: Optional[Any] = None,
) -> Dict[str, Any]:
    """Collectives on ``device`` (``auto``: this rank's accelerator, else cpu); gather ``report``."""
    launchers = _launchers()
    _environment()
    torch = importlib.import_module("torch")
    dist = importlib.import_module("torch.distributed")
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if device == "auto":
        device = "cpu"
        for kind in ("xpu", "cuda"):
            backend_module = getattr(torch, kind, None)
            if backend_module is not None and backend_module.is_available():
                device = "%s:%d" % (kind, local_rank % backend_module.device_count())
                break
    backend = _backend(dist, device)
    kind = device.split(":")[0]
    if kind != "cpu":
        getattr(torch, kind).set_device(device)
    started = time.perf_counter()
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    mine: Dict[str, Any] = {
        "rank": rank,
        "world_size": world,
        "backend": backend,
        "device": device,
        "host": socket.gethostname(),
        "local_rank": local_rank,
        "launchers": launchers,
        "join_seconds": round(time.perf_counter() - started, 3),
    }
    mine.update(_build(torch, dist))

    def sync() -> None:
        if kind != "cpu":
            getattr(torch, kind).synchronize()

    value = torch.full((1024,), float(rank + 1), device=device)
    dist.all_reduce(value)
    expected = world * (world + 1) / 2
    mine["all_reduce_ok"] = bool(torch.all(value == expected).item())
    parts = [torch.zeros(4, device=device) for _ in range(world)]
    dist.all_gather(parts, torch.full((4,), float(rank), device=device))
    mine["all_gather_ok"] = all(bool(torch.all(p == float(i)).item()) for i, p in enumerate(parts))
    payload = torch.ones(megabytes * 1024 * 1024 // 4, device=device)
    for _ in range(2):
        dist.all_reduce(payload)
    sync()
    dist.barrier()
    rounds = 5
    began = time.perf_counter()
    for _ in range(rounds):
        dist.all_reduce(payload)
    sync()
    seconds = (time.perf_counter() - began) / rounds
    algbw = payload.numel() * 4 / seconds / 1e9
    mine["all_reduce_mib"] = megabytes
    mine["all_reduce_ms"] = round(seconds * 1000, 3)
    mine["algbw_gbps"] = round(algbw, 3)
    # NOTE: bus bandwidth as nccl-tests define it for all_reduce: what each link carried.
    mine["busbw_gbps"] = round(algbw * 2 * (world - 1) / world, 3) if world > 1 else round(algbw, 3)
    if progress:
        progress("collectives", 1, 1)
    gathered = [None] * world if rank == 0 else None
    dist.gather_object(
        {"rank": rank, "host": mine["host"], "report": report, "collectives": mine}, gathered, dst=0
    )
    dist.destroy_process_group()
    return {
        "reproduced": None,
        "rank": rank,
        "world_size": world,
        "collectives": mine,
        "ranks": gathered,
    }
