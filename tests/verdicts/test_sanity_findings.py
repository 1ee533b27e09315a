"""The ResNet-50 AMP sanity run: real runs on the reference stack, and its judgement."""

from __future__ import annotations

import json
import subprocess
from functools import cache
from typing import Any

import pytest
from conftest import real_env, run_doctor

from ipex_doctor.model.findings import Finding, Status, Verdict
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.verdicts.sanity_findings import judge_sanity


@cache
def _sanity(*extra: str) -> tuple[int, dict[str, Any], str]:
    done = run_doctor("sanity", "--python", real_env("reference"), "--json", "-", *extra)
    return done.returncode, json.loads(done.stdout or "{}"), done.stderr


def _by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in report["findings"]}


@pytest.mark.envs
def test_quick_profile_passes_with_its_metrics() -> None:
    """Reference stack, quick profile, on whatever CPU runs the suite: exit 0, training
    converges, AMP agrees with fp32, grad == no_grad; what the CPU class allows is measured
    and the rest is skipped with its reason (the run's own ``native`` facts say which)."""
    code, report, stderr = _sanity("--profile", "quick")
    assert code == 0, stderr
    found = _by_id(report)
    for finding_id in ("sanity-train", "sanity-amp-agreement", "sanity-grad-mode"):
        assert found[finding_id]["status"] == "pass", (
            finding_id,
            found[finding_id]["evidence"]["summary"],
        )
        assert found[finding_id]["device"] == "cpu"
    native = found["sanity-throughput"]["evidence"]["data"]["native"]
    # NOTE: without bf16 in torch's oneDNN (AVX2 only) bf16 training runs reference kernels:
    # the quick profile trains 4 steps of 2 small images and leaves the IPEX path to "full".
    slow_bf16 = native.get("onednn_bf16") is False
    train = found["sanity-train"]["evidence"]["data"]
    assert train["final"] < 0.5 * train["initial"]
    assert len(train["losses"]) == (4 if slow_bf16 else 12)
    ipex = found["sanity-train-ipex"]
    if slow_bf16:
        assert ipex["status"] == "skip" and "--profile full" in ipex["evidence"]["summary"]
    else:
        assert ipex["status"] == "pass", ipex["evidence"]["summary"]
    # NOTE: stderr is a pipe here, as in a CI log: each phase of the run is one plain line.
    phases = [line for line in stderr.splitlines() if line.startswith("ipex-doctor: [")]
    expected = ["running sanity on cpu", "train (AMP)"]
    expected += [] if slow_bf16 else ["train (ipex.optimize)"]
    expected += ["throughput"] if native.get("native") else []
    for phase in expected:
        assert sum(phase in line for line in phases) == 1, (phase, phases)
    agreement = found["sanity-amp-agreement"]["evidence"]["data"]
    assert agreement["rel_l2"] < 5e-2 and agreement["amp_dtype_out"] == "torch.bfloat16"
    measured = found["sanity-throughput"]
    if native.get("native") is False:
        # NOTE: emulated bf16 cannot pay off: its speed is not judged in the quick profile.
        assert (measured["status"], measured["verdict"]) == ("skip", "not-applicable")
        assert "--profile full" in measured["evidence"]["summary"]
        return
    assert measured["status"] in ("pass", "skip"), measured["evidence"]["summary"]
    throughput = measured["evidence"]["data"]
    for metric in (
        "train_fp32",
        "train_amp",
        "infer_fp32",
        "infer_amp",
        "speedup_train",
        "speedup_infer",
    ):
        assert throughput[metric] > 0, metric
    # NOTE: measured where AMP must pay off: 224x224 in channels_last, a batch per core pair
    assert (
        throughput["regime"]["image"] == 224 and throughput["regime"]["layout"] == "channels_last"
    )
    assert throughput["regime"]["batch"] >= 4 and len(throughput["rounds"]["train_amp"]) == 3
    assert 0 <= throughput["others_cpu_share"] <= 1
    assert set(throughput["timings"]) >= {
        "train_amp",
        "train_ipex",
        "infer_agreement",
        "throughput",
    }
    assert "sanity-jit" not in found  # full profile only


@pytest.mark.envs
def test_diverging_learning_rate_fails_clearly() -> None:
    """--lr 100 makes training diverge: sanity-train fails, saying NaN, exit 1."""
    code, report, _stderr = _sanity("--lr", "100", "--no-ipex")
    assert code == 1
    found = _by_id(report)
    assert found["sanity-train"]["status"] == "fail"
    assert "NaN or infinite" in found["sanity-train"]["evidence"]["summary"]
    assert found["sanity-train-ipex"]["status"] == "skip"
    # inference is measured on the initial model, so the divergence is reported once
    assert found["sanity-amp-agreement"]["status"] == "pass"


