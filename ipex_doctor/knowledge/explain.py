"""``explain``: name the knowledge-base entries behind an error message or a whole traceback.

Two kinds of evidence, both data in the knowledge base:

* the structure of the error, an entry's ``match`` signatures. ``facts`` reads it from the
  text once: which library failed to load, which library lacks a symbol or a symbol version,
  which Unified Runtime / Level Zero / SYCL PI / OpenCL result code came back, which Python
  module is missing, which distributed backend is unavailable, which API and exception class
  the text names. Signatures compare these facts with shell-style globs, so a library, DLL or
  code of a known family that no thread quoted is still recognised (``libtbb*.so``,
  ``*/intel_extension_for_pytorch/*``, ``*_OUT_OF_RESOURCES``);
* the wording of the message, an entry's ``symptoms``: regexes over the text.

Ranking keeps the most specific entry first. Evidence comes in three tiers: a signature that
names what failed (the library that did not load, the missing symbol or version, the result
code, the missing module or backend) outranks message wording, which outranks context alone
(an API or exception name, the library that needed a missing symbol). Within a tier an entry
scores the characters of its evidence: the literal (non-wildcard) characters of the globs that
matched in its best signature, plus the length of what its symptoms matched; ties go by id.

Many messages have several causes ("XPU device count is zero": no driver, a render node the
user may not open, a Level Zero too old, a sourced oneAPI, a device filter...). The entry that
names such a message lists them, most frequent first, in ``causes``; each cause then stands in
the ranking in the message's place, with the message's evidence, ahead of its siblings when
wording of its own (its ``hints``) is in the text, else in the listed order. Every entry names
its ``layer``: a rung of ``ipex-doctor env``'s GPU ladder (``xpu-rung-<layer>``), or a layer
beyond it. Given the findings of an examined environment (``EnvFacts``: a saved report, or
``--python``), a candidate whose probe fails (its rung, or its own rule's finding) goes first
and one whose probes all pass goes last: the environment decides between the causes, and
``Match.decided_by`` says which finding did.

Tracebacks arrive mangled: surrounded by other frames, wrapped by a terminal (sometimes in the
middle of a word), indented, with runs of spaces, with Windows paths. The text is read in two
normalised forms (line breaks as spaces, and line breaks removed), whitespace runs collapsed.
Never imports torch; the input is bounded and every pattern is anchored on a literal or
bounded, so the work is linear in the input.
"""

from __future__ import annotations

import fnmatch
import functools
import re
import sys
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, BinaryIO, NamedTuple

from ipex_doctor.errors import DoctorError
from ipex_doctor.knowledge import vocabulary
from ipex_doctor.knowledge.known_issues import (
    LAYERS,
    RUNGS,
    EventPattern,
    KnowledgeBase,
    KnownIssue,
    Layer,
    Signature,
    glob_literal,
)
from ipex_doctor.model.wording import Wording

MAX_INPUT_CHARS = 1_000_000
"""Longer input is cut to its last MAX_INPUT_CHARS characters (an error is at the end)."""

STRUCTURE, WORDING, CONTEXT = 3, 2, 1
"""The evidence tiers, strongest first (see the module docstring)."""
VOCABULARY = 0
"""Below every tier: a layer's name in the stack's vocabulary (``vocabulary``), which places a
text in a layer only where no layer's wording or context does."""


@dataclass(frozen=True)
class Match:
    """One entry that matched, with what matched and how strongly."""

    issue: KnownIssue
    matched: tuple[str, ...]
    """The pieces of the input that matched, strongest first."""
    score: int
    """Characters of evidence within the tier (see the module docstring)."""
    tier: int = WORDING
    """``STRUCTURE``, ``WORDING`` or ``CONTEXT``: what kind of evidence the best match is."""
    via: str | None = None
    """The entry whose message matched when this entry is one of its ``causes``, else ``None``."""
    prior: int = 0
    """The place of this cause in ``via``'s list (0: the most frequent); 0 outside a family."""
    verdict: int = 0
    """What the environment said (``CONFIRMED``, ``RULED_OUT``, ``NOT_REACHED``; 0: nothing,
    or not asked)."""
    decided_by: str = ""
    """The finding that gave the verdict and its status, e.g. ``xpu-rung-device-nodes: fail``."""

    @property
    def names(self) -> tuple[str, ...]:
        """The ids this match stands for: the entry, and the message it is a cause of."""
        return (self.issue.id,) if self.via is None else (self.issue.id, self.via)


CONFIRMED, RULED_OUT, NOT_REACHED = 1, -1, 2
"""``Match.verdict``: a probe of the candidate fails (or warns); all its probes pass; or its
rung of the GPU ladder stands above a lower rung that does not hold, so the environment
never reached it (its own probe failing says nothing more: the lower rung breaks it)."""
_VERDICT_ORDER = {CONFIRMED: 0, 0: 1, NOT_REACHED: 1, RULED_OUT: 2}
PROBLEM_STATUSES = frozenset({"fail", "warn", "error"})


class Seen(NamedTuple):
    """One finding of an examined environment, as explain weighs it."""

    status: str
    summary: str
    holds: bool | None = None
    """A GPU-ladder rung's own answer (its evidence's ``holds``): whether the rung holds,
    whatever status the gate gave it. Where nothing expects an Intel GPU a rung that does not
    hold is only information (``skip``), but a pasted XPU error says something expected one,
    so the rung's answer decides, not its status."""

    @property
    def problem(self) -> bool | None:
        """``True``: the probe found this layer broken; ``False``: it passed; ``None``: it
        says neither (not reached, not applicable)."""
        if self.holds is not None:
            return not self.holds
        if self.status in PROBLEM_STATUSES:
            return True
        return False if self.status == "pass" else None

    def said(self) -> str:
        """``fail``, or for a rung ``does not hold``/``holds``, with the finding's summary."""
        word = self.status if self.holds is None else ("holds" if self.holds else "does not hold")
        return word + (f" ({self.summary})" if self.summary else "")


