"""The Intel GPU ladder: information on stacks that expect no Intel GPU, the first broken rung
named as the cause on stacks that do.

The GPU facts are **constructed** (no Intel GPU exists here) after the layouts in
tests/probe/test_gpu.py; the XPU torch facts after the Arc A770 of IPEX issue #597.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from builders import ARC, XPU_TORCH, make_env

from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import Status
from ipex_doctor.verdicts.xpu_ladder import ladder_findings, rung_ids

ARC_ON_PCI = {"slot": "0000:03:00.0", "vendor": "0x8086", "device": "0x56a0", "driver": "i915",
              "family": "Arc A-series (Alchemist, DG2)", "drivers": ["i915", "xe"]}  # fmt: skip
NODE = {"path": "/dev/dri/renderD128", "group": "render", "mode": "crw-rw----", "in_group": True,
        "readable": True, "writable": True}  # fmt: skip
LEVEL_ZERO_OK = {"ran": True, "loader": "libze_loader.so.1", "ze_init": "ZE_RESULT_SUCCESS",
                 "drivers": 1, "devices": 1, "gpu_runtime": ["ze_intel_gpu"]}  # fmt: skip
HEALTHY = {"display_devices": [ARC_ON_PCI], "render_nodes": [NODE], "container": False,
           "wsl": False, "dxg": False, "level_zero": LEVEL_ZERO_OK}  # fmt: skip


def xpu_env(gpu: dict[str, Any], *, devices: tuple[dict[str, Any], ...] = (ARC,),
            env_vars: dict[str, str] | None = None, packages: dict[str, str] | None = None,
            ) -> Environment:  # fmt: skip
    env = make_env(packages or {"torch": "2.8.0+xpu"}, devices=devices, torch_facts=XPU_TORCH,
                   env_vars=env_vars)  # fmt: skip
    # NOTE: the device nodes are a host fact of their own; the rest is Host.gpu
    facts = {key: value for key, value in gpu.items() if key != "render_nodes"}
    nodes = tuple(gpu.get("render_nodes") or ())
    return dataclasses.replace(
        env, host=dataclasses.replace(env.host, gpu=facts, render_nodes=nodes)
    )


def statuses(env: Environment) -> dict[str, Status]:
    return {f.id.removeprefix("xpu-rung-"): f.status for f in ladder_findings(env)}


def test_a_healthy_arc_passes_every_rung() -> None:
    found = statuses(xpu_env(HEALTHY))
    assert found["hardware"] is Status.PASS and found["torch"] is Status.PASS
    assert Status.FAIL not in found.values()


def test_a_cpu_stack_without_an_intel_gpu_is_information_only() -> None:
    """This machine's case: no Intel GPU, no XPU build: nothing warns or fails."""
    cpu = make_env({"torch": "2.8.0"})
    cpu = dataclasses.replace(cpu, host=dataclasses.replace(cpu.host, gpu={
        "display_devices": [], "render_nodes": [], "level_zero": {
            "ran": True, "loader": "libze_loader.so.1", "ze_init": "ZE_RESULT_ERROR_UNINITIALIZED",
            "drivers": 0, "devices": 0}}))  # fmt: skip
    findings = ladder_findings(cpu)
    assert [f.id for f in findings] == list(rung_ids())
    assert all(not f.is_problem for f in findings)
    hardware, driver = findings[0], findings[1]
    assert hardware.title == "No Intel GPU on the PCI bus" and hardware.status is Status.SKIP
    assert driver.evidence.summary == "no Intel GPU on the PCI bus to drive"
    assert "nothing here expects an Intel GPU" in hardware.evidence.summary


BROKEN = {
    "hardware": ({**HEALTHY, "display_devices": [
        {"slot": "0000:17:00.0", "vendor": "0x10de", "device": "0x2330", "driver": "nvidia"}]},
        "display devices: 0x10de:0x2330"),
    "driver": ({**HEALTHY, "display_devices": [{**ARC_ON_PCI, "device": "0xe20b", "driver": None,
                                                "drivers": ["xe"]}]}, "xe.force_probe=e20b"),
    "device-nodes": ({**HEALTHY, "render_nodes": [], "container": True}, "--device /dev/dri"),
    "level-zero": ({**HEALTHY, "level_zero": {**LEVEL_ZERO_OK, "ze_init":
                    "ZE_RESULT_ERROR_UNINITIALIZED", "gpu_runtime": []}}, "libze-intel-gpu1"),
}  # fmt: skip


@pytest.mark.parametrize("rung", list(BROKEN))
def test_the_first_broken_rung_is_the_cause_and_the_rest_not_reached(rung: str) -> None:
    gpu, fix = BROKEN[rung]
    findings = ladder_findings(xpu_env(gpu, devices=()))
    by_rung = {f.id.removeprefix("xpu-rung-"): f for f in findings}
    order = [r.removeprefix("xpu-rung-") for r in rung_ids()]
    cause = by_rung[rung]
    assert (
        cause.status is Status.FAIL and "the first broken rung, the cause" in cause.evidence.summary
    )
    assert fix in cause.remediation + cause.evidence.summary
    assert all(by_rung[r].status is Status.PASS for r in order[: order.index(rung)])
    assert all(by_rung[r].status is Status.SKIP for r in order[order.index(rung) + 1 :])


def test_closed_render_nodes_name_the_group_to_join() -> None:
    closed = {**NODE, "readable": False, "writable": False, "in_group": False}
    cause = {f.id: f for f in ladder_findings(xpu_env({**HEALTHY, "render_nodes": [closed]}))}[
        "xpu-rung-device-nodes"]  # fmt: skip
    assert cause.status is Status.FAIL and "usermod -aG render" in cause.remediation


def test_a_selector_that_admits_no_gpu_and_a_sourced_toolkit_are_named() -> None:
    hidden = statuses(xpu_env(HEALTHY, env_vars={"ONEAPI_DEVICE_SELECTOR": "opencl:cpu"}))
    assert hidden["selection"] is Status.FAIL
    shadowed = statuses(xpu_env(HEALTHY, env_vars={"SETVARS_COMPLETED": "1"},
                                packages={"torch": "2.8.0+xpu", "intel-sycl-rt": "2025.1.1"}))  # fmt: skip
    assert shadowed["runtime"] is Status.FAIL


def test_a_cpu_torch_beside_ipex_xpu_fails_at_the_torch_rung() -> None:
    env = make_env({"torch": "2.8.0", "intel-extension-for-pytorch": "2.8.10+xpu"},
                   torch_facts={"version": "2.8.0", "xpu_compiled": False})  # fmt: skip
    env = dataclasses.replace(env, runtime=dataclasses.replace(env.runtime, ran=True),
                              host=dataclasses.replace(env.host, gpu=HEALTHY,
                                                       render_nodes=(NODE,)))  # fmt: skip
    assert statuses(env)["torch"] is Status.FAIL
