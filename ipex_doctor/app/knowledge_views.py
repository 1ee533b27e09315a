"""The knowledge base read by people: ``kb list``, ``kb show``, ``kb validate`` and
``repro --list``, from a request to the text shown (through ``show``) and the exit code, as
every use case ends.

These are light commands (they answer in a blink): every import past the model's vocabulary
is inside the function that needs it, and the code rules of ``scan`` are read by ``kb show``
only when no entry has the id asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ipex_doctor.errors import DoctorError, ExitCode, did_you_mean

if TYPE_CHECKING:
    from ipex_doctor.knowledge.code_rules import CodeRules
    from ipex_doctor.knowledge.known_issues import KnowledgeBase

Notify = Callable[[str], None]


@dataclass(frozen=True)
class KnowledgeRequest:
    """What the user asked of the knowledge base."""

    kb_overlays: tuple[str, ...] = ()
    """``--kb`` files, applied over the shipped knowledge base in order."""
    as_json: bool = False
    """``--json``: the entries as JSON rather than text."""


def list_entries(request: KnowledgeRequest, notify: Notify, show: Notify) -> ExitCode:
    """``kb list``: every entry, built-in finding and code rule of ``scan``."""
    from ipex_doctor.knowledge.known_issues import load_files
    from ipex_doctor.reporting.formats.text import kb_list_json, kb_list_text

    knowledge = load_files(request.kb_overlays, notify)
    rules = _code_rules(knowledge).rules
    show(kb_list_json(knowledge, rules) if request.as_json else kb_list_text(knowledge, rules))
    return ExitCode.OK


def show_entry(request: KnowledgeRequest, entry_id: str, notify: Notify, show: Notify) -> ExitCode:
    """``kb show ID``: the entry, built-in finding or code rule ``entry_id`` names (case and
    ``_`` ignored); ``DoctorError`` with the closest ids when none does."""
    show(_entry_text(request, entry_id, notify))
    return ExitCode.OK


def _entry_text(request: KnowledgeRequest, entry_id: str, notify: Notify) -> str:
    from ipex_doctor.knowledge.known_issues import KnownIssue, load_files, normalise_id
    from ipex_doctor.reporting.formats import text
    from ipex_doctor.verdicts.registry import builtin, finding_ids

    knowledge = load_files(request.kb_overlays, notify)
    wanted = normalise_id(entry_id)
    entry = knowledge.get(entry_id) or builtin(wanted)
    if isinstance(entry, KnownIssue):
        return text.entry_json(entry) if request.as_json else text.kb_entry_text(entry)
    if entry is not None:
        return text.entry_json(entry) if request.as_json else text.builtin_text(entry)
    # NOTE: a scan finding's id is a code rule's; the rules are read only when no entry has
    # the id, so showing an entry costs no more than before.
    rules = _code_rules(knowledge)
    rule = rules.get(wanted)
    if rule is None:
        ids = [*finding_ids(i.id for i in knowledge.issues), *(r.id for r in rules.rules)]
        tip = did_you_mean(wanted, ids, otherwise="'ipex-doctor kb list' lists them")
        raise DoctorError(f"no knowledge-base entry or code rule '{entry_id}'", tip=tip)
    return text.entry_json(rule) if request.as_json else text.code_rule_text(rule, rules.sources[0])


def _code_rules(knowledge: KnowledgeBase) -> CodeRules:
    """The shipped code rules of ``scan``, checked against ``knowledge``'s ids."""
    from ipex_doctor.knowledge import code_rules

    return code_rules.load(known_ids=[issue.id for issue in knowledge.issues])


def validate_files(files: Sequence[Path], notify: Notify, show: Notify) -> ExitCode:
    """``kb validate``: check each file (default: the shipped one), every error to ``notify``
    with its line and each valid file's line to ``show``; 2 when any file has an error."""
    from ipex_doctor.knowledge import known_issues
    from ipex_doctor.reporting.formats.text import validation_text

    failed = 0
    for path in files or [known_issues.shipped_path()]:
        checked = known_issues.check_file(path)
        ok, messages = validation_text(path, checked)
        for message in messages:
            notify(message)
        if ok:
            show(ok)
        failed += bool(checked.errors)
    return ExitCode.USAGE if failed else ExitCode.OK


def list_checks(
    request: KnowledgeRequest, checks_dirs: Sequence[str], notify: Notify, show: Notify
) -> ExitCode:
    """``repro --list``: the check scripts (shipped, then ``--checks-dir``) with their titles
    and the entries that name them."""
    from ipex_doctor.knowledge.known_issues import load_files
    from ipex_doctor.reporting.formats.text import checks_text
    from ipex_doctor.runs.catalog import catalog

    scripts = catalog(tuple(Path(d) for d in checks_dirs))
    knowledge = load_files(request.kb_overlays, notify)
    show(checks_text({k: s.title for k, s in scripts.items()}, knowledge))
    return ExitCode.OK