class EnvFacts(NamedTuple):
    """Findings of an examined environment, by id: what ``explain`` decides causes with."""

    source: str
    """Where they come from (a report's path, an interpreter), for the user."""
    findings: dict[str, Seen]

    @classmethod
    def of_report(cls, source: str, report: Mapping[str, Any]) -> EnvFacts:
        """The findings of a saved report (its JSON, already checked against the report
        schema), by id, status, summary and a rung's ``holds``: explain needs no more of a
        report's shape."""
        findings = [f for f in report.get("findings") or () if isinstance(f, Mapping)]
        return cls(source, {
            str(f["id"]): seen(str(f["status"]), f.get("evidence"))
            for f in findings if "id" in f and "status" in f
        })  # fmt: skip


def seen(status: str, evidence: object) -> Seen:
    """A finding's ``Seen`` from its status and its evidence (a report's JSON object, or an
    ``Evidence``'s ``summary`` and ``data``)."""
    summary = getattr(evidence, "summary", None)
    data = getattr(evidence, "data", None)
    if isinstance(evidence, Mapping):
        summary, data = evidence.get("summary"), evidence.get("data")
    holds = data.get("holds") if isinstance(data, Mapping) else None
    return Seen(status, str(summary or ""), holds if isinstance(holds, bool) else None)


def rung(layer: str) -> str | None:
    """The GPU ladder's finding for ``layer`` (``xpu-rung-driver``), or ``None`` off the ladder."""
    return f"xpu-rung-{layer}" if layer in RUNGS else None


def probes(issue: KnownIssue) -> tuple[str, ...]:
    """The findings of ``ipex-doctor env`` that tell whether ``issue`` is the cause: its layer's
    rung (the runtime layer also the runtime versions check) and its own rule's finding."""
    found = [f for f in (rung(issue.layer),) if f]
    if issue.layer == "runtime":
        found.append("xpu-runtime-versions")
    if issue.rule is not None:
        found.append(issue.id)
    return tuple(found)


# NOTE: the internal records are named tuples: a frozen dataclass costs a millisecond or two to
# define, at every start of kb list, kb show and explain (they import this module).
class LibraryEvent(NamedTuple):
    """A library that failed to load, or lacks a symbol or a symbol version."""

    kind: str
    """``load``, ``symbol`` or ``version`` (the keys of a signature)."""
    library: str
    """The file name, lower case, trailing version numbers dropped; empty when not named."""
    path: str
    """The path as written, lower case, ``/`` separators."""
    name: str
    """The undefined symbol or the missing version; empty for a load failure."""
    text: str
    """The piece of the input that said so."""


class Facts(NamedTuple):
    """The structure of one error text, as ``match`` signatures see it."""

    events: tuple[LibraryEvent, ...]
    values: dict[str, tuple[tuple[str, str], ...]]
    """Per fact (``code``, ``module``, ``backend``, ``api``, ``exception``): (value, text) pairs."""
    intel: bool = False
    """Whether the text names the Intel stack (a signature's ``stack: intel``): the knowledge
    base's words decide, so ``diagnose`` sets it; ``facts`` alone leaves it ``False``."""


def _forms(text: str) -> tuple[str, ...]:
    text = text[-MAX_INPUT_CHARS:].replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.strip() for line in text.split("\n")]
    spaced = re.sub(r"[ \t]+", " ", " ".join(lines))
    # NOTE: a terminal wraps at a column, not at a space; joining the lines with nothing
    # rebuilds a word split across two lines.
    joined = re.sub(r"[ \t]+", " ", "".join(lines))
    return spaced, joined


