"""The plan and the outcome of ``fix`` as text: what the user reads before saying yes.

Pure: a ``Repair`` in, lines out. The same lines are the repair section of the Markdown report.
"""

from __future__ import annotations

from ipex_doctor.model.remedy import shell_line
from ipex_doctor.model.repair import PlannedStep, Repair, RepairVerdict, StepStatus


def size_text(size: int | None) -> str:
    """``12.3 MB``, ``1.2 GB``; ``size unknown`` for ``None``."""
    if size is None:
        return "size unknown"
    for unit, scale in (("GB", 1000**3), ("MB", 1000**2), ("kB", 1000)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def _step_lines(number: int, step: PlannedStep) -> list[str]:
    lines = [f"{number}. {shell_line(step.command)}", f"   resolves: {', '.join(step.resolves)}"]
    if step.downloads:
        names = ", ".join(f"{d.name} {d.version} ({size_text(d.size)})" for d in step.downloads)
        lines.append(f"   downloads {size_text(step.download_bytes)} at most: {names}")
    if step.removes:
        removed = ", ".join(f"{d.name} {d.version}" for d in step.removes)
        lines.append(f"   removes: {removed}")
    return lines


_OPTIONS_WITH_VALUE = ("--index-url", "--extra-index-url")


def step_summary(step: PlannedStep) -> str:
    """``install torchvision==0.23.0``: pip's verb and what the step names, its options left out."""
    named = [step.kind.value]
    words = iter(step.command[4:])
    for word in words:
        if word in _OPTIONS_WITH_VALUE:
            next(words, None)
        elif not word.startswith("-"):
            named.append(word)
    return " ".join(named)


def plan_text(repair: Repair) -> str:
    """The plan: the numbered pip steps, then the manual steps; says when there is nothing."""
    lines: list[str] = []
    if not repair.planned:
        lines.append("Plan: nothing pip can apply here.")
    elif not all(step.resolved for step in repair.planned):
        lines.append(f"Plan: {len(repair.planned)} step(s) as the saved file proposes them, not "
                     "resolved (versions, downloads and removals are pip's to say)")  # fmt: skip
        for number, step in enumerate(repair.planned, 1):
            lines += _step_lines(number, step)
    else:
        total = size_text(repair.download_bytes)
        lines.append(f"Plan: {len(repair.planned)} step(s), downloads {total} at most "
                     "(less where pip's cache has the files)")  # fmt: skip
        for number, step in enumerate(repair.planned, 1):
            lines += _step_lines(number, step)
    if repair.manual:
        lines.append("Manual steps (advice; fix does not run these):")
        for manual in repair.manual:
            lines.append(f"- {manual.finding}: {manual.advice}".rstrip(": "))
            lines += [f"    $ {command}" for command in manual.commands]
            if manual.reason:
                lines.append(f"    not run by fix: {manual.reason}")
    return "\n".join(lines) + "\n"


def outcome_text(repair: Repair) -> str:
    """What ran and the verdict after, one line per step, then the undo command if any."""
    lines = [f"Repair: {repair.verdict}"]
    for outcome in repair.applied:
        step = repair.planned[outcome.step]
        done = f"step {outcome.step + 1} {outcome.status}: {step_summary(step)}"
        if outcome.status is StepStatus.APPLIED:
            done += f" ({outcome.seconds:.0f} s, downloaded {size_text(outcome.downloaded_bytes)})"
        elif outcome.detail:
            done += f" ({outcome.detail})"
        lines.append(done)
    lines += [f"regressed: {line}" for line in repair.regressions]
    if repair.undo_command and repair.verdict is not RepairVerdict.ROLLED_BACK:
        lines.append(f"undo: {repair.undo_command}")
    return "\n".join(lines) + "\n"


def repair_section(repair: Repair) -> str:
    """The whole record of a fix, plan then outcome: what a saved report shows of it."""
    return plan_text(repair) + outcome_text(repair)
