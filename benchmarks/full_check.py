"""Time the whole default ``ipex-doctor check`` (sanity run included) on the reference stack.

    python benchmarks/full_check.py [--repeat N] [--python PATH]

Rows: the floor (``import torch, intel_extension_for_pytorch`` in a fresh process), ``check``
as this CPU runs it, and ``check`` with oneDNN capped to AVX2 (``ONEDNN_MAX_CPU_ISA=AVX2``: what
torch's and IPEX's oneDNN do on an AVX2-only CPU such as EPYC Rome/Milan, where bf16 has no
prepack and convolutions fall back to reference kernels). Target: either check in at most
TARGET_S seconds on a quiet 2-core machine. The machine's other load is printed beside the
numbers: a busy machine makes them an upper bound, not a verdict.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from _timing import table, time_commands

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
import testenvs  # noqa: E402

TARGET_S = 90.0


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", default=None, help="examined interpreter (default: reference)")
    args = parser.parse_args()
    python = args.python or str(testenvs.build("reference"))
    doctor = [sys.executable, "-m", "ipex_doctor", "check", "--python", python]
    floor = "floor: import torch, intel_extension_for_pytorch"
    capped = "check, ONEDNN_MAX_CPU_ISA=AVX2"
    commands = {
        # ipex-doctor: ignore[ipex-python-command] the floor is IPEX's import, on purpose
        floor: [python, "-c", "import torch, intel_extension_for_pytorch"],
        "check (this CPU)": doctor,
        capped: ["env", "ONEDNN_MAX_CPU_ISA=AVX2", *doctor],
    }
    load_before = os.getloadavg()[0]
    samples = time_commands(commands, repeat=args.repeat, warmup=0)
    print(table(samples, floor))
    print(f"load average (1 min) before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
    worst = max(statistics.median(samples[name]) for name in commands if name != floor)
    print(f"slowest check median {worst:.1f} s (target <= {TARGET_S:.0f} s on a quiet machine)")
    return 0 if worst <= TARGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
