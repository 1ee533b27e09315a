"""The byte prefilter: which files can possibly match, decided from their bytes before parsing.

A ``Trigger`` is a set of words that must all occur in a file (and, for a structural pattern, a
cheap check of the bytes); a file is parsed only when one trigger of its reader holds. The
triggers are derived from the rules, never listed by hand:

* a ``symbols`` or ``imports`` name: all its components. Resolution (``python_names``) follows
  imports, attributes and simple assignments only, so every component of a resolved name is
  written in the file: ``torch.xpu.amp.autocast`` needs ``autocast``, ``xpu``, ``amp`` and
  ``torch``, whatever the aliases (``a.b.*`` needs ``a`` and ``b``). Each is written as a name
  of its own (an identifier token, an import's module path), so it must occur as a whole
  identifier (``whole``): ``optimize`` inside ``optimize_model`` or ``xpu`` inside
  ``is_xpu_available`` holds no trigger;
* a structural pattern: the triggers its implementation declares (``patterns``);
* a ``text`` regex: the literals of each of its alternatives (``regex_literals``), or none (then
  every file of the rule's kinds is read: correct, only slower).

A file is searched for a few *anchors* first, all of them in one pass of an Aho-Corasick
automaton (``ahocorasick_rs``, ``Words``), as ``grep`` makes one pass for all its words: ``re``
has no fast search for many words, and ``bytes.__contains__``, fast for one, made the cost for a
file without IPEX one pass per anchor (three quarters of a large tree's prefilter time). An
anchor is inside one of a trigger's words, so the trigger cannot hold without it: ``xpu`` covers
every ``torch.xpu.*`` trigger, ``ccl`` those of ``torch_ccl`` and ``oneccl_bindings_for_pytorch``
(``_cover`` says how they are chosen). The package a name starts with (``torch`` of
``torch.xpu.has_xmx``) is never one, as every file that uses torch has it, nor a part nearly
every file of some projects holds (``COMMON_PARTS``). The pass's report leads: only the triggers
of the anchors it found (or may have hidden) are tried, each word searched at most once per file
(``Probe`` remembers). The gate, a word nearly every file holds (``torch``), sorts the anchors
only where no pass is made (fewer than two words to search).
Triggers that another implies are dropped first (``minimal``).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from ahocorasick_rs import BytesAhoCorasick, MatchKind

if TYPE_CHECKING:
    from ipex_doctor.lazy_pattern import LazyPattern

T = TypeVar("T")


class Trigger(NamedTuple):
    """Words that must all occur in a file (and ``confirm``, when set, must hold)."""

    words: tuple[bytes, ...]
    """Most selective first; empty: every file (a ``text`` regex without a usable literal)."""
    folded: bool = False
    """The words are lower case and compared with the file's bytes lowered (ASCII)."""
    confirm: Callable[[bytes], bool] | None = None
    """A check of the whole content, run only when every word occurs."""
    grep: str | None = None
    """An extended regex that ``grep -E`` can use in place of ``words`` and ``confirm`` (for
    the benchmark's floor); ``None``: the words themselves."""
    roots: tuple[bytes, ...] = ()
    """Words that are the package a name starts with: never an anchor."""
    whole: bool = False
    """Each word must occur as a whole identifier: no ASCII letter, digit or ``_`` just before
    or after it (``Probe.has_identifier``)."""


FOLDED_TO_ASCII = {
    "\u0130": "i",  # LATIN CAPITAL LETTER I WITH DOT ABOVE
    "\u0131": "i",  # LATIN SMALL LETTER DOTLESS I
    "\u017f": "s",  # LATIN SMALL LETTER LONG S
    "\u212a": "k",  # KELVIN SIGN
}
"""The only characters beyond ASCII that ``re``'s case-insensitive matching takes for ASCII
letters (a test asks ``re`` for every code point), with the letter."""


