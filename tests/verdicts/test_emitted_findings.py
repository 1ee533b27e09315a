"""Every finding the code emits carries a registered id, with its registry's kind and severity.

Each emitter of ``verdicts`` runs on the recorded reports (tests/assets/reports) and on inputs
constructed in the shapes the probe and the worker report, with a pass, a warning and a failure
where it has them: the judge (knowledge-base entries), the sanity run, the Intel GPU ladder, the
device and fleet comparisons, the launch and collectives of a distributed job, and the baseline
comparison. A finding of a knowledge-base entry must have the entry's kind and severity, any
other the built-in spec's (``registry``); together they must emit every built-in id.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from builders import ARC, XPU_TORCH, make_env
from conftest import TESTS

from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.code import SkippedFile
from ipex_doctor.model.findings import Finding, Report, Severity, Status
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.verdicts import baseline, registry
from ipex_doctor.verdicts.device_outliers import device_outliers
from ipex_doctor.verdicts.fleet import NodeDigest, collectives_finding, fingerprint, merge
from ipex_doctor.verdicts.judge import judge
from ipex_doctor.verdicts.launch import launch_finding
from ipex_doctor.verdicts.sanity_findings import judge_sanity
from ipex_doctor.verdicts.unread_files import unread_finding
from ipex_doctor.verdicts.xpu_ladder import ladder_findings
from ipex_doctor.verdicts.xpu_runtime import runtime_findings

KB = known_issues.load()
RECORDED = sorted((TESTS / "assets" / "reports").glob("*.json"))
CPU_REPORT = TESTS / "assets" / "reports" / "cpu-reference-check.json"


def _recorded() -> list[Report]:
    return [Report.from_dict(json.loads(path.read_text())) for path in RECORDED]


def _entries() -> Iterable[Finding]:
    for report in _recorded():
        yield from judge(report.environment, KB)


def _phase() -> dict[str, Any]:
    return {"losses": [2.5, 0.2], "initial": 2.5, "final": 0.2, "ratio": 0.08,
            "loss_finite": True, "grads_finite": True}  # fmt: skip


def _sanity_result() -> dict[str, Any]:
    """A full-profile run on an accelerator: every phase, the fp16 training and JIT included."""
    rounds = {"train_fp32": [40.0], "train_amp": [60.0], "infer_fp32": [200.0],
              "infer_amp": [250.0]}  # fmt: skip
    return {
        "amp_dtype": "bfloat16", "lr": 0.005, "batch": 64, "image_size": 224,
        "thresholds": {"loss_fraction": 0.5, "agreement": 5e-2, "grad_mode": 1e-3},
        "native": {"native": True, "why": "xmx"}, "autocast_warnings": [],
        "throughput_regime": {"batch": 64, "image": 224, "layout": "channels_last", "rounds": 1},
        "phases": {
            "train_amp": _phase(), "train_ipex": _phase(), "train_fp16": _phase(),
            "infer_agreement": {"rel_l2": 5e-3, "top1_agreement": 1.0,
                                "amp_dtype_out": "torch.bfloat16", "finite": True},
            "grad_vs_no_grad": {"mae": 0.0, "relative": 0.0},
            "throughput": {**{mode: v[0] for mode, v in rounds.items()}, "rounds": rounds,
                           "speedup_train": 1.5, "speedup_infer": 1.25, "spread": 0.0},
            "jit": {"ok": False, "error": "RuntimeError: freeze"},
        },
    }  # fmt: skip


def _sanity() -> Iterable[Finding]:
    yield from judge_sanity(CheckRun("sanity", "xpu:0", Outcome.OK, result=_sanity_result()))
    for outcome in (Outcome.SKIPPED, Outcome.DEVICE_ABSENT, Outcome.CRASHED):
        yield from judge_sanity(CheckRun("sanity", "xpu:1", outcome, error=str(outcome)))


def _ladder() -> Iterable[Finding]:
    yield from ladder_findings(make_env({"torch": "2.8.0+xpu"}, devices=(ARC,),
                                        torch_facts=XPU_TORCH))  # fmt: skip
    yield from ladder_findings(make_env({"torch": "2.8.0"}))


def _runtime() -> Iterable[Finding]:
    """The versions finding, passing, skipping and failing (the mismatch of the real
    rt-old-loader environment beside an XPU build)."""
    from test_xpu_ladder import HEALTHY, xpu_env
    from test_xpu_runtime import OLD_LOADER, judged

    yield judged(xpu_env({**HEALTHY, "runtime": OLD_LOADER}))["xpu-runtime-versions"]
    yield from runtime_findings(make_env({"torch": "2.8.0"}), expects_xpu=False)


def _devices() -> Iterable[Finding]:
    cards = ({**ARC, "index": 0}, {**ARC, "index": 1, "has_fp64": True}, {**ARC, "index": 2})
    return device_outliers(make_env({"torch": "2.8.0+xpu"}, devices=cards))


def _fleet() -> Iterable[Finding]:
    """Three nodes, the third of another stack: the summary and one outlier."""
    cpu, xpu = (json.loads(path.read_text())["environment"] for path in RECORDED)
    nodes = [NodeDigest(f"n{i}", fingerprint(env), ()) for i, env in enumerate((cpu, cpu, xpu))]
    return merge(nodes, _recorded()[0].environment).findings


def _rank(number: int, device: str, **facts: Any) -> dict[str, Any]:
    base = {"rank": number, "local_rank": number, "host": "n1", "device": device,
            "backend": "xccl", "launchers": ["torchrun"], "xpu_build": True,
            "xccl_available": True, "xccl_known": True, "all_reduce_ok": True,
            "all_gather_ok": True, "busbw_gbps": 10.0, "all_reduce_mib": 64}  # fmt: skip
    return {"collectives": {**base, **facts}}


def _distributed() -> Iterable[Finding]:
    """Launch and collectives, each passing, warning and failing."""
    no_xccl = {"backend": "gloo", "xccl_available": False}
    yield launch_finding([_rank(0, "xpu:0"), _rank(1, "xpu:1")])
    yield launch_finding([_rank(0, "xpu:0", **no_xccl), _rank(1, "xpu:1", **no_xccl)])
    yield launch_finding([_rank(0, "xpu:0"), _rank(1, "xpu:0")])
    yield collectives_finding([_rank(0, "xpu:0"), _rank(1, "xpu:1")])
    slow = [_rank(0, "xpu:0"), _rank(1, "xpu:1"), _rank(2, "xpu:2", busbw_gbps=1.0)]
    yield collectives_finding(slow)
    yield collectives_finding([_rank(0, "xpu:0"), _rank(1, "xpu:1", all_reduce_ok=False)])


def _unread() -> Iterable[Finding]:
    """A scan that could not read one file, and one that read them all."""
    skipped = [SkippedFile("big.py", "too large to scan: 50.0 MiB, over the 10 MiB limit")]
    found = unread_finding(skipped)
    assert found is not None and unread_finding([]) is None
    yield found


def _baseline() -> Iterable[Finding]:
    report = Report.from_dict(json.loads(CPU_REPORT.read_text()))
    return baseline.compare(report, report, "base.json")[1]


EMITTERS: dict[str, Callable[[], Iterable[Finding]]] = {
    "judge": _entries, "sanity_findings": _sanity, "xpu_ladder": _ladder, "xpu_runtime": _runtime,
    "device_outliers": _devices, "fleet": _fleet, "launch and collectives": _distributed,
    "baseline": _baseline, "unread_files": _unread,
}  # fmt: skip


def _emitted() -> dict[str, list[Finding]]:
    return {name: list(emit()) for name, emit in EMITTERS.items()}


def test_every_emitted_finding_has_its_registered_kind_and_severity() -> None:
    """A knowledge-base id is the judge's, with the entry's kind and severity; any other id is
    a built-in one, with the spec's kind, severity and (for a status it passes) title."""
    for emitter, findings in _emitted().items():
        for finding in findings:
            entry = KB.get(finding.id)
            if entry is not None:
                assert emitter == "judge", (emitter, finding.id)
                assert (finding.kind, finding.severity) == (entry.kind, entry.severity)
                continue
            spec = registry.spec(finding.id)  # KeyError: an id the registry lacks
            made = (finding.id, finding.kind, finding.severity)
            assert made == (spec.id, spec.kind, spec.severity), (emitter, made)
            assert finding.title, (emitter, finding.id)


def test_the_emitters_emit_every_built_in_id_and_only_those() -> None:
    """What the registry describes is what the code emits: no built-in id is dead, and none
    is emitted that ``kb show`` could not describe."""
    emitted = {f.id for findings in _emitted().values() for f in findings}
    judged = {issue.id for issue in KB.issues if issue.rule is not None or issue.affected}
    assert emitted == judged | {spec.id for spec in registry.BUILTIN}


def test_a_warning_keeps_the_severity_of_its_worst_case() -> None:
    """fleet-launch and fleet-collectives fail at worst (two ranks on one device, a wrong
    all_reduce) and warn at best (no XCCL, a slow link): severity error in every status."""
    found = {(f.id, f.status) for f in _distributed() if f.severity is Severity.ERROR}
    for finding_id in ("fleet-launch", "fleet-collectives"):
        assert {s for i, s in found if i == finding_id} == {Status.PASS, Status.WARN, Status.FAIL}
