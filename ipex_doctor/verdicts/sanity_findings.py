"""Judge the ResNet-50 AMP sanity run (``probe/scripts/resnet_sanity.py``) into findings of kind ``sanity``.

The run itself happens in the worker; this module only reads its numbers: does training
converge with finite losses and gradients, do AMP and fp32 agree, do grad and no_grad agree, is
AMP faster where the hardware computes the AMP dtype natively, does JIT trace + freeze work.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ipex_doctor import resources
from ipex_doctor.knowledge import remedies
from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import Evidence, Finding, Reference, Status, Verdict
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.model.remedy import PipAction
from ipex_doctor.model.versions import parse
from ipex_doctor.verdicts.registry import FindingSpec, spec

_RUN = spec("sanity-run")
_TRAIN = spec("sanity-train")
_TRAIN_IPEX = spec("sanity-train-ipex")
_TRAIN_FP16 = spec("sanity-train-fp16")
_AMP_AGREEMENT = spec("sanity-amp-agreement")
_GRAD_MODE = spec("sanity-grad-mode")
_THROUGHPUT = spec("sanity-throughput")
_JIT = spec("sanity-jit")

SLOWER_THAN = 0.95
"""AMP counts as slower below 0.95x fp32: repeated runs of the same work varied by up to 5 %
(benchmarks/sanity_overhead.py)."""
BUSY_SHARE = 0.25
"""Above this share of the machine's CPU time used by other processes while throughput was
measured, a slower AMP is inconclusive: on a 2-core machine next to a CPU-heavy process the
same measurement swung from 1.48x to 0.23x between runs."""
MIN_IMAGE = 224
CPU_MIN_BATCH = 4
ACCELERATOR_MIN_BATCH = 64
"""The regime in which AMP must beat fp32 on native hardware: 224x224 images in channels_last,
at least this batch. Below it a slower AMP is reported, not judged (8 images of 64x64 measured
0.84x on a healthy AMX Xeon; batch 8 of 224x224 on an H200 0.7x)."""

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


def _finding(
    made_by: FindingSpec,
    title: str,
    status: Status,
    summary: str,
    data: Mapping[str, Any],
    *,
    device: str,
    remediation: str = "",
) -> Finding:
    """A sanity finding on ``device``: the AMP references, the remediation only when it did not
    pass."""
    return made_by.finding(
        status,
        Evidence(summary=summary, data=dict(data)),
        title=title,
        remediation=remediation if status is not Status.PASS else "",
        references=_REFERENCES,
        device=device,
        per_device={device: status},
    )


def _training(
    made_by: FindingSpec,
    how: str,
    phase: Mapping[str, Any],
    result: Mapping[str, Any],
    device: str,
    dtype: str | None = None,
) -> Finding:
    """A training path converged (loss below its fraction, everything finite) or did not.

    ``dtype`` is the path's autocast dtype when it is not the run's ``--amp-dtype``."""
    if "skipped" in phase:
        return _finding(
            made_by, f"Training {how} was not run", Status.SKIP,
            f"skipped: {phase['skipped']}", phase, device=device,
        )  # fmt: skip
    if "error" in phase:
        return _finding(
            made_by,
            f"Training {how} fails",
            Status.FAIL,
            f"failed: {phase['error']}",
            phase,
            device=device,
            remediation="Run the same training step by hand to see the full traceback.",
        )
    fraction = float(result.get("thresholds", {}).get("loss_fraction", 0.5))
    losses = phase.get("losses") or []
    steps = len(losses)
    image = phase.get("image", result.get("image_size"))
    summary = (
        f"loss {phase['initial']:.3f} -> {phase['final']:.3f} in {steps} steps "
        f"({dtype or result.get('amp_dtype')} autocast, lr {result.get('lr')}, "
        f"batch {phase.get('batch', result.get('batch'))}, "
        f"{image}x{image})"
    )
    if phase.get("path"):
        summary += f"; path: {phase['path']}"
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
            made_by,
            f"Training {how} does not converge",
            Status.FAIL,
            f"{'; '.join(problems)}: {summary}",
            phase,
            device=device,
            remediation="Training diverges or does not learn here: check the learning rate, the AMP "
            "dtype's support on this device, and compare with an fp32 run.",
        )
    return _finding(
        made_by, f"Training {how} converges", Status.PASS, f"{summary}; gradients finite",
        phase, device=device,
    )  # fmt: skip


def judge_sanity(run: CheckRun, env: Environment | None = None) -> tuple[Finding, ...]:
    """Findings of one sanity run (one ``sanity-run`` finding if it could not run or broke).

    ``env`` gives the remedies their interpreter (a skipped run tells what to install).
    """
    if run.outcome is not Outcome.OK:
        return (_not_run(run, env),) if run.outcome is Outcome.SKIPPED else (_broken(run),)
    result = run.result
    phases = result.get("phases", {})
    device = run.device
    findings = [
        _training(_TRAIN, "under AMP", phases["train_amp"], result, device),
        _training(
            _TRAIN_IPEX,
            "after ipex.optimize(model, optimizer, dtype=torch.bfloat16)",
            phases["train_ipex"],
            result,
            device,
            "bfloat16",
        ),
        _amp_agreement(result, device),
        _grad_mode(result, device),
        _throughput(result, device),
    ]
    if "train_fp16" in phases:  # accelerators only: the CPU has no fp16 math to train with
        fp16 = phases["train_fp16"]
        how = "in float16 with a GradScaler"
        findings.insert(2, _training(_TRAIN_FP16, how, fp16, result, device, "float16"))
    if "jit" in phases:
        findings.append(_jit(phases["jit"], _agreement_limit(result), device))
    return tuple(findings)


def _broken(run: CheckRun) -> Finding:
    """The one finding of a run that could not run (device absent) or broke on the way."""
    device = run.device
    if run.outcome is Outcome.DEVICE_ABSENT:
        return _finding(
            _RUN, "The ResNet-50 AMP sanity run could not run", Status.ERROR,
            f"{device} was asked for (--device) but is not present here", {"run": run.to_dict()},
            device=device,
            remediation=f"Run it where {device} exists, or ask for a device this machine has "
            "(--device cpu); 'ipex-doctor env' shows the devices torch sees here and why one "
            "is missing.",
        )  # fmt: skip
    return _finding(
        _RUN,
        "The ResNet-50 AMP sanity run broke",
        Status.ERROR,
        f"the sanity run {run.outcome}: {run.error}",
        {"run": run.to_dict()},
        device=device,
        remediation="Run it by hand to see where it breaks: "
        f"python {resources.path('probe/scripts/resnet_sanity.py')} --device {device}",
    )


def _agreement_limit(result: Mapping[str, Any]) -> float:
    return float(result.get("thresholds", {}).get("agreement", 5e-2))


def _amp_agreement(result: Mapping[str, Any], device: str) -> Finding:
    """fp32 and AMP logits close, finite, and autocast really applied (no warning that it
    was disabled)."""
    warnings = result.get("autocast_warnings") or []
    agreement = result["phases"]["infer_agreement"]
    limit = _agreement_limit(result)
    summary = (
        f"fp32 vs {result.get('amp_dtype')} AMP logits: relative L2 {agreement['rel_l2']:.2e} "
        f"(limit {limit:.0e}), top-1 agreement {agreement['top1_agreement']:.0%}, AMP output {agreement['amp_dtype_out']}"
    )
    ok = agreement["finite"] and agreement["rel_l2"] <= limit and not warnings
    if warnings:
        summary = f"autocast did not apply: {warnings[0]}; " + summary
    return _finding(
        _AMP_AGREEMENT,
        "AMP inference agrees with fp32" if ok else "AMP inference disagrees with fp32",
        Status.PASS if ok else Status.FAIL,
        summary,
        agreement | {"autocast_warnings": warnings},
        device=device,
        remediation="AMP is not usable as configured on this device: choose a dtype the device "
        "supports (--amp-dtype), or report the mismatch with this report attached.",
    )


def _grad_mode(result: Mapping[str, Any], device: str) -> Finding:
    """Outputs with and without ``torch.no_grad()`` within the relative limit."""
    grad = result["phases"]["grad_vs_no_grad"]
    limit = float(result.get("thresholds", {}).get("grad_mode", 1e-3))
    agrees = grad["relative"] <= limit
    return _finding(
        _GRAD_MODE,
        "ResNet-50 outputs agree with and without torch.no_grad()"
        if agrees
        else "ResNet-50 outputs differ with and without torch.no_grad()",
        Status.PASS if agrees else Status.FAIL,
        f"grad vs no_grad MAE {grad['mae']:.3g} ({grad['relative']:.3g} of the mean output; limit {limit:.0e})",
        grad,
        device=device,
        remediation="Outputs depend on grad mode here (see known issue grad-mode-divergence): "
        "upgrade the framework, and validate inference results against the CPU.",
    )


def _not_run(run: CheckRun, env: Environment | None) -> Finding:
    """The sanity run did not run: why, and (torchvision missing) the command that lets it."""
    needs = run.result.get("needs")
    remediation = ""
    actions: tuple[PipAction, ...] = ()
    if needs == "torchvision" and env is not None:
        torch = env.package("torch")
        line = None
        if torch is not None and (version := parse(torch.version)) is not None:
            line = remedies.torchvision_for(f"{version.major}.{version.minor}")
        remediation = (
            "Install the torchvision built for this torch to run it, or leave it out with "
            "--skip-sanity (it is not needed by torch itself)."
        )
        actions = tuple(remedies.install_torchvision(env, line)) if line else ()
    elif needs == "torchvision":
        remediation = "Install the torchvision built for this torch, or pass --skip-sanity."
    return dataclasses.replace(
        _finding(
            _RUN,
            "The ResNet-50 AMP sanity run does not apply here",
            Status.SKIP,
            f"not run: {run.error}",
            {"run": run.to_dict()},
            device=run.device,
        ),
        verdict=Verdict.NOT_APPLICABLE,
        remediation=remediation,
        actions=actions,
    )


def judged_regime(result: Mapping[str, Any], device: str) -> str | None:
    """``None`` when the throughput regime is one where AMP must beat fp32 on native hardware,
    else why it is not (a small batch or image times overheads, not math)."""
    regime = result.get("throughput_regime")
    if not isinstance(regime, Mapping):
        return "the report does not say in which regime throughput was measured"
    minimum = CPU_MIN_BATCH if device == "cpu" else ACCELERATOR_MIN_BATCH
    if int(regime.get("image") or 0) < MIN_IMAGE or regime.get("layout") != "channels_last":
        return f"{regime.get('image')}x{regime.get('image')} images in {regime.get('layout')}"
    if int(regime.get("batch") or 0) < minimum:
        return f"batch {regime.get('batch')} (a judgement needs at least {minimum})"
    return None


def _regime_text(result: Mapping[str, Any]) -> str:
    regime = result.get("throughput_regime") or {}
    if not regime:  # NOTE: reports of earlier doctors measured without a recorded regime
        size = result.get("throughput_image", result.get("image_size"))
        return f"batch {result.get('throughput_batch', result.get('batch'))} of {size}x{size}"
    text = (
        f"batch {regime.get('batch')} of {regime.get('image')}x{regime.get('image')}, "
        f"{regime.get('layout')}, best of {regime.get('rounds')} rounds after warm-up"
    )
    threads = result.get("threads")
    if isinstance(threads, Mapping) and int(threads.get("used") or 0) < int(
        threads.get("default") or 0
    ):
        # NOTE: the worker left the run the cores other processes did not keep busy
        text += (
            f", {threads['used']} of {threads['default']} threads (other processes kept "
            f"{float(threads.get('others_busy_cores') or 0):.1f} of {threads.get('cores')} cores busy)"
        )
    return text


def _overlap(numbers: Mapping[str, Any], mode: str) -> bool:
    """Whether fp32 and AMP rounds of ``mode`` overlap (AMP's best round not clearly slower
    than fp32's worst): then a slower best-of-rounds may be noise, not the stack."""
    rounds = numbers.get("rounds") or {}
    amp, fp32 = rounds.get(f"{mode}_amp"), rounds.get(f"{mode}_fp32")
    if not amp or not fp32:
        return False
    return float(max(amp)) >= SLOWER_THAN * float(min(fp32))


def _throughput(result: Mapping[str, Any], device: str) -> Finding:
    numbers = result["phases"]["throughput"]
    native = result.get("native", {})
    dtype = result.get("amp_dtype")
    if "skipped" in numbers:
        return dataclasses.replace(
            _finding(
                _THROUGHPUT, f"{dtype} AMP against fp32 speed (not measured here)",
                Status.SKIP, f"not measured: {numbers['skipped']}", {"native": native},
                device=device,
            ),
            verdict=Verdict.NOT_APPLICABLE,
        )  # fmt: skip
    summary = (
        f"{_regime_text(result)}: "
        f"train fp32 {numbers['train_fp32']:.1f} img/s, AMP {numbers['train_amp']:.1f} img/s "
        f"({numbers['speedup_train']:.2f}x); infer fp32 {numbers['infer_fp32']:.1f} img/s, "
        f"AMP {numbers['infer_amp']:.1f} img/s ({numbers['speedup_infer']:.2f}x)"
    )
    slower = [
        mode for mode in ("train", "infer") if float(numbers[f"speedup_{mode}"]) < SLOWER_THAN
    ]
    data = dict(numbers) | {
        "native": native,
        "timings": result.get("timings", {}),
        "regime": result.get("throughput_regime"),
    }

    def finding(title: str, status: Status, text: str, **extra: Any) -> Finding:
        return _finding(_THROUGHPUT, title, status, text, data, device=device, **extra)

    if not slower:
        return finding(f"{dtype} AMP is faster than fp32", Status.PASS,
                       f"{summary}; native {dtype}: {native.get('why')}")  # fmt: skip
    if not native.get("native"):
        return finding(
            f"{dtype} AMP is slower than fp32, as expected without native {dtype}", Status.PASS,
            f"{summary}; AMP is slower than fp32, as expected without native {dtype} "
            f"({native.get('why')}: emulated)",
        )  # fmt: skip
    not_judged = judged_regime(result, device)
    if not_judged is not None:
        return finding(
            f"{dtype} AMP against fp32 speed (not judged in this regime)", Status.PASS,
            f"{summary}; not judged: {not_judged} is too small for AMP to pay off",
        )  # fmt: skip
    why = _why_inconclusive(numbers, slower)
    if why:
        return dataclasses.replace(
            finding(
                f"{dtype} AMP against fp32 speed: inconclusive on a busy or noisy machine",
                Status.SKIP,
                f"{summary}; inconclusive: {'; '.join(why)}",
                remediation="Nothing is known to be wrong with the stack. Measure again on an "
                "idle machine (ipex-doctor sanity), or compare with a run of --profile full.",
            ),
            verdict=Verdict.INCONCLUSIVE,
        )
    return finding(
        f"{dtype} AMP is slower than fp32 despite native {dtype}", Status.WARN,
        f"{summary}; AMP is slower than fp32 ({', '.join(slower)}) although the hardware has "
        f"native {dtype} ({native.get('why')}), and every round says so",
        remediation="Check that the framework uses the native instructions (ONEDNN_VERBOSE=1, "
        "ATEN_CPU_CAPABILITY), that no CPU capability is forced lower, and the thread settings.",
    )  # fmt: skip


def _why_inconclusive(numbers: Mapping[str, Any], slower: list[str]) -> list[str]:
    """Why a slower AMP in the modes ``slower`` says nothing about the stack (empty: it does):
    other processes took a share of the CPUs, or fp32's and AMP's rounds overlap."""
    why = []
    busy = float(numbers.get("others_cpu_share") or 0.0)
    if busy > BUSY_SHARE:
        why.append(f"other processes used {busy:.0%} of the CPUs while it was measured")
    noisy = [mode for mode in slower if _overlap(numbers, mode)]
    if noisy:
        why.append(
            f"the rounds of {' and '.join(noisy)} overlap (spread {float(numbers.get('spread') or 0):.0%})"
        )
    return why


def _jit(jit: Mapping[str, Any], limit: float, device: str) -> Finding:
    """TorchScript is the serving path of Intel's guide; a failure or disagreement warns."""
    remediation = (
        "Serve the eager AMP model (or torch.compile) instead of the frozen TorchScript one, "
        "and report the disagreement upstream with this report attached."
    )
    if not jit.get("ok"):
        return _finding(
            _JIT, "JIT trace + freeze of the AMP model fails", Status.WARN,
            f"failed: {jit.get('error')}", jit, device=device, remediation=remediation,
        )  # fmt: skip
    versus_fp32 = float(jit.get("rel_l2_vs_fp32", jit.get("rel_l2", 1.0)))
    summary = (
        f"traced + frozen AMP model vs fp32: relative L2 {versus_fp32:.2e} (limit {limit:.0e}); "
        f"vs eager AMP {float(jit.get('rel_l2', 0.0)):.2e}"
    )
    agrees = versus_fp32 <= limit
    return _finding(
        _JIT,
        "JIT trace + freeze of the AMP model works and agrees with fp32"
        if agrees
        else "JIT trace + freeze of the AMP model disagrees with fp32",
        Status.PASS if agrees else Status.WARN, summary, jit,
        device=device, remediation=remediation,
    )  # fmt: skip