def _fold(data: bytes) -> bytes:
    """``data`` as a folded trigger sees it: ASCII letters in lower case, and the characters of
    ``FOLDED_TO_ASCII`` (UTF-8) as their letter, so that a folded word is found exactly where
    a case-insensitive regex could match it."""
    lowered = data.lower()
    if not data.isascii():
        for lead, char, letter in _FOLDED_UTF8:
            # NOTE: a one-byte search is a memchr, far cheaper than the replace it spares
            if lead in lowered:
                lowered = lowered.replace(char, letter)
    return lowered


_FOLDED_UTF8 = tuple(
    (char.encode()[:1], char.encode(), letter.encode()) for char, letter in FOLDED_TO_ASCII.items()
)
"""``FOLDED_TO_ASCII`` in UTF-8: each character's lead byte, its bytes, its letter."""


class Probe:
    """One file's bytes, asked for words; each word is searched once."""

    __slots__ = (
        "_data",
        "_folded",
        "_found",
        "_identifiers",
        "_lower",
        "_passes",
        "_remembered",
        "_searched",
    )

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._found: dict[bytes, bool] = {}
        self._identifiers: dict[bytes, bool] = {}
        self._lower: bytes | None = None
        self._folded: dict[bytes, bool] = {}
        self._searched: dict[LazyPattern[bytes], bool] = {}
        self._remembered: dict[int, tuple[object, Any]] = {}
        self._passes: list[tuple[Words, frozenset[int]]] = []
        """Each one-pass search made (``learn``): its words, and the indexes of those it
        reported."""

    def remember(self, key: object, compute: Callable[[], T]) -> T:
        """``compute()``, worked out once for these bytes and ``key`` (an object that lives as
        long as the probe's users: a rule set's tuple of rules)."""
        kept = self._remembered.get(id(key))
        if kept is None or kept[0] is not key:
            kept = self._remembered[id(key)] = (key, compute())
        value: T = kept[1]
        return value

    def search(self, regex: LazyPattern[bytes]) -> bool:
        """Whether ``regex`` matches somewhere in the bytes (each regex searched once)."""
        present = self._searched.get(regex)
        if present is None:
            present = self._searched[regex] = regex.search(self._data) is not None
        return present

    def learn(self, words: Words) -> frozenset[int] | None:
        """Search the bytes for all of ``words`` at once (one pass), so that ``has`` answers each
        of them without a search of its own: the indexes (into ``words.words``) of the words
        the pass reported (a probe that learnt them already searches nothing); ``None`` for
        ``words`` without an automaton (fewer than two: ``has`` searches alone).

        A word the pass did not report is absent unless one that can overlap it
        (``Words.overlapping``) was reported, which may have hidden it."""
        if words.automaton is None:
            return None
        for learnt, found in self._passes:
            if learnt is words:
                return found
        found = frozenset(at for at, _, _ in words.automaton.find_matches_as_indexes(self._data))
        self._passes.append((words, found))
        return found

    def has(self, word: bytes) -> bool:
        """Whether ``word`` occurs (case-sensitively): from a pass that searched for it
        (``learn``), else a search of its own."""
        present = self._found.get(word)
        if present is None:
            present = self._from_passes(word)
            if present is None:
                present = word in self._data
            self._found[word] = present
        return present

    def _from_passes(self, word: bytes) -> bool | None:
        """What a pass says of ``word``; ``None``: no pass searched for it, or one that can
        overlap it was reported and may have hidden it (the pass reports matches that do not
        overlap)."""
        for words, found in self._passes:
            at = words.index.get(word)
            if at is not None:
                if at in found:
                    return True
                return False if found.isdisjoint(words.overlapping[at]) else None
        return None

    def has_identifier(self, word: bytes) -> bool:
        """Whether ``word`` occurs as a whole identifier: with no ASCII letter, digit or ``_``
        on either side (a byte beyond ASCII counts as a border: a name spelled with such a
        character is let through, never left out)."""
        present = self._identifiers.get(word)
        if present is None:
            present = self._identifiers[word] = self.has(word) and _whole(self._data, word)
        return present

    def has_folded(self, word: bytes) -> bool:
        """Whether ``word`` (lower case) occurs case-insensitively, as ``_fold`` reads the
        bytes: a tokenizer's vocabulary of megabytes is asked for the same few words by many
        folded triggers (``setvars`` by eight), each search a pass over all of it."""
        present = self._folded.get(word)
        if present is None:
            if self._lower is None:
                self._lower = _fold(self._data)
            present = self._folded[word] = word in self._lower
        return present

    def holds(self, trigger: Trigger) -> bool:
        """Whether ``trigger`` holds for these bytes."""
        if trigger.whole:
            if not all(self.has_identifier(word) for word in trigger.words):
                return False
        elif trigger.folded:
            if not all(self.has_folded(word) for word in trigger.words):
                return False
        elif not all(self.has(word) for word in trigger.words):
            return False
        return trigger.confirm is None or trigger.confirm(self._data)


