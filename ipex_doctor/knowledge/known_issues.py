"""The knowledge base: loading, validating and overlaying ``known_issues.yaml`` files.

A knowledge-base file is data, never code: it is read with PyYAML's safe loader, YAML aliases
are refused (an alias bomb could otherwise blow up validation), it is validated against
``knowledge/known_issues.schema.json`` and then checked semantically (versions parse, regexes
compile, rules and ids exist). Every error names the file, the line and the issue id.

Overlays (``--kb FILE``) are applied in order: an entry whose id already exists replaces it,
a new id is added. This is how a site keeps its own known issues next to the shipped ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from ipex_doctor import __version__, resources
from ipex_doctor.errors import KnowledgeBaseError, read_bounded
from ipex_doctor.knowledge import cache
from ipex_doctor.model.codec import JsonModel
from ipex_doctor.model.terms import FindingKind, Reference, Severity
from ipex_doctor.model.versions import VersionRange
from ipex_doctor.model.wording import Wording

if TYPE_CHECKING:
    import yaml

    from ipex_doctor.knowledge import yamldoc

MAX_FILE_BYTES = 1024 * 1024
"""A knowledge base larger than this is refused: the shipped one is about 30 KiB."""

MAX_SYMPTOM_CHARS = 1000

# NOTE: a group that contains a quantifier and is quantified again ("(a+)+", "(\\w+\\s?)*") is
# the classic catastrophic-backtracking shape; Python's re has no timeout, so such symptoms are
# refused at load time. Input to the matcher is also bounded (explain.MAX_INPUT_CHARS).
_NESTED_QUANTIFIER = re.compile(
    r"\((?:[^()\\]|\\.)*(?:[+*]|\{\d*,\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d*,\d*\})"
)


@dataclass(frozen=True)
class AffectedRange(JsonModel):
    """Versions of one package (and build variant) affected by an issue."""

    package: str
    variant: str
    """``xpu``, ``cpu``, ``cuda``, ``rocm`` or ``any``."""
    range: VersionRange
    note: str = ""

    JSON_EXTRAS = ("description",)

    @property
    def description(self) -> str:
        """The range in words (``describe()``), as JSON carries it."""
        return self.describe()

    def describe(self) -> str:
        """E.g. ``intel-extension-for-pytorch >=2.1.20, <2.1.30 (xpu)``."""
        variant = "" if self.variant == "any" else f" ({self.variant})"
        return f"{self.package} {self.range.describe()}{variant}"


@dataclass(frozen=True)
class EventPattern(JsonModel):
    """The library event a signature needs (``load``, ``symbol`` or ``version`` in ``match``).

    Each field is a tuple of shell-style globs (``fnmatch``), any one of which may match; an
    empty field does not constrain. ``library`` is the file name with its trailing version
    numbers dropped (``libsycl.so`` for ``libsycl.so.8``, ``sycl8.dll`` stays), ``path`` the
    path as written with ``/`` separators (both case-insensitive); ``name`` is the undefined
    symbol or the missing symbol version (case-sensitive: C++ names are).
    """

    library: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    name: tuple[str, ...] = ()


@dataclass(frozen=True)
class Signature(JsonModel):
    """One structured way an entry's error shows: every condition given must hold at once.

    ``load``: a library that failed to load; ``symbol``: a library that lacks a symbol
    (``undefined symbol: X``); ``version``: a library that lacks a symbol version
    (``version `X' not found``). The other fields are globs over facts read from the text:
    ``code`` a Unified Runtime / Level Zero / SYCL PI / OpenCL result code
    (``UR_RESULT_ERROR_DEVICE_LOST``), ``module`` a Python module that is missing, ``backend`` a
    distributed backend (or device type) said to be unavailable, ``api`` a dotted API name
    (``torch.xpu.is_available``), ``exception`` an exception or warning class. How the facts are
    read and how a match is scored is ``explain``'s business.
    """

    load: EventPattern | None = None
    symbol: EventPattern | None = None
    version: EventPattern | None = None
    code: tuple[str, ...] = ()
    module: tuple[str, ...] = ()
    backend: tuple[str, ...] = ()
    api: tuple[str, ...] = ()
    exception: tuple[str, ...] = ()
    attribute: tuple[str, ...] = ()
    """Dotted names the text says are missing (``module 'torch.xpu' has no attribute 'amp'``)."""
    code_rule: tuple[str, ...] = ()
    """Ids of ``scan``'s code rules (those of IPEX-only APIs) whose symbols name a missing
    attribute: the knowledge base reuses what the code rules know instead of listing names."""
    stack: str = ""
    """``intel``: the other conditions count only in a text that names the Intel stack (the
    knowledge base's ``stack.intel`` words): a failure every vendor's build meets, which is this
    entry's cause only beside the Intel stack (a DLL under ``torch\\lib`` that does not load)."""


LAYERS = (
    "hardware", "driver", "device-nodes", "level-zero", "runtime", "selection", "torch",
    "install", "cpu", "onednn", "sycl-build", "compiler", "distributed", "integration",
    "windows-loader", "npu", "memory", "code",
)  # fmt: skip
"""The layers an entry's cause can sit in: the seven rungs of the GPU ladder
(``xpu-rung-<layer>``, from the hardware up), then the layers beyond it. What each one is, how
to examine it and what to collect is data: the ``layers`` of the knowledge base."""
RUNGS = LAYERS[:7]

SIGNATURE_EVENTS = ("load", "symbol", "version")
SIGNATURE_FACTS = ("code", "module", "backend", "api", "exception", "attribute", "code_rule")


@dataclass(frozen=True)
class KnownIssue(JsonModel):
    """One knowledge-base entry: what goes wrong, for which versions, and what to do."""

    id: str
    title: str
    kind: FindingKind
    severity: Severity
    summary: str
    """Why it happens, in a few sentences."""
    remediation: str
    workaround: str
    devices: tuple[str, ...]
    affected: tuple[AffectedRange, ...]
    rule: str | None
    """The built-in detector that judges this entry against an environment (``verdicts/rules.py``; its names: ``rule_names``)."""
    repro: str | None
    """The check script that reproduces it (``checks/``)."""
    symptoms: tuple[Wording, ...]
    references: tuple[Reference, ...]
    source: str
    """``file:line`` the entry was loaded from."""
    healthy: str = ""
    """The title when the problem is absent ("PyTorch is installed" for "PyTorch is not
    installed"), so a passing finding reads right; ``title`` names the problem."""
    match: tuple[Signature, ...] = ()
    """Structured signatures of the error (``explain``), beside the ``symptoms`` regexes."""
    layer: str = ""
    """Where the cause sits (``LAYERS``): a rung of the GPU ladder, or a layer beyond it."""
    causes: tuple[str, ...] = ()
    """Entries that can each produce this entry's message, most frequent first: ``explain``
    ranks them in its place (this entry names the message, they name what to fix)."""
    hints: tuple[Wording, ...] = ()
    """Wording that tells this cause from its siblings; it never names the entry alone."""
    stack: str = ""
    """``any``: the cause is the same on every vendor's stack (torch or torchvision installed
    wrong), so another vendor's words in the text do not keep ``explain`` from naming it."""


@dataclass(frozen=True)
class Layer(JsonModel):
    """One layer of the stack, as ``explain`` names it when no entry names the cause."""

    id: str
    """One of ``LAYERS``."""
    title: str
    examine: str
    """The ``ipex-doctor env`` rung or check, or the command, that examines this layer."""
    collect: tuple[str, ...]
    """What to collect for a report: the variables, the layer's verbose switch, commands."""
    symptoms: tuple[Wording, ...] = ()
    """Wording that places a text in this layer."""
    context: tuple[Wording, ...] = ()
    """Weaker wording: it names the layer only where nothing stronger names another."""
    match: tuple[Signature, ...] = ()
    source: str = ""


@dataclass(frozen=True)
class StackWords:
    """Words that place an error text in the Intel stack or in another vendor's, and the words
    that say the Intel stack is absent (which place a text nowhere: ``explain`` reads the rest).

    SYCL is a standard with several implementations, of which only DPC++ is Intel's: ``sycl``
    holds the words every implementation shares, which place a text in the Intel stack only
    where it names no other implementation (``other_sycl``: AdaptiveCpp, ComputeCpp, ...); a
    text that names one is another vendor's, and DPC++'s own parts (``intel``) still count."""

    intel: tuple[Wording, ...] = ()
    foreign: tuple[Wording, ...] = ()
    absent: tuple[Wording, ...] = ()
    sycl: tuple[Wording, ...] = ()
    other_sycl: tuple[Wording, ...] = ()


@dataclass(frozen=True)
class KnowledgeBase:
    """The merged knowledge base: the shipped file plus overlays, in id order of first appearance."""

    issues: tuple[KnownIssue, ...]
    sources: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    """Unknown keys and other non-fatal remarks, with file and line."""
    layers: tuple[Layer, ...] = ()
    """The layers described (an overlay's layer replaces the one of the same id)."""
    stack: StackWords = field(default_factory=StackWords)

    def layer(self, layer_id: str) -> Layer | None:
        """The described layer ``layer_id``, or ``None``."""
        return next((layer for layer in self.layers if layer.id == layer_id), None)

    def get(self, issue_id: str) -> KnownIssue | None:
        """The entry with ``issue_id``, or ``None``; case and ``_``/``-`` do not matter."""
        wanted = normalise_id(issue_id)
        for issue in self.issues:
            if issue.id == issue_id or normalise_id(issue.id) == wanted:
                return issue
        return None


def normalise_id(text: str) -> str:
    """An id as a user may type it (``DOT_HALF``) in the knowledge base's spelling (``dot-half``)."""
    return text.strip().lower().replace("_", "-")


def _located(name: str, tree: yaml.Node | None, data: Any) -> yamldoc.Located:
    """Where an error of a knowledge-base document is: its issue or layer, else the whole."""
    from ipex_doctor.knowledge import yamldoc

    return yamldoc.Located(
        name, tree, data, entries={"issues": "issue", "layers": "layer"}, whole="knowledge base",
        tip="run 'ipex-doctor kb validate FILE' after fixing it; the format is in docs/knowledge-base.md",
    )  # fmt: skip


def _version(loc: yamldoc.Located, path: Sequence[str | int], text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        raise loc.error(path, f"'{text}' is not a PEP 440 version") from None


def _check_patterns(
    loc: yamldoc.Located, base: list[str | int], patterns: Iterable[tuple[str, int, str]]
) -> None:
    """Raise the first regular expression of ``patterns`` (key, index, pattern) that does not
    compile or can backtrack for minutes."""
    for key, i, pattern in patterns:
        if _NESTED_QUANTIFIER.search(pattern):
            raise loc.error(
                [*base, key, i],
                "regular expression has a quantified group that is itself quantified "
                "(like '(a+)+'), which can backtrack for minutes on a long traceback; rewrite it",
            )
        try:
            re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise loc.error([*base, key, i], f"invalid regular expression: {exc}") from None


def _check_layer(loc: yamldoc.Located, index: int, raw: Mapping[str, Any], seen: set[str]) -> str:
    """What the schema cannot say of a layer (unique id, regexes, signatures); its source."""
    base: list[str | int] = ["layers", index]
    if raw["id"] in seen:
        raise loc.error([*base, "id"], f"layer '{raw['id']}' is described twice")
    seen.add(raw["id"])
    _check_patterns(loc, base, [
        (key, i, p) for key in ("symptoms", "context") for i, p in enumerate(raw.get(key) or ())
    ])  # fmt: skip
    for i, signature in enumerate(raw.get("match") or ()):
        _check_signature(loc, [*base, "match", i], signature)
    line = loc.line(base)
    return loc.name if line is None else f"{loc.name}:{line}"


def _check_entry(loc: yamldoc.Located, index: int, raw: Mapping[str, Any]) -> str:
    """Check what the schema cannot (versions, ranges, regexes, rule names) and note unknown
    keys as warnings; raise the entry's first error; return its ``file:line`` source."""
    from ipex_doctor.knowledge import schema  # NOTE: validation only (a cache miss)

    base: list[str | int] = ["issues", index]
    for i, item in enumerate(raw.get("affected") or ()):
        path = [*base, "affected", i]
        bounds = {k: _version(loc, [*path, k], item[k]) for k in _BOUNDS if k in item}
        upper = bounds.get("fixed") or bounds.get("last_affected")
        if "introduced" in bounds and upper is not None and upper < bounds["introduced"]:
            described = VersionRange(**bounds).describe()
            raise loc.error(path, f"empty range: {described} (the fix predates the introduction)")
        for key in sorted(set(item) - schema.range_keys()):
            where = loc.line([*path, key])
            loc.warnings.append(
                f"{loc.name}:{where}: issue '{raw['id']}': unknown key '{key}' in affected ignored"
            )
    patterns = [("symptoms", i, p) for i, p in enumerate(raw.get("symptoms") or ())]
    patterns += [("hints", i, p) for i, p in enumerate(raw.get("hints") or ())]
    _check_patterns(loc, base, patterns)
    if raw["id"] in (raw.get("causes") or ()):
        raise loc.error([*base, "causes"], "an entry cannot be one of its own causes")
    for i, signature in enumerate(raw.get("match") or ()):
        _check_signature(loc, [*base, "match", i], signature)
    for key in sorted(set(raw) - schema.issue_keys()):
        loc.warnings.append(
            f"{loc.name}:{loc.line([*base, key])}: issue '{raw['id']}': unknown key '{key}' ignored"
        )
    rule = raw.get("rule")
    if rule is not None:
        from ipex_doctor.knowledge.rule_names import RULE_NAMES as RULES  # NOTE: validation only

        if rule not in RULES:
            known = ", ".join(sorted(RULES))
            raise loc.error([*base, "rule"], f"unknown rule '{rule}' (known rules: {known})")
    line = loc.line(base)
    return loc.name if line is None else f"{loc.name}:{line}"


_BOUNDS = ("introduced", "fixed", "last_affected")
_WILDCARDS = r"\[[^\]]*\]|[*?]"


def glob_literal(pattern: str) -> str:
    """The characters of a glob that are not wildcards: what makes it specific."""
    return re.sub(_WILDCARDS, "", pattern)


def _check_signature(
    loc: yamldoc.Located, path: list[str | int], signature: Mapping[str, Any]
) -> None:
    """What the schema cannot say of a ``match`` signature: it has a condition (an empty one
    would name the entry for every text), and no glob is wildcards alone (``*`` would too)."""
    if not set(signature) - {"stack"}:
        raise loc.error(path, "a signature needs at least one condition besides 'stack'")
    for key in (*SIGNATURE_EVENTS, *SIGNATURE_FACTS):
        value = signature.get(key)
        if key in SIGNATURE_EVENTS and value is not None:
            if not value:
                raise loc.error([*path, key], f"'{key}' needs library, path or name")
            if key == "load" and "name" in value:
                raise loc.error([*path, key, "name"], "a library that fails to load has no name")
            globs = [
                ([*path, key, field, i], g) for field in value for i, g in enumerate(value[field])
            ]
        else:
            globs = [([*path, key, i], g) for i, g in enumerate(value or ())]
        for where, glob in globs:
            if not glob_literal(glob):
                raise loc.error(where, f"glob '{glob}' is wildcards alone: it would match anything")


def _entry(raw: Mapping[str, Any], source: str) -> KnownIssue:
    """The entry of a checked document (see ``_check_entry``)."""
    ranges = tuple(
        AffectedRange(
            package=item["package"],
            variant=item.get("variant", "any"),
            range=VersionRange(**{k: Version(item[k]) for k in _BOUNDS if k in item}),
            note=item.get("note", ""),
        )
        for item in raw.get("affected") or ()
    )
    return KnownIssue(
        id=raw["id"],
        title=raw["title"],
        kind=FindingKind(raw["kind"]),
        severity=Severity(raw["severity"]),
        summary=raw["summary"].strip(),
        remediation=raw["remediation"].strip(),
        workaround=raw.get("workaround", "").strip(),
        devices=tuple(raw.get("devices") or ()),
        affected=ranges,
        rule=raw.get("rule"),
        repro=raw.get("repro"),
        symptoms=_patterns(raw, "symptoms"),
        references=tuple(
            Reference(url=r["url"], title=r.get("title", "")) for r in raw["references"]
        ),
        source=source,
        healthy=raw.get("healthy", "").strip(),
        match=tuple(_signature(item) for item in raw.get("match") or ()),
        layer=raw.get("layer", ""),
        causes=tuple(raw.get("causes") or ()),
        hints=_patterns(raw, "hints"),
        stack=raw.get("stack", ""),
    )


def _event(raw: Mapping[str, Any] | None) -> EventPattern | None:
    if raw is None:
        return None
    return EventPattern(
        library=tuple(raw.get("library") or ()),
        path=tuple(raw.get("path") or ()),
        name=tuple(raw.get("name") or ()),
    )


def _signature(raw: Mapping[str, Any]) -> Signature:
    """A checked ``match`` item as a ``Signature``."""
    return Signature(
        load=_event(raw.get("load")),
        symbol=_event(raw.get("symbol")),
        version=_event(raw.get("version")),
        code=tuple(raw.get("code") or ()),
        module=tuple(raw.get("module") or ()),
        backend=tuple(raw.get("backend") or ()),
        api=tuple(raw.get("api") or ()),
        exception=tuple(raw.get("exception") or ()),
        attribute=tuple(raw.get("attribute") or ()),
        code_rule=tuple(raw.get("code_rule") or ()),
        stack=raw.get("stack", ""),
    )


def _patterns(raw: Mapping[str, Any], key: str) -> tuple[Wording, ...]:
    # NOTE: not compiled here (``Wording`` compiles on first search): the document was
    # validated, its expressions compiled once, before it was kept or cached.
    return tuple(Wording(str(p)) for p in raw.get(key) or ())


def _layer(raw: Mapping[str, Any], source: str) -> Layer:
    """A checked ``layers`` item as a ``Layer``."""
    return Layer(
        id=raw["id"],
        title=raw["title"],
        examine=raw["examine"].strip(),
        collect=tuple(raw["collect"]),
        symptoms=_patterns(raw, "symptoms"),
        context=_patterns(raw, "context"),
        match=tuple(_signature(item) for item in raw.get("match") or ()),
        source=source,
    )


_STACK_WORDS = ("intel", "foreign", "absent", "sycl", "other_sycl")
"""The keys of ``stack``, in ``StackWords``' order."""


def _stack(raw: Mapping[str, Any]) -> StackWords:
    return StackWords(*(_patterns(raw, key) for key in _STACK_WORDS))


@dataclass(frozen=True)
class DocumentCheck:
    """Everything validating one knowledge-base document found."""

    issues: tuple[KnownIssue, ...]
    """The entries that are valid (all of them when ``errors`` is empty)."""
    errors: tuple[KnowledgeBaseError, ...]
    """Every error, in the order of their lines; each names the file, line and issue."""
    warnings: tuple[str, ...] = field(default=())
    raw: tuple[tuple[Mapping[str, Any], str], ...] = field(default=())
    """The valid entries as parsed, with their ``file:line`` (what the cache keeps)."""
    layers: tuple[Layer, ...] = field(default=())
    raw_layers: tuple[tuple[Mapping[str, Any], str], ...] = field(default=())
    stack: StackWords = field(default_factory=StackWords)
    raw_stack: Mapping[str, Any] = field(default_factory=dict)


def check_document(name: str, text: str) -> DocumentCheck:
    """Validate one knowledge-base document, collecting every error rather than the first.

    Unknown keys are not errors (a newer file may carry fields this doctor does not read):
    each is a warning with its file and line. A document that is not YAML at all, or is too
    large, or was written for a newer doctor, has exactly one error.
    """
    from ipex_doctor.knowledge import schema  # NOTE: validation only (a cache miss)

    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        too_big = KnowledgeBaseError(
            f"{name}: larger than {MAX_FILE_BYTES // 1024} KiB; a knowledge base is a small text file"
        )
        return DocumentCheck((), (too_big,))
    from ipex_doctor.knowledge import yamldoc  # NOTE: lazy; PyYAML costs ~15 ms to import

    try:
        data, tree = yamldoc.load(name, text, KnowledgeBaseError)
    except KnowledgeBaseError as exc:
        return DocumentCheck((), (exc,))
    loc = _located(name, tree, data)
    if not isinstance(data, dict):
        message = "the top level must be a mapping with 'schema_version' and 'issues'"
        return DocumentCheck((), (loc.error([], message),))
    # NOTE: the version gate comes first, so a file written for a newer doctor says so
    # instead of failing on a field this doctor does not know.
    min_version = data.get("min_doctor_version")
    try:
        if isinstance(min_version, str):
            wanted = _version(loc, ["min_doctor_version"], min_version)
            if Version(__version__) < wanted:
                raise loc.error(
                    ["min_doctor_version"],
                    f"needs ipex-doctor >= {wanted}, this is {__version__}; upgrade ipex-doctor",
                )
    except KnowledgeBaseError as exc:
        return DocumentCheck((), (exc,))
    located: list[tuple[int, KnowledgeBaseError]] = []
    broken_entries: set[int] = set()
    broken_layers: set[int] = set()
    for error in schema.errors(data):
        path = list(error.path)
        if len(path) >= 2 and path[0] in ("issues", "layers") and isinstance(path[1], int):
            (broken_entries if path[0] == "issues" else broken_layers).add(path[1])
        located.append((loc.line(path) or 0, loc.error(path, error.message)))
    issues = []
    valid: list[tuple[Mapping[str, Any], str]] = []
    entries = data.get("issues")
    if isinstance(entries, list):
        seen: dict[str, int] = {}
        for index, raw in enumerate(entries):
            if index in broken_entries or not isinstance(raw, dict):
                if isinstance(raw, dict) and isinstance(raw.get("id"), str):
                    seen.setdefault(raw["id"], index)
                continue
            try:
                if raw["id"] in seen:
                    raise loc.error(
                        ["issues", index, "id"],
                        f"duplicate id (first defined as issues[{seen[raw['id']]}])",
                    )
                seen[raw["id"]] = index
                source = _check_entry(loc, index, raw)
                issues.append(_entry(raw, source))
                valid.append((raw, source))
            except KnowledgeBaseError as exc:
                located.append((loc.line(["issues", index]) or 0, exc))
    layers, raw_layers = _checked_layers(loc, data, broken_layers, located)
    given = data.get("stack")
    raw_stack: dict[str, Any] = given if isinstance(given, dict) else {}
    stack = StackWords()
    try:
        _check_patterns(loc, ["stack"], [
            (key, i, p) for key in _STACK_WORDS for i, p in enumerate(raw_stack.get(key) or ())
        ])  # fmt: skip
        stack = _stack(raw_stack)
    except KnowledgeBaseError as exc:
        located.append((loc.line(["stack"]) or 0, exc))
    located.sort(key=lambda pair: pair[0])
    return DocumentCheck(
        tuple(issues), tuple(e for _, e in located), tuple(loc.warnings), tuple(valid),
        layers, raw_layers, stack, raw_stack,
    )  # fmt: skip


def _checked_layers(
    loc: yamldoc.Located,
    data: Mapping[str, Any],
    broken: set[int],
    located: list[tuple[int, KnowledgeBaseError]],
) -> tuple[tuple[Layer, ...], tuple[tuple[Mapping[str, Any], str], ...]]:
    """The valid ``layers`` of a document (their errors appended to ``located``); ``broken``
    are those the schema refused, already reported."""
    layers, valid = [], []
    items = data.get("layers")
    seen: set[str] = set()
    for index, raw in enumerate(items if isinstance(items, list) else ()):
        if index in broken or not isinstance(raw, dict):
            continue
        try:
            source = _check_layer(loc, index, raw, seen)
            layers.append(_layer(raw, source))
            valid.append((raw, source))
        except KnowledgeBaseError as exc:
            located.append((loc.line(["layers", index]) or 0, exc))
    return tuple(layers), tuple(valid)


def parse_document(
    name: str, text: str, warnings: list[str] | None = None
) -> tuple[KnownIssue, ...]:
    """Parse and validate one knowledge-base document; raises its first ``KnowledgeBaseError``.

    Warnings (unknown keys, with file and line) are appended to ``warnings``.
    """
    checked = check_document(name, text)
    if checked.errors:
        raise checked.errors[0]
    if warnings is not None:
        warnings.extend(checked.warnings)
    return checked.issues


def _read_text(path: Path) -> str:
    return read_bounded(path, MAX_FILE_BYTES, KnowledgeBaseError, "knowledge-base")


def check_file(path: Path) -> DocumentCheck:
    """``check_document`` of the file at ``path`` (an unreadable file is its one error)."""
    try:
        text = _read_text(path)
    except KnowledgeBaseError as exc:
        return DocumentCheck((), (exc,))
    return check_document(str(path), text)


def read_document(path: Path, warnings: list[str] | None = None) -> tuple[KnownIssue, ...]:
    """Read and validate the knowledge-base file at ``path`` (see ``parse_document``).

    A document validated before (the same text, name and doctor version) comes from the
    cache (``knowledge.cache``) without parsing YAML again; a document with errors is never
    cached, so its errors are found again every time.
    """
    return _read(path, warnings).issues


_LAYER_KEY = "$layer"
_STACK_KEY = "$stack"
"""The cache keeps a document's layers and stack words among its entries, each under a key
no entry of the schema has (a ``$`` is no YAML key a knowledge base uses)."""


def _read(path: Path, warnings: list[str] | None) -> DocumentCheck:
    """The valid content of the file at ``path``, from the cache when it has it (see
    ``read_document``); raises the document's first error."""
    text = _read_text(path)
    hit = cache.get(str(path), text)
    if hit is not None:
        entries, cached_warnings = hit
        try:
            found = _from_cache(entries)
        except (KeyError, TypeError, ValueError, AttributeError, re.error, KnowledgeBaseError):
            found = None  # NOTE: a cache file edited by hand is a miss, never a traceback
        if found is not None:
            if warnings is not None:
                warnings.extend(cached_warnings)
            return found
    checked = check_document(str(path), text)
    if checked.errors:
        raise checked.errors[0]
    if warnings is not None:
        warnings.extend(checked.warnings)
    kept = [*checked.raw, *(({_LAYER_KEY: raw}, source) for raw, source in checked.raw_layers)]
    kept.append(({_STACK_KEY: dict(checked.raw_stack)}, ""))
    cache.put(str(path), text, kept, checked.warnings)
    return checked


def _from_cache(entries: Sequence[tuple[Mapping[str, Any], str]]) -> DocumentCheck:
    issues, layers, stack = [], [], StackWords()
    for raw, source in entries:
        if _LAYER_KEY in raw:
            layers.append(_layer(raw[_LAYER_KEY], source))
        elif _STACK_KEY in raw:
            stack = _stack(raw[_STACK_KEY])
        else:
            issues.append(_entry(raw, source))
    return DocumentCheck(tuple(issues), (), layers=tuple(layers), stack=stack)


def shipped_path() -> Path:
    """Where the knowledge base shipped with the doctor lives."""
    return resources.path("known_issues.yaml")


def load(overlays: Iterable[Path] = (), *, include_shipped: bool = True) -> KnowledgeBase:
    """The shipped knowledge base with ``overlays`` applied in order (same id replaces)."""
    merged: dict[str, KnownIssue] = {}
    layers: dict[str, Layer] = {}
    words: dict[str, list[Wording]] = {key: [] for key in _STACK_WORDS}
    sources = []
    warnings: list[str] = []
    paths = ([shipped_path()] if include_shipped else []) + list(overlays)
    for path in paths:
        found = _read(path, warnings)
        for issue in found.issues:
            merged[issue.id] = issue
        for layer in found.layers:
            layers[layer.id] = layer
        for key in _STACK_WORDS:
            words[key] += getattr(found.stack, key)
        sources.append(str(path))
    return KnowledgeBase(
        issues=tuple(merged.values()), sources=tuple(sources), warnings=tuple(warnings),
        layers=tuple(layers[i] for i in LAYERS if i in layers),
        stack=StackWords(*(tuple(words[key]) for key in _STACK_WORDS)),
    )  # fmt: skip


def load_files(overlays: Sequence[str], notify: Callable[[str], None]) -> KnowledgeBase:
    """``load`` of the overlays the user named, its warnings (file and line) to ``notify``."""
    knowledge = load([Path(p) for p in overlays])
    for warning in knowledge.warnings:
        notify(f"warning: {warning}")
    return knowledge
