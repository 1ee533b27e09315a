"""Reading one candidate's bytes into matches: as Python, as a notebook, as a document's code
blocks, or as text lines.

Each reader first asks its prefilter (``RuleSet.prefilter``) whether the bytes can match at
all; only then does it decode and parse. A file it cannot read is one ``SkippedFile`` with the
reason, never an exception: not decodable in its encoding, not Python 3, not a notebook. A
notebook cell that does not parse is skipped alone (the other cells are still read).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Iterator

from ipex_doctor.model.code import FileKind, SkippedFile
from ipex_doctor.scan.match.fixable import IPEX_PACKAGE, NO_KEEPERS, import_keepers
from ipex_doctor.scan.match.launch_text import rewrite_launch_text
from ipex_doctor.scan.match.own_aliases import import_words
from ipex_doctor.scan.match.patterns import UNBOUND_ALIAS_PATTERN
from ipex_doctor.scan.match.python.joins import joined_hits
from ipex_doctor.scan.match.python.matches import (
    REMOVED_IMPORT,
    RunOf,
    SpectralNorms,
    decide_removals,
    python_hits,
)
from ipex_doctor.scan.match.python.names import Facts, NameTable
from ipex_doctor.scan.match.python.probes import PROBE_PATTERN, FlagSources
from ipex_doctor.scan.match.python.statements import (
    Words,
    parse_relevant,
    relevant_words,
    select_relevant,
    written_as_read,
)
from ipex_doctor.scan.match.python.strings import fragments
from ipex_doctor.scan.match.python.switches import SWITCH_PATTERN
from ipex_doctor.scan.match.python_documents import PythonDocument, python_documents
from ipex_doctor.scan.match.ruleset import PythonRules, RuleSet
from ipex_doctor.scan.match.script_variables import scripts_in_place
from ipex_doctor.scan.match.shell_lines import command_lines, through_variables
from ipex_doctor.scan.match.text_matches import may_hit, text_hits
from ipex_doctor.scan.match.triggers import Probe
from ipex_doctor.scan.match.yaml_blocks import YAML_SUFFIXES, spanning_blocks
from ipex_doctor.scan.outcome import Outcome
from ipex_doctor.scan.read.ci_files import ci_commands
from ipex_doctor.scan.read.discovery import Candidate
from ipex_doctor.scan.read.doc_blocks import REST_SUFFIXES, code_blocks
from ipex_doctor.scan.read.kinds import ShellDialect, shell_dialect
from ipex_doctor.scan.read.notebooks import Cell, NotANotebook, code_cells
from ipex_doctor.scan.read.source import (
    Hit,
    TextLine,
    Undecodable,
    Unparsable,
    decode_python,
    decode_text,
    parse_python,
    split_lines,
    to_match,
)

NOT_PARSED = Outcome(False, [], [])

STATEMENTS_FROM_BYTES = 256 * 1024
"""From this size on, a Python file is parsed only where the rules can read it. Below, the
whole module is parsed: most statements of a file that passed the prefilter spell ``torch``
or an IPEX name and are kept anyway, and cutting the module into statements costs more than
it spares (on intel/ipex-llm's 668 Python files, about 1.5 times the whole parse), while the
tree of such a file is a few tens of megabytes at most."""

RUNS_FROM_BYTES = 1024 * 1024
"""From this size on, the statements a Python file is parsed for are parsed and matched in runs
of about ``RUN_SIZE`` characters, each run's trees dropped before the next (``_read_runs``):
the trees of every statement of a dense file (IPEX in every function) are about 80 MiB a MiB
of source, twice that while ``ast`` builds them, over the memory budget at 10 MiB."""
RUN_SIZE = 256 * 1024


def skipped(candidate: Candidate, reason: str) -> Outcome:
    """The outcome of a file that could not be read, and why."""
    return Outcome(False, [], [SkippedFile(candidate.display, reason)])


def read_python(
    candidate: Candidate,
    data: bytes,
    rules: RuleSet,
    *,
    whole: bool | None = None,
    run_size: int | None = None,
    every_pattern: bool = False,
    probe: Probe | None = None,
) -> Outcome:
    """A ``*.py`` or ``setup.py``: its Python rules, and the text rules of its kind by line.

    A file of ``STATEMENTS_FROM_BYTES`` or more is parsed only where the rules can read it
    (``match.python.statements``); a smaller one whole. ``whole`` decides instead: ``True`` the
    whole module (the reference the statements are held to: the outcome is the same, save a
    syntax error in a statement left out), ``False`` only the statements.

    Those statements of a file of ``RUNS_FROM_BYTES`` or more are parsed and matched in runs of
    about ``RUN_SIZE`` characters (``_read_runs``); ``run_size`` sets the size instead, for
    any file read by statement (the outcome is the same).

    Only the structural patterns that can match in the file are searched for
    (``searched_patterns``); ``every_pattern`` searches for all of them (the reference that
    is held to: the outcome is the same).

    ``probe``: the ``Probe`` of ``data`` to ask (the caller's, so that what the prefilter's one
    pass learnt answers the caller's own questions of the bytes too); a new one by default."""
    if probe is None:
        probe = Probe(data)
    if not rules.prefilter(candidate.kind, python=True).admits(probe):
        return NOT_PARSED
    try:
        text = decode_python(data)
    except Undecodable as error:
        return skipped(candidate, f"cannot be decoded: {error}")
    # NOTE: what the file imports by name, kept with its outcome: a warm scan finds the modules
    # that import IPEX's name from another (``own_aliases``) without reading a file again
    imports = import_words(data)
    lines = split_lines(text)
    python = rules.python(candidate.kind)
    text_rules = rules.text(candidate.kind)
    reads_text = bool(text_rules) and may_hit(text_rules, probe)
    if python is None and not reads_text:
        return Outcome(True, [], [], imports=imports)
    searched = None
    if python is not None and not every_pattern:
        searched = searched_patterns(python, probe, data, text)
    if whole is None:
        whole = len(data) < STATEMENTS_FROM_BYTES
    words = None if whole else relevant_words(rules.prefilter(candidate.kind, python=True), probe)
    if run_size is None and len(data) >= RUNS_FROM_BYTES:
        run_size = RUN_SIZE
    if words is not None and run_size is not None:
        try:
            by_runs = _read_runs(
                text, lines, words, rules, candidate.kind, probe, run_size, searched=searched
            )
        except LateBindingRefused:
            by_runs = _read_runs(
                text, lines, words, rules, candidate.kind, probe, run_size, defer=False,
                searched=searched,
            )  # fmt: skip
        if by_runs is not None:
            matches = [to_match(hit, candidate.display, lines) for hit in by_runs]
            return Outcome(True, matches, [], imports=imports)
    try:
        facts, table = _read_names(parse_relevant(text, words), rules)
    except Unparsable as error:
        return skipped(candidate, str(error))
    found = _unique(text_hits(fragments(facts, lines), text_rules, probe)) if reads_text else []
    if found:
        found = _unique(found + joined_hits(facts, found, lines))
    hits = (
        python_hits([facts], table, python, {0: lines}, found, searched=searched)
        if python
        else found
    )
    matches = [to_match(hit, candidate.display, lines) for hit in hits]
    return Outcome(True, matches, [], imports=imports)


def searched_patterns(
    python: PythonRules, probe: Probe, data: bytes, text: str
) -> frozenset[str] | None:
    """The ids of ``python``'s pattern rules worth searching for in the module ``text`` read
    from ``data`` (``probe``): those whose own prefilter triggers hold for the bytes, and
    always ``availability-probe`` and ``ipex-switch``; ``None`` (every one) where a word can
    be read without being written (``written_as_read``).

    A pattern's triggers are derived so that every place it matches spells them (``patterns``,
    ``triggers``): the prefilter, which parses a file only when one holds, relies on it for
    each rule. A module that holds one pattern's words and not another's (``torch.xpu.amp``
    in every function, no ``"ccl"``) was searched for every pattern, each walking every call
    of every run: on such a 6.5 MiB module, about a tenth of each reading. The two always
    searched are not decided by their own words: the switch's trigger is one that every IPEX
    import holds (a switch is found beside another rule's hit, by design), and a probe may
    name IPEX through what it checks."""
    # NOTE: where a word may be read without being written (an escape, two literals side by
    # side, a coding cookie), a pattern may match where its trigger does not hold in the bytes
    if not written_as_read(data, text):
        return None
    return frozenset(
        rule_id
        for rule_id, pattern, names in python.patterns
        if pattern.id in (PROBE_PATTERN, SWITCH_PATTERN)
        or any(probe.holds(trigger) for trigger in pattern.triggers(names))
    )


def _read_runs(
    text: str,
    lines: list[str],
    words: Words,
    rules: RuleSet,
    kind: FileKind,
    probe: Probe,
    run_size: int,
    *,
    defer: bool = True,
    searched: frozenset[str] | None = None,
) -> list[Hit] | None:
    """The hits of a Python file read in runs of statements (``read_python``); ``None`` when
    it is to be read as one module instead: it cannot be cut (``select_relevant``), a run does
    not parse alone (then ``ast`` on the whole module says why), or the order of its
    statements could decide its probes' flags (``FlagSources``) or the spectral norm it names
    (``SpectralNorms``).

    Two readings, so that no more than one run's trees are held at a time. The first parses the
    statements the rules read, run by run, into the name table (what every name stands for:
    it needs every binding before any use is resolved) and keeps the imports, what may make a
    probe's flag and the calls that may apply a spectral norm. The second, with the table
    finished and those known, parses each run again, collects its facts (``NameTable.read``
    with ``replay``) and matches them: every finding lies in one top-level statement, and what
    decides it from another (a binding, an import, a flag, the spectral norm) is in the table
    or what the first reading kept; whether an IPEX import goes (no statement may read it) is
    decided once every run is read. The hits are those of the whole module (a test holds the
    two to each other).

    With ``defer``, where every statement is read, a run whose text spells no ``import``,
    ``global`` or ``nonlocal`` (``INERT_RUN_WORDS``: most of a large module, functions that
    use what the first statements import) is parsed once, in the second reading, and bound
    into the finished table there (``NameTable.read_late``) instead of in both readings.
    That gives the hits of the two readings whenever the run binds nothing another run's
    reading depends on, nothing ``finish`` resolves, no probe's flag (``FlagSources.adds``)
    and no call that may apply a spectral norm (a module that spells one
    defers nothing); a deferred run that does is caught there (``LateBindingRefused``:
    ``read_python`` reads the module again without deferring; a test holds both to the
    whole module and to each other)."""
    python = rules.python(kind)
    flags = spectral = None
    if python is not None:
        probe_names = next((n for _, p, n in python.patterns if p.id == PROBE_PATTERN), ())
        flags = FlagSources(probe_names, python.ipex_only_name, text)
        spectral = SpectralNorms(python, text)
    table = NameTable(rules.project)
    table.keep_scopes()
    if python is not None:
        # NOTE: a run bound late cannot tell an earlier run's unbound alias that it binds it
        table.watched = frozenset(
            name
            for _, p, names in python.patterns
            if p.id == UNBOUND_ALIAS_PATTERN
            for name in names
        )
    imports: list[ast.Import | ast.ImportFrom] = []

    def bind(first: int, body: list[ast.stmt]) -> None:
        facts = table.read(ast.Module(body=body, type_ignores=[]))
        imports.extend(facts.imports)
        if flags is not None and spectral is not None:
            flags.add(facts)
            spectral.add(facts)

    late = defer and (spectral is None or not spectral.looked_for)
    relevant = select_relevant(text, words, bind, run_size, _inert if late else None)
    if relevant is None:
        return None
    table.finish()
    every_import = Facts([], list(imports), [], [], [], [], [], [], [], [], [], [], [], [])
    known = flags.known(every_import) if flags is not None else None
    one_norm, norm = spectral.named() if spectral is not None else (True, None)
    if (flags is not None and known is None) or not one_norm:
        return None
    # NOTE: only where an import can be removed: what keeps it is read from every run
    removes = python is not None and REMOVED_IMPORT in python.fixes.values()
    keepers = NO_KEEPERS if removes and IPEX_PACKAGE in text else None
    run_of = RunOf(every_import, text, known, norm, {}, {})
    text_rules = rules.text(kind)
    reads_text = bool(text_rules) and may_hit(text_rules, probe)
    hits: list[Hit] = []
    for deferred, body in relevant.runs_marked(run_size):
        if body is None:
            return None
        tree = ast.Module(body=body, type_ignores=[])
        if not deferred:
            facts = table.read(tree, replay=True)
        else:
            read_late = table.read_late(tree)
            if read_late is None or _adds_sources(read_late, flags, spectral):
                raise LateBindingRefused
            facts = read_late
        found = _unique(text_hits(fragments(facts, lines), text_rules, probe)) if reads_text else []
        if found:
            found = _unique(found + joined_hits(facts, found, lines))
        if python is None:
            hits += found
            continue
        hits += python_hits(
            [facts], table, python, {0: lines}, found, run_of=run_of, searched=searched
        )
        if keepers is not None and not keepers.kept:
            keepers = keepers.joined(import_keepers([facts], run_of.rewritten))
    return decide_removals(hits, run_of.removals, keepers or NO_KEEPERS)


class LateBindingRefused(Exception):
    """A run ``_read_runs`` deferred binds what its first reading must see: the module is to
    be read again without deferring."""


INERT_RUN_WORDS = ("import", "global", "nonlocal")
"""A run whose text spells none of these may be bound late (``_read_runs``): what binds
beyond a run's own functions and classes is one of them or an assignment, which
``NameTable.read_late`` checks."""


def _inert(run_text: str) -> bool:
    return not any(word in run_text for word in INERT_RUN_WORDS)


def _adds_sources(facts: Facts, flags: FlagSources | None, spectral: SpectralNorms | None) -> bool:
    """Whether the run ``facts`` (deferred) makes a probe's flag (``FlagSources.adds``) or
    holds a call that may apply a spectral norm: what the first reading would have told."""
    if flags is not None and flags.adds(facts):
        return True
    if spectral is None:
        return False
    kept = spectral.kept
    spectral.add(facts)
    return spectral.kept != kept


def _read_names(tree: ast.Module, rules: RuleSet) -> tuple[Facts, NameTable]:
    """One module's facts and finished name table."""
    table = NameTable(rules.project)
    facts = table.read(tree)
    table.finish()
    return facts, table


def read_notebook(candidate: Candidate, data: bytes, rules: RuleSet) -> Outcome:
    """A notebook: its cells' Python read as one module (an import in one cell resolves a use
    in a later one), the ``NOTEBOOK`` text rules on every line, the ``SHELL`` ones on shell
    lines."""
    try:
        cells = code_cells(json.loads(data))
    except (ValueError, RecursionError) as error:  # JSON, UTF-8 or the notebook's shape
        reason = str(error) if isinstance(error, NotANotebook) else f"not JSON: {error}"
        return skipped(candidate, f"cannot be read as a notebook: {reason}")
    read = _read_cells(candidate, cells, rules, "cell")
    if read is None:
        return NOT_PARSED
    hits, cell_skips = read
    by_cell = {cell.number: cell.lines for cell in cells}
    matches = [to_match(hit, candidate.display, by_cell[hit.part]) for hit in hits]
    return Outcome(True, matches, cell_skips)


def read_docs(candidate: Candidate, data: bytes, rules: RuleSet) -> Outcome:
    """A Markdown or reST document: its Python and shell code blocks read as a notebook's
    cells are (``doc_blocks``), each match placed at the document's own line and column."""
    try:
        text = decode_text(data)
    except Undecodable as error:
        return skipped(candidate, f"cannot be decoded: {error}")
    rest = candidate.path.name.lower().endswith(REST_SUFFIXES)
    blocks = {block.cell.number: block for block in code_blocks(text, rest=rest)}
    read = _read_cells(candidate, [b.cell for b in blocks.values()], rules, "code block")
    if read is None:
        return NOT_PARSED
    hits, block_skips = read
    lines = split_lines(text)
    matches = []
    for hit in hits:
        block = blocks[hit.part]
        line, column = block.place(hit.line, hit.column)
        end_line, end_column = block.place(hit.end_line, hit.end_column)
        placed = hit._replace(line=line, column=column, end_line=end_line,
                              end_column=end_column, part=0)  # fmt: skip
        matches.append(to_match(placed, candidate.display, lines))
    return Outcome(True, matches, block_skips)


def _read_cells(
    candidate: Candidate, cells: list[Cell], rules: RuleSet, what: str
) -> tuple[list[Hit], list[SkippedFile]] | None:
    """The hits of ``cells`` (each hit's ``part`` its cell's number), and a skip for each cell
    whose Python does not parse (named ``what`` and its number); ``None`` when the prefilter
    rules every rule out."""
    probe = Probe("\n".join(line for cell in cells for line in cell.lines).encode())
    if not rules.prefilter(FileKind.NOTEBOOK, python=True).admits(probe):
        return None
    cell_skips: list[SkippedFile] = []
    table = NameTable(rules.project)
    parts: dict[int, Facts] = {}
    for cell in cells:
        if not cell.python:
            continue
        try:
            parts[cell.number] = table.read(parse_python(cell.python), cell.number)
        except Unparsable as error:
            cell_skips.append(SkippedFile(candidate.display, f"{what} {cell.number} {error}"))
    table.finish()
    text: list[Hit] = []
    for cell in cells:
        # NOTE: the notebook's text rules (use_ipex=True, a launcher in an argument list) read
        # the string literals and literal settings of Python cells, as in a Python file; a
        # cell that does not parse is read line by line, less its comments; a shell or %%html
        # cell is not Python.
        if cell.number in parts:
            lines: Iterable[TextLine] = fragments(parts[cell.number], cell.lines)
        else:
            lines = _code_lines(cell.lines) if cell.python else ()
        text += text_hits(lines, rules.text(FileKind.NOTEBOOK), probe, cell.number)
        shell = list(command_lines(cell.shell))
        found = text_hits(shell, rules.text(FileKind.SHELL), probe, cell.number)
        for command in shell:
            at = [hit for hit in found if hit.line == command.line]
            text += _launches_rewritten(at, rules, command.text, line=command.line)
    python = rules.python(FileKind.NOTEBOOK)
    if python is None:
        return _unique(text), cell_skips
    by_cell = {cell.number: cell.lines for cell in cells}
    return python_hits(list(parts.values()), table, python, by_cell, _unique(text)), cell_skips


def read_text(candidate: Candidate, data: bytes, rules: RuleSet) -> Outcome:
    """Any other kind: the text rules of its kind, line by line; shell scripts and
    Dockerfiles as commands (``shell_lines``: what only prints is not read), and a CI file's
    commands (``ci_files``) by the ``SHELL`` rules as well."""
    probe = Probe(data)
    kind = candidate.kind
    if not rules.prefilter(kind, python=False).admits(probe):
        return NOT_PARSED
    try:
        lines = split_lines(decode_text(data))
    except Undecodable as error:
        return skipped(candidate, f"cannot be decoded: {error}")
    if kind in (FileKind.SHELL, FileKind.DOCKERFILE):
        dialect = (
            shell_dialect(candidate.path.name) if kind is FileKind.SHELL else ShellDialect.POSIX
        )
        # NOTE: PowerShell's comments are its reader's own: a line that starts with "#" may
        # close a block comment ("#>") that the reader must see
        numbered = (
            (TextLine(number, text) for number, text in enumerate(lines, start=1))
            if dialect is ShellDialect.POWERSHELL
            else _code_lines(lines)
        )
        commands = list(command_lines(numbered, dialect))
        hits = text_hits(commands, rules.text(kind), probe)
        hits = scripts_in_place(hits, commands, rules.text(kind), probe, dialect)
        hits = through_variables(hits, commands, dialect)
        if dialect is ShellDialect.POSIX:
            # NOTE: the launcher's rewrite speaks POSIX shell; a Windows script is reported
            # only (kinds.rewritten_by_fix)
            hits = _launches_rewritten(hits, rules, "\n".join(lines))
            everything = (TextLine(number, text) for number, text in enumerate(lines, start=1))
            hits += _document_hits(python_documents(everything), hits, rules)
    else:
        hits = text_hits(_code_lines(lines), rules.text(kind), probe)
        if hits and candidate.path.name.lower().endswith(YAML_SUFFIXES):
            hits = spanning_blocks(hits, lines)
    if kind is FileKind.CI:
        commands = list(ci_commands(candidate.path.name, lines))
        steps = command_lines(commands)
        hits = _unique(hits + text_hits(steps, rules.text(FileKind.SHELL), probe))
        hits += _document_hits(python_documents(commands), hits, rules)
    return Outcome(True, [to_match(hit, candidate.display, lines) for hit in hits], [])


def _document_hits(documents: list[PythonDocument], found: list[Hit], rules: RuleSet) -> list[Hit]:
    """The Python rules' hits in ``documents`` (here-documents and ``-c`` strings a Python
    interpreter runs: ``python_documents``) on the lines where the text rules found nothing
    (``found``): one
    cause, one finding, so the import the shell rules report as a command is not reported
    twice. None is mechanical: ``--fix`` rewrites Python files and notebooks, not the Python
    inside a script (the finding says so). A document that does not parse is left to the text
    rules, which read its lines as commands."""
    python = rules.python(FileKind.PYTHON)
    if python is None or not documents:
        return []
    taken = {hit.line for hit in found}
    hits: list[Hit] = []
    for document in documents:
        try:
            tree = parse_python(document.source)
        except Unparsable:
            continue
        # NOTE: each place at its line in the file (the guards' words name lines too)
        facts, table = _read_names(ast.increment_lineno(tree, document.offset), rules)
        lines = {0: document.lines}
        for hit in python_hits([facts], table, python, lines, text_of=document.source):
            if hit.line in taken:
                continue
            placed = hit._replace(
                column=document.column(hit.line, hit.column),
                end_column=document.column(hit.end_line, hit.end_column),
                mechanical=False,
                rewritten_for="",
                embedded=True,
            )
            hits.append(placed)
    return hits


def _launches_rewritten(hits: list[Hit], rules: RuleSet, text: str, line: int = 0) -> list[Hit]:
    """``hits`` in ``text`` (a shell script or Dockerfile, or the one command of a notebook's
    shell line at ``line``), those of a ``launcher``-fix rule marked mechanical where that
    fix rewrites the command (``launch_text``: every option means the same to run_cpu)."""
    if not any(rules.fixes.get(hit.rule_id) == "launcher" for hit in hits):
        return hits
    _, notes = rewrite_launch_text(text)
    rewritten = {line or note.line for note in notes if note.applied}
    return [
        hit._replace(mechanical=True)
        if rules.fixes.get(hit.rule_id) == "launcher" and hit.line in rewritten
        else hit
        for hit in hits
    ]


def _code_lines(lines: list[str]) -> Iterator[TextLine]:
    """The numbered lines that are not whole-line comments: a commented-out ``pip install``
    or ``source setvars.sh`` runs nothing (every kind read as text, Python included, comments
    with ``#``; JSON has no comments and no line of it starts with one)."""
    for number, text in enumerate(lines, start=1):
        if not text.lstrip().startswith("#"):
            yield TextLine(number, text)


def _unique(hits: list[Hit]) -> list[Hit]:
    """Text ``hits`` less repeats of a rule on one line (a shell line is a notebook line too,
    when a rule applies to both kinds)."""
    seen: set[tuple[str, int, int]] = set()
    kept: list[Hit] = []
    for hit in hits:
        key = (hit.rule_id, hit.part, hit.line)
        if key not in seen:
            seen.add(key)
            kept.append(hit)
    return kept