# ---------------------------------------------------------------------------- reading facts
# NOTE: every pattern starts with a literal (the regex engine then skips to it); what stands
# before such a literal (the library in "libsycl.so.8: cannot open shared object file", the
# class in "RuntimeError:") is read backwards from it, a bounded token at a time. A regex
# searching the window before an anchor would retry every start in it: quadratic in the window.
# The patterns are strings, compiled by re (and kept in its cache) when first used, and each
# is used only when its literal occurs in the text at all (``_GATES``): kb list and kb show
# import this module for Match, and a one-line error needs only a few of them.
_LOOKBACK = 400
_TOKEN_BACKWARDS = r"[^\s:\"'`*()\[\]|<>]{1,400}"
_COLON_BACKWARDS = r"\s*[*_`]*\s*:\s*"  # ": **" before "undefined symbol", reversed
_SPACE_BACKWARDS = r"\s*"
_WORD_BACKWARDS = r"\w{1,80}"
_LIBRARY_FILE = r"(?i)\.(?:so(?:\.\d+)*|dll|pyd|dylib)$"
_LOAD_ANCHORS = (
    (r"cannot open shared object file", _COLON_BACKWARDS),  # glibc's dlopen
    (r"=>\s*not found", _SPACE_BACKWARDS),  # ldd
    (r"\(NOT_FOUND\)", _SPACE_BACKWARDS),  # the Dependencies tree on Windows
    # NOTE: the tail of Windows' "Error loading "X.dll" or one of its dependencies", for a
    # paste that cut the head off (textgen #5177)
    (r"[\"']? or one of its dependencies", _SPACE_BACKWARDS),
)
_WINDOWS_LOAD = r"(?i)Error loading [\"']?([^\"'\n]{1,400}?\.(?:dll|pyd))\b"
_UNDEFINED = r"undefined symbol:?\s*([\w$@.]{1,1000})"
_VERSION = r"version [`'‘\"]([^`'’\"\s]{1,200})[`'’\"] not found"
_CODE = r"\b(?:UR_RESULT_ERROR|ZE_RESULT_ERROR|PI_ERROR|CL)_[A-Z][A-Z0-9_]{1,60}\b"
_UR_NUMBER = (
    r"(?:Native API returns|backend failed with error|backend returns)\s*:?\s*(-?\d{1,10})\b"
)
UR_CODES = {
    20: "UR_RESULT_ERROR_DEVICE_LOST",
    29: "UR_RESULT_ERROR_INVALID_KERNEL_NAME",
    39: "UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
    40: "UR_RESULT_ERROR_OUT_OF_RESOURCES",
    2147483646: "UR_RESULT_ERROR_UNKNOWN",
    # NOTE: negative: the SYCL runtime before Unified Runtime (its Plugin Interface) printed
    # PI codes, and spelt the unknown one out only in words ("-999 (Unknown PI error)")
    -999: "PI_ERROR_UNKNOWN",
}
"""Unified Runtime (and SYCL PI) codes that some messages give as a number alone ("level_zero
backend failed with error: 20", "Native API returns -999"); the pairs are those the corpus
quotes with both (tests/assets)."""
# NOTE: AdaptiveCpp prints a Level Zero result as "error code = ze:1879048193" (its backend's
# prefix, the code in decimal: AdaptiveCpp #1239), hence the bare "ze:" before the number; Intel
# MPI names the Level Zero call that failed ("failure in zeMemGetAllocProperties 78000001"), as
# xpumanager does ("zeInit error: 70020000"): a ze* entry point's name in its own case
_ZE_HEX = (
    r"(?i)(?:(?-i:\bze[A-Z]\w{1,60})\(?\)?(?: error| failed| returned)?|ze_result_t value"
    r"|(?<![\w-])ze:)\W{0,10}"
    r"(0x7[08][0-9a-f]{6}|7[08][0-9a-f]{6}|\d{10})\b"
)
ZE_CODES = {
    0x70000001: "ZE_RESULT_ERROR_DEVICE_LOST",
    0x70000002: "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY",
    0x70000003: "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
    0x70000004: "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE",
    0x70000005: "ZE_RESULT_ERROR_MODULE_LINK_FAILURE",
    0x70000006: "ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET",
    0x70000007: "ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE",
    0x70010000: "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS",
    0x70010001: "ZE_RESULT_ERROR_NOT_AVAILABLE",
    0x70020000: "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE",
    0x78000001: "ZE_RESULT_ERROR_UNINITIALIZED",
    0x78000002: "ZE_RESULT_ERROR_UNSUPPORTED_VERSION",
    0x78000003: "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE",
    0x78000004: "ZE_RESULT_ERROR_INVALID_ARGUMENT",
}
"""Level Zero codes (ze_api.h's ``_ze_result_t``, the oneAPI Level Zero specification's values)
that the callers of a Level Zero entry point print as a number ("Failed to initialize in
zeInit(): 0x78000001", "Unknown ze_result_t value: 1879179264"): the errors of the device, of
the loader and of its validation that callers report, not the long tail of invalid-handle codes.
Only after a ze* entry point's name, "ze_result_t value" or "ze:": a bare hex number elsewhere
(Triton's "[ZE]: 0x78000011") is the business of the entries that quote it."""
_ATTRIBUTE = r"module '([\w.]{1,200})' has no attribute '(\w{1,200})'"
_MODULE = r"No module named [\"']?([\w.]+)"
_BACKEND = (
    r"(?i)Invalid backend:\s*'*\s*(\w{1,40})",
    r"(?i)(?:doesn't|does not) have (\w{1,40}) built in",
    r"(?i)No backend type associated with device type (\w{1,40})",
    r"(?i)BackendType'? has no attribute '(\w{1,40})'",
    r"is_(\w{1,40})_available\(\)[`'\"]?[^\n]{0,20}?\bFalse\b",
    r"(?i)backend '?(\w{1,40})'? (?:is )?not (?:available|built|compiled)",
)
_API = (
    r"\b(?:torch|ipex|intel_extension_for_pytorch|oneccl_bindings_for_pytorch|torch_ccl|triton)"
    r"(?:\.\w{1,80}){1,12}"
)
_EXCEPTION_END = r"(Error|Exception|Warning)\s*:"
_GATES: dict[str, tuple[str, ...]] = {
    _LOAD_ANCHORS[0][0]: ("cannot open shared object file",),
    _LOAD_ANCHORS[1][0]: ("not found",),
    _LOAD_ANCHORS[2][0]: ("(not_found)",),
    _LOAD_ANCHORS[3][0]: ("or one of its dependencies",),
    _WINDOWS_LOAD: ("error loading",),
    _UNDEFINED: ("undefined symbol",),
    _VERSION: ("not found",),
    _CODE: ("_",),
    _UR_NUMBER: ("returns", "with error"),
    _MODULE: ("no module named",),
    _BACKEND[0]: ("invalid backend",),
    _BACKEND[1]: ("built in",),
    _BACKEND[2]: ("device type",),
    _BACKEND[3]: ("backendtype",),
    _BACKEND[4]: ("_available",),
    _BACKEND[5]: ("backend",),
    _API: (".",),
    _EXCEPTION_END: (":",),
    _ZE_HEX: ("ze",),
    _ATTRIBUTE: ("has no attribute",),
}
"""Literals (lower case) one of which a pattern needs to match: without any, it is skipped."""


def _finditer(pattern: str, form: str, lowered: str) -> Iterator[re.Match[str]]:
    if any(gate in lowered for gate in _GATES[pattern]):
        yield from re.finditer(pattern, form)


