"""Code matches joined with the examined environment: each place in the code becomes a finding
whose verdict names both halves, the line of code and the fact of the environment.

- An API that exists only with IPEX (``needs_ipex``) fails where IPEX is not installed (the
  code raises at run time), and where only IPEX's CPU build is installed for an XPU-only API;
  where IPEX provides it, it still works and warns: IPEX is retired, so the line breaks the day
  IPEX goes.
- A rule linked to knowledge-base entries (``kb``) follows their verdicts in this environment:
  in range (affected or predicted) it is judged by its severity; outside the range it passes,
  saying why; where the entries do not apply (no such software here) they tell nothing.
- Otherwise (a deprecated spelling, a pin in a requirements file) the rule's severity decides.
- A place guarded by an availability probe or ``try`` / ``except ImportError`` (``match.guard``)
  runs only where IPEX is: what would fail there is a warning (an IPEX path to remove with its
  probe), and the evidence names the guard.
- A place that reads a name the file's own assignment has set by then (``match.assigned_at``:
  an IPEX-era shim, ``torch.xpu.amp.GradScaler = ...``, then ``torch.xpu.amp.GradScaler.update
  = ...``) finds what that assignment set: it points to the assignment as the one cause
  (reported there), its title says so rather than the rule's, and what would fail is a
  warning, code to remove with the assignment.
- An inline suppression (``# ipex-doctor: ignore[RULE] reason``) makes the finding a skip that
  keeps its reason.
- The remediation says "mechanical: ipex-doctor scan --fix" only where ``--fix`` rewrites that
  place (``match.mechanical``); elsewhere it gives the rule's recipe, and where ``--fix``
  rewrites another finding on the same line (``rewritten_beside``), or removes the import
  this finding is at with the uses it rewrites (``match.rewritten_for``), it says so: the user
  who runs it sees that line change.
"""

from __future__ import annotations

from collections.abc import Mapping

from ipex_doctor.knowledge.code_rules import CodeRule, IpexBuild
from ipex_doctor.model.code import CodeMatch, LineEdit
from ipex_doctor.model.environment import IPEX, Environment
from ipex_doctor.model.findings import Evidence, Finding, FindingKind, Status, Verdict
from ipex_doctor.scan.fix.quoting import shown_name
from ipex_doctor.scan.read.kinds import rewritten_by_fix
from ipex_doctor.verdicts.status import status_for

MECHANICAL = "(mechanical: ipex-doctor scan --fix)"
OTHER_FIX = "ipex-doctor scan --fix changes this line for"
"""How a remediation says that ``--fix`` rewrites this line for another finding, not this one."""
EMBEDDED_LEFT = (
    "--fix rewrites Python files and notebooks, not the Python a shell command runs from a "
    "here-document or a -c string: edit it there by hand"
)
"""Why ``--fix`` leaves a Python rule's match in a script, a Dockerfile or a CI file."""
_IN_RANGE = (Verdict.AFFECTED, Verdict.REGRESSION, Verdict.PREDICTED, Verdict.LATENT)


def _where(match: CodeMatch, line: int | None = None) -> str:
    """``path:line``, with its cell in a notebook; at ``line`` of the same part if given."""
    location = match.location
    cell = f" (cell {location.cell})" if location.cell is not None else ""
    return f"{shown_name(location.path)}:{location.line if line is None else line}{cell}"


def _environment_fact(rule: CodeRule, env: Environment) -> tuple[Status, Verdict, str]:
    """The status, verdict and sentence of ``rule`` in ``env`` (before any suppression)."""
    if rule.needs_ipex:
        ipex = env.package(IPEX)
        if ipex is None:
            torch = env.torch_version()
            what = f"torch {torch}" if torch else "no torch"
            return (Status.FAIL, Verdict.AFFECTED,
                    f"fails at run time here: IPEX is not installed ({what})")  # fmt: skip
        variant = env.effective_variant(ipex)
        if rule.ipex_build is IpexBuild.XPU and variant == "cpu":
            return (Status.FAIL, Verdict.AFFECTED,
                    f"fails at run time here: IPEX {ipex.version} is the CPU build, which lacks it")  # fmt: skip
        return (Status.WARN, Verdict.LATENT,
                f"works with IPEX {ipex.version} here, and breaks once IPEX (retired) is removed")  # fmt: skip
    status = status_for(Verdict.AFFECTED, rule.severity)
    return status, Verdict.AFFECTED, ""


