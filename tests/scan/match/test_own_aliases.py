"""IPEX bound in one of a project's modules and imported by name from it in another: the uses
in the importer are IPEX's.

The snippets are trimmed from magekinnarus/Fooocus_Nex at 01e9213 (scanned in the audit of
the fourteenth collection's trees, ``tests/assets/scan_audit.yaml``): ``backend/hardware.py``
binds ``ipex`` inside a top-level ``try`` and ``backend/legacy_governor.py`` imports it by name
to call ``ipex.optimize``."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.match.own_aliases import (
    Wanted,
    exported_aliases,
    imported_aliases,
    imported_names,
    may_export,
    may_import_exported,
)
from ipex_doctor.scan.match.own_flags import module_of

SHIPPED = code_rules.load()

HARDWARE = """\
import torch

xpu_available = False
ipex = None
try:
    import intel_extension_for_pytorch as ipex_mod
    ipex = ipex_mod
    xpu_available = torch.xpu.is_available()
except:
    xpu_available = hasattr(torch, "xpu") and torch.xpu.is_available()


def is_intel_xpu():
    return xpu_available
"""
GOVERNOR = """\
import torch
from backend.hardware import (
    get_torch_device,
    ipex,
)


def load(real_model, config):
    if not config.disable_ipex_optimize and ipex is not None:
        real_model = ipex.optimize(real_model.eval(), inplace=True)
    return real_model
"""
RELATIVE = """\
from .hardware import ipex as xp


def step(model, optimizer):
    return xp.optimize(model, optimizer=optimizer)
"""
NEIGHBOURS = """\
from other_library import ipex
from backend import hardware
from backend.unrelated import ipex as not_ours


def f(model):
    ipex.optimize(model)
    not_ours.optimize(model)
    return hardware.ipex.optimize(model)
"""
UNRELATED = """\
def late():
    import intel_extension_for_pytorch as ipex
    return ipex