_NAME_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _whole(data: bytes, word: bytes) -> bool:
    """Whether ``word`` occurs in ``data`` with no byte of ``_NAME_BYTES`` on either side."""
    # NOTE: by hand rather than a regex with lookarounds: ``re`` has no fast literal search for
    # a pattern that starts with a lookbehind and would step through the file byte by byte,
    # where ``bytes.find`` jumps to each occurrence (the first is whole, most of the time).
    size = len(word)
    at = data.find(word)
    while at >= 0:
        end = at + size
        if (at == 0 or data[at - 1] not in _NAME_BYTES) and (
            end == len(data) or data[end] not in _NAME_BYTES
        ):
            return True
        at = data.find(word, at + 1)
    return False


Covered = tuple[tuple[bytes, tuple[int, ...]], ...]
"""Anchors, each with the triggers it covers, given as their indexes in a trigger list."""


class Derivation(NamedTuple):
    """What ``Prefilter`` derives from its triggers, as plain values: indexes into the
    triggers without duplicates (``unique``), in their order.

    A pure function of each trigger's ``words``, ``roots``, ``folded``, ``whole`` and whether
    it has a ``confirm`` (``derivation_key``), so it can be kept between scans
    (``ruleset.RuleSet.prefilter``)."""

    kept: tuple[int, ...]
    """The triggers ``minimal`` keeps."""
    anchors: Covered
    gate: bytes | None
    ungated: Covered


def unique(triggers: Iterable[Trigger]) -> tuple[Trigger, ...]:
    """``triggers`` without duplicates, the first of each kept: what a ``Derivation`` indexes."""
    return tuple(dict.fromkeys(triggers))


def derivation_key(triggers: Sequence[Trigger]) -> list[list[object]]:
    """Everything of ``unique(triggers)`` that their ``derive`` reads, as JSON-ready values
    (bytes as Latin-1 text): two lists of triggers with the same key have the same derivation."""
    return [
        [
            [w.decode("latin-1") for w in t.words],
            [r.decode("latin-1") for r in t.roots],
            t.folded,
            t.whole,
            t.confirm is not None,
        ]
        for t in triggers
    ]


def derive(triggers: Iterable[Trigger]) -> Derivation:
    """The minimal triggers of ``unique(triggers)``, their anchors, gate and ungated anchors
    (see ``Prefilter``), by index into ``unique(triggers)``."""
    triggers = unique(triggers)
    index = {trigger: i for i, trigger in enumerate(triggers)}
    kept = minimal(triggers)
    plain = [t for t in kept if t.words and not t.folded]
    anchors = _cover(plain)
    gate = _gate(plain)
    ungated = (
        _cover([t for t in plain if not _inside(gate, t.words)]) if gate is not None else anchors
    )
    # NOTE: a gate is one more search for a file that has it, so it is kept only where a
    # file without it searches at least two anchors fewer. Counted in anchors, not in
    # triggers: a rule that spells many names (IPEX's settings) adds triggers but
    # hardly any anchor, and must not turn the gate off or on.
    if gate is not None and len(ungated) + 1 >= len(anchors):
        gate, ungated = None, anchors

    def indexed(covers: Sequence[tuple[bytes, tuple[Trigger, ...]]]) -> Covered:
        return tuple((anchor, tuple(index[t] for t in covered)) for anchor, covered in covers)

    return Derivation(tuple(index[t] for t in kept), indexed(anchors), gate, indexed(ungated))


