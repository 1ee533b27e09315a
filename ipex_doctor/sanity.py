"""Judge the ResNet-50 AMP sanity run (``_probes/sanity.py``) into findings of kind ``sanity``.

The run itself happens in the worker; this module only reads its numbers: does training
converge with finite losses and gradients, do AMP and fp32 agree, do grad and no_grad agree, is
AMP faster where the hardware computes the AMP dtype natively, does JIT trace + freeze work.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ipex_doctor import resources
from ipex_doctor.checks import CheckScript
from ipex_doctor.model import Evidence, Finding, FindingKind, Reference, Severity, Status
from ipex_doctor.runtime import CheckRun

SANITY_ID = "sanity"
FINDING_IDS = (
    "sanity-run",
    "sanity-train",
    "sanity-train-ipex",
    "sanity-amp-agreement",
    "sanity-grad-mode",
    "sanity-throughput",
    "sanity-jit",
)
"""Every id a sanity finding can have (a policy may ignore any of them)."""
SLOWER_THAN = 0.95
"""AMP counts as slower below 0.95x fp32: repeated runs of the same work varied by up to 5 %
(benchmarks/sanity_overhead.py), and 64x64 images on an H200 measured 0.99x / 1.03x."""
PROFILES = ("quick", "full")
AMP_DTYPES = ("bfloat16", "float16")

_REFERENCES = (
    Reference(
        url="https://docs.pytorch.org/docs/stable/amp.html",
        title="torch.amp: automatic mixed precision",
    ),
    Reference(
        url="https://github.com/intel/intel-extension-for-pytorch/blob/main/docs/tutorials/features/amp.md",
        title="IPEX: auto mixed precision",
    ),
)


@dataclass(frozen=True)
class SanityOptions:
    """How to run the sanity run (the CLI's --profile, --amp-dtype, --lr, ...)."""

    profile: str = "quick"
    amp_dtype: str = "bfloat16"
    lr: float | None = None
    weights: str | None = None
    data: str | None = None
    use_ipex: bool = True
    device: str | None = None
    """A device (``xpu``, ``cuda:1``...); ``None`` picks the first accelerator, else cpu;
    ``all`` runs on every device."""

    def args(self) -> dict[str, Any]:
        """Keyword arguments for the script's ``run(device, **args)``."""
        args: dict[str, Any] = {
            "profile": self.profile,
            "amp_dtype": self.amp_dtype,
            "weights": self.weights,
            "data": self.data,
            "use_ipex": self.use_ipex,
        }
        if self.lr is not None:
            args["lr"] = self.lr
        return args


def script() -> CheckScript:
    """The sanity run as a task the worker can run like a check."""
    return CheckScript(
        id=SANITY_ID,
        path=resources.path("_probes/sanity.py"),
        title="ResNet-50 AMP sanity train/infer run",
        doc="",
    )


def _finding(
    finding_id: str,
    title: str,
    status: Status,
    summary: str,
    data: Mapping[str, Any],
    *,
    device: str,
    severity: Severity = Severity.ERROR,
    remediation: str = "",
) -> Finding:
    return Finding(
        id=finding_id,
        kind=FindingKind.SANITY,
        status=status,
        severity=severity,
        title=title,
        evidence=Evidence(summary=summary, data=dict(data)),
        remediation=remediation if status is not Status.PASS else "",
        references=_REFERENCES,
        device=device,
    )


def _training(
    finding_id: str, title: str, phase: Mapping[str, Any], result: Mapping[str, Any], device: str
) -> Finding:
    if "skipped" in phase:
        return _finding(
            finding_id, title, Status.SKIP, f"skipped: {phase['skipped']}", phase, device=device
        )
    if "error" in phase:
        return _finding(
            finding_id,
            title,
            Status.FAIL,
            f"failed: {phase['error']}",
            phase,
            device=device,
            remediation="Run the same training step by hand to see the full traceback.",
        )
    fraction = float(result.get("thresholds", {}).get("loss_fraction", 0.5))
    losses = phase.get("losses") or []
    steps = len(losses)
    summary = (
        f"loss {phase['initial']:.3f} -> {phase['final']:.3f} in {steps} steps "
        f"({result.get('amp_dtype')} autocast, lr {result.get('lr')}, batch {result.get('batch')}, "
        f"{result.get('image_size')}x{result.get('image_size')})"
    )
    problems = []
    if not phase.get("loss_finite"):
        problems.append("the loss became NaN or infinite")
    if not phase.get("grads_finite"):
        problems.append("gradients became NaN or infinite")
    ratio = phase.get("ratio")
    if phase.get("loss_finite") and (ratio is None or ratio >= fraction):
        problems.append(f"the final loss is not below {fraction:.0%} of the initial one")
    if problems:
        return _finding(
            finding_id,
            title,
            Status.FAIL,
            f"{'; '.join(problems)}: {summary}",
            phase,
            device=device,
            remediation="Training diverges or does not learn here: check the learning rate, the AMP "
            "dtype's support on this device, and compare with an fp32 run.",
        )
    return _finding(
        finding_id, title, Status.PASS, f"{summary}; gradients finite", phase, device=device
    )


def judge_sanity(run: CheckRun) -> tuple[Finding, ...]:
    """Findings of one sanity run (one ``error`` finding if the run itself broke)."""
    device = run.device
    if run.outcome == "skipped":
        return (
            _finding(
                "sanity-run",
                "ResNet-50 AMP sanity run",
                Status.SKIP,
                f"skipped: {run.error}",
                {"run": run.to_dict()},
                device=device,
            ),
        )
    if run.outcome != "ok":
        return (
            _finding(
                "sanity-run",
                "ResNet-50 AMP sanity run",
                Status.ERROR,
                f"the sanity run {run.outcome}: {run.error}",
                {"run": run.to_dict()},
                device=device,
                remediation="Run it by hand to see where it breaks: "
                f"python {resources.path('_probes/sanity.py')} --device {device}",
            ),
        )
    result = run.result
    phases = result.get("phases", {})
    thresholds = result.get("thresholds", {})
    findings = [
        _training(
            "sanity-train", "Training converges under AMP", phases["train_amp"], result, device
        ),
        _training(
            "sanity-train-ipex",
            "Training converges after ipex.optimize(model, optimizer, dtype=torch.bfloat16)",
            phases["train_ipex"],
            result,
            device,
        ),
    ]
    warnings = result.get("autocast_warnings") or []
    agreement = phases["infer_agreement"]
    limit = float(thresholds.get("agreement", 5e-2))
    summary = (
        f"fp32 vs {result.get('amp_dtype')} AMP logits: relative L2 {agreement['rel_l2']:.2e} "
        f"(limit {limit:.0e}), top-1 agreement {agreement['top1_agreement']:.0%}, AMP output {agreement['amp_dtype_out']}"
    )
    ok = agreement["finite"] and agreement["rel_l2"] <= limit and not warnings
    if warnings:
        summary = f"autocast did not apply: {warnings[0]}; " + summary
    findings.append(
        _finding(
            "sanity-amp-agreement",
            "AMP inference agrees with fp32",
            Status.PASS if ok else Status.FAIL,
            summary,
            agreement | {"autocast_warnings": warnings},
            device=device,
            remediation="AMP is not usable as configured on this device: choose a dtype the device "
            "supports (--amp-dtype), or report the mismatch with this report attached.",
        )
    )
    grad = phases["grad_vs_no_grad"]
    grad_limit = float(thresholds.get("grad_mode", 1e-3))
    findings.append(
        _finding(
            "sanity-grad-mode",
            "ResNet-50 outputs agree with and without torch.no_grad()",
            Status.PASS if grad["relative"] <= grad_limit else Status.FAIL,
            f"grad vs no_grad MAE {grad['mae']:.3g} ({grad['relative']:.3g} of the mean output; limit {grad_limit:.0e})",
            grad,
            device=device,
            remediation="Outputs depend on grad mode here (see known issue grad-mode-divergence): "
            "upgrade the framework, and validate inference results against the CPU.",
        )
    )
    findings.append(_throughput(result, device))
    if "jit" in phases:
        findings.append(_jit(phases["jit"], limit, device))
    return tuple(findings)


def _throughput(result: Mapping[str, Any], device: str) -> Finding:
    numbers = result["phases"]["throughput"]
    native = result.get("native", {})
    dtype = result.get("amp_dtype")
    summary = (
        f"batch {result.get('throughput_batch', result.get('batch'))} of "
        f"{result.get('throughput_image', result.get('image_size'))}x{result.get('throughput_image', result.get('image_size'))}: "
        f"train fp32 {numbers['train_fp32']:.1f} img/s, AMP {numbers['train_amp']:.1f} img/s "
        f"({numbers['speedup_train']:.2f}x); infer fp32 {numbers['infer_fp32']:.1f} img/s, "
        f"AMP {numbers['infer_amp']:.1f} img/s ({numbers['speedup_infer']:.2f}x)"
    )
    slower = min(numbers["speedup_train"], numbers["speedup_infer"]) < SLOWER_THAN
    data = dict(numbers) | {"native": native, "timings": result.get("timings", {})}
    title = f"{dtype} AMP is faster than fp32"
    if slower and native.get("native"):
        return _finding(
            "sanity-throughput",
            title,
            Status.WARN,
            f"AMP is slower than fp32 although the hardware has native {dtype} ({native.get('why')}): {summary}",
            data,
            device=device,
            severity=Severity.WARNING,
            remediation="Check that the framework uses the native instructions (ONEDNN_VERBOSE=1, "
            "ATEN_CPU_CAPABILITY), that no CPU capability is forced lower, and the thread settings.",
        )
    if slower:
        summary = f"AMP is slower than fp32, as expected without native {dtype} ({native.get('why')}: emulated): {summary}"
    else:
        summary += f"; native {dtype}: {native.get('why')}"
    return _finding(
        "sanity-throughput",
        title,
        Status.PASS,
        summary,
        data,
        device=device,
        severity=Severity.WARNING,
    )


def _jit(jit: Mapping[str, Any], limit: float, device: str) -> Finding:
    """TorchScript is the serving path of Intel's guide; a failure or disagreement warns."""
    title = "JIT trace + freeze of the AMP model works and agrees with fp32"
    remediation = (
        "Serve the eager AMP model (or torch.compile) instead of the frozen TorchScript one, "
        "and report the disagreement upstream with this report attached."
    )
    if not jit.get("ok"):
        return _finding(
            "sanity-jit", title, Status.WARN, f"failed: {jit.get('error')}", jit,
            device=device, severity=Severity.WARNING, remediation=remediation,
        )  # fmt: skip
    versus_fp32 = float(jit.get("rel_l2_vs_fp32", jit.get("rel_l2", 1.0)))
    summary = (
        f"traced + frozen AMP model vs fp32: relative L2 {versus_fp32:.2e} (limit {limit:.0e}); "
        f"vs eager AMP {float(jit.get('rel_l2', 0.0)):.2e}"
    )
    status = Status.PASS if versus_fp32 <= limit else Status.WARN
    return _finding(
        "sanity-jit", title, status, summary, jit,
        device=device, severity=Severity.WARNING, remediation=remediation,
    )  # fmt: skip
