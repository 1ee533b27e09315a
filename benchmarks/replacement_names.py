"""Do the upstream names the code rules recommend exist in the torch at hand?

    PYTHON benchmarks/replacement_names.py    (PYTHON: an interpreter with torch, and the
                                               doctor's dependencies importable)

Every ``replacement_symbols`` name of ``code_rules.yaml`` is looked up (modules imported,
attributes followed); the IPEX-only spellings are looked up too, which upstream torch must lack.
The test suite checks the same on torch 2.8 (tests/test_code_rule_facts.py); this runs it on
another torch, such as the GPU machine's.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ipex_doctor.knowledge import code_rules  # noqa: E402

IPEX_ONLY = ("torch.xpu.amp", "torch.xpu.optimize", "torch.xpu.has_fp64_dtype")


def exists(name: str) -> bool:
    """Whether ``name`` resolves: the longest importable module prefix, then attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001 - any failure to import means "not this prefix"
            continue
        try:
            for part in parts[cut:]:
                found = getattr(found, part)
        except AttributeError:
            return False
        return True
    return False


def main() -> int:
    import torch

    names = sorted({n for rule in code_rules.load().rules for n in rule.replacement_symbols})
    missing = [n for n in names if not exists(n)]
    print(f"torch {torch.__version__}: {len(names) - len(missing)} of {len(names)} replacement "
          f"names exist; missing: {missing}")  # fmt: skip
    present = [n for n in IPEX_ONLY if exists(n)]
    print(f"IPEX-only spellings present in upstream torch: {present}")
    return 1 if missing or present else 0


if __name__ == "__main__":
    sys.exit(main())