@pytest.mark.envs
def test_missing_device_is_an_error() -> None:
    """--device xpu where no XPU exists: the sanity run is an error naming the device."""
    code, report, _stderr = _sanity("--device", "xpu")
    assert code == 1
    finding = _by_id(report)["sanity-run"]
    assert finding["status"] == "error"
    assert "xpu was asked for (--device) but is not present" in finding["evidence"]["summary"]
    assert "--device cpu" in finding["remediation"] and "by hand" not in finding["remediation"]


def _result(**phases: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "amp_dtype": "bfloat16",
        "lr": 0.005,
        "batch": 8,
        "image_size": 64,
        "thresholds": {"loss_fraction": 0.5, "agreement": 5e-2, "grad_mode": 1e-3},
        "native": {"native": True, "why": "amx_bf16"},
        "autocast_warnings": [],
        "phases": {
            "train_amp": {
                "losses": [2.5, 0.2],
                "initial": 2.5,
                "final": 0.2,
                "ratio": 0.08,
                "loss_finite": True,
                "grads_finite": True,
            },
            "train_ipex": {"skipped": "IPEX not available"},
            "infer_agreement": {
                "rel_l2": 5e-3,
                "top1_agreement": 1.0,
                "amp_dtype_out": "torch.bfloat16",
                "finite": True,
            },
            "grad_vs_no_grad": {"mae": 0.0, "relative": 0.0},
            "throughput": {
                "train_fp32": 40.0,
                "train_amp": 60.0,
                "infer_fp32": 200.0,
                "infer_amp": 250.0,
                "speedup_train": 1.5,
                "speedup_infer": 1.25,
                "rounds": {
                    "train_fp32": [39.0, 40.0, 38.5],
                    "train_amp": [59.0, 60.0, 58.0],
                    "infer_fp32": [198.0, 200.0, 195.0],
                    "infer_amp": [245.0, 250.0, 240.0],
                },
                "spread": 0.04,
                "others_cpu_share": 0.02,
            },
        },
        "throughput_regime": {"batch": 4, "image": 224, "layout": "channels_last", "rounds": 3},
    }
    base["phases"].update(phases)
    return base


def _statuses(result: dict[str, Any]) -> dict[str, Status]:
    run = CheckRun("sanity", "cpu", Outcome.OK, result=result)
    return {f.id: f.status for f in judge_sanity(run)}


def _slow_training(**extra: Any) -> dict[str, Any]:
    """Throughput where AMP trains at half fp32's speed in every round."""
    numbers = _result()["phases"]["throughput"]
    rounds = dict(numbers["rounds"], train_amp=[19.0, 20.0, 19.5])
    return dict(numbers, train_amp=20.0, speedup_train=0.5, rounds=rounds) | extra


def _throughput_finding(result: dict[str, Any]) -> Finding:
    run = CheckRun("sanity", "cpu", Outcome.OK, result=result)
    return next(f for f in judge_sanity(run) if f.id == "sanity-throughput")


def test_amp_slower_on_native_hardware_warns() -> None:
    """AMP slower than fp32 in every round, on an idle machine with AMX/AVX512-BF16, in the
    regime where AMP must win (224x224, channels_last): a warning, titled as what it says."""
    finding = _throughput_finding(_result(throughput=_slow_training()))
    assert finding.status is Status.WARN
    assert finding.title == "bfloat16 AMP is slower than fp32 despite native bfloat16"
    assert "batch 4 of 224x224, channels_last" in finding.evidence.summary


def test_a_small_regime_is_reported_not_judged() -> None:
    """8 images of 64x64 (the old quick regime, slower on a healthy AMX Xeon) are not judged."""
    result = _result(throughput=_slow_training())
    result["throughput_regime"] = {"batch": 8, "image": 64, "layout": "contiguous", "rounds": 3}
    finding = _throughput_finding(result)
    assert finding.status is Status.PASS and "not judged" in finding.evidence.summary
    del result["throughput_regime"]  # a report of an earlier doctor: no regime recorded
    assert _throughput_finding(result).status is Status.PASS