class Words:
    """Words a file is searched for in one pass (``Probe.learn``): an Aho-Corasick automaton of
    them, or none for fewer than two (one ``bytes`` search is as fast).

    The pass reports matches that do not overlap, leftmost first: about three times faster
    than reporting every match, which a file that says ``with`` hundreds of times pays for. A
    word it does not report is absent unless a word that can overlap it (``overlapping``: one
    inside the other, or an end of one that starts the other) was reported, which may have
    hidden it; only then is it searched for alone."""

    __slots__ = ("_automaton", "_overlapping", "index", "words")

    def __init__(self, words: Iterable[bytes]) -> None:
        self.words = tuple(dict.fromkeys(w for w in words if w))
        self.index = {word: at for at, word in enumerate(self.words)}
        """Each word's index in ``words``."""
        # NOTE: built on first use: a scan builds a prefilter for every kind of file it may
        # meet, and a small project meets few of them
        self._automaton: BytesAhoCorasick | None = None
        self._overlapping: tuple[frozenset[int], ...] = ()

    @property
    def automaton(self) -> BytesAhoCorasick | None:
        """The automaton of the words, or ``None`` for fewer than two."""
        if self._automaton is None and len(self.words) > 1:
            self._automaton = BytesAhoCorasick(self.words, matchkind=MatchKind.LeftmostFirst)
        return self._automaton

    @property
    def overlapping(self) -> tuple[frozenset[int], ...]:
        """For each word, the indexes of the others that can overlap it."""
        if not self._overlapping:
            self._overlapping = tuple(
                frozenset(
                    j for j, other in enumerate(self.words) if j != i and _overlap(one, other)
                )
                for i, one in enumerate(self.words)
            )
        return self._overlapping


WITNESS_SPELLINGS = 16
"""The most spellings a folded word may have to be a witness (``.whl``: 8; ``ipex``: 32, by
the two letters beyond ASCII that fold to ``i``)."""


def spellings(word: bytes, most: int = WITNESS_SPELLINGS) -> tuple[bytes, ...]:
    """Every byte string that ``_fold`` turns into ``word`` (lower-case ASCII): each letter
    in either case or as a character of ``FOLDED_TO_ASCII`` that folds to it. None for a word
    that has more than ``most`` (counted before any is spelled: a word of 30 letters has
    billions), a byte beyond ASCII or an upper-case letter (no folded word has one)."""
    if not word.isascii() or word != word.lower():
        return ()
    ways = [
        sorted({char, char.upper(), *(c for c, to in FOLDED_TO_ASCII.items() if to == char)})
        for char in word.decode()
    ]
    if math.prod(len(way) for way in ways) > most:
        return ()
    return tuple("".join(spelled).encode() for spelled in itertools.product(*ways))


def _witness(trigger: Trigger) -> tuple[bytes, ...]:
    """The spellings of the folded ``trigger``'s word that has the fewest, if no more than
    ``WITNESS_SPELLINGS``; none for a trigger that is not folded.

    NOTE: a folded trigger is tried on the file lowered whole (``Probe.has_folded``), which
    costs every Python file of a large tree a copy (the wheel trigger ``/torch``, ``ipex``,
    ``.whl``: 17 ms of a 0.5 s scan of a vLLM-based tree); its ``.whl`` spelled all 8 ways
    rides on the anchors' one pass, and a file with none of them is not lowered."""
    if not trigger.folded:
        return ()
    fewest: tuple[bytes, ...] = ()
    for word in trigger.words:
        spelled = spellings(word)
        if spelled and (not fewest or len(spelled) < len(fewest)):
            fewest = spelled
    return fewest


def _overlap(one: bytes, other: bytes) -> bool:
    """Whether an occurrence of ``one`` and one of ``other`` can share a byte."""
    return one in other or other in one or _joins(one, other) or _joins(other, one)