def _library(path: str) -> str:
    """``libsycl.so.8`` -> ``libsycl.so`` (the name a glob is written against)."""
    name = re.split(r"[\\/]", path)[-1].lower()
    return re.sub(r"(\.so)(?:\.\d+)+$", r"\1", name)


def _path(path: str) -> str:
    return re.sub(r"[\\/]+", "/", path).lower()


def _library_before(form: str, end: int, gap: str) -> tuple[int, str] | None:
    """The library file named just before ``form[end]`` (``gap`` apart, read backwards):
    its start and its path, or ``None`` when what stands there is not a library file."""
    backwards = form[max(0, end - _LOOKBACK) : end][::-1]
    spaced = re.match(gap, backwards)
    if spaced is None:  # e.g. "undefined symbol" with no colon before it: no library is named
        return None
    token = re.match(_TOKEN_BACKWARDS, backwards[spaced.end() :])
    if token is None:
        return None
    path = token[0][::-1]
    if re.search(_LIBRARY_FILE, path) is None:
        return None
    return end - spaced.end() - token.end(), path


def _events(form: str, lowered: str) -> Iterator[LibraryEvent]:
    for anchor, gap in _LOAD_ANCHORS:
        for hit in _finditer(anchor, form, lowered):
            found = _library_before(form, hit.start(), gap)
            if found is not None:
                start, path = found
                yield LibraryEvent("load", _library(path), _path(path), "", form[start : hit.end()])
    for hit in _finditer(_WINDOWS_LOAD, form, lowered):
        yield LibraryEvent("load", _library(hit[1]), _path(hit[1]), "", hit[0])
    for hit in _finditer(_UNDEFINED, form, lowered):
        found = _library_before(form, hit.start(), _COLON_BACKWARDS)
        start, holder = found if found is not None else (hit.start(), "")
        library = _library(holder) if holder else ""
        symbol = hit[1].rstrip(".")
        yield LibraryEvent("symbol", library, _path(holder), symbol, form[start : hit.end()])
    for hit in _finditer(_VERSION, form, lowered):
        found = _library_before(form, hit.start(), _COLON_BACKWARDS)
        if found is not None:
            start, path = found
            text = form[start : hit.end()]
            yield LibraryEvent("version", _library(path), _path(path), hit[1], text)


def _values(form: str, lowered: str) -> Iterator[tuple[str, str, str]]:
    """(fact, value, text) triples of one form of the text."""
    for hit in _finditer(_CODE, form, lowered):
        yield "code", hit[0], hit[0]
    for hit in _finditer(_UR_NUMBER, form, lowered):
        code = UR_CODES.get(int(hit[1]))
        if code is not None:
            yield "code", code, hit[0]
    for hit in _finditer(_ZE_HEX, form, lowered):
        # NOTE: eight hex digits without 0x are how xpumanager prints it ("zeInit error:
        # 78000001"); ten decimal digits are the code printed as a number (2013265921)
        code = ZE_CODES.get(int(hit[1], 10 if len(hit[1]) == 10 and hit[1].isdigit() else 16))
        if code is not None:
            yield "code", code, hit[0]
    for hit in _finditer(_ATTRIBUTE, form, lowered):
        name = f"{hit[1]}.{hit[2]}"
        yield "attribute", name, hit[0]
        for rule in _code_rules_naming(name):
            yield "code_rule", rule, f"{hit[0]} (scan rule {rule})"
    for hit in _finditer(_MODULE, form, lowered):
        yield "module", hit[1].rstrip("."), hit[0]
    for pattern in _BACKEND:
        for hit in _finditer(pattern, form, lowered):
            yield "backend", hit[1].lower(), hit[0]
    for hit in _finditer(_API, form, lowered):
        yield "api", hit[0], hit[0]
    for hit in _finditer(_EXCEPTION_END, form, lowered):
        head = re.match(_WORD_BACKWARDS, form[max(0, hit.start() - 80) : hit.start()][::-1])
        name = ("" if head is None else head[0][::-1]) + hit[1]
        if name[0].isupper() and name != hit[1]:
            yield "exception", name, name


def _code_rules_naming(name: str) -> tuple[str, ...]:
    """The ids of ``scan``'s code rules for IPEX-only APIs whose symbols include ``name``
    (``torch.xpu.set_fp32_math_mode``): what the code rules know of IPEX's ``torch.xpu``
    names, without a second list of them here. A name missing from a module inside IPEX's own
    XPU package (``intel_extension_for_pytorch.xpu.amp.custom_fwd``) is not looked up: that
    package loaded, so IPEX's XPU build is there and the name is one its version lacks. Nor is
    one missing from IPEX's compiled core (``intel_extension_for_pytorch._C._setDevice``):
    IPEX loaded, and a device call its core lacks says which build is installed (the CPU
    build's core has no XPU calls), not that code called an IPEX-only name without IPEX."""
    if not name.startswith(("torch.xpu.", "intel_extension_for_pytorch.")) or name.startswith(
        ("intel_extension_for_pytorch.xpu.", "intel_extension_for_pytorch._C.")
    ):
        return ()
    from ipex_doctor.errors import KnowledgeBaseError
    from ipex_doctor.knowledge import code_rules  # NOTE: lazy; only a text that needs them

    try:
        rules = code_rules.load()
    except KnowledgeBaseError:
        return ()  # NOTE: a broken rules file costs this one fact, never explain's answer
    return tuple(r.id for r in rules.rules if r.needs_ipex and r.match.matches_symbol(name))


def facts(text: str) -> Facts:
    """The structure of ``text``: the library events and the other facts, each once."""
    return _facts(_forms(text))


