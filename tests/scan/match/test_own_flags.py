"""A project's own IPEX flag, set in one of its modules from a probe and imported by name in
another, is a probe where it is asked.

The snippets are trimmed from bitsandbytes before its IPEX backend was removed (#1679):
``backends/utils.py`` sets ``ipex_xpu`` from ``ipex._C._has_xpu()``, and ``backends/xpu/ops.py``
imports it and asks it before registering its IPEX kernels; the maintainers removed both."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.match.own_flags import imported_flags, may_import, module_of

SHIPPED = code_rules.load()

UTILS = """\
import torch

try:
    # to support Intel CPU/XPU (IPEX) backend
    import intel_extension_for_pytorch as ipex

    ipex_cpu = ipex if ipex._C._has_cpu() else None
    ipex_xpu = ipex if ipex._C._has_xpu() else None
except BaseException:
    ipex_cpu = None
    ipex_xpu = None


def xpu_flag():
    use_xpu = ipex if ipex._C._has_xpu() else None
    return use_xpu
"""
OPS = """\
import torch

from ..utils import ipex_xpu, triton_available

# _int_mm is available in torch starting from 2.9 version, or ipex 2.7
if torch.__version__ >= "2.9" or (
    ipex_xpu and torch.__version__ >= (2, 7)
):
    pass
"""
NEIGHBOURS = """\
from accelerate.utils import ipex_xpu
from .sets import use_xpu, on_xpu
from bitsandbytes import backends

if ipex_xpu or use_xpu or on_xpu or backends.utils.ipex_cpu:
    pass
"""
SETS = """\
import torch

on_xpu = torch.xpu.is_available()
"""


def _probes(root: Path) -> list[tuple[str, int, str, str]]:
    return [f for f in found(scan(root, SHIPPED)) if f[2] == "ipex-probe"]


def test_a_flag_imported_from_the_module_that_sets_it_from_a_probe_is_a_probe(
    tmp_path: Path,
) -> None:
    """bitsandbytes' ``ipex_xpu and torch.__version__ >= (2, 7)`` is found in ops.py; a name
    of the same spelling imported from another library, names another module of the tree sets
    from no probe or inside a function, and a flag read as a module's attribute are not."""
    files = {
        "bitsandbytes/backends/utils.py": UTILS,
        "bitsandbytes/backends/xpu/ops.py": OPS,
        "bitsandbytes/backends/xpu/other.py": NEIGHBOURS,
        "bitsandbytes/backends/xpu/sets.py": SETS,
    }
    assert _probes(write(tmp_path, files)) == [
        ("bitsandbytes/backends/xpu/ops.py", 7, "ipex-probe", "ipex_xpu"),
    ]


IMPORTS = [
    ("pkg/backends/xpu/ops.py", "from ..utils import ipex_xpu as on", {"on"}),
    ("pkg/backends/ops.py", "from .utils import ipex_xpu", {"ipex_xpu"}),
    ("pkg/backends/__init__.py", "from .utils import ipex_xpu", {"ipex_xpu"}),
    ("tools/run.py", "from pkg.backends.utils import ipex_xpu", {"ipex_xpu"}),
    # NOTE: a src/ layout's module is imported by the tail of its path from the root
    ("tools/run.py", "from backends.utils import ipex_xpu, ipex_cpu", {"ipex_xpu"}),
    ("pkg/backends/ops.py", "from ..utils import ipex_xpu", set()),  # pkg.utils
    ("pkg/backends/ops.py", "from ....utils import ipex_xpu", set()),  # above the root
    ("tools/run.py", "from other.utils import ipex_xpu", set()),
    ("tools/run.py", "from pkg.backends import utils", set()),
    # NOTE: inside a function, a handler, a case, a loop's else: an import at any depth
    ("pkg/a.py", "def f():\n    if x:\n        from .backends.utils import ipex_xpu", {"ipex_xpu"}),
    ("pkg/a.py", "try:\n    pass\nexcept E:\n    from .backends.utils import ipex_xpu as u", {"u"}),
    (
        "pkg/a.py",
        "match x:\n    case 1:\n        from .backends.utils import ipex_xpu",
        {"ipex_xpu"},
    ),
    (
        "pkg/a.py",
        "for _ in x:\n    pass\nelse:\n    from .backends.utils import ipex_xpu",
        {"ipex_xpu"},
    ),
]


@pytest.mark.parametrize(("display", "statement", "bound"), IMPORTS)
def test_an_import_names_the_exporting_module(
    display: str, statement: str, bound: set[str]
) -> None:
    exported = {module_of("pkg/backends/utils.py"): frozenset({"ipex_xpu"})}
    assert imported_flags(display, statement + "\n", exported) == bound


@pytest.mark.parametrize(("display", "statement", "bound"), IMPORTS)
def test_a_file_that_imports_a_flag_is_never_ruled_out_by_its_bytes(
    display: str, statement: str, bound: set[str]
) -> None:
    """``may_import`` lets through every file whose imports ``imported_flags`` finds (only
    the files it lets through are parsed)."""
    exported = {module_of("pkg/backends/utils.py"): frozenset({"ipex_xpu"})}
    if bound:
        assert may_import(display, (statement + "\n").encode(), exported)


@pytest.mark.parametrize(
    ("display", "source", "admitted"),
    [
        # NOTE: the package itself exports: ``from . import`` reaches it without spelling it
        ("pkg/backends/ops.py", "from . import ipex_xpu\n", True),
        ("pkg/backends/xpu/ops.py", "from .. import ipex_xpu\n", True),
        ("pkg/other/ops.py", "from . import ipex_xpu\n", False),
        ("tools/run.py", "from pkg.backends import ipex_xpu\n", True),
        # NOTE: the flag's name alone, or inside a longer name, is no import of it
        ("tools/run.py", "ipex_xpu = None\nfrom x import y\n", False),
        ("tools/run.py", "from pkg.backends import ipex_xpu_v2\n", False),
        ("tools/run.py", "import pkg.backends_old\nipex_xpu = 1\n", False),
    ],
)
def test_a_file_is_parsed_for_its_imports_only_where_its_bytes_can_hold_one(
    display: str, source: str, admitted: bool
) -> None:
    exported = {("pkg", "backends"): frozenset({"ipex_xpu"})}
    assert may_import(display, source.encode(), exported) is admitted
    if not admitted:
        assert imported_flags(display, source, exported) == frozenset()