def _kb_fact(
    rule: CodeRule, kb_findings: Mapping[str, Finding]
) -> tuple[Status, Verdict, str] | None:
    """What the linked knowledge-base entries say here, or ``None`` when none was judged."""
    judged = [kb_findings[k] for k in rule.kb if k in kb_findings]
    if not judged:
        return None
    hit = [f for f in judged if f.verdict in _IN_RANGE]
    if hit:
        first = hit[0]
        return (status_for(Verdict.AFFECTED, rule.severity), Verdict.AFFECTED,
                f"the known issue {first.id} is {first.verdict} here ({first.evidence.summary})")  # fmt: skip
    outside = [f for f in judged if f.verdict is Verdict.NOT_AFFECTED]
    if not outside:
        return None  # NOTE: not applicable here (no such software): the entries tell nothing
    first = outside[0]
    return (Status.PASS, Verdict.NOT_AFFECTED,
            f"not affected here: the known issue {first.id} is {first.verdict} "
            f"({first.evidence.summary})")  # fmt: skip


def _judged(
    rule: CodeRule, env: Environment, kb_findings: Mapping[str, Finding]
) -> tuple[Status, Verdict, str]:
    """An API missing without IPEX fails whatever the known issues say; where it exists, a
    linked known issue in range here decides (the code walks into it); else the environment."""
    own = _environment_fact(rule, env)
    if rule.needs_ipex and own[0] is Status.FAIL:
        return own
    linked = _kb_fact(rule, kb_findings) if rule.kb else None
    if linked is None or (rule.needs_ipex and linked[1] is not Verdict.AFFECTED):
        return own
    return linked


def _guarded(judged: tuple[Status, Verdict, str], guard: str) -> tuple[Status, Verdict, str]:
    """A guarded place runs only where its probe said yes (or its failure is caught): what
    would fail is a warning, an IPEX path to remove with its probe, and the fact says why."""
    status, verdict, fact = judged
    where = f"guarded by {guard}: it runs only where IPEX is there"
    if status is Status.FAIL:
        return (Status.WARN, Verdict.LATENT,
                f"{where}, so it does not fail without IPEX; it is an IPEX path to remove")  # fmt: skip
    return status, verdict, f"{fact}; {where}" if fact else where


def _after_assignment(
    judged: tuple[Status, Verdict, str], match: CodeMatch, line: int
) -> tuple[Status, Verdict, str]:
    """A read of what the file's own assignment at ``line`` set: the name exists here if that
    assignment ran, and the read is not reached if it failed, so the read fails on no account
    of its own; what would fail is a warning, and the fact names the assignment."""
    status, verdict, fact = judged
    where = (
        f"reads the {match.symbol} that line {line} of this file assigns before it runs: the "
        f"name exists here through that assignment, the one cause (reported there)"
    )
    if status is Status.FAIL:
        return (Status.WARN, Verdict.LATENT,
                f"{where}; it fails on no account of its own and goes with that assignment")  # fmt: skip
    return status, verdict, f"{fact}; {where}" if fact else where