def _facts(forms: tuple[str, ...]) -> Facts:
    events: dict[tuple[str, str, str, str], LibraryEvent] = {}
    values: dict[str, dict[str, str]] = {}
    for form in forms:
        lowered = form.lower()
        for event in _events(form, lowered):
            events.setdefault((event.kind, event.library, event.path, event.name), event)
        for fact, value, text in _values(form, lowered):
            values.setdefault(fact, {}).setdefault(value, text)
    return Facts(
        events=tuple(events.values()),
        values={fact: tuple(found.items()) for fact, found in values.items()},
    )


# ---------------------------------------------------------------------------- matching
@functools.cache
def _glob(pattern: str, case_sensitive: bool) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(pattern), 0 if case_sensitive else re.IGNORECASE)


def _best(globs: tuple[str, ...], value: str, *, case_sensitive: bool = False) -> int | None:
    """The literal length of the most specific glob that matches ``value``, or ``None``."""
    lengths = [
        len(glob_literal(g)) for g in globs if _glob(g, case_sensitive).match(value) is not None
    ]
    return max(lengths) if lengths else None


class _Evidence(NamedTuple):
    tier: int
    score: int
    texts: tuple[str, ...]


def _event_evidence(kind: str, pattern: EventPattern, found: Facts) -> _Evidence | None:
    """The best event of ``kind`` that fits every field of ``pattern``."""
    best: _Evidence | None = None
    for event in found.events:
        if event.kind != kind:
            continue
        parts = [
            _best(pattern.library, event.library) if pattern.library else 0,
            _best(pattern.path, event.path) if pattern.path else 0,
            _best(pattern.name, event.name, case_sensitive=True) if pattern.name else 0,
        ]
        if any(part is None for part in parts):
            continue
        # NOTE: an undefined symbol is caused by whoever should provide it, not by the library
        # that needed it: a signature on the needing library alone is only context.
        tier = CONTEXT if kind == "symbol" and not pattern.name else STRUCTURE
        evidence = _Evidence(tier, sum(p or 0 for p in parts), (event.text,))
        if best is None or (evidence.tier, evidence.score) > (best.tier, best.score):
            best = evidence
    return best


_FACT_TIERS = {"code": STRUCTURE, "module": STRUCTURE, "backend": STRUCTURE,
               "code_rule": STRUCTURE, "attribute": WORDING,
               "api": CONTEXT, "exception": CONTEXT}  # fmt: skip
_CASE_SENSITIVE = {"code", "api", "attribute", "code_rule"}


def _stands(fact: str, value: str, found: Facts) -> bool:
    """Whether a fact's value is evidence in this text. An OpenCL result code (``CL_*``) is
    every vendor's: only a text that names the Intel stack makes it the Intel runtime's."""
    # NOTE: the Unified Runtime, Level Zero and SYCL PI spellings are the Intel stack's own
    # words (kb.stack.intel), so they need no such condition; OpenVINO's GPU plugin, NVIDIA's
    # and AMD's OpenCL print the CL_ codes too (OpenArc #58: "[GPU] clFinish, error code: -5
    # CL_OUT_OF_RESOURCES", OpenVINO on Windows).
    return found.intel or fact != "code" or not value.startswith("CL_")


def _signature_evidence(signature: Signature, found: Facts) -> _Evidence | None:
    """The evidence for ``signature`` when every one of its conditions holds, else ``None``."""
    if signature.stack == "intel" and not found.intel:
        return None
    parts: list[_Evidence] = []
    for kind in ("load", "symbol", "version"):
        pattern = getattr(signature, kind)
        if pattern is not None:
            evidence = _event_evidence(kind, pattern, found)
            if evidence is None:
                return None
            parts.append(evidence)
    for fact, tier in _FACT_TIERS.items():
        globs: tuple[str, ...] = getattr(signature, fact)
        if not globs:
            continue
        hits = [
            (length, text)
            for value, text in found.values.get(fact, ())
            if _stands(fact, value, found)
            and (length := _best(globs, value, case_sensitive=fact in _CASE_SENSITIVE)) is not None
        ]
        if not hits:
            return None
        length, text = max(hits)
        parts.append(_Evidence(tier, length, (text,)))
    if not parts:
        return None
    return _Evidence(
        max(p.tier for p in parts),
        sum(p.score for p in parts),
        tuple(t for p in sorted(parts, key=lambda p: -p.tier) for t in p.texts),
    )


def _match(issue: KnownIssue, forms: tuple[str, ...], found: Facts) -> Match | None:
    structural = [e for s in issue.match if (e := _signature_evidence(s, found)) is not None]
    best = max(structural, key=lambda e: (e.tier, e.score), default=None)
    worded = [w for pattern in issue.symptoms if (w := _search(pattern, forms))]
    if best is None and not worded:
        return None
    tier = max(best.tier if best else 0, WORDING if worded else 0)
    texts = (best.texts if best else ()) + tuple(worded)
    if best is not None and best.tier < WORDING:
        texts = tuple(worded) + best.texts
    score = (best.score if best else 0) + sum(len(w) for w in worded)
    return Match(issue=issue, matched=texts, score=score, tier=tier)


class LayerMatch(NamedTuple):
    """The layer a text of the Intel stack names when no entry does."""

    layer: Layer
    matched: tuple[str, ...]
    """The pieces of the input that placed it there, strongest first."""
    tier: int
    score: int


class Explanation(NamedTuple):
    """What ``diagnose`` found: the entries that name the cause, else the layer."""

    matches: list[Match]
    layer: LayerMatch | None = None
    """Only where no entry matched and the text belongs to the Intel stack."""


