"""How a use case hears SIGTERM: as ``Terminated``, an exception like ``KeyboardInterrupt``, so
that every ``finally`` runs and what was learnt can still be published before ``Stopped`` ends
the run with 143 (SIGINT already arrives as ``KeyboardInterrupt``)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

from ipex_doctor.errors import Terminated


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Turn SIGTERM into a ``Terminated`` exception while the block runs."""

    def handler(signum: int, frame: object) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
