"""``collector_paused``: Python's cyclic garbage collector held off while a parser builds a
large tree.

The collector runs after every few hundred allocations, and its full passes walk every live
object: while ``ast`` or LibCST builds millions of nodes, it walks the growing tree again and
again, and the cost of reading a file grows with the square of its size (on a 10 MiB file,
``ast.parse`` takes 2 to 4 times longer with it than without). Parse trees hold no reference
cycles (a node refers to its children only), so the objects built meanwhile are freed by
reference counting all the same; whatever cycles are made meanwhile are young objects, which the
collector's next pass after the pause looks at once.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold the cyclic collector off inside the block (nested pauses are fine); on the way
    out it is on again if it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