def diagnose(text: str, kb: KnowledgeBase, env: EnvFacts | None = None) -> Explanation:
    """The entries whose signatures or symptoms fit ``text``, the most specific first (a
    message with ``causes`` stands for its causes; with ``env``, what it confirms goes first
    and what it rules out last); where none does, the layer of the stack the text names.

    A text that names another vendor's stack (``kb.stack.foreign``: CUDA, ROCm, MPS, ...), or
    says only that the Intel stack is absent (``kb.stack.absent``: "module 'torch' has no
    attribute 'xpu'"), keeps a candidate only where the Intel stack is named outside what matched and
    outside that wording: a library probing torch.xpu on a CUDA machine is no Intel error;
    or where what matched names it itself (IPEX's own message that it needs another torch is
    IPEX's, whatever other stack the text mentions); or where the entry's cause is the same on
    every stack (``stack: any``: a torchvision built for another torch, on a CUDA machine too)."""
    forms = _forms(text)
    other_sycl = _any(kb.stack.other_sycl, forms[0])
    words = _intel_words(kb, other_sycl)
    found = _facts(forms)._replace(intel=_names_intel(forms, kb, words))
    npu = _names_npu(forms, kb)
    # NOTE: in a text that Intel's NPU's own words place, an "NPU" named alone is that NPU, not
    # another vendor's (stack.foreign counts a bare NPU as Ascend's)
    vendor_text = _BARE_NPU.sub(" ", forms[0]) if npu else forms[0]
    # NOTE: a text that names another SYCL implementation is that vendor's
    foreign = other_sycl or _any(kb.stack.foreign, vendor_text) or _any(kb.stack.absent, forms[0])
    direct = {
        m.issue.id: m
        for issue in kb.issues
        if (m := _match(issue, forms, found))
        and (not foreign or m.issue.stack == "any" or _intel_beside(m.matched, forms, kb, words)
             or _intel_within(m.matched, forms, kb, words))
        and not (npu and m.issue.layer in RUNGS)
    }  # fmt: skip
    matches = list(direct.values())
    for message in [m for m in matches if m.issue.causes]:
        family = _causes(message, kb, direct, forms)
        if family:
            own = {m.issue.id for m in family}
            matches = [m for m in matches if m is not message and m.issue.id not in own]
            matches += family
    if env is not None:
        lowest = _lowest_failing_rung(env)
        matches = [_judged(m, env, lowest) for m in matches]
    matches.sort(key=rank)
    layer = None if matches else _layer_of(forms, found, kb, foreign, npu, words)
    return Explanation(matches, layer)


def explain(text: str, kb: KnowledgeBase, env: EnvFacts | None = None) -> list[Match]:
    """``diagnose``'s entries alone."""
    return diagnose(text, kb, env).matches


def names_intel_stack(text: str, kb: KnowledgeBase) -> bool:
    """Whether ``text`` holds a word of the Intel stack (``kb.stack.intel``) outside the wording
    that says the stack is absent: without one, ``diagnose`` names no layer."""
    forms = _forms(text)
    return _names_intel(forms, kb, _intel_words(kb, _any(kb.stack.other_sycl, forms[0])))


NPU = "npu"
"""The layer of Intel's NPU under PyTorch: a text its own wording places there is no GPU's."""
_BARE_NPU = re.compile(r"\bNPU\b", re.IGNORECASE)


def _names_npu(forms: tuple[str, ...], kb: KnowledgeBase) -> bool:
    """Whether the npu layer's own wording (its ``symptoms``, not its weaker ``context``) is in
    the text: then no rung of the GPU ladder is its cause or its layer."""
    # NOTE: the NPU has its own Level Zero driver, kernel driver and device files: a Level Zero
    # code or "zeInit failed" beside the NPU's words is the NPU's (an old NPU driver, /dev/accel
    # closed to the user), and a GPU rung's cause or ``env`` probe would send the user to the
    # wrong device. The loader's trace naming libze_intel_npu is only the layer's context.
    layer = kb.layer(NPU)
    return layer is not None and any(_search(pattern, forms) for pattern in layer.symptoms)


def _intel_words(kb: KnowledgeBase, other_sycl: bool) -> tuple[Wording, ...]:
    """The words that place a text in the Intel stack: ``stack.intel``, and SYCL's shared words
    (``stack.sycl``) unless the text names another SYCL implementation (``other_sycl``: the
    text matched ``stack.other_sycl``), whose SYCL is not Intel's."""
    return kb.stack.intel if other_sycl else kb.stack.intel + kb.stack.sycl


def _names_intel(forms: tuple[str, ...], kb: KnowledgeBase, words: tuple[Wording, ...]) -> bool:
    rest = _without_absent(forms[0], kb)
    return _any(words, rest) or bool(vocabulary.hits(rest))


def _any(patterns: tuple[Wording, ...], text: str) -> bool:
    return any(p.search(text) for p in patterns)


def _intel_beside(
    matched: tuple[str, ...], forms: tuple[str, ...], kb: KnowledgeBase, words: tuple[Wording, ...]
) -> bool:
    """Whether the Intel stack is named in the text outside the pieces that matched and
    outside the wording that says it is absent."""
    rest = _without_absent(forms[0], kb)
    for piece in matched:
        rest = rest.replace(piece, " ")
    return _any(words, rest)


def _intel_within(
    matched: tuple[str, ...], forms: tuple[str, ...], kb: KnowledgeBase, words: tuple[Wording, ...]
) -> bool:
    """Whether a piece that matched names the Intel stack, outside the wording that says it is
    absent: in the piece itself, and where the text holds it outside that wording."""
    # NOTE: a piece can be read from inside such wording (the Level Zero code of the NPU's
    # "L0 createGraph result: ZE_RESULT_ERROR_UNKNOWN"): it stands for the Intel stack only
    # where it also occurs outside it.
    rests = [_without_absent(form, kb) for form in forms]
    return any(
        any(piece in rest for rest in rests) and _any(words, _without_absent(piece, kb))
        for piece in matched
    )