def test_a_busy_machine_makes_a_slower_amp_inconclusive() -> None:
    """Other processes used half the CPUs while it was measured: inconclusive, never a warning
    that blames the stack."""
    finding = _throughput_finding(_result(throughput=_slow_training(others_cpu_share=0.5)))
    assert (finding.status, finding.verdict) == (Status.SKIP, Verdict.INCONCLUSIVE)
    assert "other processes used 50% of the CPUs" in finding.evidence.summary
    assert "Nothing is known to be wrong" in finding.remediation


def test_fewer_threads_than_the_default_are_said_with_why() -> None:
    """Where the worker left the run fewer CPU threads (other processes kept cores busy), the
    throughput's evidence says how many of how many, and why; with the default, nothing."""
    result = _result()
    result["threads"] = {"used": 1, "default": 2, "cores": 2, "others_busy_cores": 1.4}
    summary = _throughput_finding(result).evidence.summary
    assert "1 of 2 threads (other processes kept 1.4 of 2 cores busy)" in summary
    result["threads"] = {"used": 2, "default": 2, "cores": 2, "others_busy_cores": 0.1}
    assert "threads" not in _throughput_finding(result).evidence.summary


def test_overlapping_rounds_make_a_slower_amp_inconclusive() -> None:
    """AMP's best round as fast as fp32's worst: the best-of-rounds gap may be noise."""
    noisy = _slow_training()
    noisy["rounds"] = dict(noisy["rounds"], train_amp=[19.0, 20.0, 39.0])
    finding = _throughput_finding(_result(throughput=noisy))
    assert (
        finding.verdict is Verdict.INCONCLUSIVE
        and "rounds of train overlap" in finding.evidence.summary
    )


def test_amp_slower_without_native_bf16_is_explained() -> None:
    """Without native bf16 a slower AMP is expected: pass, and the evidence says why."""
    result = _result(
        throughput=dict(_result()["phases"]["throughput"], infer_amp=100.0, speedup_infer=0.5)
    )
    result["native"] = {"native": False, "why": "no amx_bf16/avx512_bf16"}
    finding = next(
        f
        for f in judge_sanity(CheckRun("sanity", "cpu", Outcome.OK, result=result))
        if f.id == "sanity-throughput"
    )
    assert (
        finding.status is Status.PASS
        and "as expected without native bfloat16" in finding.evidence.summary
    )


def test_unmeasured_amp_speed_is_not_applicable_with_its_reason() -> None:
    """The quick profile on a CPU that emulates bf16 does not measure AMP speed: the finding is
    not-applicable and carries the run's reason, never a pass that claims a measurement."""
    result = _result(throughput={"skipped": "bfloat16 is emulated on this CPU (no amx_bf16)"})
    finding = _throughput_finding(result)
    assert (finding.status, finding.verdict) == (Status.SKIP, Verdict.NOT_APPLICABLE)
    assert finding.evidence.summary == (
        "not measured: bfloat16 is emulated on this CPU (no amx_bf16)"
    )


def test_the_ipex_path_taken_and_a_smaller_training_are_in_the_evidence() -> None:
    """Training on a CPU without bf16 prepack: the IPEX path IPEX allows there and the batch
    and image size actually trained on are what the evidence says."""
    phase = dict(
        _result()["phases"]["train_amp"], image=32, batch=2,
        path="ipex.optimize(..., weights_prepack=False): this CPU cannot prepack BF16 weights",
    )  # fmt: skip
    run = CheckRun("sanity", "cpu", Outcome.OK, result=_result(train_ipex=phase))
    ipex = next(f for f in judge_sanity(run) if f.id == "sanity-train-ipex")
    assert ipex.status is Status.PASS
    assert "batch 2, 32x32" in ipex.evidence.summary
    assert "weights_prepack=False" in ipex.evidence.summary


def test_autocast_disabled_fails_agreement() -> None:
    """An autocast warning (dtype unsupported on the device) fails the AMP finding."""
    result = _result()
    result["autocast_warnings"] = [
        "In CPU autocast, but the target dtype is not supported. Disabling autocast."
    ]
    finding = next(
        f
        for f in judge_sanity(CheckRun("sanity", "cpu", Outcome.OK, result=result))
        if f.id == "sanity-amp-agreement"
    )
    assert finding.status is Status.FAIL and "autocast did not apply" in finding.evidence.summary


def test_not_learning_fails() -> None:
    """A loss that stays above half its start fails even when finite."""
    flat = {
        "losses": [2.5, 2.4],
        "initial": 2.5,
        "final": 2.4,
        "ratio": 0.96,
        "loss_finite": True,
        "grads_finite": True,
    }
    assert _statuses(_result(train_amp=flat))["sanity-train"] is Status.FAIL


