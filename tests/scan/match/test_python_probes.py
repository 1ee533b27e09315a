"""Availability probes and what they guard, with the shipped rules on the shapes real projects
use (accelerate's and optimum-intel's import utilities, DeepSpeed's XPU accelerator,
GPTQModel's HAS_IPEX, AutoAWQ's IPEX_INSTALLED)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.model.code import CodeMatch

SHIPPED = code_rules.load()


def _matches(tmp_path: Path, source: str) -> list[CodeMatch]:
    write(tmp_path, {"utils.py": source})
    return list(scan(tmp_path, SHIPPED).matches)


def _probes(tmp_path: Path, source: str) -> list[tuple[int, str]]:
    return [
        (m.location.line, m.symbol) for m in _matches(tmp_path, source) if m.rule_id == "ipex-probe"
    ]


def test_package_probes_by_name(tmp_path: Path) -> None:
    """find_spec, importlib.metadata.version and is_package_available ask about a package by
    name; the distribution name and a submodule count."""
    source = (
        "import importlib.util, importlib.metadata, sys\n"
        'a = importlib.util.find_spec("intel_extension_for_pytorch") is not None\n'
        'v = importlib.metadata.version("oneccl_bind_pt")\n'
        'b = is_package_available("intel-extension-for-pytorch")\n'
        'c = importlib.util.find_spec("intel_extension_for_pytorch.xpu")\n'
        'd = "intel_extension_for_pytorch" in sys.modules\n'
        'e = importlib.util.find_spec("torch")\n'
    )
    assert _probes(tmp_path, source) == [
        (2, 'find_spec("intel_extension_for_pytorch")'),
        (3, 'version("oneccl_bind_pt")'),
        (4, 'is_package_available("intel-extension-for-pytorch")'),
        (5, 'find_spec("intel_extension_for_pytorch.xpu")'),
        (6, '"intel_extension_for_pytorch" in sys.modules'),
    ]


def test_helpers_and_flags(tmp_path: Path) -> None:
    """A listed helper is a probe wherever it comes from (a project's own is imported
    relatively); a flag set from a probe, or around the import, is followed; a flag inside a
    message asks nothing, and a table that holds a helper names it but is no flag itself."""
    source = (
        "import importlib.util\n"
        "from .imports import is_ipex_available\n"
        "try:\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "    IPEX_READY = True\n"
        "except ImportError:\n"
        "    IPEX_READY = False\n"
        '_ipex_available = importlib.util.find_spec("intel_extension_for_pytorch") is not None\n'
        "CHECKS = [is_ipex_available, len]\n"
        "def f():\n"
        "    if is_ipex_available():\n"
        "        return 1\n"
        "    if not IPEX_READY:\n"
        '        raise ImportError(f"IPEX missing ({_ipex_available})")\n'
        "    return _ipex_available\n"
    )
    assert _probes(tmp_path, source) == [
        (8, 'find_spec("intel_extension_for_pytorch")'),
        (9, "is_ipex_available"),
        (11, "is_ipex_available()"),
        (13, "IPEX_READY"),
        (15, "_ipex_available"),
    ]


def test_a_flag_that_other_checks_also_set_is_not_ipex_s(tmp_path: Path) -> None:
    """sdbx's test fixture sets ``has_gpu`` from the MPS check, then around the IPEX import,
    then from CUDA's: it says a GPU is there, not IPEX, so its reads are no probes (they were
    six findings). A flag named after IPEX that the project also sets from its own option, and
    one set only around the import, stay flags."""
    source = (
        "import torch\n"
        "def has_gpu():\n"
        "    has_gpu = torch.backends.mps.is_available()\n"
        "    if not has_gpu:\n"
        "        try:\n"
        "            import intel_extension_for_pytorch as ipex\n"
        "            has_gpu = ipex.xpu.device_count() > 0\n"
        "        except ImportError:\n"
        "            has_gpu = False\n"
        "    if not has_gpu:\n"
        "        has_gpu = torch.cuda.is_available()\n"
        "    return has_gpu\n"
        "use_ipex = ARGS.ipex\n"
        "try:\n"
        "    import intel_extension_for_pytorch\n"
        "    ready = True\n"
        "except ImportError:\n"
        "    use_ipex = ready = False\n"
        "if use_ipex and ready:\n"
        "    pass\n"
    )
    assert _probes(tmp_path, source) == [(19, "use_ipex"), (19, "ready")]


def test_a_flags_read_points_to_where_a_probe_first_sets_it(tmp_path: Path) -> None:
    """The reads carry the earliest line whose assignment makes the name a flag: the ``True``
    after the import in the ``try`` (not the handler's ``False``), the probe's answer; a read
    on that very line and a listed flag the module never sets point nowhere."""
    source = (
        "import importlib.util\n"
        "try:\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "    IPEX_READY = True\n"
        "except ImportError:\n"
        "    IPEX_READY = False\n"
        'found = importlib.util.find_spec("intel_extension_for_pytorch") is not None\n'
        "ready = found and IPEX_READY\n"
        "if ready or HAS_IPEX:\n"
        "    pass\n"
    )
    reads = {
        (m.location.line, m.symbol): m.set_at
        for m in _matches(tmp_path, source)
        if m.rule_id == "ipex-probe" and m.symbol.isidentifier()
    }
    assert reads == {
        (8, "found"): 7,
        (8, "IPEX_READY"): 4,
        (9, "ready"): 8,
        (9, "HAS_IPEX"): None,
    }


FORGE = (
    "import torch\n"
    "xpu_available = False\n"
    "try:\n"
    "    import intel_extension_for_pytorch as ipex\n"
    "    if torch.xpu.is_available():\n"
    "        xpu_available = True\n"
    "except:\n"
    "    pass\n"
    "def is_intel_xpu():\n"
    "    global xpu_available\n"
    "    if cpu_state == CPUState.GPU:\n"
    "        if xpu_available:\n"
    "            return True\n"
    "    return False\n"
    "def {other}():\n"
    "    return torch.xpu.is_available()\n"
    "def load(model, args):\n"
    "    if {call} and not args.disable_ipex_hijack:\n"
    "        model = torch.xpu.optimize(model.eval(), inplace=True)\n"
    "    return model\n"
)


@pytest.mark.parametrize(
    ("call", "guard"),
    [
        ("is_intel_xpu()", "`is_intel_xpu() and (not args.disable_ipex_hijack)` (line 18)"),
        ("upstream_xpu()", None),
        ("is_intel_xpu(0)", None),
    ],
)
def test_a_helper_that_returns_the_flag_guards_its_callers(
    tmp_path: Path, call: str, guard: str | None
) -> None:
    """Forge's and Fooocus's memory managers: ``xpu_available`` is set True only after the
    IPEX import (under an ``if`` in its ``try``), and ``is_intel_xpu()`` returns True only
    where it is; ``torch.xpu.optimize`` under it runs only with IPEX, so it cannot fail
    without IPEX (13 findings of the fourteenth collection's trees said it would). A helper
    that asks upstream torch guards nothing, nor a call given an argument; the calls are no
    probes of their own (the flag's reads are, pointing to where it is set)."""
    source = FORGE.format(other="upstream_xpu", call=call)
    matches = _matches(tmp_path, source)
    alias = [m for m in matches if m.rule_id == "xpu-optimize-alias"]
    assert [m.guard for m in alias] == [guard]
    assert [(m.location.line, m.set_at) for m in matches if m.rule_id == "ipex-probe"] == [(12, 6)]


def test_a_listed_name_bound_to_its_module_is_not_a_flag(tmp_path: Path) -> None:
    """``import intel_extension_for_pytorch`` binds the module, not a flag: reading it is the
    import rule's and the other rules' business, and hasattr on it is a probe."""
    source = (
        "import intel_extension_for_pytorch\n"
        'if hasattr(intel_extension_for_pytorch, "deepspeed"):\n'
        "    x = intel_extension_for_pytorch.deepspeed\n"
    )
    assert _probes(tmp_path, source) == [(2, 'hasattr(intel_extension_for_pytorch, "deepspeed")')]


@pytest.mark.parametrize(
    ("condition", "guarded_line"),
    [
        ('if hasattr(torch.xpu, "has_fp64_dtype"):\n    y = torch.xpu.has_fp64_dtype()\n', 4),
        ('if not hasattr(torch.xpu, "has_fp64_dtype"):\n    y = 1\nelse:\n    y = torch.xpu.has_fp64_dtype()\n', 6),
        ('y = torch.xpu.has_fp64_dtype() if hasattr(torch.xpu, "has_fp64_dtype") else True\n', 3),
        ('y = hasattr(torch.xpu, "has_fp64_dtype") and torch.xpu.has_fp64_dtype()\n', 3),
        ("try:\n    y = torch.xpu.has_fp64_dtype()\nexcept AttributeError:\n    y = True\n", 4),
    ],
    ids=["if", "else-of-not", "ternary", "and", "try"],
)  # fmt: skip
def test_a_guarded_ipex_only_call_is_guarded(
    tmp_path: Path, condition: str, guarded_line: int
) -> None:
    """The call of an IPEX-only torch.xpu function behind a hasattr check (or caught) carries
    its guard, so it is judged a path to remove rather than a failure."""
    source = "import torch\n\n" + condition
    (call,) = [m for m in _matches(tmp_path, source) if m.rule_id == "xpu-has-fp64-dtype"]
    assert call.location.line == guarded_line
    assert call.guard is not None and ("hasattr" in call.guard or "try" in call.guard)


def test_unguarded_and_wrongly_guarded_calls_carry_no_guard(tmp_path: Path) -> None:
    """An `or`, a test of something else and the fallback branch guard nothing."""
    source = (
        "import torch\n"
        'if hasattr(torch.xpu, "has_fp64_dtype") or fast:\n'
        "    a = torch.xpu.has_fp64_dtype()\n"
        "if torch.xpu.is_available():\n"
        "    b = torch.xpu.has_fp64_dtype()\n"
        'if not hasattr(torch.xpu, "has_fp64_dtype"):\n'
        "    c = torch.xpu.has_fp64_dtype()\n"
    )
    calls = [m for m in _matches(tmp_path, source) if m.rule_id == "xpu-has-fp64-dtype"]
    assert [(m.location.line, m.guard) for m in calls] == [(3, None), (5, None), (7, None)]


def test_a_test_of_the_module_a_guarded_import_bound_guards_its_branch(tmp_path: Path) -> None:
    """``if ipex:`` (``ipex is not None``, the ``else`` of ``ipex is None``) after ``try: import
    intel_extension_for_pytorch as ipex / except ImportError: ipex = None``, and ``if
    self.ipex:`` where the class keeps that module: the branch runs only where the import ran,
    so an IPEX-only call in it is a path to remove, not a failure, and the test is the probe
    of that path (maintainers remove it with the path). A name that may also hold another
    module guards nothing and asks nothing."""
    source = (
        "import torch\n"
        "try:\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "except ImportError:\n"
        "    ipex = None\n"
        "if ipex:\n"
        "    a = torch.xpu.has_fp64_dtype()\n"
        "if ipex is None:\n"
        "    b = 1\n"
        "else:\n"
        "    b = torch.xpu.has_fp64_dtype()\n"
        "class Engine:\n"
        "    def __init__(self):\n"
        "        self.ipex = ipex\n"
        "    def run(self):\n"
        "        if self.ipex is not None:\n"
        "            return torch.xpu.has_fp64_dtype()\n"
        "def either(flag):\n"
        "    if flag:\n"
        "        import intel_extension_for_pytorch as backend\n"
        "    else:\n"
        "        import torch as backend\n"
        "    if backend:\n"
        "        return torch.xpu.has_fp64_dtype()\n"
    )
    matches = _matches(tmp_path, source)
    calls = [m for m in matches if m.rule_id == "xpu-has-fp64-dtype"]
    assert [(m.location.line, m.guard) for m in calls] == [
        (7, "`ipex` (line 6)"),
        (11, "`ipex is None` (line 8)"),
        (17, "`self.ipex is not None` (line 16)"),
        (24, None),
    ]
    probes = [(m.location.line, m.symbol) for m in matches if m.rule_id == "ipex-probe"]
    assert probes == [(6, "ipex"), (8, "ipex"), (16, "self.ipex")]


def test_a_guarded_import_and_a_version_check(tmp_path: Path) -> None:
    """DeepSpeed's accelerator: the import in try/except ImportError and the use under the
    flag's else branch and a version check are guarded; the flag's tests are probes."""
    source = (
        "try:\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "    ipex_imported_p = True\n"
        "except ImportError as e:\n"
        "    ipex_imported_p = False\n"
        "def use_host_timers():\n"
        "    if not ipex_imported_p:\n"
        "        return False\n"
        "    else:\n"
        "        if ipex.__version__ < '2.6':\n"
        "            return True\n"
    )
    found = [(m.location.line, m.rule_id, m.guard is not None) for m in _matches(tmp_path, source)]
    assert found == [
        (2, "ipex-import", True),
        (7, "ipex-probe", False),
        (10, "ipex-build-probe", True),
    ]


def test_a_version_helper_asks_about_the_package_it_names(tmp_path: Path) -> None:
    """auto-round's IPEX backend asked for IPEX's version through its own helper
    (``get_library_version``); a callee whose name ends in ``_version`` asks about the package
    its first argument names, and about no other."""
    source = (
        "from auto_round.utils import get_library_version\n"
        'ipex_version = get_library_version("intel_extension_for_pytorch")\n'
        'torch_version = get_library_version("torch")\n'
    )
    assert _probes(tmp_path, source) == [(2, 'get_library_version("intel_extension_for_pytorch")')]


def test_a_test_of_the_imported_name_is_a_probe_and_its_flag_is_followed(
    tmp_path: Path,
) -> None:
    """HydraGNN's training scripts imported IPEX in a ``try`` and later asked ``"ipex" in
    globals()``; that test is a probe, the flag set from it is one where it is read, and a
    name no IPEX import binds asks nothing."""
    source = (
        "import torch\n"
        "try:\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "except:\n"
        "    pass\n"
        'xpu_available = hasattr(torch, "xpu") and torch.xpu.is_available()\n'
        'ipex_available = "ipex" in globals()\n'
        'torch_here = "torch" in globals()\n'
        "if xpu_available and not ipex_available:\n"
        '    print("intel_extension_for_pytorch not available")\n'
    )
    assert _probes(tmp_path, source) == [
        (7, '"ipex" in globals()'),
        (9, "ipex_available"),
    ]


def test_a_version_helper_given_a_requirement_asks_about_its_package(tmp_path: Path) -> None:
    """auto-round's tests skipped on ``require_version("intel-extension-for-pytorch>=2.5")``:
    the package a requirement names is the one asked about."""
    source = (
        "from transformers.utils.versions import require_version\n"
        'require_version("intel-extension-for-pytorch>=2.5")\n'
        'require_version("torch>=2.5")\n'
    )
    assert _probes(tmp_path, source) == [(2, 'require_version("intel-extension-for-pytorch>=2.5")')]


def test_the_guarded_import_names_its_handlers_fallback(tmp_path: Path) -> None:
    """The fifteenth audit's miss (a oneDNN benchmark's CLI): ``ipex = None`` in the handler
    of the guarded import goes with the import, and the import's finding says so with its line
    (one cause, one finding). A flag the handler sets is the probe's (it is no imported name),
    nor does a handler of other errors count."""
    source = (
        "try:\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "    from oneccl_bindings_for_pytorch import ccl\n"
        "except ImportError:\n"
        "    HAS_IPEX = False\n"
        "    ipex = None\n"
        "    ccl = ipex\n"
        "try:\n"
        "    import intel_extension_for_pytorch as ipex2\n"
        "except (ImportError, RuntimeError):\n"
        "    pass\n"
        "except ValueError:\n"
        "    ipex2 = None\n"
    )
    imports = [m for m in _matches(tmp_path, source) if m.rule_id == "ipex-import"]
    assert [(m.location.line, m.guard) for m in imports] == [
        (
            2,
            "try/except ImportError (line 1; its handler sets ipex = None at line 6 "
            "and ccl = ipex at line 7)",
        ),
        (9, "try/except ImportError (line 8)"),
    ]
