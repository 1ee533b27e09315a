"""``Outcome``: what reading one file gave, the unit the engine joins, the outcome cache keeps
and a worker hands back.

It lives apart from ``readers`` so that a scan whose every file is an outcome-cache hit (a
pre-commit hook's unchanged tree) builds its outcomes without importing the readers and the
matchers behind them.
"""

from __future__ import annotations

from typing import NamedTuple

from ipex_doctor.model.code import CodeMatch, SkippedFile


class Outcome(NamedTuple):
    """What reading one file gave."""

    parsed: bool
    """It passed the prefilter and was read in full."""
    matches: list[CodeMatch]
    skipped: list[SkippedFile]
    lasting: bool = True
    """It follows from the file's content alone (a cache may keep it); ``False`` when the file
    could not be read (permissions, gone) or changed while read."""
    declares: tuple[str, ...] = ()
    """The command-line options naming IPEX that a Python file declares (``project_flags``):
    a fact of the tree, used once every file is read."""
    names: tuple[str, ...] = ()
    """The requirement lists this file hands to pip (``named_requirements``): which files
    found ``by_use`` are read, decided once every other file is read."""
    extras: tuple[str, ...] = ()
    """The project's own extras that pull IPEX, as ``name[extra]``, that a metadata file
    declares (``own_extras``): installs of them are IPEX's, found once every file is read."""
    imports: tuple[str, ...] = ()
    """What a Python file imports by name, as ``module:word`` (the last name of the module it
    imports from, or nothing for ``from . import``; ``own_aliases.import_words``): which
    modules import IPEX's name from another, decided once every file is read."""
