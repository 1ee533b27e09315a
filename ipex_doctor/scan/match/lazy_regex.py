"""A rule's regex compiled at its first search, and the rules' regexes known to compile.

A text rule's regex runs only in a file where its prefilter trigger holds, yet every scan
compiled all of them (some seventy, about 15 ms of CPU: ``re`` parses and compiles in Python)
twice over: once to refuse an invalid one before anything is read, once to build the rule
set. A small project's files hold the triggers of a few. So a regex is compiled at its first
search (a ``LazyPattern``, as a module's constant regexes are), and whether each of the
rules' regex texts compiles is kept between runs (``derived_cache``, keyed by the texts and
the Python that compiled them: ``re``'s syntax is the interpreter's); only a text not known
to compile is compiled up front, so an invalid one is still refused before anything is read,
with the same error.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import AnyStr

from ipex_doctor.lazy_pattern import LazyPattern
from ipex_doctor.scan.read import derived_cache

_known: set[str | bytes] = set()
"""The regex texts that compiled in this process or a kept run of this Python."""


def checked(text: AnyStr, refuse: Callable[[re.error], Exception]) -> LazyPattern[AnyStr]:
    """``text`` as a ``LazyPattern``, compiled now unless it is known to compile; a text that
    does not compile raises ``refuse(error)``."""
    if text not in _known:
        try:
            re.compile(text)
        except re.error as error:
            raise refuse(error) from error
        _known.add(text)
    return LazyPattern(text)


def learn_kept(texts: Sequence[str | bytes]) -> bool:
    """Take back whether ``texts`` (all of a rule set's regexes) compiled in an earlier run of
    this Python: where they did (``True``), ``checked`` compiles none of them."""
    kept = derived_cache.get("regexes", _key(texts))
    if kept != [_plain(text) for text in texts]:
        return False
    _known.update(texts)
    return True


def keep(texts: Sequence[str | bytes]) -> None:
    """Keep that every one of ``texts`` compiled (each was ``checked``), for the next run."""
    if all(text in _known for text in texts):
        derived_cache.put("regexes", _key(texts), [_plain(text) for text in texts])


def _plain(text: str | bytes) -> list[str]:
    # NOTE: a bytes regex is the UTF-8 of a rule's text (ruleset._compile_bytes), told apart
    if isinstance(text, str):
        return ["str", text]
    return ["bytes", text.decode("utf-8", "surrogateescape")]


def _key(texts: Sequence[str | bytes]) -> str:
    return repr([sys.version, *(_plain(text) for text in texts)])
