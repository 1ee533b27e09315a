"""The oneAPI runtime's versions that must agree, read from files in the doctor's process.

The spawned probe (``scripts/unified_runtime.py``) says what loads; this module says why, and
from which wheel each file comes, without loading anything:

* ``library_checks``: for every ``libsycl.so.N`` the probe listed and every UR loader it could
  load, each needed library as the dynamic linker would resolve it (``shared_libraries``) and
  the symbol versions it must define (``LIBUR_LOADER_0.12`` of ``libur_loader.so.0``,
  ``GLIBCXX_3.4.30`` of ``libstdc++.so.6``) but does not, or a needed library found nowhere;
* ``requirement_checks``: the exact pins the installed runtime wheels and torch put on each other
  (``Requires-Dist: intel-cmplr-lib-ur (==2025.3.1)``) against the installed versions;
* ``owners``: the distribution that installed each library file (from the wheels' RECORD).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ipex_doctor.probe import shared_libraries
from ipex_doctor.probe.interpreter import InstalledDistribution, distributions, normalize_name

RUNTIME_NAMES = frozenset({"umf", "tbb", "tcmlib", "dpcpp-cpp-rt", "mkl", "impi-rt", "oneccl"})
RUNTIME_PREFIXES = ("intel-", "onemkl-")
"""The distributions of the oneAPI runtime (and ``torch``, whose XPU build pins them)."""


def is_runtime(name: str) -> bool:
    """Whether the (normalised) distribution ``name`` is part of the oneAPI runtime."""
    return name in RUNTIME_NAMES or name.startswith(RUNTIME_PREFIXES)


def library_checks(
    runtime: Mapping[str, Any], ld_library_path: Sequence[str]
) -> list[dict[str, Any]]:
    """Each runtime library the probe found, with what it needs that the files the linker
    would load do not give (see the module). Only libraries with a problem list ``problems``."""
    paths = [str(lib["path"]) for lib in runtime.get("sycl") or () if lib.get("path")]
    paths += [str(c["path"]) for c in runtime.get("loader_candidates") or () if c.get("path")]
    checks: list[dict[str, Any]] = []
    for path in dict.fromkeys(paths):
        facts = shared_libraries.read(path)
        if facts is None:
            continue
        problems: list[dict[str, Any]] = []
        resolved: dict[str, Any] = {}
        for name in facts.needed:
            found = shared_libraries.resolve(name, facts, ld_library_path)
            if found is None:
                problems.append({"needs": name, "found": None, "missing": []})
                continue
            where, why = found
            beside = os.path.join(os.path.dirname(path), name)
            if why != "system" or name.startswith("libstdc++"):
                resolved[name] = {
                    "path": where,
                    "via": why,
                    "copy_beside": beside if os.path.isfile(beside) else None,
                }
            wanted = facts.needs_versions.get(name, ())
            if not wanted:
                continue
            provider = shared_libraries.read(where)
            if provider is None:
                continue
            missing = [v for v in wanted if v not in provider.defines]
            if missing:
                family = missing[0].rsplit("_", 1)[0] + "_"
                problems.append(
                    {
                        "needs": name,
                        "found": where,
                        "via": why,
                        "missing": missing,
                        "newest_there": shared_libraries.newest(provider.defines, family),
                    }
                )
        checks.append({"library": path, "resolved": resolved, "problems": problems})
    return checks


def _installed(sys_path: Sequence[str]) -> dict[str, InstalledDistribution]:
    found: dict[str, InstalledDistribution] = {}
    for name, dist in distributions(sys_path, lambda name: is_runtime(name) or name == "torch"):
        found.setdefault(name, dist)
    return found


_REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9._-]*)")


def _may_pin_runtime(text: str) -> bool:
    """Whether the requirement ``text`` may name a runtime wheel, before ``packaging`` reads
    it: its name is the run of name characters it begins with, less the separators that end
    the run where a parser stops before them (PEP 508's name, and ``packaging``'s at a word's
    end); either read as a runtime wheel's name, or none, keeps it."""
    run = _REQUIREMENT_NAME.match(text)
    name = run.group(1) if run is not None else ""
    return not name or any(is_runtime(normalize_name(n)) for n in (name, name.rstrip("._-")))


def requirement_checks(
    sys_path: Sequence[str], python_version: tuple[int, int, int]
) -> list[dict[str, Any]]:
    """Every pin an installed runtime wheel or torch puts on a runtime wheel, with the
    installed version and whether it satisfies the pin (markers judged for the examined
    interpreter's Python on Linux; extras left out)."""
    dists = _installed(sys_path)
    pins = {
        name: [t for t in dist.requires or () if _may_pin_runtime(t)]
        for name, dist in dists.items()
    }
    if not any(pins.values()):
        # NOTE: no pin on a runtime wheel to read (a torch-less interpreter, torch's CPU
        # build): spares the scan packaging's parser, about 10 ms of its CPU
        return []
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion

    marker_env = {
        "python_version": f"{python_version[0]}.{python_version[1]}",
        "python_full_version": ".".join(map(str, python_version)),
        "platform_system": "Linux",
        "sys_platform": "linux",
        "os_name": "posix",
        "platform_machine": "x86_64",
        "extra": "",
    }
    checks: list[dict[str, Any]] = []
    for name, dist in sorted(dists.items()):
        for text in pins[name]:
            try:
                requirement = Requirement(text)
            except InvalidRequirement:
                continue
            wanted = normalize_name(requirement.name)
            if not is_runtime(wanted):
                continue
            if requirement.marker is not None and not requirement.marker.evaluate(marker_env):
                continue
            other = dists.get(wanted)
            installed = other.version if other is not None else None
            try:
                ok = installed is not None and requirement.specifier.contains(
                    installed, prereleases=True
                )
            except InvalidVersion:
                ok = False
            checks.append(
                {
                    "by": f"{name} {dist.version}",
                    "requires": f"{wanted}{requirement.specifier}",
                    "installed": installed,
                    "ok": ok,
                }
            )
    return checks


def owners(sys_path: Sequence[str], paths: Iterable[str]) -> dict[str, str]:
    """``path`` -> "name version" of the runtime wheel whose RECORD lists it (by real path)."""
    wanted = {os.path.realpath(p): p for p in paths}
    found: dict[str, str] = {}
    if not wanted:
        return found
    for name, dist in _installed(sys_path).items():
        for entry in dist.files or ():
            if not str(entry).endswith((".so",)) and ".so." not in str(entry):
                continue
            real = os.path.realpath(str(dist.locate_file(entry)))
            if real in wanted:
                found[wanted[real]] = f"{name} {dist.version}"
    return found