def _joins(left: bytes, right: bytes) -> bool:
    """Whether a proper end of ``left`` starts ``right``: only where ``right``'s first byte
    stands in ``left`` can one begin (most pairs of words have none)."""
    at = left.find(right[:1], 1)
    while at != -1:
        if right.startswith(left[at:]):
            return True
        at = left.find(right[:1], at + 1)
    return False


class Prefilter:
    """Whether a file can match any rule of one reader: one of its triggers holds."""

    __slots__ = (
        "_plan",
        "always",
        "anchors",
        "direct",
        "gate",
        "searched",
        "triggers",
        "ungated",
        "witnesses",
    )

    def __init__(self, triggers: Iterable[Trigger], derivation: Derivation | None = None) -> None:
        """The prefilter of ``triggers``; ``derivation``, when given, is ``derive`` of
        ``unique(triggers)`` worked out before (by an earlier scan)."""
        listed = unique(triggers)
        if derivation is None:
            derivation = derive(listed)

        def covers(indexed: Covered) -> tuple[tuple[bytes, tuple[Trigger, ...]], ...]:
            return tuple((anchor, tuple(listed[i] for i in at)) for anchor, at in indexed)

        self.triggers = tuple(listed[i] for i in derivation.kept)
        self.always = any(not t.words and t.confirm is None for t in self.triggers)
        """Some rule must read every file (no literal to look for)."""
        self.anchors = covers(derivation.anchors)
        """(anchor, the triggers it covers), in the order they are searched."""
        self.gate = derivation.gate
        """The word inside the most triggers' words (``torch``): a file without it needs only
        the anchors of the other triggers (``ungated``). ``None``: no word spares enough."""
        self.ungated = covers(derivation.ungated)
        self.direct = tuple(t for t in self.triggers if t.folded or not t.words)
        """The triggers no anchor covers, tried one by one (folded ones: case-insensitive)."""
        witnesses = tuple(_witness(t) for t in self.direct)
        if not all(w for t, w in zip(self.direct, witnesses, strict=True) if t.folded):
            # NOTE: a file is lowered once for all its folded triggers: where one has no
            # witness every file is lowered anyway, and the spellings would only make the
            # one pass slower (a shell script's 22 folded triggers: 148 spellings, 7 ms to build)
            witnesses = ((),) * len(self.direct)
        self.witnesses = witnesses
        """For each of ``direct``, every spelling of one of its words (``spellings``), or none:
        a file that holds none of them cannot hold the trigger, and is not lowered for it. All
        none unless every folded trigger has some."""
        # NOTE: not the gate: nearly every file holds it (torch), and a word it can overlap
        # (autocast, by its "t") would then be searched for alone in every such file. Not the
        # anchors of ``ungated`` alone either: the pass's report leads ``admits`` to ``anchors``
        self.searched = Words(
            [
                *(a for a, _ in self.anchors if a != self.gate),
                *(spelling for witness in self.witnesses for spelling in witness),
            ]
        )
        """Every anchor, and every spelling of the witnesses, searched for in one pass."""
        self._plan: _Plan | None = None

    def admits(self, probe: Probe) -> bool:
        """Whether the file behind ``probe`` must be parsed."""
        if self.always:
            return True
        found = probe.learn(self.searched)
        if found is not None:
            return self._admits_found(probe, found)
        anchors = self.anchors
        if self.gate is not None and not probe.has(self.gate):
            anchors = self.ungated
        for anchor, covered in anchors:
            if probe.has(anchor) and any(probe.holds(trigger) for trigger in covered):
                return True
        for trigger, witness in zip(self.direct, self.witnesses, strict=True):
            if witness and not any(probe.has(spelling) for spelling in witness):
                continue
            if probe.holds(trigger):
                return True
        return False

    def _admits_found(self, probe: Probe, found: frozenset[int]) -> bool:
        """``admits``, led by what the one pass found: only the anchors it reported, or that one
        it reported may have hidden, are tried (a file without IPEX reports one or two of the
        anchors, where trying each cost every file a question per anchor and a search for the
        gate); every plain trigger has one among ``anchors``, so no gate is needed."""
        plan = self._plan if self._plan is not None else self._planned()
        for at in found:
            for anchor, covered in plan.by_found.get(at, ()):
                if probe.has(anchor) and any(probe.holds(trigger) for trigger in covered):
                    return True
        for anchor, covered in plan.unsearched:
            if probe.has(anchor) and any(probe.holds(trigger) for trigger in covered):
                return True
        for trigger, zone in zip(self.direct, plan.zones, strict=True):
            if zone is not None and found.isdisjoint(zone):
                continue  # NOTE: no spelling of its witness reported, and none hidden
            if probe.holds(trigger):
                return True
        return False

    def _planned(self) -> _Plan:
        index = self.searched.index
        overlapping = self.searched.overlapping
        by_found: dict[int, list[tuple[bytes, tuple[Trigger, ...]]]] = {}
        unsearched = []
        for anchor, covered in self.anchors:
            at = index.get(anchor)
            if at is None:
                unsearched.append((anchor, covered))
                continue
            for reported in (at, *overlapping[at]):
                by_found.setdefault(reported, []).append((anchor, covered))
        zones: list[frozenset[int] | None] = []
        for witness in self.witnesses:
            spelled = [index.get(spelling) for spelling in witness]
            known = [at for at in spelled if at is not None]
            # NOTE: a spelling the pass does not search for (an empty word) leaves it undecided
            zones.append(
                frozenset(known).union(*(overlapping[at] for at in known))
                if witness and len(known) == len(spelled)
                else None
            )
        self._plan = _Plan(
            {at: tuple(anchors) for at, anchors in by_found.items()},
            tuple(unsearched),
            tuple(zones),
        )
        return self._plan

    def __bool__(self) -> bool:
        """Whether this reader has any rule at all (else its files are not even read)."""
        return bool(self.triggers)


