"""The names of the rules a knowledge-base entry may name (``rule: torch-ipex-mismatch``).

They are part of the KB format, so the loader refuses an unknown one here, in ``knowledge``,
without the rules themselves: each is a detector in ``verdicts/rules.py`` (its ``RULES``), one
room up, which a test keeps in step with this list.
"""

from __future__ import annotations

RULE_NAMES: frozenset[str] = frozenset(
    {
        "torch-missing",
        "torch-import-failed",
        "torch-ipex-mismatch",
        "ipex-os-exit",
        "torchvision-broken",
        "ipex-import-failed",
        "oneapi-runtime-libs",
        "cpu-no-avx2",
        "import-illegal-instruction",
        "import-crashed",
        "bf16-prepack-isa",
        "bf16-no-native-isa",
        "xpu-no-fp64",
        "xpu-not-visible",
        "torch-without-xpu",
        "ze-affinity-mask",
        "ipex-xpu-abi",
    }
)
"""Every rule name the knowledge base may use; ``verdicts.rules.RULES`` has a rule for each."""