def code_finding(
    match: CodeMatch,
    rule: CodeRule,
    env: Environment | None,
    kb_findings: Mapping[str, Finding],
    *,
    fix_edit: LineEdit | None = None,
    rewritten_beside: tuple[str, ...] = (),
) -> Finding:
    """The finding of one match: its status in ``env`` (``None``, an interpreter without
    torch, as a pre-commit hook's: judged by the rule's severity alone),
    evidence naming the line and the environment's fact, the replacement as remediation.
    ``rewritten_beside``: the rules of the other findings on this line that ``--fix``
    rewrites (labelled mechanical)."""
    if env is None:
        status, verdict = status_for(Verdict.PREDICTED, rule.severity), Verdict.PREDICTED
        fact = "judged by the rule alone: the examined interpreter has no torch (give --python)"
    else:
        status, verdict, fact = _judged(rule, env, kb_findings)
    if match.guard:
        status, verdict, fact = _guarded((status, verdict, fact), match.guard)
    if match.assigned_at is not None:
        status, verdict, fact = _after_assignment((status, verdict, fact), match, match.assigned_at)
    symbol = match.symbol
    if match.set_at is not None:
        # NOTE: one cause, one finding: a read of the flag points to where a probe sets it
        symbol += f" (set from a probe at line {match.set_at})"
    if match.imported_by is not None:
        # NOTE: why --fix leaves an import the file itself may not use (the label says so too)
        kept = f"{match.imported_by} imports it from this module: --fix leaves this file's IPEX imports"
        fact = f"{fact}; {kept}" if fact else kept
    sentence = f"{_where(match)}: {symbol}" + (f" — {fact}" if fact else "")
    data: dict[str, object] = {
        "symbol": match.symbol,
        "why": rule.why,
        "replacement": rule.replacement,
        "fix": rule.fix,
        "kb": list(rule.kb),
    }
    if match.guard:
        data["guard"] = match.guard
    if match.set_at is not None:
        data["set_at"] = _where(match, match.set_at)
    if match.imported_by is not None:
        data["imported_by"] = match.imported_by
    title = rule.title
    if match.assigned_at is not None:
        # NOTE: the rule's title ("does not exist") is untrue where the assignment set it
        data["assigned_at"] = _where(match, match.assigned_at)
        title = (
            f"Reads the {match.symbol} this file assigns at line {match.assigned_at}: "
            "the cause is that assignment"
        )
    if match.suppressed is not None:
        data["suppressed"] = match.suppressed
        data["status_before_suppression"] = status.value
        sentence += f" (suppressed inline: {match.suppressed})"
        status = Status.SKIP
    if fix_edit is not None:
        data["fix_edit"] = fix_edit.to_dict()
    remediation = rule.replacement if rule.replacement != "none" else rule.recipe
    if rule.fix and match.mechanical and rewritten_by_fix(match.location.path):
        remediation += f" {MECHANICAL}"
    else:
        if rule.recipe and rule.recipe not in remediation:
            remediation = f"{remediation.rstrip('.')}. {rule.recipe}"
        path = match.location.path
        if rule.fix and match.embedded and rewritten_by_fix(path):
            # NOTE: a Python rule's match in a file --fix rewrites as text is Python a script
            # runs from a here-document or a -c string (a document's code block is never
            # rewritten at all): every leftover says why --fix leaves it
            remediation += f" ({EMBEDDED_LEFT})"
        elif rule.fix and match.imported_by and rewritten_by_fix(match.location.path):
            remediation += (
                f" (--fix leaves this import: {match.imported_by} imports the name from here;"
                " replace the uses there first, then remove both imports)"
            )
        elif rule.fix and match.rewritten_for and rewritten_by_fix(match.location.path):
            remediation += (
                f" ({OTHER_FIX} {match.rewritten_for}: it removes the import of the names"
                " whose uses it rewrites)"
            )
        elif rule.fix and rewritten_beside and rewritten_by_fix(match.location.path):
            remediation += (
                f" ({OTHER_FIX} {', '.join(rewritten_beside)}; this finding stays as it is)"
            )
    if match.assigned_at is not None:
        remediation = (
            f"Remove it with the assignment at line {match.assigned_at} (the cause); where "
            f"the name is still needed after that: {remediation}"
        )
    return Finding(
        id=rule.id,
        kind=FindingKind.CODE,
        status=status,
        severity=rule.severity,
        title=title,
        evidence=Evidence(sentence, data),
        remediation=remediation,
        references=rule.references,
        verdict=verdict,
        location=match.location,
        snippet=match.snippet,
    )
