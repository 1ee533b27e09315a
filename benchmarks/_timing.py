"""Shared timing helper for the benchmarks: interleaved runs, medians, a plain table."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Sequence


def time_commands(
    commands: dict[str, Sequence[str]], *, repeat: int, warmup: int = 1
) -> dict[str, list[float]]:
    """Wall seconds of each command, runs interleaved so machine noise hits all alike."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for round_no in range(warmup + repeat):
        for name, argv in commands.items():
            started = time.perf_counter()
            subprocess.run(
                list(argv),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                check=False,
            )
            elapsed = time.perf_counter() - started
            if round_no >= warmup:
                samples[name].append(elapsed)
    return samples


def table(samples: dict[str, list[float]], floor: str) -> str:
    """Median, min, max and the ratio of medians against ``floor``."""
    base = statistics.median(samples[floor])
    rows = [f"{'command':<44} {'median s':>9} {'min s':>7} {'max s':>7} {'x floor':>8}"]
    for name, values in samples.items():
        med = statistics.median(values)
        rows.append(
            f"{name:<44} {med:9.3f} {min(values):7.3f} {max(values):7.3f} {med / base:8.2f}"
        )
    return "\n".join(rows)
