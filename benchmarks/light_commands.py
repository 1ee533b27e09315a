"""Time the light commands (--help, kb, explain, repro --list) against Python's own start-up.

    python benchmarks/light_commands.py [--repeat N]

Budget: --help, kb list, kb show, explain and repro --list each answer in at most 0.1 s
(median) on this project's 2-core machines (the knowledge base comes from its cache,
``knowledge/cache.py``, after the first run; kb validate parses YAML and is only measured). The floor is
``python -c pass`` with the same interpreter: the doctor cannot start faster than Python. The
package is byte-compiled first, as pip does when it installs the wheel (a source checkout
run with PYTHONDONTWRITEBYTECODE would otherwise compile every module on every run).
"""

from __future__ import annotations

import argparse
import compileall
import statistics
import sys
from pathlib import Path

from _timing import table, time_commands

BUDGET_S = 0.1


def main() -> int:
    """Run the benchmark and print the table; exit 1 when a command is over budget."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    package = Path(__file__).resolve().parent.parent / "ipex_doctor"
    compileall.compile_dir(str(package), quiet=1)
    doctor = [sys.executable, "-m", "ipex_doctor"]
    commands = {
        "floor: python -c pass": [sys.executable, "-c", "pass"],
        "ipex-doctor --help": [*doctor, "--help"],
        "ipex-doctor kb list": [*doctor, "kb", "list"],
        "ipex-doctor kb show bf16-linear": [*doctor, "kb", "show", "bf16-linear"],
        "ipex-doctor kb validate": [*doctor, "kb", "validate"],
        "ipex-doctor explain TEXT": [
            *doctor,
            "explain",
            "RuntimeError: operator torchvision::nms does not exist",
        ],
        "ipex-doctor repro --list": [*doctor, "repro", "--list"],
    }
    samples = time_commands(commands, repeat=args.repeat)
    print(table(samples, "floor: python -c pass"))
    # NOTE: kb validate parses YAML by design (it validates); it is measured, not budgeted.
    over = [
        n
        for n, v in samples.items()
        if n.startswith("ipex") and "validate" not in n and statistics.median(v) > BUDGET_S
    ]
    print(f"budget {BUDGET_S} s: " + ("all within" if not over else f"OVER: {', '.join(over)}"))
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
