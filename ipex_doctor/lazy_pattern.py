"""A module's regular expression, compiled at its first use rather than at the module's import.

``re`` parses and compiles in Python: some 0.2 to 1 ms of CPU a regex on a busy 2-core machine.
The scan's shell, PowerShell, batch and document readers hold some forty module-level regexes,
each for one dialect's or one construct's lines (a heredoc, a redirect, a `tee`, a fenced
block's directive); a small project's scan reaches a handful of them, yet every scan compiled
all of them as the readers were imported. A ``LazyPattern`` is the same ``re.compile(text,
flags)``, done at the first ``search``/``match``/``fullmatch``/``finditer``/``findall``/``sub``: the same regex,
the same matches, the same errors. Only a module's constant regex, whose text is fixed in its
source, belongs here: a text that does not compile would fail at its first use, not at import
(the tests compile every one).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub")


class LazyPattern(Generic[AnyStr]):
    """``re.compile(text, flags)``, done at the first use of one of its methods.

    After that first use the compiled pattern's own bound methods stand in this instance's
    ``__dict__``, where Python looks before the class's methods: every later call goes to
    ``re.Pattern``'s method directly, at no cost over a module-level ``re.compile``."""

    def __init__(self, text: AnyStr, flags: int = 0) -> None:
        self.text: AnyStr = text
        self._flags = flags

    def compiled(self) -> re.Pattern[AnyStr]:
        """The compiled regex (``re``'s own cache serves a text compiled already)."""
        compiled = re.compile(self.text, self._flags)
        # NOTE: instance attributes shadow the class's plain methods, so from here on
        # `self.search(...)` is the compiled pattern's bound method, not the wrapper below.
        vars(self).update((name, getattr(compiled, name)) for name in _METHODS)
        return compiled

    def search(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        """``re.Pattern.search``."""
        return self.compiled().search(string, pos, endpos)

    def match(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        """``re.Pattern.match``."""
        return self.compiled().match(string, pos, endpos)

    def fullmatch(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        """``re.Pattern.fullmatch``."""
        return self.compiled().fullmatch(string, pos, endpos)

    def finditer(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[AnyStr]]:
        """``re.Pattern.finditer``."""
        return self.compiled().finditer(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        """``re.Pattern.findall``."""
        return self.compiled().findall(string, pos, endpos)

    def sub(
        self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0
    ) -> AnyStr:
        """``re.Pattern.sub``."""
        return self.compiled().sub(repl, string, count)

    def __repr__(self) -> str:
        return f"LazyPattern({self.text!r}, {self._flags!r})"
