"""IPEX 1.0 to 1.9 (2020-2021): its package ``intel_pytorch_extension``, its core
``_torch_ipex``, its device string ``'dpcpp'`` and its distribution ``torch_ipex`` are found as
IPEX's (``explain``'s side: tests/knowledge/test_explain.py); ``dpcpp`` elsewhere is the
compiler's name."""

from __future__ import annotations

from pathlib import Path

from scan_rules import found, scan, write

from ipex_doctor.knowledge import code_rules

SHIPPED = code_rules.load()

TRAIN = """\
import torch
import intel_pytorch_extension as ipex
import _torch_ipex as core

device = ipex.DEVICE
ipex.enable_auto_mixed_precision(mixed_dtype=torch.bfloat16)
core.enable_auto_dnnl()
model = torch.nn.Linear(2, 2).to(device='dpcpp:0')
"""


def test_ipex_1x_in_code_requirements_and_installers_is_found(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "train.py": TRAIN,
            "requirements.txt": "torch==1.9.0\ntorch_ipex==1.9.0\n",
            "install.sh": "pip install torch_ipex==1.9.0 -f https://software.intel.com/ipex-whl-stable\n",
            # NOTE: the DPC++ compiler's name in a file that does not import IPEX 1.x
            "build.py": 'import os\nos.environ["DEVITO_ARCH"] = "dpcpp"\n',
        },
    )
    assert [(path, line, rule) for path, line, rule, _ in found(scan(tmp_path, SHIPPED))] == [
        ("install.sh", 1, "ipex-requirement"),
        ("install.sh", 1, "ipex-wheel-index"),
        ("requirements.txt", 2, "ipex-requirement"),
        ("train.py", 2, "ipex-legacy-import"),
        ("train.py", 3, "ipex-legacy-import"),
        ("train.py", 5, "ipex-legacy-api"),
        ("train.py", 6, "ipex-legacy-api"),
        ("train.py", 7, "ipex-legacy-api"),
        ("train.py", 8, "ipex-legacy-device"),
    ]


def test_a_probe_of_the_old_package_guards_what_it_imports(tmp_path: Path) -> None:
    source = (
        "import importlib.util\n"
        "HAS_OLD = importlib.util.find_spec('intel_pytorch_extension') is not None\n"
        "if HAS_OLD:\n"
        "    import intel_pytorch_extension as ipex\n"
    )
    write(tmp_path, {"a.py": source})
    result = scan(tmp_path, SHIPPED)
    assert [(line, rule) for _, line, rule, _ in found(result)] == [
        (2, "ipex-probe"),
        (3, "ipex-probe"),
        (4, "ipex-legacy-import"),
    ]
    assert result.matches[-1].guard is not None