class _Plan(NamedTuple):
    """How ``Prefilter.admits`` reads one pass's report (``Probe.learn``)."""

    by_found: dict[int, tuple[tuple[bytes, tuple[Trigger, ...]], ...]]
    """For the index of each word of ``searched`` the pass may report: the anchors it is, or
    may hide (one that can overlap it), with the triggers they cover."""
    unsearched: tuple[tuple[bytes, tuple[Trigger, ...]], ...]
    """Anchors the pass does not search for (the gate, where it is one): always tried."""
    zones: tuple[frozenset[int] | None, ...]
    """For each of ``direct``: the indexes of its witness's spellings and of the words that
    can overlap one, or ``None`` (no witness: always tried)."""


@functools.lru_cache(maxsize=4096)
def name_trigger(dotted: str, *, whole: bool = False) -> Trigger:
    """The trigger of a resolved name (``a.b.c``) or a wildcard (``a.b.*``): all components;
    with ``whole``, each as a whole identifier (see the module: a ``symbols`` or ``imports``
    name, which resolution finds only where each component is written as a name)."""
    parts = [part for part in dotted.split(".") if part and part != "*"]
    first, rest = parts[:1], sorted(parts[1:], key=len, reverse=True)
    unique = tuple(dict.fromkeys(p.encode() for p in [*rest, *first]))
    # NOTE: a word inside another is implied by it only as a substring (``ccl`` by ``oneccl``);
    # as a whole identifier each word is a condition of its own.
    words = unique if whole else _without_implied(unique)
    roots = tuple(p.encode() for p in first) if rest else ()
    return Trigger(words, roots=roots, whole=whole)


def combined(*triggers: Trigger) -> Trigger:
    """A trigger that needs everything each of ``triggers`` needs (no ``confirm``, not folded;
    its words whole identifiers only when every one of ``triggers`` asks that)."""
    words: list[bytes] = []
    roots: list[bytes] = []
    for trigger in triggers:
        words.extend(w for w in trigger.words if w not in words)
        roots.extend(r for r in trigger.roots if r not in roots)
    whole = all(trigger.whole for trigger in triggers)
    kept = tuple(words) if whole else _without_implied(tuple(words))
    return Trigger(kept, roots=tuple(roots), whole=whole)