def test_crashed_run_is_one_error() -> None:
    """A sanity run that crashed yields one error finding with what happened."""
    findings = judge_sanity(
        CheckRun("sanity", "cuda:0", Outcome.CRASHED, error="killed by SIGSEGV")
    )
    assert [(f.id, f.status) for f in findings] == [("sanity-run", Status.ERROR)]
    assert "SIGSEGV" in findings[0].evidence.summary


def test_amp_within_noise_is_not_slower() -> None:
    """0.97x is within run-to-run noise (5 %): no warning."""
    close = dict(_result()["phases"]["throughput"], train_amp=38.8, speedup_train=0.97)
    assert _statuses(_result(throughput=close))["sanity-throughput"] is Status.PASS


def test_jit_disagreement_warns() -> None:
    """A frozen TorchScript model further from fp32 than the AMP limit is a warning."""
    jit = {"ok": True, "rel_l2": 8e-2, "rel_l2_vs_fp32": 8e-2}
    assert _statuses(_result(jit=jit))["sanity-jit"] is Status.WARN
    good = {"ok": True, "rel_l2": 2e-3, "rel_l2_vs_fp32": 6e-3}
    assert _statuses(_result(jit=good))["sanity-jit"] is Status.PASS


@pytest.mark.envs
def test_local_weights_and_image_folder(tmp_path: Any) -> None:
    """--weights loads a local state dict and --data a local ImageFolder; nothing downloads."""
    import subprocess

    python = real_env("reference")
    weights = tmp_path / "resnet50.pt"
    data = tmp_path / "images"
    script = (
        "import sys, torch, torchvision\n"
        "from PIL import Image\n"
        "torch.manual_seed(1)\n"
        "torch.save(torchvision.models.resnet50(weights=None, num_classes=10).state_dict(), sys.argv[1])\n"
        "import pathlib, random\n"
        "random.seed(0)\n"
        "for label in ('cat', 'dog'):\n"
        "    folder = pathlib.Path(sys.argv[2]) / label\n"
        "    folder.mkdir(parents=True)\n"
        "    for i in range(4):\n"
        "        pixels = bytes(random.randrange(256) for _ in range(32 * 32 * 3))\n"
        "        Image.frombytes('RGB', (32, 32), pixels).save(folder / f'{i}.png')\n"
    )
    subprocess.run([python, "-c", script, str(weights), str(data)], check=True, capture_output=True)
    done = run_doctor(
        "sanity", "--python", python, "--weights", str(weights), "--data", str(data),
        "--no-ipex", "--json", "-",
    )  # fmt: skip
    report = json.loads(done.stdout)
    found = _by_id(report)
    assert found["sanity-train"]["status"] == "pass", found["sanity-train"]["evidence"]["summary"]
    assert found["sanity-amp-agreement"]["status"] == "pass"


def test_bad_weights_path_is_usage_error(tmp_path: Any) -> None:
    """A --weights file that does not exist is refused before anything runs (exit 2)."""
    done = run_doctor("sanity", "--weights", str(tmp_path / "missing.pt"))
    assert done.returncode == 2 and "does not exist" in done.stderr


HOG = (
    "import torch\ntorch.set_num_threads(2)\na = torch.randn(1024, 1024)\nwhile True:\n    a @ a\n"
)


@pytest.mark.envs
@pytest.mark.slow
def test_quick_verdict_holds_beside_a_cpu_heavy_process() -> None:
    """A 2-thread matmul loop beside it (both cores of this machine busy) does not turn the
    quick run's throughput into a warning that blames the stack: it passes, or it says it is
    inconclusive and why."""
    python = real_env("reference")
    hog = subprocess.Popen(
        [python, "-c", HOG], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        done = run_doctor("sanity", "--python", python, "--no-ipex", "--json", "-")
    finally:
        hog.kill()
        hog.wait()
    assert done.returncode == 0, done.stderr[-3000:]
    finding = _by_id(json.loads(done.stdout))["sanity-throughput"]
    assert finding["status"] in ("pass", "skip"), finding["evidence"]["summary"]
    if finding["status"] == "skip" and finding["verdict"] == "not-applicable":
        # NOTE: a CPU without native bf16: AMP speed is not measured in the quick profile.
        assert "not measured" in finding["evidence"]["summary"]
    elif finding["status"] == "skip":
        assert (
            finding["verdict"] == "inconclusive"
            and "inconclusive:" in finding["evidence"]["summary"]
        )
