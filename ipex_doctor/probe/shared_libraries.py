"""ELF facts of shared libraries, and which file the dynamic linker would load for a name.

``read`` takes a library's dynamic section and its symbol-version sections with pyelftools
(the versions it needs from each library, ``.gnu.version_r``; the versions it defines,
``.gnu.version_d``), reading the file, never loading it. ``resolve`` finds the file a needed
name would come from in the order of ``ld.so(8)``: ``DT_RPATH`` (only when there is no
``DT_RUNPATH``), ``LD_LIBRARY_PATH``, ``DT_RUNPATH`` (``$ORIGIN`` expanded), then the system
directories. That order is written here by hand: no library models the linker's search (the
``ld.so.cache`` is left out; the multiarch and lib64 directories stand for it, which is where
every distribution's cache points for ``libstdc++``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SYSTEM_DIRS = (
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
)


@dataclass(frozen=True)
class ElfFacts:
    """What the dynamic linker reads from one library."""

    path: str
    soname: str | None
    needed: tuple[str, ...]
    rpath: tuple[str, ...]
    runpath: tuple[str, ...]
    needs_versions: Mapping[str, tuple[str, ...]]
    """Needed file name -> the symbol versions required of it (``LIBUR_LOADER_0.12``)."""
    defines: tuple[str, ...]
    """The symbol versions this library defines (its own name node excluded)."""


def read(path: str) -> ElfFacts | None:
    """The ELF facts of ``path``; ``None`` when it is not a readable ELF shared object."""
    from elftools.common.exceptions import ELFError  # NOTE: lazy; only the runtime probe reads ELF
    from elftools.elf.dynamic import DynamicSection
    from elftools.elf.elffile import ELFFile
    from elftools.elf.gnuversions import GNUVerDefSection, GNUVerNeedSection

    try:
        with open(path, "rb") as handle:
            elf = ELFFile(handle)
            soname = None
            needed: list[str] = []
            rpath: list[str] = []
            runpath: list[str] = []
            needs: dict[str, tuple[str, ...]] = {}
            defines: list[str] = []
            for section in elf.iter_sections():
                if isinstance(section, DynamicSection):
                    for tag in section.iter_tags():
                        kind = tag.entry.d_tag
                        # NOTE: pyelftools sets these attributes by tag (no stubs know them)
                        value: Any = tag
                        if kind == "DT_SONAME":
                            soname = str(value.soname)
                        elif kind == "DT_NEEDED":
                            needed.append(str(value.needed))
                        elif kind == "DT_RPATH":
                            rpath += str(value.rpath).split(":")
                        elif kind == "DT_RUNPATH":
                            runpath += str(value.runpath).split(":")
                elif isinstance(section, GNUVerNeedSection):
                    for need, auxiliaries in section.iter_versions():
                        needs[str(need.name)] = tuple(str(aux.name) for aux in auxiliaries)
                elif isinstance(section, GNUVerDefSection):
                    for definition, auxiliaries in section.iter_versions():
                        if definition["vd_flags"] & 0x1:  # VER_FLG_BASE: the file's own name
                            continue
                        defines += [str(aux.name) for aux in auxiliaries][:1]
    except (OSError, ELFError, ValueError, KeyError, AttributeError):
        return None
    return ElfFacts(
        path=path,
        soname=soname,
        needed=tuple(needed),
        rpath=tuple(p for p in rpath if p),
        runpath=tuple(p for p in runpath if p),
        needs_versions=needs,
        defines=tuple(defines),
    )


def _expand(entry: str, origin: str) -> str:
    return entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)


def search_order(requester: ElfFacts, ld_library_path: Sequence[str]) -> list[tuple[str, str]]:
    """(directory, why it is searched) for the names ``requester`` needs, in ld.so's order."""
    origin = os.path.dirname(os.path.abspath(requester.path))
    order: list[tuple[str, str]] = []
    if requester.rpath and not requester.runpath:
        order += [(_expand(p, origin), "DT_RPATH") for p in requester.rpath]
    order += [(p, "LD_LIBRARY_PATH") for p in ld_library_path if p]
    order += [(_expand(p, origin), "DT_RUNPATH") for p in requester.runpath]
    order += [(p, "system") for p in SYSTEM_DIRS]
    return order


def resolve(
    name: str, requester: ElfFacts, ld_library_path: Sequence[str]
) -> tuple[str, str] | None:
    """The file ``name`` (a ``DT_NEEDED`` entry) would be loaded from for ``requester``, and
    why that directory was searched; ``None`` when no directory has it."""
    if "/" in name:
        return (name, "path") if os.path.isfile(name) else None
    for directory, why in search_order(requester, ld_library_path):
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return os.path.normpath(candidate), why
    return None


def version_key(version: str) -> tuple[int, ...]:
    """``LIBUR_LOADER_0.12`` -> (0, 12); a name without numbers -> ()."""
    tail = version.rsplit("_", 1)[-1]
    parts = []
    for part in tail.split("."):
        if not part.isdigit():
            return ()
        parts.append(int(part))
    return tuple(parts)


def newest(versions: Sequence[str], prefix: str) -> str | None:
    """The highest of ``versions`` that start with ``prefix`` (``GLIBCXX_``), or ``None``."""
    chosen = [v for v in versions if v.startswith(prefix) and version_key(v)]
    return max(chosen, key=version_key) if chosen else None
