"""Every finding id the doctor can report, in one registry: the knowledge base's entries and the
built-in findings that no entry describes (the sanity run's, device and fleet comparisons).

A built-in finding is made by its spec (``spec("fleet-launch").finding(...)``), so its id, kind,
severity and title are written once, here, and what ``kb show`` describes is what the code
emits. A finding of a knowledge-base entry is made by the judge from the entry (``judge``). A
policy may ignore any of these ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ipex_doctor.model.codec import JsonModel
from ipex_doctor.model.terms import FindingKind, Reference, Severity, Status, Verdict

if TYPE_CHECKING:
    from ipex_doctor.model.findings import Evidence, Finding
    from ipex_doctor.model.remedy import PipAction


@dataclass(frozen=True)
class FindingSpec(JsonModel):
    """A built-in finding: what it says, and which part of the doctor judges it.

    ``severity`` is how bad the finding is when its problem holds at its worst, as a knowledge-
    base entry's is: constant for the id, whatever one judgement found. The judgement decides
    the status (a ``fleet-launch`` whose XPU ranks lack XCCL warns; two ranks on one device
    fail; both are severity ``error``)."""

    id: str
    title: str
    kind: FindingKind
    severity: Severity
    summary: str
    judged_by: str
    one_per_subject: bool = True
    """One finding per device (per node for fleet-outlier) can exist in a report."""

    def finding(
        self,
        status: Status,
        evidence: Evidence,
        *,
        title: str = "",
        remediation: str = "",
        verdict: Verdict | None = None,
        device: str | None = None,
        per_device: Mapping[str, Status] | None = None,
        references: tuple[Reference, ...] = (),
        actions: tuple[PipAction, ...] = (),
        nodes: tuple[str, ...] = (),
    ) -> Finding:
        """This finding as one judgement found it: id, kind and severity are the spec's, the
        title too unless the judgement words its own for what it found (``title``); the rest
        is the judgement's, as ``Finding`` documents it."""
        # NOTE: imported here: kb list and kb show read the specs without the report model
        # (its dataclasses are a fifth of a light command's start).
        from ipex_doctor.model.findings import Finding

        return Finding(
            id=self.id,
            kind=self.kind,
            status=status,
            severity=self.severity,
            title=title or self.title,
            evidence=evidence,
            remediation=remediation,
            references=references,
            verdict=verdict,
            device=device,
            actions=actions,
            per_device=dict(per_device or {}),
            nodes=nodes,
        )


