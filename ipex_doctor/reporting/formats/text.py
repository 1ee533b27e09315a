"""Plain text for the commands that describe knowledge rather than an environment.

``kb list``, ``kb show``, ``kb validate`` and ``repro --list``: pure functions from the
knowledge base (and the registry of built-in findings) to the text the CLI prints. Their
``--json`` forms are the entries' own JSON (``to_dict``). What ``explain`` prints is
``explain_text``'s: these commands never load the matcher.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ipex_doctor.knowledge.known_issues import DocumentCheck, KnowledgeBase, KnownIssue
from ipex_doctor.verdicts.registry import BUILTIN, FindingSpec

if TYPE_CHECKING:
    from ipex_doctor.knowledge.code_rules import CodeRule


def kb_list_json(knowledge: KnowledgeBase, rules: Sequence[CodeRule] = ()) -> str:
    """Every entry, built-in finding and code rule (``"kind": "code"``) as JSON."""
    return json.dumps(
        [i.to_dict() for i in knowledge.issues]
        + [s.to_dict() for s in BUILTIN]
        + [_code_rule_dict(r) for r in rules],
        indent=2,
    )


def _code_rule_dict(rule: CodeRule) -> dict[str, object]:
    return {"kind": "code", **rule.to_dict()}


def entry_json(entry: KnownIssue | FindingSpec | CodeRule) -> str:
    """One entry (or built-in finding, or code rule) as JSON."""
    if isinstance(entry, (KnownIssue, FindingSpec)):
        return json.dumps(entry.to_dict(), indent=2)
    return json.dumps(_code_rule_dict(entry), indent=2)


def kb_list_text(knowledge: KnowledgeBase, rules: Sequence[CodeRule] = ()) -> str:
    """One line per entry, then the built-in findings, then the code rules of ``scan``: id,
    kind, severity, title."""
    rows = [(i.id, i.kind.value, i.severity.value, i.title) for i in knowledge.issues]
    rows += [(s.id, s.kind.value, s.severity.value, f"{s.title} (built in)") for s in BUILTIN]
    rows += [(r.id, "code", r.severity.value, f"{r.title} (scan rule)") for r in rules]
    width = max(len(row[0]) for row in rows)
    return "\n".join(f"{a:<{width}}  {b:<11}  {c:<7}  {d}" for a, b, c, d in rows)


def kb_entry_text(issue: KnownIssue) -> str:
    """Everything the knowledge base says about one entry."""
    devices = f" · devices {', '.join(issue.devices)}" if issue.devices else ""
    lines = [
        f"{issue.id}: {issue.title}",
        f"  kind {issue.kind.value} · severity {issue.severity.value}{devices}",
        "",
        f"  {issue.summary}",
        "",
    ]
    for affected in issue.affected:
        fixed = f" · fixed in {affected.range.fixed}" if affected.range.fixed else " · no fix"
        note = f" ({affected.note})" if affected.note else ""
        lines.append(f"  affected: {affected.describe()}{fixed}{note}")
    if issue.rule:
        lines.append(f"  judged by rule: {issue.rule}")
    if issue.repro:
        lines.append(f"  reproduction: {issue.repro}")
    lines += ["", f"  fix: {issue.remediation}"]
    if issue.workaround:
        lines.append(f"  workaround: {issue.workaround}")
    lines += [f"  symptom: /{pattern.pattern}/" for pattern in issue.symptoms]
    lines += [f"  ref: {r.url}" + (f"  {r.title}" if r.title else "") for r in issue.references]
    lines.append(f"  source: {issue.source}")
    return "\n".join(lines)


def code_rule_text(rule: CodeRule, source: str) -> str:
    """Everything a code rule of ``scan`` says: what it matches, why, the upstream
    replacement, the rewrite or the recipe, the entries it leads to."""
    match = rule.match
    looks_for = [f"{kind} {', '.join(values)}" for kind, values in (
        ("imports of", match.imports), ("uses of", match.symbols), ("lines matching", match.text),
        ("the pattern", (match.pattern,) if match.pattern else ()),
    ) if values]  # fmt: skip
    lines = [
        f"{rule.id}: {rule.title}",
        f"  kind code (scan rule) · severity {rule.severity.value} · in "
        + ", ".join(k.value for k in rule.applies_to),
        "",
        f"  {rule.why}",
        "",
        f"  matches: {'; '.join(looks_for)}",
        f"  replacement: {rule.replacement}",
    ]
    if rule.fix:
        lines.append(f"  scan --fix rewrites it ({rule.fix})")
    if rule.recipe:
        lines.append(f"  by hand: {rule.recipe}")
    if rule.needs_ipex:
        lines.append("  fails without IPEX installed (the API exists only while IPEX is)")
    if rule.kb:
        lines.append(f"  leads to: {', '.join(rule.kb)} ('ipex-doctor kb show ID')")
    lines += [f"  ref: {r.url}" + (f"  {r.title}" if r.title else "") for r in rule.references]
    lines.append(f"  source: {source}")
    return "\n".join(lines)


def builtin_text(spec: FindingSpec) -> str:
    """What a built-in finding (no knowledge-base entry) checks, and what judges it."""
    return "\n".join(
        [
            f"{spec.id}: {spec.title}",
            f"  kind {spec.kind.value} · severity {spec.severity.value} · built in",
            "",
            f"  {spec.summary}",
            "",
            f"  judged by: {spec.judged_by}",
        ]
    )


def checks_text(titles: Mapping[str, str], knowledge: KnowledgeBase) -> str:
    """``repro --list``: each check script, its title and the entries it judges."""
    width = max((len(check_id) for check_id in titles), default=4)
    lines = []
    for check_id, title in titles.items():
        entries = [i.id for i in knowledge.issues if i.repro == check_id]
        used = f"  (judges {', '.join(entries)})" if entries else ""
        lines.append(f"{check_id:<{width}}  {title}{used}")
    return "\n".join(lines)


def validation_text(path: object, checked: DocumentCheck) -> tuple[str, list[str]]:
    """``kb validate`` of one file: the line for stdout (empty when invalid) and the messages
    for stderr (warnings, every error with its line, and the verdict on the file)."""
    messages = [f"warning: {w}" for w in checked.warnings]
    messages += [f"error: {e.message}" for e in checked.errors]
    if not checked.errors:
        return f"ok: {path} ({len(checked.issues)} entries)", messages
    count = len(checked.errors)
    verdict = f"{count} error{'s' if count > 1 else ''}; the format is in docs/knowledge-base.md"
    return "", [*messages, f"invalid: {path} ({verdict})"]
