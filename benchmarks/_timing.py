"""Shared timing helper for the benchmarks: interleaved runs, medians, a plain table."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    """One timed run of a command: wall seconds, and the CPU seconds (user + system) it used."""

    wall_s: float
    cpu_s: float


def measure_commands(
    commands: dict[str, Sequence[str]], *, repeat: int, warmup: int = 1
) -> dict[str, list[Run]]:
    """Wall and CPU time of each command, runs interleaved so machine noise hits all alike.

    The CPU time is the child's own (``os.wait4``'s resource usage), so another process
    beside it slows its wall time but not its CPU time.
    """
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    samples: dict[str, list[Run]] = {name: [] for name in commands}
    for round_no in range(warmup + repeat):
        for name, argv in commands.items():
            started = time.perf_counter()
            child = subprocess.Popen(
                list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
            )
            _, _, usage = os.wait4(child.pid, 0)
            elapsed = time.perf_counter() - started
            child.returncode = 0  # NOTE: reaped by wait4 above; Popen must not wait for it
            if round_no >= warmup:
                samples[name].append(Run(elapsed, usage.ru_utime + usage.ru_stime))
    return samples


def time_commands(
    commands: dict[str, Sequence[str]], *, repeat: int, warmup: int = 1
) -> dict[str, list[float]]:
    """Wall seconds of each command, runs interleaved so machine noise hits all alike."""
    runs = measure_commands(commands, repeat=repeat, warmup=warmup)
    return {name: [run.wall_s for run in values] for name, values in runs.items()}


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
