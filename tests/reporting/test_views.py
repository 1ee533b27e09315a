"""What the formats show beyond the findings says one thing in every format: the CPU features
present and absent, the build variant of each package, the devices of the matrix, and the
sanity run's speedup as the evidence states it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from builders import make_env

from ipex_doctor.model.environment import Environment, ImportOutcome
from ipex_doctor.model.findings import (
    Command,
    Evidence,
    Finding,
    FindingKind,
    Report,
    Severity,
    Status,
    Verdict,
    VersionFact,
)
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.reporting.formats.check_views import finding_matrix, sanity_views
from ipex_doctor.reporting.formats.console import render_console, to_plain_text
from ipex_doctor.reporting.formats.html import render_html
from ipex_doctor.reporting.formats.markdown import render_markdown
from ipex_doctor.verdicts.sanity_findings import judge_sanity

CUDA0 = {"type": "cuda", "index": 0, "name": "NVIDIA H200", "total_memory": 150 * 2**30}


def _report(env: Environment, *findings: Finding) -> Report:
    return Report("0.1.0", "2026-01-01T00:00:00Z", Command.CHECK, env, tuple(findings))


def _finding(fid: str, status: Status, **extra: Any) -> Finding:
    kind = extra.pop("kind", FindingKind.KNOWN_ISSUE)
    return Finding(
        id=fid, kind=kind, status=status, severity=Severity.WARNING, title=fid,
        evidence=Evidence(extra.pop("summary", f"{fid} evidence")), remediation="",
        verdict=Verdict.NOT_AFFECTED, **extra,
    )  # fmt: skip


def _console(report: Report, verbosity: int = 0) -> str:
    return to_plain_text(render_console(report, verbosity=verbosity))


# --- the CPU's features: present and absent told apart by word and by mark -------------------


def test_isa_says_present_and_absent_in_words_and_marks() -> None:
    """An AVX2-only CPU: AVX2 under "present" with a check, each missing feature under
    "absent" with a cross; no absent feature reads as an item of the present list."""
    from ipex_doctor.reporting.formats.views import isa_view

    report = _report(make_env({"torch": "2.8.0"}, flags=("avx", "avx2", "fma")))
    isa = isa_view(report.environment.host)
    assert isa.present == ("AVX2",)
    assert isa.text() == (
        "present: ✓ AVX2 · absent: ✗ AVX-512, ✗ AVX512-BF16, ✗ AVX512-FP16, ✗ AMX-BF16, ✗ AMX-FP16"
    )
    page = render_html(report)
    present = re.search(r'<span class="isa-present">(.*?)</span>', page)
    absent = re.search(r'<span class="isa-absent">(.*?)</span>', page)
    assert present is not None and absent is not None
    assert present.group(1) == "present: ✓ AVX2"
    assert absent.group(1).startswith("absent: ✗ AVX-512, ✗ AVX512-BF16")
    assert "– AVX-512" not in page  # the old row: a dash that read as a list separator
    assert isa.text() in _console(report)
    assert f"| ISA | {isa.text()} |" in render_markdown(report)


def test_isa_unknown_when_no_flags_were_read() -> None:
    """No flags read is not "everything absent"."""
    report = _report(make_env({"torch": "2.8.0"}, flags=()))
    page = render_html(report)
    assert "unknown: no CPU flags were read" in page and "absent:" not in page


# --- the build variant: never an empty cell -------------------------------------------------


@pytest.mark.parametrize(
    ("installed", "imported", "words"),
    [
        ("2.8.0+cu126", "2.8.0+cu126", "CUDA 12.6 build"),
        ("2.8.0", "2.8.0+cu126", "CUDA 12.6 build (PyPI default)"),
        ("2.8.0", None, "CUDA build (PyPI default on Linux x86_64)"),
        ("2.8.0+cpu", "2.8.0+cpu", "CPU-only build"),
        ("2.8.0+xpu", "2.8.0+xpu", "XPU build (Intel GPU)"),
        ("2.6.0+rocm6.2.4", "2.6.0+rocm6.2.4", "ROCm 6.2.4 build"),
        ("2.1.0.post0+cxx11.abi", "2.1.0.post0+cxx11.abi", "CXX11-ABI build"),
    ],
)
def test_every_torch_build_has_a_variant(installed: str, imported: str | None, words: str) -> None:
    """The package table and a finding's version table name the build, whatever the label."""
    facts = {"version": imported} if imported else None
    env = make_env({"torch": installed}, torch_facts=facts)
    fact = VersionFact("torch", installed, None, "torch >=2.4.0", None, True)
    report = _report(env, _finding("amp-deprecated-api", Status.WARN, versions=(fact,)))
    page = render_html(report)
    assert f"<tr><td>torch</td><td>{installed}</td><td>{words}" in page
    assert f"<tr><td>torch</td><td>{installed}</td><td>{words}</td><td>torch &gt;=2.4.0" in page
    text = render_markdown(report)
    assert f"| torch | {installed} · {words} |" in text
    assert f"| torch | {installed} | {words} | torch >=2.4.0 |" in text


# --- the matrix: columns name devices, not the --device spec --------------------------------