_SANITY = "the ResNet-50 AMP sanity run (check, sanity)"
BUILTIN: tuple[FindingSpec, ...] = (
    FindingSpec("sanity-run", "The ResNet-50 AMP sanity run runs", FindingKind.SANITY,
                Severity.ERROR, "The run itself: an error when it crashed, hung or the device "
                "asked for is absent; not applicable without torchvision (it trains "
                "torchvision's ResNet-50).", _SANITY),
    FindingSpec("sanity-train", "Training converges under AMP", FindingKind.SANITY,
                Severity.ERROR, "SGD under torch.autocast on one seeded batch: the loss must "
                "fall below half its start, losses and gradients finite.", _SANITY),
    FindingSpec("sanity-train-ipex", "Training converges after ipex.optimize", FindingKind.SANITY,
                Severity.ERROR, "The same training after ipex.optimize(model, optimizer, "
                "dtype=torch.bfloat16), where IPEX imports; with weights_prepack=False where "
                "IPEX cannot prepack BF16 weights (AVX2 only); left to --profile full where "
                "torch's oneDNN has no bf16.", _SANITY),
    FindingSpec("sanity-train-fp16", "Training converges in fp16 with a GradScaler",
                FindingKind.SANITY, Severity.ERROR, "On accelerators, the same training in "
                "float16 with torch.amp.GradScaler (skipped steps counted, not failed).",
                _SANITY),
    FindingSpec("sanity-amp-agreement", "AMP inference agrees with fp32", FindingKind.SANITY,
                Severity.ERROR, "fp32 and AMP logits within 5e-2 (bf16) / 1e-2 (fp16) relative "
                "L2, and autocast really applied.", _SANITY),
    FindingSpec("sanity-grad-mode", "Outputs agree with and without torch.no_grad()",
                FindingKind.SANITY, Severity.ERROR, "grad vs no_grad MAE within 1e-3 of the "
                "mean output.", _SANITY),
    FindingSpec("sanity-throughput", "AMP is faster than fp32", FindingKind.SANITY,
                Severity.WARNING, "fp32 and AMP training and inference throughput at 224x224 "
                "in channels_last; a slower AMP on native hardware warns, on a busy machine "
                "it is inconclusive; not measured in the quick profile where the CPU emulates "
                "the AMP dtype.", _SANITY),
    FindingSpec("sanity-jit", "JIT trace + freeze of the AMP model works", FindingKind.SANITY,
                Severity.WARNING, "The full profile traces and freezes the AMP model; it must "
                "run and agree with fp32.", _SANITY),
    FindingSpec("perf-regression", "Throughput as in the baseline", FindingKind.SANITY,
                Severity.WARNING, "With --baseline REPORT.json: each device's fp32 and AMP "
                "throughput against the baseline's, in the same regime on a quiet machine; a "
                "fall beyond 15 % and twice the runs' own noise warns, naming what changed.",
                "check, sanity and report with --baseline"),
    FindingSpec("device-outlier", "A device differs from the other devices of its node",
                FindingKind.ENVIRONMENT, Severity.WARNING, "Devices of one kind compared "
                "property by property and by sanity AMP throughput.",
                "device comparison (check --device all)"),
    FindingSpec("fleet-summary", "The fleet and each node's fingerprint",
                FindingKind.ENVIRONMENT, Severity.INFO, "Every node of a merged or "
                "distributed report, with its builds, drivers, devices and CPU.",
                "merge, check --distributed", one_per_subject=False),
    FindingSpec("fleet-outlier", "A node differs from the others", FindingKind.ENVIRONMENT,
                Severity.ERROR, "A node whose builds, drivers, devices or CPU differ from "
                "the majority's, or with a problem only it has.", "merge, check --distributed"),
    FindingSpec("fleet-launch", "Each rank has its own device and the backend its build "
                "offers", FindingKind.ENVIRONMENT, Severity.ERROR, "The launcher seen (torchrun, "
                "mpirun, Slurm), XCCL in this build or why not, and the rank -> device map: two "
                "ranks of a node on one device fail, XPU without XCCL warns.",
                "check --distributed", one_per_subject=False),
    FindingSpec("fleet-collectives", "Collectives are correct and no link is far below its "
                "peers", FindingKind.SANITY, Severity.ERROR, "all_reduce and all_gather "
                "results exact on every rank (a wrong one fails), and no rank's all_reduce "
                "bus bandwidth below half the median (such a rank warns).",
                "check --distributed", one_per_subject=False),
)  # fmt: skip
_LADDER = (
    ("hardware", "An Intel GPU is on the PCI bus", "Intel display-class devices on the PCI bus "
     "(sysfs), with the family from the device id."),
    ("driver", "The Intel GPU has the kernel driver it needs", "The kernel driver bound to each "
     "Intel GPU (i915 or xe) against the one its family needs."),
    ("device-nodes", "/dev/dri render nodes exist and this user may open them", "/dev/dri/"
     "renderD* present (passed into a container) and open to this user (render/video group)."),
    ("level-zero", "Level Zero initialises and lists the GPU", "libze_loader.so.1 found, "
     "zeInit's real result, the drivers and devices it lists (in a spawned interpreter)."),
    ("runtime", "The oneAPI runtime loads and lists its adapters", "The oneAPI runtime as "
     "torch loads it: libsycl, the Unified Runtime loader (file and wheel), urLoaderInit, each "
     "adapter's platforms and devices and why an adapter found nothing; a sourced oneAPI "
     "toolkit shadowing the wheels."),
    ("selection", "No device-selection variable hides the GPU", "ZE_AFFINITY_MASK, "
     "ONEAPI_DEVICE_SELECTOR, ZE_FLAT_DEVICE_HIERARCHY; WSL."),
    ("torch", "torch is an XPU build and sees the GPU", "An XPU build of torch that sees the GPU."),
)  # fmt: skip
"""The Intel GPU ladder's rungs, bottom up (``xpu_ladder.RUNGS`` climbs them in this order):
name, healthy title, what the rung looks at."""
BUILTIN += tuple(
    FindingSpec(f"xpu-rung-{name}", healthy, FindingKind.ENVIRONMENT, Severity.ERROR,
                what + " Information when nothing expects an Intel GPU; the first broken rung "
                "fails when an XPU build of torch or IPEX expects one.",
                "the Intel GPU ladder (check, env)", one_per_subject=False)
    for name, healthy, what in _LADDER
)  # fmt: skip
BUILTIN += (
    FindingSpec("xpu-runtime-versions", "The oneAPI runtime's versions agree",
                FindingKind.ENVIRONMENT, Severity.ERROR,
                "The symbol versions each runtime library needs (LIBUR_LOADER_*, GLIBCXX_*) "
                "against the files the dynamic linker would load, the runtime wheels' and "
                "torch's pins on each other, LD_LIBRARY_PATH entries in front of the wheels, "
                "two libsycl majors. Fails when the runtime cannot load and an XPU build "
                "expects it; warns otherwise.", "the Intel GPU ladder (check, env)"),
)  # fmt: skip
BUILTIN += (
    FindingSpec("scan-unread", "Every file the scan found could be read", FindingKind.CODE,
                Severity.WARNING, "The files scan skipped (over the size limit, binary, not "
                "text in their encoding, not Python 3, a notebook that is not JSON, a "
                "directory or file it cannot open), each with why: what they hold is not in "
                "the report. Warns, so --fail-on warn fails on it; --ignore scan-unread=REASON "
                "accepts it.", "scan, check --code"),
)  # fmt: skip
_BY_ID = {made.id: made for made in BUILTIN}


def builtin(finding_id: str) -> FindingSpec | None:
    """The built-in finding with ``finding_id``, or ``None`` (for ids read from elsewhere: a
    report, the command line)."""
    return _BY_ID.get(finding_id)


def spec(finding_id: str) -> FindingSpec:
    """The built-in finding with ``finding_id``, for the code that emits it; ``KeyError`` for
    an id the registry lacks. Emitters look their specs up at import, so a misspelt id fails
    the first import rather than a report."""
    found = _BY_ID.get(finding_id)
    if found is None:
        raise KeyError(
            f"{finding_id!r} is not a built-in finding (verdicts/registry.py lists them)"
        )
    return found


def finding_ids(kb_ids: Iterable[str]) -> set[str]:
    """Every id a finding can have: the knowledge base's (given) and the built-in ones."""
    return set(kb_ids) | set(_BY_ID)
