"""Plain text and JSON of ``explain``: the known issue behind an error text, its layer, and
for a message with several causes the ranked causes and what decided between them.

Pure functions from the matcher's results to the text the CLI prints; apart from the kb
commands' text (``text``) so that those never import the matcher.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

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