def test_matrix_columns_are_the_devices_judged() -> None:
    """The sanity run without torchvision is recorded under the spec it was asked with
    (``auto``); the matrix shows it on the device auto picks here (the first accelerator)."""
    env = make_env({"torch": "2.8.0+cu128"}, devices=(CUDA0,))
    report = _report(
        env,
        _finding("dot-half", Status.PASS, per_device={"cpu": Status.SKIP, "cuda:0": Status.PASS}),
        _finding(
            "sanity-run",
            Status.SKIP,
            kind=FindingKind.SANITY,
            device="auto",
            per_device={"auto": Status.SKIP},
        ),  # fmt: skip
    )
    matrix = finding_matrix(report)
    assert matrix is not None
    assert matrix.columns == ("cpu", "cuda:0")
    assert matrix.rows["sanity-run"] == {"cuda:0": Status.SKIP}
    page = render_html(report)
    assert "<th>auto</th>" not in page and "<th>cuda:0</th>" in page
    header = next(
        line for line in _console(report).splitlines() if "cuda:0" in line and "cpu" in line
    )
    assert "auto" not in header


def test_all_stands_for_every_device_and_an_absent_device_stays() -> None:
    env = make_env({"torch": "2.8.0+cu128"}, devices=(CUDA0,))
    report = _report(
        env,
        _finding(
            "sanity-run", Status.SKIP, kind=FindingKind.SANITY, per_device={"all": Status.SKIP}
        ),  # fmt: skip
        _finding("dot-half", Status.ERROR, per_device={"xpu:1": Status.ERROR}),
    )
    matrix = finding_matrix(report)
    assert matrix is not None and matrix.columns == ("cpu", "cuda:0", "xpu:1")


# --- the speedup: one number, one rounding rule ---------------------------------------------


def _sanity_result(fp32: float, amp: float, speedup: float) -> dict[str, Any]:
    """A sanity run's result as the script records it (its speedup rounded to 3 places)."""
    return {
        "amp_dtype": "bfloat16", "lr": 0.005, "batch": 8, "image_size": 64,
        "thresholds": {"loss_fraction": 0.5, "agreement": 5e-2, "grad_mode": 1e-3},
        "native": {"native": False, "why": "no amx_bf16/avx512_bf16"},
        "autocast_warnings": [],
        "phases": {
            "train_amp": {"losses": [2.5, 0.2], "initial": 2.5, "final": 0.2, "ratio": 0.08,
                          "loss_finite": True, "grads_finite": True},
            "train_ipex": {"skipped": "IPEX not available"},
            "infer_agreement": {"rel_l2": 5e-3, "top1_agreement": 1.0,
                                "amp_dtype_out": "torch.bfloat16", "finite": True},
            "grad_vs_no_grad": {"mae": 0.0, "relative": 0.0},
            "throughput": {
                "train_fp32": fp32, "train_amp": amp, "infer_fp32": 20.0, "infer_amp": 10.0,
                "speedup_train": speedup, "speedup_infer": 0.5,
                "rounds": {"train_fp32": [fp32], "train_amp": [amp], "infer_fp32": [20.0],
                           "infer_amp": [10.0]},
                "spread": 0.0, "others_cpu_share": 0.0,
            },
        },
        "throughput_regime": {"batch": 4, "image": 224, "layout": "channels_last", "rounds": 3},
    }  # fmt: skip


def test_the_speedup_is_the_evidences_number_everywhere() -> None:
    """AMP 5.21 img/s against fp32 49.6: the run records 0.105 (3 places), the evidence says
    0.10x; the chart and the console bars must say 0.10x too, not 0.11x recomputed from the
    rates, and the bars' rates are written as the evidence writes them (one decimal)."""
    run = CheckRun("sanity", "cpu", Outcome.OK, result=_sanity_result(49.6, 5.21, 0.105))
    findings = judge_sanity(run)
    throughput = next(f for f in findings if f.id == "sanity-throughput")
    assert "(0.10x)" in throughput.evidence.summary
    report = _report(make_env({"torch": "2.8.0"}), *findings)
    (view,) = sanity_views(report)
    assert view.throughput is not None
    page = render_html(report)
    assert "training (0.10x)" in page and "0.11x" not in page
    assert ">49.6 img/s<" in page and ">5.2 img/s<" in page
    console = _console(report)
    assert "5.2 img/s (0.10x)" in console and "0.11x" not in console


def test_a_report_without_recorded_speedups_still_shows_one() -> None:
    """A report that recorded only the rates: the ratio is computed from them."""
    data = {"train_fp32": 40.0, "train_amp": 60.0, "infer_fp32": 20.0, "infer_amp": 10.0}
    measured = Finding(
        id="sanity-throughput", kind=FindingKind.SANITY, status=Status.PASS,
        severity=Severity.WARNING, title="t", evidence=Evidence("s", data), remediation="",
        device="cpu",
    )  # fmt: skip
    page = render_html(_report(make_env({"torch": "2.8.0"}), measured))
    assert "training (1.50x)" in page and "inference (0.50x)" in page


def test_import_outcomes_name_torchvision_too() -> None:
    env = make_env(
        {"torchvision": "0.23.0"},
        imports=(ImportOutcome("torchvision", True, version="0.23.0+cu128"),),
    )
    page = render_html(_report(env))
    assert "<tr><td>torchvision</td><td>0.23.0</td><td>CUDA 12.8 build (PyPI default)" in page
