"""All the findings of one node: the knowledge base judged, the sanity runs, the device outliers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ipex_doctor.knowledge.known_issues import KnowledgeBase
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import Finding, FindingKind
from ipex_doctor.model.observations import CheckRun
from ipex_doctor.verdicts.device_outliers import device_outliers
from ipex_doctor.verdicts.judge import judge
from ipex_doctor.verdicts.sanity_findings import judge_sanity
from ipex_doctor.verdicts.xpu_ladder import expects_xpu, ladder_findings
from ipex_doctor.verdicts.xpu_runtime import runtime_findings


def findings_of(
    env: Environment,
    kb: KnowledgeBase,
    *,
    runs: Mapping[str, Sequence[CheckRun]],
    sanity_runs: Sequence[CheckRun] = (),
    kinds: tuple[FindingKind, ...] | None = None,
    only_checks: tuple[str, ...] | None = None,
) -> tuple[Finding, ...]:
    """Every finding for ``env``: the entries of ``kb`` (of ``kinds``), judged with the check
    ``runs`` (by check id), then the sanity runs and the devices that differ from their peers.

    With ``only_checks`` (``repro NAME``), only the entries of those checks are kept, plus any
    environment problem (torch missing, an import failing) that explains why one could not run.
    """
    findings = judge(env, kb, kinds=kinds, runs=runs)
    if kinds is None or FindingKind.ENVIRONMENT in kinds:
        findings += tuple(ladder_findings(env))
        findings += tuple(runtime_findings(env, expects_xpu(env)))
    findings += tuple(f for run in sanity_runs for f in judge_sanity(run, env))
    findings += tuple(device_outliers(env, sanity_runs))
    if only_checks is None:
        return findings
    selected = {i.id for i in kb.issues if i.repro in set(only_checks)}
    return tuple(
        f
        for f in findings
        if f.id in selected
        or f.kind is FindingKind.SANITY
        or (f.kind is FindingKind.ENVIRONMENT and f.is_problem)
    )