ipex = object()
"""


def _in(result_path: str, root: Path) -> list[tuple[str, int, str, str]]:
    return [f for f in found(scan(root, SHIPPED)) if f[0] == result_path]


def test_a_use_of_ipex_imported_from_the_module_that_binds_it_is_found(tmp_path: Path) -> None:
    """Fooocus_Nex's three lines (the name in the import, its test, the call) are found, and a
    relative import under another name too; nothing is found for a name of the same spelling
    from another library, or from a module of the tree that binds it to something else (or
    to IPEX only inside a function); read as an attribute of the module, a call through it is
    found by the alias's name alone."""
    root = write(
        tmp_path,
        {
            "backend/__init__.py": "",
            "backend/hardware.py": HARDWARE,
            "backend/legacy_governor.py": GOVERNOR,
            "backend/steps.py": RELATIVE,
            "backend/neighbours.py": NEIGHBOURS,
            "backend/unrelated.py": UNRELATED,
        },
    )
    result = scan(root, SHIPPED)
    by_file = {f[0]: [] for f in found(result)}
    for finding in found(result):
        by_file[finding[0]].append(finding[1:])
    assert by_file["backend/legacy_governor.py"] == [
        (4, "ipex-import", "intel_extension_for_pytorch"),
        (9, "ipex-path-switch", "not config.disable_ipex_optimize and ipex is not None"),
        (10, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
    ]
    assert by_file["backend/steps.py"] == [
        (1, "ipex-import", "intel_extension_for_pytorch"),
        (5, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
    ]
    # NOTE: only the call through the module's attribute, by the alias's name (``matches.
    # _object_alias``): the other library's ``ipex`` and the unrelated module's are nothing
    assert by_file["backend/neighbours.py"] == [
        (9, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
    ]


def test_a_use_reached_through_another_module_is_never_labelled_mechanical(
    tmp_path: Path,
) -> None:
    """``--fix`` does not rewrite a use whose import names the project's module (the binding
    stays there): no finding of the importer claims it would."""
    root = write(
        tmp_path,
        {"backend/hardware.py": HARDWARE, "backend/legacy_governor.py": GOVERNOR},
    )
    importer = [
        m for m in scan(root, SHIPPED).matches if m.location.path == "backend/legacy_governor.py"
    ]
    assert importer and not any(m.mechanical for m in importer)


@pytest.mark.parametrize(
    ("source", "lines", "exported"),
    [
        (HARDWARE, [6], {"ipex_mod": "intel_extension_for_pytorch", "ipex": "intel_extension_for_pytorch"}),
        ("import intel_extension_for_pytorch\n", [1], {"intel_extension_for_pytorch": "intel_extension_for_pytorch"}),
        (
            "from intel_extension_for_pytorch import xpu as x, optimize\n",
            [1],
            {"x": "intel_extension_for_pytorch.xpu", "optimize": "intel_extension_for_pytorch.optimize"},
        ),
        ("if A:\n    import intel_extension_for_pytorch.xpu as ix\n", [2], {"ix": "intel_extension_for_pytorch.xpu"}),
        # NOTE: an import on no line of a finding, one inside a function, a name set to
        # something else than the alias, and an assignment before the import bind nothing
        ("import intel_extension_for_pytorch as ipex\n", [], {}),
        (UNRELATED, [2], {}),
        ("import intel_extension_for_pytorch as i\nipex = i.xpu\n", [1], {"i": "intel_extension_for_pytorch"}),
        ("ipex = i\nimport intel_extension_for_pytorch as i\n", [2], {"i": "intel_extension_for_pytorch"}),
        ("import torch as ipex\n", [1], {}),
    ],
)  # fmt: skip
def test_a_module_exports_the_names_it_binds_to_ipex_at_its_top_level(
    source: str, lines: list[int], exported: dict[str, str]
) -> None:
    """``exported_aliases`` reads the bindings; ``may_export`` lets through, from the bytes,
    every file that has one (only the files it lets through are parsed)."""
    display = "pkg/hardware.py"
    expected = {module_of(display): exported} if exported else {}
    assert exported_aliases({display: lines}, {display: source}) == expected
    for name in exported:
        assert may_export(display, source.encode(), {"hardware": {name}}), name


@pytest.mark.parametrize(
    ("display", "source", "wanted"),
    [
        # NOTE: the word is imported from a module of that name, but bound otherwise here
        ("pkg/trainer.py", "from transformers import Trainer\n", {"trainer": {"Trainer"}}),
        ("pkg/hardware.py", "import torch as ipex\nipex = torch.xpu\n", {"hardware": {"ipex"}}),
        # NOTE: nobody imports from a module of this name, or not that word
        ("pkg/hardware.py", HARDWARE, {"other": {"ipex"}}),
        ("pkg/hardware.py", HARDWARE, {"hardware": {"torch"}}),
        # NOTE: IPEX's own package re-exports to itself
        ("intel_extension_for_pytorch/hardware.py", HARDWARE, {"hardware": {"ipex"}}),
    ],
)
def test_a_file_that_binds_no_imported_word_to_ipex_is_not_parsed(
    display: str, source: str, wanted: Wanted
) -> None:
    assert not may_export(display, source.encode(), wanted)


IMPORTS = [
    ("pkg/run.py", "from .hardware import ipex\n", {(1, 0, "ipex")}),
    ("pkg/sub/run.py", "from ..hardware import ipex as h\n", {(1, 0, "ipex")}),
    ("tools/run.py", "from pkg.hardware import ipex\n", {(1, 0, "ipex")}),
    ("tools/run.py", "def f():\n    from pkg.hardware import ipex\n", {(2, 4, "ipex")}),
    ("tools/run.py", "from other.hardware import ipex\n", set()),
    ("tools/run.py", "from pkg.hardware import torch\n", set()),
]


@pytest.mark.parametrize(("display", "source", "keys"), IMPORTS)
def test_an_import_of_an_exported_name_is_bound_to_ipex(
    display: str, source: str, keys: set[tuple[int, int, str]]
) -> None:
    exported = {module_of("pkg/hardware.py"): {"ipex": "intel_extension_for_pytorch"}}
    found_imports = imported_aliases(display, source, exported)
    assert set(found_imports.project) == keys
    assert set(found_imports.project.values()) <= {"intel_extension_for_pytorch"}
    assert set(found_imports.exporters) == ({("pkg", "hardware")} if keys else set())
    if keys:  # NOTE: only the files whose bytes may import one are parsed
        wanted: Wanted = {}
        imported_names(source.encode(), wanted)
        assert may_import_exported(wanted, exported)
