"""The mechanical rewrites of ``scan --fix``, by fix id: one LibCST codemod per id for Python,
and the text rewrites for files without a syntax tree (shell scripts, Dockerfiles).

A rule of ``code_rules.yaml`` names its fix by one of these ids. The codemods are found, not
listed: every ``Codemod`` class with a ``FIX_ID`` defined in a module of this package is one
(``codemods_in``), and they run in the order they declare (``ORDER``, then fix id):
``ipex-side-effect-import`` comes last so it sees the code the others left (it keeps an import
while something that needs IPEX remains). Each codemod's docstring states what it rewrites,
why that is equivalent, and what it refuses.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from types import MappingProxyType

from ipex_doctor.scan.fix.codemods.base import Codemod
from ipex_doctor.scan.match.launch_text import LaunchNote, rewrite_launch_text


def codemods_in(package: str) -> dict[str, type[Codemod]]:
    """Every codemod class (a ``Codemod`` with a ``FIX_ID``) defined in a module of
    ``package``, by fix id, in the order they run. Two classes that declare one fix id are a
    bug of the package: ``RuntimeError``."""
    # NOTE: found by walking the package (pkgutil reads a wheel's and a checkout's folders
    # alike) so that a new rewrite is its class alone, with no list to keep in step.
    found: dict[str, type[Codemod]] = {}
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        module = importlib.import_module(f"{package}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Codemod)
                and value.FIX_ID
                and value.__module__ == module.__name__
            ):
                if found.setdefault(value.FIX_ID, value) is not value:
                    raise RuntimeError(f"two codemods declare the fix id {value.FIX_ID}")
    return dict(sorted(found.items(), key=lambda item: (item[1].ORDER, item[0])))


CODEMODS: dict[str, type[Codemod]] = codemods_in(__name__.rpartition(".")[0])
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