def _without_absent(text: str, kb: KnowledgeBase) -> str:
    for wording in kb.stack.absent:
        while (hit := wording.search(text)) is not None:
            text = text[: hit.start()] + " " + text[hit.end() :]
    return text


def _layer_of(
    forms: tuple[str, ...],
    found: Facts,
    kb: KnowledgeBase,
    foreign: bool,
    npu: bool,
    words: tuple[Wording, ...],
) -> LayerMatch | None:
    """The layer whose wording fits the text best, for a text of the Intel stack; ``None``
    for any other (never a layer for a CUDA, ROCm or plain Python error). With ``npu`` (the
    text names Intel's NPU) no rung of the GPU ladder."""
    if not found.intel:  # NOTE: ``diagnose`` read it with ``_names_intel`` already
        return None
    # NOTE: another SYCL implementation's name is no "vendor" here: ``words`` already leaves
    # SYCL's shared words out of such a text, so a piece that holds DPC++'s own part (its
    # -fsycl flag in AdaptiveCpp's refusal) names Intel's SYCL itself
    vendor = _any(kb.stack.foreign, _BARE_NPU.sub(" ", forms[0]) if npu else forms[0])
    named = _named_layers(_without_absent(forms[0], kb))
    best: LayerMatch | None = None
    for layer in kb.layers:
        found_layer = (
            None if npu and layer.id in RUNGS else _layer_match(layer, forms, found, named)
        )
        if found_layer is None:
            continue
        if foreign and not (
            _intel_beside(found_layer.matched, forms, kb, words)
            or (not vendor and _intel_within(found_layer.matched, forms, kb, words))
        ):
            # NOTE: where only the absent wording made the text foreign, a piece that names the
            # Intel stack itself places it (the NPU driver's own check beside that wording); in a
            # text of another vendor's stack the Intel word must stand beside what matched
            continue
        if best is None or (found_layer.tier, found_layer.score) > (best.tier, best.score):
            best = found_layer
    return best


def _named_layers(text: str) -> dict[str, tuple[str, ...]]:
    """The stack's vocabulary in ``text``, by layer."""
    named: dict[str, tuple[str, ...]] = {}
    for hit in vocabulary.hits(text):
        named[hit.layer] = (*named.get(hit.layer, ()), hit.piece)
    return named


def _layer_match(
    layer: Layer,
    forms: tuple[str, ...],
    found: Facts,
    named: Mapping[str, tuple[str, ...]] | None = None,
) -> LayerMatch | None:
    """The evidence for ``layer``: its signatures, its wording, its context, else its names in
    the stack's vocabulary (``named``), the weakest. Between layers that only their names place,
    the lowest on the ladder goes first (``LAYERS``' order): a text naming the Level Zero loader
    and the SYCL runtime's library names the layer under the other."""
    structural = [e for s in layer.match if (e := _signature_evidence(s, found)) is not None]
    best = max(structural, key=lambda e: (e.tier, e.score), default=None)
    worded = [w for pattern in layer.symptoms if (w := _search(pattern, forms))]
    context = [w for pattern in layer.context if (w := _search(pattern, forms))]
    if best is not None:
        return LayerMatch(layer, best.texts + tuple(worded), best.tier, best.score + _chars(worded))
    if worded:
        return LayerMatch(layer, tuple(worded), WORDING, _chars(worded))
    if context:
        return LayerMatch(layer, tuple(context), CONTEXT, _chars(context))
    pieces = (named or {}).get(layer.id)
    if pieces and layer.id in LAYERS:
        return LayerMatch(layer, pieces, VOCABULARY, len(LAYERS) - LAYERS.index(layer.id))
    return None


def _chars(pieces: list[str]) -> int:
    return sum(len(p) for p in pieces)


def _causes(
    message: Match, kb: KnowledgeBase, direct: dict[str, Match], forms: tuple[str, ...]
) -> list[Match]:
    """The causes of ``message``'s entry that the knowledge base has, each with the message's
    evidence plus its own (its direct match, its hints)."""
    family = []
    for place, cause_id in enumerate(message.issue.causes):
        cause = kb.get(cause_id)
        if cause is None or cause.id == message.issue.id:
            continue
        own = direct.get(cause.id)
        hinted = [w for pattern in cause.hints if (w := _search(pattern, forms))]
        evidence = (own.matched if own else ()) + tuple(hinted) + message.matched
        family.append(Match(
            issue=cause, matched=evidence,
            score=message.score + (own.score if own else 0) + sum(len(h) for h in hinted),
            tier=max(message.tier, own.tier if own else 0), via=message.issue.id, prior=place,
        ))  # fmt: skip
    return family


def _search(pattern: Wording, forms: tuple[str, ...]) -> str:
    for form in forms:
        hit = pattern.search(form)
        if hit is not None:
            return hit.group(0)
    return ""


def _lowest_failing_rung(env: EnvFacts) -> int | None:
    """The index in ``RUNGS`` of the lowest rung of the GPU ladder that does not hold."""
    for index, layer in enumerate(RUNGS):
        seen = env.findings.get(f"xpu-rung-{layer}")
        if seen is not None and seen.problem:
            return index
    return None


