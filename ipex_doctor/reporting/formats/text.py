"""Plain text for the commands that describe knowledge rather than an environment.

``explain`` (the best match for an error text), ``kb list``, ``kb show`` and ``repro --list``:
pure functions from the knowledge base (and the registry of built-in findings) to the text the
CLI prints. Their ``--json`` forms are the entries' own JSON (``to_dict``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ipex_doctor.knowledge.explain import (
    CONFIRMED,
    NOT_REACHED,
    RULED_OUT,
    EnvFacts,
    LayerMatch,
    Match,
    probes,
    rung,
)
from ipex_doctor.knowledge.known_issues import DocumentCheck, KnowledgeBase, KnownIssue
from ipex_doctor.verdicts.registry import BUILTIN, FindingSpec

if TYPE_CHECKING:
    from ipex_doctor.knowledge.code_rules import CodeRule


def explain_text(
    matches: Sequence[Match], env: EnvFacts | None = None, layer: LayerMatch | None = None
) -> str:
    """The best match with its layer, why, fix, workaround, affected versions, references;
    when several causes give the message, the ranked candidates and the ``ipex-doctor env``
    rungs that tell them apart (or, with ``env``, the finding that decided); the others.
    Without a match, the layer of the Intel stack the text comes from, if any."""
    if not matches and layer is not None:
        return _layer_text(layer)
    if not matches:
        return (
            "No known issue matches this text. 'ipex-doctor check' examines the environment itself."
        )
    top = matches[0]
    best = top.issue
    lines = [f"{best.id}: {best.title}", "", f"  layer: {_layer(best.layer)}"]
    if top.via is not None:
        lines.append(f"  a cause of: {top.via} (the message the text gives)")
    if top.decided_by:
        said = {CONFIRMED: "confirmed by", NOT_REACHED: "not reached, a lower rung fails:"}.get(
            top.verdict, "all its probes pass:"
        )
        lines.append(f"  environment ({env.source if env else 'given'}): {said} {top.decided_by}")
    lines += [
        f"  matched: {top.matched[0]!r}",
        "",
        f"  why: {best.summary}",
        "",
        f"  fix: {best.remediation}",
    ]
    if best.workaround:
        lines.append(f"  workaround: {best.workaround}")
    for affected in best.affected:
        fixed = f"; fixed in {affected.range.fixed}" if affected.range.fixed else "; no fix"
        lines.append(f"  affects: {affected.describe()}{fixed}")
    lines += [f"  ref: {r.url}" + (f"  {r.title}" if r.title else "") for r in best.references]
    family = [m for m in matches if top.via is not None and m.via == top.via]
    if len(family) > 1:
        lines += ["", *_candidates(family, env)]
    others = [m for m in matches[1:] if m not in family]
    if others:
        named = ", ".join(f"{m.issue.id} ({m.issue.title}; {m.issue.layer or 'no layer'})"
                          for m in others)  # fmt: skip
        lines += ["", f"  other candidates: {named}"]
    return "\n".join(lines)


def _layer_text(found: LayerMatch) -> str:
    """A text of the Intel stack that no entry names: its layer, what examines it, what to
    collect for a report."""
    layer = found.layer
    probe = rung(layer.id)
    lines = [
        f"No known issue names this text. It comes from the {layer.id} layer: {layer.title}",
        "",
        f"  layer: {_layer(layer.id)}",
        f"  matched: {found.matched[0]!r}",
        f"  examine: {layer.examine}" + (f" (finding {probe})" if probe else ""),
        "  collect for a report:",
        *[f"    - {item}" for item in layer.collect],
    ]
    return "\n".join(lines)


def _layer(layer: str) -> str:
    probe = rung(layer)
    return f"{layer} (the GPU ladder's rung {probe})" if probe else layer or "not given"


def _candidates(family: Sequence[Match], env: EnvFacts | None) -> list[str]:
    """The ranked causes of one message, and what separates them."""
    lines = [f"  {len(family)} causes give this message, most likely first:"]
    for place, match in enumerate(family, 1):
        probe = ", ".join(probes(match.issue)) or "no probe"
        verdict = {CONFIRMED: " <- confirmed", RULED_OUT: " (ruled out)",
                   NOT_REACHED: f" (not reached: {match.decided_by})"}.get(match.verdict, "")  # fmt: skip
        lines.append(f"    {place}. {match.issue.id} [{match.issue.layer}] {match.issue.title}"
                     f"  (probe: {probe}){verdict}")  # fmt: skip
    if env is None:
        lines += [
            "  to tell them apart: 'ipex-doctor env' checks the GPU ladder rung by rung (hardware,",
            "  driver, device-nodes, level-zero, runtime, selection, torch); the first broken rung",
            "  is the cause. Or let explain read the environment: --python PATH, or --report FILE.json",
            "  (from 'ipex-doctor env --json FILE.json').",
        ]
    elif not any(m.verdict == CONFIRMED for m in family):
        lines.append(
            f"  the environment ({env.source}) confirms none of them: the ranking is the text's"
        )
    return lines


def explain_json(
    matches: Sequence[Match], env: EnvFacts | None = None, layer: LayerMatch | None = None
) -> str:
    """The matches as JSON: each entry's own JSON with its score, what matched, the message it
    is a cause of (``via``), its probes and, with ``env``, the verdict and what decided it.
    ``result`` says which answer it is: ``known-issue``, ``layer`` (no entry names the text;
    ``layer`` says where in the Intel stack it comes from) or ``none``."""
    verdicts = {CONFIRMED: "confirmed", RULED_OUT: "ruled-out", NOT_REACHED: "not-reached", 0: None}
    found = [
        m.issue.to_dict()
        | {
            "score": m.score,
            "matched_text": list(m.matched),
            "via": m.via,
            "probes": list(probes(m.issue)),
            "verdict": verdicts[m.verdict],
            "decided_by": m.decided_by or None,
        }  # fmt: skip
        for m in matches
    ]
    result = "known-issue" if matches else ("layer" if layer is not None else "none")
    data: dict[str, object] = {"matched": bool(matches), "result": result, "matches": found}
    data["layer"] = None if layer is None or matches else {
        "id": layer.layer.id, "title": layer.layer.title, "rung": rung(layer.layer.id),
        "examine": layer.layer.examine, "collect": list(layer.layer.collect),
        "matched_text": list(layer.matched),
    }  # fmt: skip
    if env is not None:
        data["environment"] = env.source
    return json.dumps(data, indent=2)


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
