"""Time the light commands (--help, kb list, kb show) against Python's own start-up.

    python benchmarks/light_commands.py [--repeat N]

Budget: each answers in under 0.3 s on this project's 2-core machines. The floor is
``python -c pass`` with the same interpreter: the doctor cannot start faster than Python.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from _timing import table, time_commands

BUDGET_S = 0.3


def main() -> int:
    """Run the benchmark and print the table; exit 1 when a command is over budget."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    doctor = [sys.executable, "-m", "ipex_doctor"]
    commands = {
        "floor: python -c pass": [sys.executable, "-c", "pass"],
        "ipex-doctor --help": [*doctor, "--help"],
        "ipex-doctor kb list": [*doctor, "kb", "list"],
        "ipex-doctor kb show bf16-linear": [*doctor, "kb", "show", "bf16-linear"],
        "ipex-doctor kb validate": [*doctor, "kb", "validate"],
    }
    samples = time_commands(commands, repeat=args.repeat)
    print(table(samples, "floor: python -c pass"))
    over = [
        n for n, v in samples.items() if n.startswith("ipex") and statistics.median(v) > BUDGET_S
    ]
    print(f"budget {BUDGET_S} s: " + ("all within" if not over else f"OVER: {', '.join(over)}"))
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
