"""What the Intel GPU ladder adds to the probe: sysfs, device nodes and one Level Zero call.

    python benchmarks/gpu_ladder.py [--repeat N] [--python PATH]

The floor is the interpreter start the Level Zero rung cannot avoid (``python -I -c pass``):
the rest is reading files and one ``zeInit``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import time

from ipex_doctor.probe import gpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--python", default=shutil.which("python3") or "python3")
    args = parser.parse_args()
    ladder, floor = [], []
    for _ in range(args.repeat):
        started = time.perf_counter()
        gpu.gpu_facts(args.python)
        ladder.append(time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run([args.python, "-I", "-c", "pass"], check=True)
        floor.append(time.perf_counter() - started)
    ladder_s, floor_s = statistics.median(ladder), statistics.median(floor)
    print(f"ladder facts: median {ladder_s * 1000:.0f} ms (max {max(ladder) * 1000:.0f} ms); "
          f"floor (interpreter start) {floor_s * 1000:.0f} ms; {ladder_s / floor_s:.2f}x floor")  # fmt: skip


if __name__ == "__main__":
    main()
