"""Time ``ipex-doctor env`` and ``check`` on the reference stack against the import floor.

    python benchmarks/check_overhead.py [--repeat N] [--python PATH] [--device SPEC]

The floor is what no diagnosis can avoid: importing what the doctor's worker imports (torch,
and torchvision and IPEX where installed) in a fresh process of the examined interpreter
(about 6 s on this project's 2-core machines with IPEX; 7-11 s for torch and torchvision on
the H100 machine). ``check`` runs the probe and all four reproductions in one worker that
imports them once; the last row runs the four check scripts by hand, one process each, which
is what a per-script design would cost. Target: check / floor <= 1.10 (median), on the CPU
(``--device cpu``, the default) and on an accelerator (``--device cuda:0``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

from _timing import table, time_commands

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
import testenvs  # noqa: E402

TARGET = 1.10


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--python", default=None, help="examined interpreter (default: reference env)"
    )
    parser.add_argument("--device", default="cpu", help="where the reproductions run")
    args = parser.parse_args()
    python = args.python or str(testenvs.build("reference"))
    doctor = [sys.executable, "-m", "ipex_doctor"]
    present = subprocess.run(
        [python, "-c", "import importlib.util as u; print(' '.join(m for m in "
         "('torch', 'torchvision', 'intel_extension_for_pytorch') if u.find_spec(m)))"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    floor = f"floor: import {', '.join(present)}"
    # NOTE: ";" not "&&": a script exits 1 when it reproduces its issue.
    scripts = "; ".join(
        f"{python} {path} --device {args.device} >/dev/null"
        for path in sorted((REPO / "checks").glob("[!_]*.py"))
    )
    commands = {
        floor: [python, "-c", f"import {', '.join(present)}"],
        "ipex-doctor env --python REF": [*doctor, "env", "--python", python],
        "ipex-doctor check --python REF (4 repros)": [
            *doctor,
            "check",
            "--skip-sanity",
            "--device",
            args.device,
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
