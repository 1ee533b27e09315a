"""The mechanical rewrites of ``scan --fix``, by fix id: one LibCST codemod per id for Python,
and the text rewrites for files without a syntax tree (shell scripts, Dockerfiles).

A rule of ``code_rules.yaml`` names its fix by one of these ids. The Python codemods run in
the order of ``CODEMODS``: ``ipex-side-effect-import`` comes last so it sees the code the
others left (it keeps an import while something that needs IPEX remains). Each codemod's
docstring states what it rewrites, why that is equivalent, and what it refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from ipex_doctor.scan.fix.codemods.amp import (
    AutocastCpu,
    AutocastXpu,
    AutocastXpuState,
    GradScalerXpu,
)
from ipex_doctor.scan.fix.codemods.base import Codemod
from ipex_doctor.scan.fix.codemods.dist import CclToXccl
from ipex_doctor.scan.fix.codemods.imports import IpexSideEffectImport
from ipex_doctor.scan.fix.codemods.launcher import Launcher
from ipex_doctor.scan.fix.codemods.with_and import WithAnd
from ipex_doctor.scan.fix.codemods.xpu import DeviceProperties, MemGetInfo, QconvOpRename
from ipex_doctor.scan.match.launch_text import LaunchNote, rewrite_launch_text

CODEMODS: dict[str, type[Codemod]] = {
    codemod.FIX_ID: codemod
    for codemod in (
        AutocastXpu,
        AutocastCpu,
        AutocastXpuState,
        GradScalerXpu,
        DeviceProperties,
        MemGetInfo,
        QconvOpRename,
        WithAnd,
        CclToXccl,
        Launcher,
        IpexSideEffectImport,
    )
}
"""The Python codemods by fix id, in the order they run."""

TEXT_FIXES: dict[str, Callable[[str], tuple[str, list[LaunchNote]]]] = {
    "launcher": rewrite_launch_text,
}
"""The fixes of shell scripts and Dockerfiles by fix id."""

FIX_CATALOGUE: Mapping[str, str] = MappingProxyType(
    {fix_id: codemod.DESCRIPTION for fix_id, codemod in CODEMODS.items()}
)
"""Every fix id a rule may name, with what it rewrites: declared by the codemods themselves (a
text fix shares its id with the Python codemod of the same rewrite). The rules loader is
given it (``code_rules.load(known_fixes=...)``), so ``knowledge/`` never imports ``scan/``."""

FIX_IDS = frozenset(FIX_CATALOGUE)
"""Every fix id a rule may name."""

assert set(TEXT_FIXES) <= FIX_IDS, "a text fix shares its id with a Python codemod"
