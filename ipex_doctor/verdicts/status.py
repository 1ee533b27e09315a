"""A verdict's gate status: what the gate reads of every finding, by verdict and severity.

Its own module, apart from ``judge``: a scan's code findings need the table and nothing of the
knowledge base's judging (whose rules and fatal-import readings a scan without torch never
uses, and need not import).
"""

from __future__ import annotations

from ipex_doctor.model.findings import Severity, Status, Verdict


def status_for(verdict: Verdict, severity: Severity) -> Status:
    """The gate status of a verdict for an entry of ``severity``: the README's table
    ("Findings, statuses and verdicts"). Affected, regression and predicted go by severity
    (fail, warn, pass); latent warns for an error entry and passes otherwise; not-affected
    passes; not-applicable and inconclusive are skipped, whatever the severity."""
    if verdict in (Verdict.AFFECTED, Verdict.REGRESSION, Verdict.PREDICTED):
        return {Severity.ERROR: Status.FAIL, Severity.WARNING: Status.WARN}.get(
            severity, Status.PASS
        )
    if verdict is Verdict.LATENT:
        return Status.WARN if severity is Severity.ERROR else Status.PASS
    if verdict in (Verdict.NOT_APPLICABLE, Verdict.INCONCLUSIVE):
        # NOTE: an inconclusive measurement judged nothing, so it must not count as a pass.
        return Status.SKIP
    return Status.PASS
