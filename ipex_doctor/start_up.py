"""The command's start: Python's cyclic garbage collector held off while the doctor loads.

Loading the doctor (Click, the commands, a use case's modules and their frozen dataclasses)
allocates a few hundred thousand objects that live as long as the process, and the collector
walked them again and again while they were made: some sixty passes, about 9 ms of a small
project's scan (a torch environment's interpreter, the 2-core EPYC), a twentieth of the
doctor's own CPU. Loading makes next to no garbage in cycles, so ``hold`` turns the collector
off at the console entry's first line and ``loaded`` ends that once the command is loaded:
everything made so far is moved out of the collector's reach for good (``gc.freeze``: never
walked again, the few cycles among it never freed) and the collector runs as before for the
command's own work.

Only the console entry holds it (``cli.main`` run on the process's own command line: the
``ipex-doctor`` script, ``python -m ipex_doctor``); a caller that hands ``cli.main`` its
arguments is a program of its own (a test), whose collector stays as it is: freezing its
objects would keep its cycles from ever being freed. ``loaded`` does nothing where nothing
was held. ``loaded`` is
called where each command's loading ends: the commands' group callback for every command but
``scan``, and the scan's start once its use case is imported (``app.scan_start``), its heaviest
load; the entry calls it again on the way out, so no path leaves the collector off.
"""

from __future__ import annotations

import gc

_held = False
"""Whether ``hold`` turned the collector off and ``loaded`` has not turned it on yet."""


def hold() -> None:
    """Turn the collector off while the command loads, where it is on (the console entry's
    first line)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def loaded() -> None:
    """The command is loaded: freeze what was made meanwhile and turn the collector on again,
    where ``hold`` turned it off; nothing otherwise (and nothing the second time)."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()
