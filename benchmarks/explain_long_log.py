"""Time ``explain`` on a long log (a CI job's output, its error in its last lines) against the
floor it cannot beat: an interpreter that reads the log's end and decodes it.

    python benchmarks/explain_long_log.py [--repeat N] [--megabytes M ...] [--baseline DIR]

``explain --file LOG`` reads a log's last 8 MB (an error is at the end of a log; its start is a
job's noise), keeps its last two million characters and tries the knowledge base's 440
case-insensitive expressions on the last million, each only where the text holds the literals
every match of it must (``regex_literals``). The floor is ``python -c`` reading and decoding
those same last 8 MB; the ratio holds on a faster or slower machine where seconds would not.
``--baseline DIR`` times another checkout's doctor in the same interleaved runs (``git
worktree add DIR REV``), so a change is measured against what it changed. The logs are made
here: training-step lines, then a traceback naming ``could not create a primitive descriptor``.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from _timing import measure_commands

ROOT = Path(__file__).resolve().parent.parent
TAIL_BYTES = 8_000_000
ERROR = (
    'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n'
    "    out = model(x)\nRuntimeError: could not create a primitive descriptor for a matmul "
    "primitive\n"
)


def _log(directory: Path, megabytes: float) -> Path:
    """A log of about ``megabytes`` MB of training-step lines with the error at its end."""
    path = directory / f"train-{megabytes:g}MB.log"
    line = "[step {0}] loss=0.{1:04d} lr=1e-4 grad_norm=1.{1:03d} it/s=3.2\n"
    with path.open("w") as out:
        step = 0
        while out.tell() < megabytes * 1_000_000:
            out.write("".join(line.format(step + i, (step + i) % 9973) for i in range(1000)))
            step += 1000
        out.write(ERROR)
    return path


def _floor(log: Path) -> list[str]:
    code = (
        f"import os; f = open({str(log)!r}, 'rb'); "
        f"f.seek(max(0, os.path.getsize({str(log)!r}) - {TAIL_BYTES})); "
        "f.read().decode('utf-8', 'replace')"
    )
    return [sys.executable, "-c", code]


def main(argv: Sequence[str] | None = None) -> int:
    """Make the logs, time each command interleaved, print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--megabytes", type=float, nargs="+", default=[1.0, 13.0])
    parser.add_argument("--baseline", type=Path, help="another checkout, timed beside")
    args = parser.parse_args(argv)
    checkouts = {"main": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    for checkout in checkouts.values():
        compileall.compile_dir(str(checkout / "ipex_doctor"), quiet=1)
    with tempfile.TemporaryDirectory(prefix="explain-long-log-") as scratch:
        logs = [_log(Path(scratch), size) for size in args.megabytes]
        commands: dict[str, list[str]] = {}
        for log in logs:
            commands[f"floor {log.name}"] = _floor(log)
            for name, checkout in checkouts.items():
                # NOTE: -P keeps the benchmark's own directory off the doctor's path; each
                # checkout's package comes first through PYTHONPATH, set per command below
                commands[f"{name} {log.name}"] = [
                    "env", f"PYTHONPATH={checkout}", sys.executable, "-P", "-m", "ipex_doctor",
                    "explain", "--file", str(log),
                ]  # fmt: skip
        os.environ.pop("PYTHONPATH", None)
        samples = measure_commands(commands, repeat=args.repeat)
    print(f"{args.repeat} runs each, medians (wall s, cpu s, cpu against the floor)")
    for log in logs:
        floor = statistics.median(r.cpu_s for r in samples[f"floor {log.name}"])
        for name in (f"floor {log.name}", *(f"{c} {log.name}" for c in checkouts)):
            wall = statistics.median(r.wall_s for r in samples[name])
            cpu = statistics.median(r.cpu_s for r in samples[name])
            print(f"{name:<36} {wall:7.3f} {cpu:7.3f} {cpu / floor:7.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
