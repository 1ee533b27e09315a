"""The Intel GPU stack below torch, read from the machine: PCI devices, kernel drivers,
containers and WSL; and Level Zero, asked in a spawned interpreter. (The device nodes and their
groups are a host fact: ``host.render_nodes``.)

Everything here reads files (``root`` moves ``/sys``, ``/dev`` and ``/proc`` for the tests'
fixture trees) except ``level_zero``, which loads ``libze_loader.so.1`` with ctypes in a
spawned, time-bounded interpreter: a broken driver may crash or hang whoever calls ``zeInit``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ipex_doctor import resources
from ipex_doctor.probe import runtime_libraries, spawn

INTEL = "0x8086"
DISPLAY_CLASS = "0x03"
"""PCI base class 03: display controllers (VGA 0300, 3D 0302, other 0380)."""

# NOTE: device-id prefixes of Intel GPU families and the kernel driver each needs, after the
# Linux kernel's include/drm/intel/pciids.h and xe_pciids.h and Intel's GPU driver docs
# (https://dgpu-docs.intel.com/devices/hardware-table.html). A prefix table, not every id.
FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("0x56c", "Data Center GPU Flex (Arctic Sound-M)", ("i915", "xe")),
    ("0x56", "Arc A-series (Alchemist, DG2)", ("i915", "xe")),
    ("0x0bd", "Data Center GPU Max (Ponte Vecchio)", ("i915", "xe")),
    ("0xe20", "Arc B-series (Battlemage)", ("xe",)),
    ("0xe21", "Arc B-series (Battlemage)", ("xe",)),
    ("0x64a", "Core Ultra 200V integrated Arc (Lunar Lake)", ("xe",)),
    ("0x7d", "Core Ultra integrated Arc (Meteor / Arrow Lake)", ("i915", "xe")),
    ("0xa7", "integrated Iris Xe (Raptor Lake)", ("i915", "xe")),
    ("0x46", "integrated Iris Xe / UHD (Alder Lake)", ("i915", "xe")),
    ("0x9a", "integrated Iris Xe (Tiger Lake)", ("i915", "xe")),
)
CONTAINER_MARKERS = ("/.dockerenv", "/run/.containerenv")


def family_of(device_id: str) -> tuple[str, tuple[str, ...]]:
    """The family of an Intel GPU device id (``0x56a0``) and the drivers that drive it."""
    for prefix, family, drivers in FAMILIES:
        if device_id.lower().startswith(prefix):
            return family, drivers
    return "Intel GPU (family not in the doctor's table)", ("i915", "xe")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return ""


def display_devices(root: Path = Path("/")) -> list[dict[str, Any]]:
    """Every display-class PCI device: slot, vendor, device id, bound driver; Intel ones with
    their family and the drivers that family needs."""
    found = []
    base = root / "sys/bus/pci/devices"
    try:
        slots = sorted(base.iterdir())
    except OSError:
        return []
    for slot in slots:
        if not _read(slot / "class").startswith(DISPLAY_CLASS):
            continue
        vendor, device = _read(slot / "vendor"), _read(slot / "device")
        driver = (
            os.path.basename(os.readlink(slot / "driver"))
            if (slot / "driver").is_symlink()
            else None
        )
        entry: dict[str, Any] = {
            "slot": slot.name,
            "vendor": vendor,
            "device": device,
            "driver": driver,
        }
        if vendor == INTEL:
            entry["family"], drivers = family_of(device)
            entry["drivers"] = list(drivers)
        found.append(entry)
    return found


def surroundings(root: Path = Path("/")) -> dict[str, bool]:
    """Whether this runs in a container or under WSL (both change where a GPU comes from)."""
    container = any((root / marker.lstrip("/")).exists() for marker in CONTAINER_MARKERS)
    version = _read(root / "proc/version").lower()
    return {
        "container": container,
        "wsl": "microsoft" in version,
        "dxg": (root / "dev/dxg").exists(),
    }


def level_zero(
    python: str, *, timeout: float = 10.0, env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The Level Zero loader's answer, asked by ``python`` in a spawned interpreter: the loader
    found or not, ``zeInit``'s result, the drivers and devices it lists, the GPU runtime library."""
    script = str(resources.path("probe/scripts/level_zero.py"))
    facts, why = spawn.json_script(
        python, script, timeout=timeout, env=env, what="the Level Zero probe"
    )
    if facts is None:
        return {"ran": False, "error": why}
    return {"ran": True, **facts}


