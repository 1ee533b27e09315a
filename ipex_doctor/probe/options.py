"""What to examine and how long it may take: the probe's options, in a module of their own so the
command line can build them without importing the worker machinery."""

from __future__ import annotations

import sys
from dataclasses import dataclass

DEFAULT_TIMEOUT_S = 180.0
"""How long a step in the spawned interpreter (an import, a check) may go without progress."""


@dataclass(frozen=True)
class ProbeOptions:
    """What to examine and how long the runtime probe may take."""

    python: str = sys.executable
    timeout_s: float = DEFAULT_TIMEOUT_S
    runtime_probe: bool = True