def _judged(match: Match, env: EnvFacts, lowest: int | None = None) -> Match:
    """``match`` with the verdict of the first of its probes the environment has a problem
    with, else (every probe it has passing) ruled out by the first. A cause whose layer is a
    rung above ``lowest`` (the lowest rung that does not hold) is not reached: the ladder
    stopped below it, so what its probes say follows from the lower rung."""
    found = [f for f in probes(match.issue) if f in env.findings]
    failing = [f for f in found if env.findings[f].problem]
    layer = match.issue.layer
    if failing and lowest is not None and layer in RUNGS and RUNGS.index(layer) > lowest:
        below = f"xpu-rung-{RUNGS[lowest]}"
        return replace(match, verdict=NOT_REACHED,
                       decided_by=f"{below}: {env.findings[below].said()}")  # fmt: skip
    if failing:
        finding, verdict = failing[0], CONFIRMED
    elif found and all(env.findings[f].problem is False for f in found):
        finding, verdict = found[0], RULED_OUT
    else:
        return match
    return replace(match, verdict=verdict, decided_by=f"{finding}: {env.findings[finding].said()}")


def rank(match: Match) -> tuple[int, int, int, int, int, str]:
    """The sort key: the environment's verdict (confirmed, then what it did not decide or
    did not reach, then ruled out); among confirmed causes the lowest rung of the GPU ladder
    first (a rung that does not hold leaves every rung above it broken too: the lowest is the
    one to fix, the others follow from it); then the evidence tier and score, the place among
    a message's causes, the id."""
    low = LAYERS.index(match.issue.layer) if match.verdict == CONFIRMED else 0
    order = _VERDICT_ORDER[match.verdict]
    return order, low, -match.tier, -match.score, match.prior, match.issue.id


_TAIL_BYTES = MAX_INPUT_CHARS * 8
"""What is read of a longer file or stream: its end (UTF-8 takes at most 4 bytes a character,
UTF-16 4 bytes a pair), decoded, then cut to twice ``MAX_INPUT_CHARS`` characters."""
_CHUNK_BYTES = 1 << 20
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def _tail(handle: BinaryIO, size: int | None) -> bytes:
    """All of ``handle``, or where it is longer its UTF-16 byte-order mark (if it starts with
    one) and its last ``_TAIL_BYTES`` from an even offset (so a UTF-16 tail starts on a unit);
    ``size`` is its size when it is a regular file (the middle is skipped by a seek), ``None``
    for a pipe (read to its end, keeping only the last chunks)."""
    head = handle.read(2)
    mark = head if head in _UTF16_MARKS else b""
    if size is not None and size > len(head) + _TAIL_BYTES:
        handle.seek(size - _TAIL_BYTES - (size - _TAIL_BYTES) % 2)
        return mark + handle.read(_TAIL_BYTES + 1)  # NOTE: bounded: a live log may grow
    chunks: deque[bytes] = deque()
    kept = 0
    while chunk := handle.read(_CHUNK_BYTES):
        chunks.append(chunk)
        kept += len(chunk)
        while kept - len(chunks[0]) >= _TAIL_BYTES:
            kept -= len(chunks.popleft())
    body = b"".join(chunks)
    cut = max(0, len(body) - _TAIL_BYTES)
    return (mark if cut else head) + body[cut - cut % 2 :]


def _decoded(data: bytes) -> str:
    """``data`` from ``_tail`` as text: UTF-16 where a byte-order mark says so (Windows
    PowerShell's ``>`` writes it; read as UTF-8 it is NUL-laden), else UTF-8; undecodable
    bytes replaced; its last ``2 * MAX_INPUT_CHARS`` characters."""
    bom = data[:2]
    if bom in _UTF16_MARKS:
        codec = "utf-16-le" if bom == b"\xff\xfe" else "utf-16-be"
        text = data[2:].decode(codec, errors="replace")
    else:
        text = data.decode("utf-8-sig", errors="replace")
    return text[-2 * MAX_INPUT_CHARS :]


def _read_file(source: str) -> str:
    """The end of the file ``source`` as text (see ``_tail`` and ``_decoded``): an error is at
    the end of a log, and a long CI log's start is only its noise. Opening never waits: a FIFO
    no one writes (which made the command wait forever) reads as empty and is refused as such;
    a pipe that is written (``<(journalctl ...)``) is read as it comes."""
    import os
    import stat

    try:
        fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise DoctorError(f"--file {source}: cannot read: {exc.strerror}") from None
    try:
        os.set_blocking(fd, True)  # NOTE: only the open must not wait; reads may
        status = os.fstat(fd)
        if stat.S_ISDIR(status.st_mode):
            raise DoctorError(
                f"--file {source}: is a directory; give the file that holds the error"
            )
        size = status.st_size if stat.S_ISREG(status.st_mode) else None
        with open(fd, "rb", closefd=False) as handle:
            data = _tail(handle, size)
    except OSError as exc:
        raise DoctorError(f"--file {source}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    return _decoded(data)


def read_input(text: str | None, file_path: str | None) -> str:
    """The text to explain: the argument, ``--file PATH``, or standard input (``-``).

    Raises ``DoctorError`` (exit 2) for no input, both forms at once, an empty text, or one
    that is not text (NUL bytes: a core dump, a model file given by mistake).
    """
    if text is not None and file_path is not None:
        raise DoctorError("give the text or --file, not both")
    source = file_path if file_path is not None else ("-" if text in (None, "-") else None)
    if source == "-":
        if sys.stdin.isatty() and text is None:
            raise DoctorError("paste the error as an argument, with --file PATH, or pipe it in")
        stream = getattr(sys.stdin, "buffer", None)
        text = (
            sys.stdin.read()[-2 * MAX_INPUT_CHARS :]
            if stream is None
            else _decoded(_tail(stream, None))
        )
    elif source is not None:
        text = _read_file(source)
    assert text is not None
    if "\0" in text:
        where = "standard input" if source == "-" else (source or "the text")
        raise DoctorError(
            f"{where} is not text (it holds NUL bytes): give the error message, traceback or "
            "log that holds it"
        )
    if not text.strip():
        where = "the text" if source is None else ("standard input" if source == "-" else source)
        raise DoctorError(f"{where} is empty: give the error message or traceback to explain")
    return text