RUNTIME_TIMEOUT_S = 20.0
"""Level Zero and the Unified Runtime together: loading the runtime starts every adapter."""


def runtime_facts(
    python: str, *, timeout: float = RUNTIME_TIMEOUT_S, env: Mapping[str, str] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Level Zero's answer and the oneAPI runtime's (``scripts/unified_runtime.py``: libsycl
    loaded as torch would, the UR loader, adapters, platforms, devices, OpenCL ICD files),
    both asked by ``python`` in one spawned interpreter. Each is ``{"ran": False, "error"}``
    when it could not be asked."""
    with start_runtime_probe(python, timeout=timeout, env=env) as probe:
        return runtime_facts_of(probe)


def start_runtime_probe(
    python: str,
    *,
    timeout: float = RUNTIME_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
    prefix: str | None = None,
) -> spawn.JsonScript:
    """The probe of ``runtime_facts``, started (the doctor works while it runs); collected by
    ``runtime_facts_of`` or ``gpu_facts_of``. Leaving it as a context manager kills an
    unanswered probe. ``prefix``, the environment's ``sys.prefix`` as its handshake read it:
    given, the probe runs without ``site`` (the script reads the standard library alone, and the
    prefix is all it took from ``site``), sparing the environment's ``.pth`` hooks."""
    script = str(resources.path("probe/scripts/unified_runtime.py"))
    return spawn.JsonScript(
        python,
        script,
        timeout=timeout,
        env=env,
        what="the Intel runtime probe",
        site=prefix is None,
        args=() if prefix is None else (prefix,),
    )


def runtime_facts_of(probe: spawn.JsonScript) -> tuple[dict[str, Any], dict[str, Any]]:
    """What ``runtime_facts`` returns, from its started probe (waited for)."""
    facts, why = probe.answer()
    if facts is None or not isinstance(facts.get("runtime"), dict):
        failed = {"ran": False, "error": why or "the Intel runtime probe said nothing"}
        return failed, failed
    zero = facts.get("level_zero")
    return (zero if isinstance(zero, dict) else {"ran": False}), facts["runtime"]


def gpu_facts(
    python: str,
    *,
    root: Path = Path("/"),
    env: Mapping[str, str] | None = None,
    sys_path: Sequence[str] = (),
    python_version: tuple[int, int, int] = (3, 0, 0),
) -> dict[str, Any]:
    """Every fact of the Intel GPU stack below torch but the device nodes, as the report keeps
    it (``Host.gpu``). The runtime's files are read here too (``runtime_libraries``): what each
    ``libsycl`` needs that the libraries the linker would load do not give, the runtime wheels'
    pins on each other (``sys_path`` is the examined interpreter's), and which wheel installed
    each library."""
    with start_runtime_probe(python, env=env) as probe:
        return gpu_facts_of(
            probe, root=root, env=env, sys_path=sys_path, python_version=python_version
        )


def gpu_facts_of(
    probe: spawn.JsonScript,
    *,
    root: Path = Path("/"),
    env: Mapping[str, str] | None = None,
    sys_path: Sequence[str] = (),
    python_version: tuple[int, int, int] = (3, 0, 0),
) -> dict[str, Any]:
    """What ``gpu_facts`` returns, from its started runtime probe (``start_runtime_probe``,
    waited for here)."""
    zero, runtime = runtime_facts_of(probe)
    if runtime.get("ran"):
        environ = os.environ if env is None else env
        ld_path = [p for p in environ.get("LD_LIBRARY_PATH", "").split(":") if p]
        libraries = runtime_libraries.library_checks(runtime, ld_path)
        files = [c["library"] for c in libraries]
        files += [p["found"] for c in libraries for p in c["problems"] if p.get("found")]
        files += [r["path"] for c in libraries for r in c["resolved"].values()]
        runtime = {
            **runtime,
            "libraries": libraries,
            "requirements": runtime_libraries.requirement_checks(sys_path, python_version),
            "owners": runtime_libraries.owners(sys_path, files),
        }
    return {
        "display_devices": display_devices(root),
        **surroundings(root),
        "level_zero": zero,
        "runtime": runtime,
    }
