"""The "mechanical" label holds to what ``scan --fix`` does: for each snippet, every match the
scan labels is rewritten by the fix at its line, and every match of a rule that has a fix
that is not rewritten gets a refusal there, with its reason (a leftover always says why). The
snippets cover each fix's rewrites and each condition under which it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_rules import scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.fix.rewrite import fix_source
from ipex_doctor.scan.match.fixable import under

SHIPPED = code_rules.load()
FIXES = {rule.id: rule.fix for rule in SHIPPED.rules if rule.fix}

SNIPPETS = {
    "autocast": (
        "import torch\n"
        "def f(x, kw):\n"
        "    with torch.xpu.amp.autocast():\n"
        "        pass\n"
        "    with torch.xpu.amp.autocast(True, torch.float16):\n"
        "        pass\n"
        "    with torch.xpu.amp.autocast(**kw):\n"
        "        pass\n"
        "    with torch.xpu.amp.autocast(device='xpu'):\n"
        "        pass\n"
        "    a = torch.xpu.amp.autocast\n"
        "    with torch.cpu.amp.autocast(dtype=torch.bfloat16):\n"
        "        pass\n"
    ),
    "torch-rebound": (
        "import torch\n"
        "if old:\n"
        "    torch = legacy_torch\n"
        "with torch.xpu.amp.autocast():\n"
        "    pass\n"
    ),
    "torch-parameter": (
        "import torch\n"
        "def f(x):\n"
        "    with torch.xpu.amp.autocast():\n"
        "        pass\n"
        "def g(torch):\n"
        "    return torch\n"
    ),
    "state": (
        "import torch\n"
        "d = torch.xpu.get_autocast_xpu_dtype()\n"
        "torch.xpu.set_autocast_xpu_dtype(torch.bfloat16)\n"
        "torch.xpu.set_autocast_xpu_enabled()\n"
        "torch.xpu.set_autocast_xpu_dtype(value=torch.bfloat16)\n"
    ),
    "scaler": (
        "import torch\n"
        "s = torch.xpu.amp.GradScaler(init_scale=1024)\n"
        "t = torch.xpu.amp.GradScaler(device='xpu')\n"
    ),
    "device": (
        "import torch\n"
        "a = torch.xpu.has_fp64_dtype()\n"
        "b = torch.xpu.has_xmx(0)\n"
        "c = torch.xpu.has_2d_block_array(1, 2)\n"
        "d = torch.xpu.has_xmx\n"
    ),
    "mem": ("import intel_extension_for_pytorch as ipex\nfree, total = ipex.xpu.mem_get_info(0)\n"),
    "qconv": (
        "import torch\n"
        "a = torch.ops.onednn.qconv2d_pointwise.default\n"
        "b = torch.ops.onednn.qconv2d_pointwise(" + ", ".join(["x"] * 17) + ")\n"
        "c = torch.ops.onednn.qconv2d_pointwise(x, y, z)\n"
        "d = torch.ops.onednn.qconv2d_pointwise.binary\n"
    ),
    "with-and": (
        "import torch\n"
        "with torch.no_grad() and torch.autocast('cpu'):\n"
        "    pass\n"
        "with (torch.no_grad() and torch.autocast('cpu')):\n"
        "    pass\n"
    ),
    "ccl": (
        "import torch\n"
        "import torch.distributed as dist\n"
        'dist.init_process_group(backend="ccl")\n'
        'torch.distributed.init_process_group("ccl")\n'
        "class Backend(Base):\n"
        "    def __init__(self):\n"
        '        super().__init__(backend="ccl")\n'
        'backend = "ccl"\n'
        'options = {"backend": "ccl"}\n'
    ),
    # NOTE: phase 1's false label: a "ccl" backend given to IPEX's own init_process_group was
    # labelled mechanical and left unchanged without a reason
    "ccl-through-ipex": (
        "import torch\n"
        "import intel_extension_for_pytorch as ipex\n"
        'ipex.distributed.init_process_group(backend="ccl", world_size=2)\n'
    ),
    "unused-import": "import torch\nimport intel_extension_for_pytorch\nx = torch.ones(2)\n",
    "used-import": ("import intel_extension_for_pytorch as ipex\nmodel = ipex.optimize(model)\n"),
    "guarded-import": (
        "try:\n"
        "    import intel_extension_for_pytorch\n"
        "    HAS_IPEX = True\n"
        "except ImportError:\n"
        "    HAS_IPEX = False\n"
    ),
    "other-imports": (
        "import intel_extension_for_pytorch.xpu\n"
        "from intel_extension_for_pytorch.xpu.cpp_extension import DPCPPExtension\n"
    ),
    "all": "import intel_extension_for_pytorch\n__all__ = ['intel_extension_for_pytorch']\n",
    "alone": "if ready:\n    import intel_extension_for_pytorch\n",
    "injected-left": (
        "import torch\n"
        "import intel_extension_for_pytorch\n"
        "torch.xpu.set_fp32_math_mode(torch.xpu.FP32MathMode.TF32)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_labels_are_rewrites_and_leftovers_say_why(tmp_path: Path, name: str) -> None:
    source = SNIPPETS[name]
    write(tmp_path, {"code.py": source})
    matches = [m for m in scan(tmp_path, SHIPPED).matches if m.rule_id in FIXES]
    assert matches, "the snippet has a match of a rule with a fix"
    outcome = fix_source(source, {FIXES[m.rule_id] for m in matches})
    # NOTE: by fix id: a line another match's fix rewrites is not this match's rewrite
    rewritten = {(r.fix_id, r.line) for r in outcome.rewrites}
    refused = {(r.fix_id, r.line) for r in outcome.refusals}
    for match in matches:
        at = (FIXES[match.rule_id], match.location.line)
        if match.mechanical:
            assert at in rewritten, (match.rule_id, at, outcome.refusals)
        else:
            assert at not in rewritten, (match.rule_id, at, "rewritten, not labelled")
            assert at in refused, (match.rule_id, at, "left without a reason")


def test_labels_cover_the_forms_the_fixes_rewrite(tmp_path: Path) -> None:
    """The conservative reading still labels what the fixes are for (the test above cannot
    pass by labelling nothing)."""
    labelled: set[tuple[str, int]] = set()
    for name, source in SNIPPETS.items():
        folder = tmp_path / name
        write(folder, {"code.py": source})
        labelled |= {(name, m.location.line) for m in scan(folder, SHIPPED).matches if m.mechanical}
    assert labelled == {
        ("autocast", 3), ("autocast", 5), ("autocast", 12), ("torch-parameter", 3), ("state", 2), ("state", 3),
        ("scaler", 2), ("device", 2), ("device", 3), ("mem", 1), ("mem", 2), ("qconv", 2),
        ("qconv", 3),
        ("with-and", 2), ("ccl", 3), ("ccl", 4), ("unused-import", 2),
    }  # fmt: skip


def test_a_guarded_import_is_refused_with_its_guard(tmp_path: Path) -> None:
    """Removing the import from try/except ImportError would leave HAS_IPEX = True where
    nothing was imported: the fix leaves the try statement to the author and says so."""
    outcome = fix_source(SNIPPETS["guarded-import"], {"ipex-side-effect-import"})
    assert not outcome.changed
    (refusal,) = outcome.refusals
    assert refusal.line == 2 and "try statement at line 1" in refusal.reason


@pytest.mark.parametrize(
    ("name", "prefixes", "inside"),
    [
        ("torch.xpu.amp", ("torch.xpu.amp",), True),
        ("torch.xpu.amp.autocast", ("torch.cpu", "torch.xpu.amp"), True),
        ("torch.xpu.amp_v2", ("torch.xpu.amp",), False),
        ("torch.xpu", ("torch.xpu.amp",), False),
        ("torch", ("torch.xpu",), False),
        ("x.torch.xpu.amp", ("torch.xpu",), False),
        ("intel_extension_for_pytorch.cpu", ("intel_extension_for_pytorch",), True),
        ("intel_extension_for_pytorch_ext", ("intel_extension_for_pytorch",), False),
    ],
)
def test_a_name_is_under_a_prefix_it_is_or_continues_after_a_dot(
    name: str, prefixes: tuple[str, ...], inside: bool
) -> None:
    assert under(name, prefixes) is inside