def minimal(triggers: Iterable[Trigger]) -> tuple[Trigger, ...]:
    """``triggers`` without those another implies, in a stable order: ``a`` goes when a
    trigger ``b`` without ``confirm`` holds whenever ``a`` does: each of ``b``'s words is
    inside one of ``a``'s (in lower case when ``b`` is folded; a folded ``a`` implies only a
    folded ``b``), or, when ``b`` asks for whole identifiers, is one of the words ``a`` asks
    for whole. Of equivalent triggers the first stays. ``any(...)`` over them is unchanged.
    """
    unique = list(dict.fromkeys(triggers))
    # NOTE: words never hold a NUL byte, so "inside one of a's words" is one search of them
    # joined by NULs. Only triggers that can be implied are tried (this runs for every pair of
    # a reader's three hundred-odd triggers, in every scan): a trigger asking for whole
    # identifiers only by one that asks for its first word whole (looked up, not searched),
    # another only where its first word is inside.
    joined = [b"\0".join(t.words) for t in unique]
    lowered = [j.lower() for j in joined]
    word_sets = [frozenset(t.words) for t in unique]
    whole_by_first: dict[bytes, list[int]] = {}
    whole_empty: list[int] = []
    by_first: dict[tuple[bytes, bool], list[int]] = {}
    for j, other in enumerate(unique):
        if other.confirm is not None:
            continue
        first = other.words[0] if other.words else b""
        if other.whole:
            (whole_by_first.setdefault(first, []) if other.words else whole_empty).append(j)
        else:
            by_first.setdefault((first, other.folded), []).append(j)

    def implies(i: int, j: int) -> bool:
        a, b = unique[i], unique[j]
        if b.confirm is not None or (a.folded and not b.folded):
            return False
        if b.whole:
            return a.whole and word_sets[j] <= word_sets[i]
        haystack = lowered[i] if b.folded else joined[i]
        return all(word in haystack for word in b.words)

    def candidates(i: int) -> Iterator[int]:
        a = unique[i]
        if a.whole:
            yield from whole_empty
            for word in dict.fromkeys(a.words):
                yield from whole_by_first.get(word, ())
        for (first, folded), others in by_first.items():
            if first in (lowered[i] if folded else joined[i]):
                yield from others

    def implied(i: int) -> bool:
        return any(
            j != i and implies(i, j) and not (j > i and implies(j, i)) for j in candidates(i)
        )

    return tuple(trigger for i, trigger in enumerate(unique) if not implied(i))


ANCHOR_WEIGHT_CAP = 8
"""Up to this many characters, a longer anchor counts as rarer; beyond, all are rare enough."""
COMMON_PARTS = frozenset({b"llm"})
"""Parts of trigger words that are no anchor unless a trigger has nothing else: ``llm`` is in
ipex-llm's four spellings (ipex-llm, ipex_llm, bigdl-llm, bigdl_llm), where it covers the most
triggers, and in nearly every file of an LLM project (``vllm``, ``llm_engine``): chosen, it let
a vLLM-based tree's 1,444 Python files through to four searches each (the scan of tokenweave
took 0.52 s against 0.48)."""


