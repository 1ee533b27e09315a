"""Text files that are requirement lists by use rather than by name.

A project may keep its pip input in a file whose name says nothing (``builder/pakZ.txt``,
installed by ``pip install -r "$workdir"/pakZ.txt`` in a build script). ``kinds.classify`` knows
requirement lists by name and place only; ``discovery`` offers every other ``*.txt`` and ``*.in``
as a candidate *by use*, and the scan reads one as ``REQUIREMENTS`` only when another file of
the tree hands it to pip: ``-r``, ``-c``, ``--requirement`` or ``--constraint`` followed by its
path, in a shell script, Dockerfile, CI file or requirements file (whose own ``-r`` lines, and
pip-compile's ``# via -r ...`` notes, are that). A file nobody names is never opened.

``named_lists(data, kind)`` gives the paths a file names so; ``is_named(display, names)``
says whether a candidate is one of them. A path is compared by its trailing components: a
variable or ``..`` before them (``"$workdir"/pakZ.txt``, ``.pin/../constraints/hpu.txt``)
names a directory the scan cannot know, so what follows it is what must match the end of the
candidate's path.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from ipex_doctor.model.code import FileKind

NAMING_KINDS = frozenset({FileKind.SHELL, FileKind.DOCKERFILE, FileKind.CI, FileKind.REQUIREMENTS})
"""The kinds of file whose ``-r``/``-c`` options name a requirement list."""

BY_USE_SUFFIXES = (".txt", ".in")
"""What a requirement list by use is called: pip's own inputs (``-r x.txt``) and pip-tools'
(``x.in``); any other name is not offered."""

_OPTION = re.compile(
    rb"(?:^|(?<=[\s\"'(]))(?:-r|-c|--requirement|--constraint)(?:=|[ \t]+)"
    rb"([^\s;&|<>()]+?\.(?:txt|in))(?=[\"'\s;&|)]|$)",
    re.MULTILINE,
)
"""An option handing a ``*.txt``/``*.in`` file to pip, and its path (quotes and all)."""
_INSTALLER = re.compile(rb"\b(?:pip\w*|uv|install|compile|sync)\b")
"""Outside a requirements file the same option means other things (``cp -r``, ``bash -c``):
it names a list only on a line that installs, compiles or syncs."""


def named_lists(data: bytes, kind: FileKind) -> tuple[str, ...]:
    """The requirement lists ``data`` (a file of ``kind``) hands to pip, each as the trailing
    path components that name it (see the module); ``()`` for a kind that names none."""
    # NOTE: "--requirement" and "--constraint" hold "-r" and "-c": one search each rules most
    # files out before the expression runs
    if kind not in NAMING_KINDS or (b"-r" not in data and b"-c" not in data):
        return ()
    names: list[str] = []
    for found in _OPTION.finditer(data):
        if kind is not FileKind.REQUIREMENTS:
            start = data.rfind(b"\n", 0, found.start()) + 1
            end = data.find(b"\n", found.end())
            if _INSTALLER.search(data, start, end if end >= 0 else len(data)) is None:
                continue
        name = _trailing(found.group(1).decode("utf-8", errors="replace"))
        if name and name not in names:
            names.append(name)
    return tuple(names)


def _trailing(raw: str) -> str:
    """The components of ``raw`` after its last variable (``$x``, ``${x}``, ``%x%``), less
    quotes, normalised (``a/../b`` is ``b``), without a leading ``..`` or ``/``."""
    path = raw.replace('"', "").replace("'", "").replace("\\", "/")
    parts = path.split("/")
    last_variable = max(
        (i for i, part in enumerate(parts) if "$" in part or "%" in part or "{" in part),
        default=-1,
    )
    path = posixpath.normpath("/".join(parts[last_variable + 1 :]) or ".")
    while path.startswith("../"):
        path = path[3:]
    path = path.lstrip("/")
    return "" if path in (".", "..") else path


def is_named(display: str, names: Iterable[str]) -> bool:
    """Whether the candidate at ``display`` (its path in results) is one of ``names``: its
    path is the name or ends with ``/`` and the name."""
    return any(display == name or display.endswith("/" + name) for name in names)
