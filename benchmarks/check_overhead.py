"""Time ``ipex-doctor env`` and ``check`` on the reference stack against the import floor.

    python benchmarks/probe_overhead.py [--repeat N] [--python PATH]

The floor is what the doctor cannot avoid: ``python -c "import torch,
intel_extension_for_pytorch"`` in a fresh process of the examined interpreter (about 6.4 s on
this project's 2-core machines). Everything the doctor adds on top (handshake, metadata,
host facts, judging, rendering) shows as the ratio of medians.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _timing import table, time_commands

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import testenvs  # noqa: E402


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--python", default=None, help="examined interpreter (default: reference env)"
    )
    args = parser.parse_args()
    python = args.python or str(testenvs.build("reference"))
    doctor = [sys.executable, "-m", "ipex_doctor"]
    floor = "floor: import torch, intel_extension_for_pytorch"
    commands = {
        floor: [python, "-c", "import torch, intel_extension_for_pytorch"],
        "ipex-doctor env --python REF": [*doctor, "env", "--python", python],
        "ipex-doctor check --python REF": [*doctor, "check", "--python", python],
    }
    print(table(time_commands(commands, repeat=args.repeat), floor))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
