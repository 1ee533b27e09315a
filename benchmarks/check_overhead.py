"""Time ``ipex-doctor env`` and ``check`` on the reference stack against the import floor.

    python benchmarks/check_overhead.py [--repeat N] [--python PATH]

The floor is what no diagnosis can avoid: ``python -c "import torch,
intel_extension_for_pytorch"`` in a fresh process of the examined interpreter (about 6 s on this
project's 2-core machines). ``check`` runs the probe and all four reproductions in one worker
that imports torch and IPEX once; the last row runs the four check scripts by hand, one process
each, which is what a per-script design would cost. Target: check / floor <= 1.15 (median).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from _timing import table, time_commands

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
import testenvs  # noqa: E402

TARGET = 1.15


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
    # NOTE: ";" not "&&": a script exits 1 when it reproduces its issue.
    scripts = "; ".join(
        f"{python} {path} --device cpu >/dev/null"
        for path in sorted((REPO / "checks").glob("[!_]*.py"))
    )
    commands = {
        floor: [python, "-c", "import torch, intel_extension_for_pytorch"],
        "ipex-doctor env --python REF": [*doctor, "env", "--python", python],
        "ipex-doctor check --python REF (4 repros)": [
            *doctor,
            "check",
            "--skip-sanity",
            "--python",
            python,
        ],
        "4 check scripts, one process each": ["sh", "-c", scripts],
    }
    samples = time_commands(commands, repeat=args.repeat)
    print(table(samples, floor))
    ratio = statistics.median(
        samples["ipex-doctor check --python REF (4 repros)"]
    ) / statistics.median(samples[floor])
    print(f"check / floor = {ratio:.2f} (target <= {TARGET})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
