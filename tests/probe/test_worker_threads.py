"""The worker's CPU threads on a machine other processes keep busy (``fit_threads``): the idle
cores, never more than torch's default, never fewer than one."""

from __future__ import annotations

import importlib.util

import pytest
from conftest import REPO

_SPEC = importlib.util.spec_from_file_location(
    "doctor_worker", REPO / "ipex_doctor" / "probe" / "scripts" / "worker.py"
)
assert _SPEC is not None and _SPEC.loader is not None
worker = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(worker)


@pytest.mark.parametrize(
    ("cores", "others", "default", "threads"),
    [
        (2, 0.0, 2, 2),  # idle: torch's own choice
        (2, 0.2, 2, 2),  # a little background: still both
        (2, 0.8, 2, 1),  # one core mostly taken: the other one
        (2, 1.4, 2, 1),  # more than a core taken: one thread, never zero
        (2, 3.0, 2, 1),  # more runnable work than cores: one thread
        (16, 4.0, 16, 12),  # a big machine with four busy cores: the twelve idle
        (16, 0.0, 4, 4),  # never more than the default (the user's OMP_NUM_THREADS=4)
    ],
)
def test_threads_are_the_idle_cores(cores: int, others: float, default: int, threads: int) -> None:
    assert worker.threads_for(cores, others, default) == threads
