"""What a scan leaves out: tool and environment directories, ``.gitignore``, the caller's excludes.

Three sources, checked in this order for every path under a root:

1. the caller's ``exclude`` patterns (from the config), relative to the root; nothing in a
   ``.gitignore`` can bring back what they exclude;
2. the ``.gitignore`` files of the root and of every directory below it, with git's meaning:
   patterns are relative to the directory of their file, a deeper file overrides a shallower
   one, and within a file the last matching pattern (``!`` negations included) decides; a
   directory that is ignored is not entered, so nothing under it can be brought back (as git);
3. built-in: directory names that are never a user's source (``SKIPPED_DIR_NAMES``) and
   directories that are an environment (``VENV_MARKERS`` inside them).

Pattern semantics are pathspec's ``GitIgnoreSpec`` (the successor of its ``gitwildmatch``
patterns, which pathspec 1.x deprecates), never re-implemented here. ``.gitignore`` files
above a root and ``.git/info/exclude`` are not read: a root is scanned as what it holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

SKIPPED_DIR_NAMES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".bzr",
        "node_modules",
        "__pycache__",
        "site-packages",
        "dist-packages",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".ipynb_checkpoints",
        ".eggs",
    }
)
"""Directory names never entered: version control, caches of tools, installed packages, and
notebook checkpoints (stale copies of the notebooks next to them)."""

VENV_MARKERS = frozenset({"pyvenv.cfg", "conda-meta"})
"""A directory holding one of these is a virtual or conda environment: not the user's code."""


def is_environment(names: Iterable[str]) -> bool:
    """Whether a directory whose entries are ``names`` is a virtual or conda environment."""
    return not VENV_MARKERS.isdisjoint(names)


class InvalidPattern(ValueError):
    """A caller's exclude pattern that is not a valid gitignore pattern."""


class _Layer(NamedTuple):
    base: str
    """The directory of the ``.gitignore``, relative to the root (``""`` for the root)."""
    spec: GitIgnoreSpec
    any_match: re.Pattern[str] | None
    """All of ``spec``'s patterns as one regex: when it finds nothing, no pattern matches."""


class Ignores:
    """The ignore rules in force in one directory of a scan: immutable, cheap to extend.

    Paths are relative to the root, POSIX form, a directory with a trailing ``/``.
    """

    __slots__ = ("_exclude", "_layers")

    def __init__(self, exclude: Sequence[str] = ()) -> None:
        """Start at a root with the caller's ``exclude`` patterns (``InvalidPattern`` when one is
        not a valid gitignore pattern)."""
        self._exclude = _layer("", exclude, strict=True) if exclude else None
        self._layers: tuple[_Layer, ...] = ()

    def with_gitignore(self, base: str, text: str) -> Ignores:
        """These rules plus the ``.gitignore`` of directory ``base`` (its ``text``); lines git
        would not accept either are dropped, as git drops them."""
        layer = _layer(base, text.splitlines(), strict=False)
        if layer is None:
            return self
        extended = Ignores.__new__(Ignores)
        extended._exclude = self._exclude
        extended._layers = (*self._layers, layer)
        return extended

    def ignored(self, path: str, *, is_dir: bool) -> bool:
        """Whether ``path`` (a file, or a directory when ``is_dir``) is left out."""
        if is_dir:
            path += "/"
        if self._exclude is not None and _decide(self._exclude, path):
            return True
        for layer in reversed(self._layers):
            decision = _decide(layer, path[len(layer.base) + 1 :] if layer.base else path)
            if decision is not None:
                return decision
        return False


def _decide(layer: _Layer, path: str) -> bool | None:
    """``True``: ignored, ``False``: re-included by a ``!`` pattern, ``None``: no pattern matched."""
    # NOTE: pathspec tries each pattern in turn (about 1 us each); a .gitignore of a hundred
    # patterns would cost more than reading the file. Almost no path matches any pattern, so
    # one search of the union answers most paths; a path it finds goes to pathspec itself.
    if layer.any_match is not None and layer.any_match.search(path) is None:
        return None
    return layer.spec.check_file(path).include


def _layer(base: str, lines: Sequence[str], *, strict: bool) -> _Layer | None:
    # NOTE: pathspec costs 80 ms to import; a tree without .gitignore and excludes never pays it.
    from pathspec import GitIgnoreSpec

    try:
        spec = GitIgnoreSpec.from_lines(lines)
    except (ValueError, re.error) as error:  # NOTE: re.error is no ValueError before 3.13
        if strict:
            raise InvalidPattern(str(error)) from error
        spec = GitIgnoreSpec.from_lines(line for line in lines if _valid(line))
    if all(pattern.include is None for pattern in spec.patterns):
        return None  # blank lines and comments only
    return _Layer(base, spec, _union(spec))


def _valid(line: str) -> bool:
    from pathspec import GitIgnoreSpec

    try:
        GitIgnoreSpec.from_lines([line])
    except (ValueError, re.error):
        return False
    return True


def _union(spec: GitIgnoreSpec) -> re.Pattern[str] | None:
    """One regex that finds a path iff some pattern of ``spec`` does, or ``None`` when the
    patterns cannot be joined safely (then every path goes to pathspec)."""
    parts: list[str] = []
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if regex is None:
            continue  # a comment or blank line: matches nothing
        if not isinstance(regex, re.Pattern) or regex.flags != re.UNICODE:
            return None
        source = regex.pattern
        if not isinstance(source, str) or "(?P=" in source:
            return None
        # Named groups are only labels (no back-reference uses them, checked above); joined,
        # the same name would appear twice, which re refuses.
        parts.append("(?:" + re.sub(r"\(\?P<\w+>", "(?:", source) + ")")
    if not parts:
        return None
    try:
        return re.compile("|".join(parts))
    except re.error:
        return None
