"""Facts about the machine, read without importing torch: OS, CPU ISA, memory, GPU nodes."""

from __future__ import annotations

import dataclasses
import grp
import os
import platform
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ipex_doctor import resources
from ipex_doctor.model.environment import Host
from ipex_doctor.probe import proc_table, spawn

ISA_TIMEOUT_S = 60.0
"""A bare interpreter start; generous because an emulated one (qemu-user) takes seconds."""

# NOTE: the ISA flags PyTorch and IPEX dispatch on (IPEX isa_dynamic_dispatch.md: AVX2,
# AVX2_VNNI, AVX512, AVX512_VNNI, AVX512_BF16, AMX, AVX512_FP16) plus the ones the BF16
# weight prepack asserts on (avx512bw/vl/dq, avx_ne_convert). Names as in /proc/cpuinfo.
ISA_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx_vnni",
    "avx_ne_convert",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512dq",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
    "amx_fp16",
)


def _cpuinfo() -> tuple[str, set[str]]:
    model, flags = "", set[str]()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and not model:
                    model = value.strip()
                elif key == "flags" and not flags:
                    flags = set(value.split())
                if model and flags:
                    break
    except OSError:
        pass
    return model or platform.processor(), flags


def _os_release() -> str:
    try:
        info = platform.freedesktop_os_release()
    except OSError:
        return f"{platform.system()} {platform.release()}"
    return info.get("PRETTY_NAME") or info.get("NAME", platform.system())


def render_nodes(root: Path = Path("/")) -> tuple[dict[str, Any], ...]:
    """``/dev/dri/renderD*``: whether this user may open each, and the group that owns it
    (``root`` moves ``/dev`` for the tests' fixture trees)."""
    nodes = []
    groups = set(os.getgroups()) | {os.getegid()}
    for node in sorted((root / "dev/dri").glob("renderD*")):
        try:
            info = node.stat()
        except OSError:
            continue
        try:
            group = grp.getgrgid(info.st_gid).gr_name
        except KeyError:
            group = str(info.st_gid)
        nodes.append({
            "path": f"/dev/dri/{node.name}",
            "group": group,
            "mode": stat.filemode(info.st_mode),
            "in_group": info.st_gid in groups,
            "readable": os.access(node, os.R_OK),
            "writable": os.access(node, os.W_OK),
        })  # fmt: skip
    return tuple(nodes)


def executable_isa(
    python: str, *, timeout: float = ISA_TIMEOUT_S, env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The instruction sets ``python``'s own process can execute, from CPUID run in a spawned
    ``python`` (``probe/scripts/cpu_isa.py``): ``{"source": "cpuid", "flags": [...], ...}``, or
    ``{"source": None, "why": ...}`` when it could not be asked (never raises)."""
    with start_executable_isa(python, timeout=timeout, env=env) as probe:
        return executable_isa_of(probe)


def start_executable_isa(
    python: str, *, timeout: float = ISA_TIMEOUT_S, env: Mapping[str, str] | None = None
) -> spawn.JsonScript:
    """``executable_isa``'s probe, started (the doctor works while it runs); its answer is
    ``executable_isa_of`` it. Leaving it as a context manager kills an unanswered probe."""
    script = str(resources.path("probe/scripts/cpu_isa.py"))
    # NOTE: without site: CPUID is the executable's and the CPU's, and cpu_isa.py needs the
    # standard library alone; the environment's .pth hooks only delayed the answer
    return spawn.JsonScript(
        python, script, timeout=timeout, env=env, what="the CPUID probe", site=False
    )


def executable_isa_of(probe: spawn.JsonScript) -> dict[str, Any]:
    """What ``executable_isa`` returns, from its started probe (waited for)."""
    answer, why = probe.answer()
    return answer if answer is not None else {"source": None, "why": why}


def with_executable_isa(machine: Host, isa: Mapping[str, Any]) -> Host:
    """``machine`` with the ISA flags the examined process can execute, when CPUID answered.

    /proc/cpuinfo is the host kernel's view: under an emulator it lists the host's flags, not
    the emulated CPU's, and a hypervisor may list flags whose register state the OS does not
    enable. The flags that matter are the ones the examined interpreter can run, so CPUID wins;
    a disagreement is kept in ``isa_note`` as evidence.
    """
    if isa.get("source") != "cpuid":
        why = str(isa.get("why") or "CPUID could not be asked")
        return dataclasses.replace(machine, isa_source="/proc/cpuinfo", isa_note=why)
    executable = set(isa.get("flags") or ())
    flags = tuple(flag for flag in ISA_FLAGS if flag in executable)
    listed_only = [f for f in machine.cpu_flags if f not in executable]
    notes = []
    if listed_only:
        notes.append(
            f"/proc/cpuinfo lists {', '.join(listed_only)}, which this interpreter's process "
            "cannot execute (an emulator or the hypervisor shows the host's CPU)"
        )
    model = machine.cpu_model
    brand = " ".join(str(isa.get("brand") or "").split())
    if brand and brand != " ".join(model.split()):
        # NOTE: the kernel names the host's CPU; the process runs on the one CPUID names
        # (under qemu-user, the emulated model). Equal names keep the kernel's spelling.
        notes.append(f"/proc/cpuinfo names the host's CPU {model!r}")
        model = brand
    return dataclasses.replace(
        machine, cpu_model=model, cpu_flags=flags, isa_source="cpuid", isa_note="; ".join(notes)
    )


def _memory() -> tuple[int, int]:
    """The total and available memory in bytes: ``/proc/meminfo`` where it says both, else
    psutil (imported only then: it costs a scan about 20 ms of CPU)."""
    read = proc_table.memory_bytes()
    if read is not None:
        return read
    import psutil

    memory = psutil.virtual_memory()
    return int(memory.total), int(memory.available)


def probe_host() -> Host:
    """Collect the host facts; never raises for a missing /proc or /dev/dri.

    The ISA flags come from /proc/cpuinfo here; ``with_executable_isa`` replaces them with what
    the examined interpreter can execute."""
    model, flags = _cpuinfo()
    total, available = _memory()
    return Host(
        system=platform.system(),
        os_release=_os_release(),
        kernel=platform.release(),
        machine=platform.machine(),
        cpu_model=model,
        logical_cpus=os.cpu_count() or 0,
        cpu_flags=tuple(flag for flag in ISA_FLAGS if flag in flags),
        memory_total_bytes=total,
        memory_available_bytes=available,
        render_nodes=render_nodes(),
    )
