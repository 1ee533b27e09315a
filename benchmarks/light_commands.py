"""Time the light commands (--help, kb, explain, repro --list) against Python's own start-up.

    python benchmarks/light_commands.py [--repeat N] [--busy]

Budget: --help, kb list, kb show, explain and repro --list each answer in at most 0.1 s
(median wall time) on this project's 2-core machines, and use at most 3 times the CPU time
(user + system, median) of ``python -c "import click"`` measured in the same run: the doctor
cannot start faster than Python and Click, and the ratio holds on a faster or slower machine
where a number of seconds would not. ``--busy`` runs a CPU-bound process beside the timed
commands (as another job on the machine would): the wall budget must hold then too, the CPU
ratio is not moved by it. The knowledge base comes from its cache (``knowledge/cache.py``)
after the first run; kb validate parses YAML and is only measured. The package is
byte-compiled first, as pip does when it installs the wheel (a source checkout run with
PYTHONDONTWRITEBYTECODE would otherwise compile every module on every run).
"""

from __future__ import annotations

import argparse
import compileall
import statistics
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from _timing import Run, measure_commands

WALL_BUDGET_S = 0.1
CPU_BUDGET_RATIO = 3.0
CLICK_FLOOR = "floor: python -c 'import click'"
PASS_FLOOR = "floor: python -c pass"


@contextmanager
def _busy(enabled: bool) -> Iterator[None]:
    """A CPU-bound process beside the timed commands while ``enabled``."""
    if not enabled:
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


def _budgeted(name: str) -> bool:
    # NOTE: kb validate parses YAML by design (it validates); it is measured, not budgeted.
    return name.startswith("ipex") and "validate" not in name


def _report(samples: dict[str, list[Run]]) -> list[str]:
    """One line per command: medians of wall and CPU time, and each against its floor."""
    click_cpu = statistics.median(run.cpu_s for run in samples[CLICK_FLOOR])
    over = []
    print(f"{'command':<34} {'wall s':>7} {'max s':>6} {'cpu s':>6} {'cpu/click':>9}  budget")
    for name, runs in samples.items():
        wall = statistics.median(run.wall_s for run in runs)
        cpu = statistics.median(run.cpu_s for run in runs)
        ratio = cpu / click_cpu
        verdict = ""
        if _budgeted(name):
            wall_ok, cpu_ok = wall <= WALL_BUDGET_S, ratio <= CPU_BUDGET_RATIO
            verdict = (
                f"wall {'ok' if wall_ok else 'OVER'} (<= {WALL_BUDGET_S}), "
                f"cpu {'ok' if cpu_ok else 'OVER'} (<= {CPU_BUDGET_RATIO:g}x)"
            )
            if not (wall_ok and cpu_ok):
                over.append(name)
        longest = max(run.wall_s for run in runs)
        print(f"{name:<34} {wall:7.3f} {longest:6.3f} {cpu:6.3f} {ratio:9.2f}  {verdict}")
    return over


def main() -> int:
    """Run the benchmark and print the table; exit 1 when a command is over budget."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--busy", action="store_true", help="run a CPU-bound process beside")
    args = parser.parse_args()
    package = Path(__file__).resolve().parent.parent / "ipex_doctor"
    compileall.compile_dir(str(package), quiet=1)
    doctor = [sys.executable, "-m", "ipex_doctor"]
    commands: dict[str, Sequence[str]] = {
        PASS_FLOOR: [sys.executable, "-c", "pass"],
        CLICK_FLOOR: [sys.executable, "-c", "import click"],
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
    with _busy(args.busy):
        samples = measure_commands(commands, repeat=args.repeat)
    print(f"{'busy' if args.busy else 'quiet'}, {args.repeat} runs each, medians")
    over = _report(samples)
    print("budget: " + ("all within" if not over else f"OVER: {', '.join(over)}"))
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
