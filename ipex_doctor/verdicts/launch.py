"""What a distributed job needs before it starts, from every rank's view: the launcher, the
collective backend this torch build offers (XCCL on XPU), and which device each rank took.

Two ranks of one node on one accelerator halve it for both; an XPU job on a build without XCCL
falls back to gloo, which does not move XPU tensors. Both are named with the ranks involved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ipex_doctor.model.findings import Evidence, Finding, Status
from ipex_doctor.verdicts.registry import spec

_LAUNCH = spec("fleet-launch")


def _why_backend(rank: Mapping[str, Any]) -> str:
    """Why this rank's backend is what it is, in words."""
    backend = rank.get("backend")
    if rank.get("xpu_build"):
        if rank.get("xccl_available"):
            return f"{backend}: an XPU build with XCCL"
        why = "this torch predates XCCL" if not rank.get("xccl_known") else "built without XCCL"
        bindings = "; the oneCCL bindings are installed (backend 'ccl')" if rank.get(
            "oneccl_bindings") else ""  # fmt: skip
        return f"{backend}: an XPU build, but {why}{bindings}"
    if rank.get("cuda_build"):
        return f"{backend}: a CUDA build (XCCL is for XPU builds)"
    return f"{backend}: a CPU build (no XCCL, no NCCL)"


def launch_finding(ranks: Sequence[Mapping[str, Any]]) -> Finding:
    """The ``fleet-launch`` finding from each rank's ``collectives`` facts (rank 0's view):
    two ranks of a node on one device fail, XPU ranks without XCCL warn."""
    facts = sorted((r.get("collectives") or {} for r in ranks), key=lambda f: int(f.get("rank", 0)))
    launchers = sorted({name for f in facts for name in f.get("launchers") or ()})
    placed: dict[tuple[str, str], list[int]] = {}
    for fact in facts:
        if str(fact.get("device", "cpu")) != "cpu":
            placed.setdefault((str(fact.get("host")), str(fact.get("device"))), []).append(
                int(fact.get("rank", -1))
            )
    shared = [f"ranks {', '.join(map(str, r))} share {d} on {h}" for (h, d), r in placed.items()
              if len(r) > 1]  # fmt: skip
    stranded = [f"rank {f.get('rank')}" for f in facts
                if str(f.get("device", "")).startswith("xpu") and not f.get("xccl_available")]  # fmt: skip
    mapping = "; ".join(
        f"rank {f.get('rank')} (local {f.get('local_rank')}) {f.get('host')} {f.get('device')}"
        for f in facts
    )
    backends = sorted({_why_backend(f) for f in facts})
    summary = (
        f"launcher: {', '.join(launchers) or 'none recognised (RANK/WORLD_SIZE set by hand)'}; "
        f"backend {' | '.join(backends)}; {mapping}"
    )
    status = Status.FAIL if shared else (Status.WARN if stranded else Status.PASS)
    if shared:
        summary += "; " + "; ".join(shared)
        remedy = ("Give each rank of a node its own device: set the device from LOCAL_RANK "
                  "(torch.xpu.set_device(local_rank)), and launch no more ranks per node than "
                  "it has devices.")  # fmt: skip
    elif stranded:
        summary += f"; XPU without XCCL on {', '.join(stranded)}"
        remedy = ("Install a torch XPU build with XCCL (torch.distributed.is_xccl_available()) "
                  "from https://download.pytorch.org/whl/xpu.")  # fmt: skip
    else:
        remedy = ""
    return _LAUNCH.finding(
        status, Evidence(summary, {"launchers": launchers, "ranks": facts}), remediation=remedy
    )