def _cover(triggers: Sequence[Trigger]) -> tuple[tuple[bytes, tuple[Trigger, ...]], ...]:
    """Anchors for ``triggers``, each with the triggers it covers (see the module).

    Candidates are the triggers' words and their alphanumeric parts (``ccl`` of
    ``torch_ccl``), never a package a name starts with nor a part of ``COMMON_PARTS`` (unless
    a trigger has nothing else; the package before a common part).
    Each round takes the candidate that covers the most uncovered triggers, weighted by its
    length up to ``ANCHOR_WEIGHT_CAP`` (one rare word searched instead of several is the
    saving; a short common word would let most files through to their triggers).
    """
    roots = {root for trigger in triggers for root in trigger.roots}
    options: dict[Trigger, set[bytes]] = {}
    for trigger in triggers:
        parts = {part for word in trigger.words for part in _parts(word)}
        allowed = parts - roots
        # NOTE: where only a common part is left, the package the name starts with is the
        # rarer (bigdl of bigdl.llm)
        options[trigger] = (
            (allowed - COMMON_PARTS) or (parts - COMMON_PARTS) or allowed or set(trigger.words)
        )
    candidates = {word for allowed in options.values() for word in allowed}
    within = _containing(candidates, [text for _, text in _joined(triggers)])
    covers = {word: {triggers[i] for i in within[word]} for word in candidates}
    uncovered = set(triggers)
    chosen: list[tuple[bytes, tuple[Trigger, ...]]] = []
    while uncovered:
        anchor = max(
            {word for t in uncovered for word in options[t]},
            key=lambda w: (min(len(w), ANCHOR_WEIGHT_CAP) * len(covers[w] & uncovered), len(w), w),
        )
        covered = covers[anchor] & uncovered
        chosen.append((anchor, tuple(t for t in triggers if t in covered)))
        uncovered -= covered
    return tuple(chosen)


def _gate(triggers: Sequence[Trigger]) -> bytes | None:
    """The word (a trigger word or a part of one) inside the words of the most ``triggers``:
    one search of it spares a file without it the anchors of all those triggers (a tree
    without torch, most of the time, searches ``torch`` and the few anchors of the rest);
    ``Prefilter`` keeps it only where that spares enough."""
    counts: dict[bytes, int] = {}
    for trigger in triggers:
        for part in {part for word in trigger.words for part in _parts(word)}:
            counts[part] = counts.get(part, 0) + 1
    if not counts:
        return None
    within = _containing(counts, [text for _, text in _joined(triggers)])
    return max(counts, key=lambda part: (len(within[part]), part))


def _joined(triggers: Sequence[Trigger]) -> list[tuple[Trigger, bytes]]:
    """Each trigger with its words joined by NULs: "inside one of its words" is then one
    search (words never hold a NUL byte; this runs for every candidate and trigger)."""
    return [(trigger, b"\0".join(trigger.words)) for trigger in triggers]


def _containing(words: Iterable[bytes], texts: Sequence[bytes]) -> dict[bytes, set[int]]:
    """For each of ``words``, the indexes of the ``texts`` it is inside (``word in text``).

    NOTE: by hand: one ``bytes.find`` walk per word over the texts joined by NULs (no word or
    text holds one, so no occurrence spans two texts) rather than a search of every text for
    every word, which cost a few milliseconds for each reader's prefilter in every scan."""
    haystack = b"\0".join(texts)
    starts = list(itertools.accumulate((len(text) + 1 for text in texts[:-1]), initial=0))
    found: dict[bytes, set[int]] = {}
    for word in words:
        if not word:
            found[word] = set(range(len(texts)))
            continue
        where: set[int] = set()
        at = haystack.find(word)
        while at >= 0:
            index = bisect.bisect_right(starts, at) - 1
            where.add(index)
            # NOTE: the next occurrence worth finding is in the next text
            at = haystack.find(word, starts[index + 1]) if index + 1 < len(starts) else -1
        found[word] = where
    return found


@functools.lru_cache(maxsize=4096)
def _parts(word: bytes) -> frozenset[bytes]:
    """``word`` and its alphanumeric runs of three characters or more."""
    runs = re.split(rb"[^A-Za-z0-9]+", word)
    return frozenset({word, *(part for part in runs if len(part) >= 3)})


def _inside(anchor: bytes, words: Sequence[bytes]) -> bool:
    return any(anchor in word for word in words)


def _without_implied(words: Sequence[bytes]) -> tuple[bytes, ...]:
    """``words`` less those inside another of them (``ccl`` is implied by ``oneccl``)."""
    return tuple(
        word
        for i, word in enumerate(words)
        if not any(j != i and word in other and word != other for j, other in enumerate(words))
    )
