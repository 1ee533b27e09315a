"""The route every use case ends on: the gate checked before any work, the baseline compared,
the report published, the exit code returned.

Every use case first calls ``OutputOptions.check`` and then ``gate_policy``, before its work:
unwritable report paths, a bad policy file or an ignore of an id no finding can have are usage
errors in a blink, not after minutes of diagnosis. ``conclude`` attaches
the comparison with ``--baseline`` (the ``perf-regression`` findings are made here, by the
verdicts room, not while publishing) and publishes.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ipex_doctor.errors import ExitCode
from ipex_doctor.knowledge.known_issues import KnowledgeBase
from ipex_doctor.model.findings import Report
from ipex_doctor.reporting.output_options import OutputOptions
from ipex_doctor.reporting.policy import Policy, build_policy
from ipex_doctor.reporting.publish import publish
from ipex_doctor.verdicts.registry import finding_ids

if TYPE_CHECKING:
    # NOTE: a baseline is read (and this module imported) only by the commands given one
    from ipex_doctor.reporting.saved_reports import SavedReport


def gate_policy(
    out: OutputOptions, knowledge: KnowledgeBase, extra_ids: Iterable[str] = ()
) -> Policy:
    """The gate policy, its ignores checked against every id a finding can have (the knowledge
    base's, the built-in ones, ``extra_ids``)."""
    policy = build_policy(fail_on=out.fail_on, ignore_args=out.ignores, policy_file=out.policy_file)
    policy.check_ids(finding_ids([i.id for i in knowledge.issues] + list(extra_ids)))
    return policy


def conclude(
    report: Report,
    out: OutputOptions,
    policy: Policy,
    baseline: SavedReport | None = None,
    *,
    today: datetime.date | None = None,
) -> ExitCode:
    """Compare ``report`` with ``baseline`` (when given), publish it, return the exit code.

    A baseline of another machine is refused (``BaselineError``, exit 2) after the report was
    still written, without the comparison: the run's own results are never lost.
    """
    if baseline is None:
        return publish(report, out, policy, today=today)
    from ipex_doctor.verdicts.baseline import BaselineError, attach

    try:
        compared = attach(report, baseline.report, baseline.path)
    except BaselineError:
        publish(report, out, policy, today=today)
        raise
    return publish(compared, out, policy, today=today)
