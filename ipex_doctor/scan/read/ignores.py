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

Most paths match no pattern, and are answered by one regex, the union of the patterns'
regexes that pathspec made. That union (and which lines pathspec refused) is kept between
scans (``derived_cache``, keyed by the lines, the installed pathspec's files and this module),
so a scan whose ignore files were seen before imports pathspec only once a path matches the
union, and then decides it with pathspec itself.
"""

from __future__ import annotations

import enum
import functools
import importlib.util
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ipex_doctor.scan.read import derived_cache

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


class _Layer:
    """The patterns of one ``.gitignore`` (or the caller's excludes) in force under ``base``."""

    __slots__ = ("_spec", "any_match", "base", "lines")

    def __init__(
        self,
        base: str,
        lines: tuple[str, ...],
        any_match: re.Pattern[str] | None,
        spec: GitIgnoreSpec | None = None,
    ) -> None:
        self.base = base
        """The directory of the ``.gitignore``, relative to the root (``""`` for the root)."""
        self.lines = lines
        """The lines pathspec accepts, that ``spec`` is made of."""
        self.any_match = any_match
        """All of ``spec``'s patterns as one regex: when it finds nothing, no pattern matches
        (``None``: every path goes to ``spec``)."""
        self._spec = spec

    @property
    def spec(self) -> GitIgnoreSpec:
        """pathspec's reading of ``lines`` (pathspec is imported when first asked for)."""
        if self._spec is None:
            from pathspec import GitIgnoreSpec

            self._spec = GitIgnoreSpec.from_lines(self.lines)
        return self._spec


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
        return self.left_out(path, is_dir=is_dir) is not None

    def left_out(self, path: str, *, is_dir: bool) -> LeftOut | None:
        """Why ``path`` (a file, or a directory when ``is_dir``) is left out, ``None``: it is
        not. The caller's excludes are asked first: what they leave out is ``EXCLUDED`` even
        where a ``.gitignore`` names it too."""
        if is_dir:
            path += "/"
        if self._exclude is not None and _decide(self._exclude, path):
            return LeftOut.EXCLUDED
        for layer in reversed(self._layers):
            decision = _decide(layer, path[len(layer.base) + 1 :] if layer.base else path)
            if decision is not None:
                return LeftOut.GITIGNORED if decision else None
        return None


class LeftOut(enum.Enum):
    """Which rule leaves a path out."""

    EXCLUDED = "excluded"
    """The caller's ``exclude`` patterns (the user's words): final."""
    GITIGNORED = "gitignored"
    """A ``.gitignore``: as in git, it concerns untracked files only (``git_index``)."""


def _decide(layer: _Layer, path: str) -> bool | None:
    """``True``: ignored, ``False``: re-included by a ``!`` pattern, ``None``: no pattern matched."""
    # NOTE: pathspec tries each pattern in turn (about 1 us each); a .gitignore of a hundred
    # patterns would cost more than reading the file. Almost no path matches any pattern, so
    # one search of the union answers most paths; a path it finds goes to pathspec itself.
    if layer.any_match is not None and layer.any_match.search(path) is None:
        return None
    return layer.spec.check_file(path).include


def _layer(base: str, lines: Sequence[str], *, strict: bool) -> _Layer | None:
    """The layer of ``lines`` under ``base`` (``None``: blank lines and comments only); an
    invalid line is ``InvalidPattern`` when ``strict``, else dropped."""
    stamp = _pathspec_stamp()
    key = json.dumps([stamp, strict, list(lines)]) if stamp is not None else None
    if key is not None:
        kept = _kept_layer(base, lines, derived_cache.get("gitignore", key))
        if kept is not None:
            return kept[0]
    layer = _made_layer(base, lines, strict=strict)
    if key is not None and (layer is None or layer.any_match is not None):
        # NOTE: a layer whose patterns cannot be joined sends every path to pathspec: keeping
        # it would spare nothing
        accepted = set(layer.lines) if layer is not None else set()
        value = {
            "none": layer is None,
            "dropped": [i for i, line in enumerate(lines) if line not in accepted],
            "union": layer.any_match.pattern if layer is not None and layer.any_match else None,
        }
        derived_cache.put("gitignore", key, value)
    return layer


def _kept_layer(base: str, lines: Sequence[str], value: Any) -> tuple[_Layer | None] | None:
    """The layer an earlier scan made of the same ``lines``, from its kept ``value``; ``None``
    when there is none (a miss)."""
    if not isinstance(value, dict) or not isinstance(value.get("none"), bool):
        return None
    if value["none"]:
        return (None,)
    dropped, union = value.get("dropped"), value.get("union")
    if not isinstance(dropped, list) or not all(type(i) is int for i in dropped):
        return None
    if not isinstance(union, str):
        return None
    try:
        any_match = re.compile(union)
    except re.error:
        return None
    left_out = set(dropped)
    accepted = tuple(line for i, line in enumerate(lines) if i not in left_out)
    return (_Layer(base, accepted, any_match),)


def _made_layer(base: str, lines: Sequence[str], *, strict: bool) -> _Layer | None:
    # NOTE: pathspec costs 20 ms or more to import; a tree without .gitignore and excludes
    # never pays it, nor one whose layers were kept by an earlier scan.
    from pathspec import GitIgnoreSpec

    accepted = tuple(lines)
    try:
        spec = GitIgnoreSpec.from_lines(accepted)
    except (ValueError, re.error) as error:  # NOTE: re.error is no ValueError before 3.13
        if strict:
            raise InvalidPattern(str(error)) from error
        accepted = tuple(line for line in lines if _valid(line))
        spec = GitIgnoreSpec.from_lines(accepted)
    if all(pattern.include is None for pattern in spec.patterns):
        return None  # blank lines and comments only
    return _Layer(base, accepted, _union(spec), spec)


@functools.cache
def _pathspec_stamp() -> str | None:
    """The installed pathspec's files that turn a line into a regex, and this module, as
    ``derived_cache.code_stamp``; ``None`` when pathspec cannot be found without importing it
    (then nothing is kept)."""
    found = importlib.util.find_spec("pathspec")
    if found is None or found.origin is None:
        return None
    home = Path(found.origin).parent
    try:
        patterns = sorted((home / "patterns" / "gitignore").glob("*.py"))
    except OSError:
        return None
    files = [home / "_version.py", home / "gitignore.py", home / "pattern.py", home / "util.py"]
    return derived_cache.code_stamp([*files, *patterns, Path(__file__)])


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
