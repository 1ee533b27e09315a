"""fleet-launch: the launcher, the backend each build offers, and the rank -> device map.

Rank facts are constructed in the shape probe/scripts/collective.py reports them (the real ones
come from tests/runs/test_distributed.py on CPU ranks and from two H200s, docs/hardware-runs.md).
"""

from __future__ import annotations

from typing import Any

from ipex_doctor.model.findings import Status
from ipex_doctor.verdicts.launch import launch_finding


def rank(number: int, device: str, **facts: Any) -> dict[str, Any]:
    base = {"rank": number, "local_rank": number, "host": "n1", "device": device,
            "backend": "xccl", "launchers": ["torchrun"], "xpu_build": True,
            "cuda_build": False, "xccl_available": True, "xccl_known": True}  # fmt: skip
    return {"collectives": {**base, **facts}}


def test_each_rank_on_its_own_xpu_with_xccl_passes() -> None:
    found = launch_finding([rank(0, "xpu:0"), rank(1, "xpu:1")])
    assert found.status is Status.PASS
    summary = found.evidence.summary
    assert "launcher: torchrun" in summary and "xccl: an XPU build with XCCL" in summary
    assert "rank 1 (local 1) n1 xpu:1" in summary


def test_two_ranks_on_one_gpu_fail_naming_them() -> None:
    found = launch_finding([rank(0, "xpu:0"), rank(1, "xpu:0")])
    assert found.status is Status.FAIL
    assert "ranks 0, 1 share xpu:0 on n1" in found.evidence.summary
    assert "LOCAL_RANK" in found.remediation


def test_xpu_without_xccl_warns_and_says_why() -> None:
    old = {"backend": "gloo", "xccl_available": False, "xccl_known": False,
           "oneccl_bindings": True}  # fmt: skip
    found = launch_finding([rank(0, "xpu:0", **old), rank(1, "xpu:1", **old)])
    assert found.status is Status.WARN
    assert "this torch predates XCCL; the oneCCL bindings are installed" in found.evidence.summary


def test_cpu_and_cuda_builds_are_explained_not_blamed() -> None:
    cpu = {"backend": "gloo", "xpu_build": False, "xccl_available": False, "launchers": []}
    found = launch_finding([rank(0, "cpu", **cpu), rank(1, "cpu", **cpu)])
    assert found.status is Status.PASS
    assert "a CPU build (no XCCL, no NCCL)" in found.evidence.summary
    assert "none recognised" in found.evidence.summary
    cuda = launch_finding([rank(0, "cuda:0", backend="nccl", xpu_build=False, cuda_build=True)])
    assert "a CUDA build (XCCL is for XPU builds)" in cuda.evidence.summary
