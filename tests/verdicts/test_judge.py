"""Verdicts on environments described from published issue data (no Intel GPU exists here).

These environments are constructed, not recorded: versions, labels and device properties are
those reported in the upstream issues the knowledge base cites. They exercise the XPU branches
of the judgement that the real CPU environments cannot reach.
"""

from __future__ import annotations

import itertools
import re

import pytest
from builders import ARC, MAX, XPU_TORCH, make_env
from conftest import REPO

from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.environment import (
    Environment,
    ImportOutcome,
)
from ipex_doctor.model.findings import Severity, Status, Verdict
from ipex_doctor.model.observations import CheckRun, Outcome
from ipex_doctor.verdicts.judge import judge, status_for

KB = known_issues.load()


def verdicts(env: Environment) -> dict[str, Verdict | None]:
    return {f.id: f.verdict for f in judge(env, KB)}


def test_ipex_2_1_20_on_arc() -> None:
    """IPEX #597's setup: grad-mode divergence and dot-half predicted, Arc without FP64."""
    env = make_env(
        {"torch": "2.1.0.post0+cxx11.abi", "intel-extension-for-pytorch": "2.1.20+xpu"},
        devices=(ARC,),
        torch_facts=XPU_TORCH,
    )
    found = verdicts(env)
    assert found["grad-mode-divergence"] is Verdict.PREDICTED
    assert found["dot-half"] is Verdict.PREDICTED
    assert found["xpu-no-fp64"] is Verdict.AFFECTED
    assert found["ipex-xpu-abi"] is Verdict.NOT_AFFECTED  # Intel's cxx11.abi torch
    assert found["torch-ipex-mismatch"] is Verdict.NOT_AFFECTED
    assert found["bf16-linear"] is Verdict.PREDICTED


def test_ipex_2_1_30_fixed_grad_mode_but_not_dot() -> None:
    """2.1.30+xpu: grad-mode fixed; dot-half still predicted until 2.3.110."""
    env = make_env(
        {"torch": "2.1.0.post2+cxx11.abi", "intel-extension-for-pytorch": "2.1.30+xpu"},
        devices=(MAX,),
        torch_facts=XPU_TORCH,
    )
    found = verdicts(env)
    assert found["grad-mode-divergence"] is Verdict.NOT_AFFECTED
    assert found["dot-half"] is Verdict.PREDICTED
    assert found["xpu-no-fp64"] is Verdict.NOT_AFFECTED


def test_dot_half_fixed_in_2_3_110() -> None:
    """2.3.110+xpu is outside dot-half's range."""
    env = make_env(
        {"torch": "2.3.1+cxx11.abi", "intel-extension-for-pytorch": "2.3.110+xpu"},
        devices=(MAX,),
        torch_facts={"version": "2.3.1+cxx11.abi", "xpu_compiled": True},
    )
    assert verdicts(env)["dot-half"] is Verdict.NOT_AFFECTED


def test_stock_torch_with_old_ipex_xpu() -> None:
    """IPEX 2.1.40+xpu next to a stock torch 2.1.0: the ABI problem."""
    env = make_env(
        {"torch": "2.1.0", "intel-extension-for-pytorch": "2.1.40+xpu"},
        torch_facts={"version": "2.1.0", "xpu_compiled": False, "cxx11_abi": False},
    )
    found = verdicts(env)
    assert found["ipex-xpu-abi"] is Verdict.AFFECTED
    assert found["torch-without-xpu"] is Verdict.AFFECTED


def test_dot_half_without_device_is_predicted() -> None:
    """In range but no XPU visible: predicted (by version), evidence says no device."""
    env = make_env(
        {"torch": "2.1.0.post3+cxx11.abi", "intel-extension-for-pytorch": "2.1.40+xpu"},
        torch_facts=XPU_TORCH,
    )
    finding = next(f for f in judge(env, KB) if f.id == "dot-half")
    assert finding.verdict is Verdict.PREDICTED and finding.status is Status.FAIL
    assert "no xpu device" in finding.evidence.summary
    assert finding.versions[0].fixed_in == "2.3.110" and finding.versions[0].in_range is True


def test_upstream_xpu_torch_without_devices() -> None:
    """torch 2.8.0+xpu sees no device: warned, with the render-node diagnosis."""
    env = make_env(
        {"torch": "2.8.0+xpu"},
        torch_facts={
            "version": "2.8.0+xpu",
            "xpu_compiled": True,
            "accelerators": {
                "xpu": {
                    "available": False,
                    "count": 0,
                    "messages": ["Failed to initialize XPU devices."],
                }
            },
        },
    )
    finding = next(f for f in judge(env, KB) if f.id == "xpu-not-visible")
    assert finding.status is Status.WARN
    assert "no /dev/dri/renderD* node" in finding.evidence.summary
    assert "Failed to initialize XPU devices" in finding.evidence.summary


def test_qconv_nightly_window() -> None:
    """A torch XPU nightly between #150751 and #151092 is predicted affected."""
    env = make_env(
        {"torch": "2.8.0.dev20250410+xpu"},
        devices=(MAX,),
        torch_facts={"version": "2.8.0.dev20250410+xpu", "xpu_compiled": True},
    )
    assert verdicts(env)["qconv-op-name"] is Verdict.PREDICTED
    released = make_env({"torch": "2.8.0+xpu"}, devices=(MAX,), torch_facts={"xpu_compiled": True})
    assert verdicts(released)["qconv-op-name"] is Verdict.NOT_AFFECTED


def test_cpu_isa_rules() -> None:
    """No AVX2 with IPEX CPU: error, and the prepack finding points at it (IPEX does not run,
    so it prepacks nothing); AVX2 without AVX-512/NE-convert: prepack warning; no BF16: note."""
    stack = {"torch": "2.8.0", "intel-extension-for-pytorch": "2.8.0"}
    found = verdicts(make_env(stack, flags=("avx",)))
    assert found["cpu-no-avx2"] is Verdict.AFFECTED
    assert found["bf16-prepack-isa"] is Verdict.NOT_APPLICABLE
    assert found["bf16-no-native-isa"] is Verdict.AFFECTED
    avx2_only = verdicts(make_env(stack, flags=("avx", "avx2", "fma")))
    assert avx2_only["cpu-no-avx2"] is Verdict.NOT_AFFECTED
    assert avx2_only["bf16-prepack-isa"] is Verdict.AFFECTED
    modern = verdicts(make_env({"torch": "2.8.0", "intel-extension-for-pytorch": "2.8.0"}))
    assert modern["cpu-no-avx2"] is modern["bf16-prepack-isa"] is Verdict.NOT_AFFECTED


def test_affinity_mask_format() -> None:
    """A COMPOSITE-style ZE_AFFINITY_MASK is flagged; a list of indices is fine."""
    tiles = make_env({"torch": "2.8.0+xpu"}, env_vars={"ZE_AFFINITY_MASK": "0.0,0.1"})
    assert verdicts(tiles)["ze-affinity-mask"] is Verdict.AFFECTED
    cards = make_env({"torch": "2.8.0+xpu"}, env_vars={"ZE_AFFINITY_MASK": "0,1"})
    assert verdicts(cards)["ze-affinity-mask"] is Verdict.NOT_AFFECTED


def test_windows_style_import_failure_is_still_explained() -> None:
    """An IPEX import failure that no specific entry explains is its own finding."""
    failed = ImportOutcome(
        module="intel_extension_for_pytorch",
        ok=False,
        error_type="OSError",
        error=r"[WinError 126] Error loading C:\x\intel-ext-pt-gpu.dll or one of its dependencies.",
    )
    env = make_env(
        {"torch": "2.8.0+xpu", "intel-extension-for-pytorch": "2.8.10+xpu"},
        torch_facts={"version": "2.8.0+xpu", "xpu_compiled": True},
        imports=(ImportOutcome(module="torch", ok=True, version="2.8.0+xpu"), failed),
    )
    finding = next(f for f in judge(env, KB) if f.id == "ipex-import-failed")
    assert finding.status is Status.FAIL and "WinError 126" in finding.evidence.summary


@pytest.mark.parametrize(
    ("verdict", "severity", "status"),
    [
        (Verdict.AFFECTED, Severity.ERROR, Status.FAIL),
        (Verdict.AFFECTED, Severity.WARNING, Status.WARN),
        (Verdict.AFFECTED, Severity.INFO, Status.PASS),
        (Verdict.REGRESSION, Severity.ERROR, Status.FAIL),
        (Verdict.PREDICTED, Severity.WARNING, Status.WARN),
        (Verdict.LATENT, Severity.ERROR, Status.WARN),
        (Verdict.LATENT, Severity.WARNING, Status.PASS),
        (Verdict.NOT_AFFECTED, Severity.ERROR, Status.PASS),
        (Verdict.NOT_APPLICABLE, Severity.ERROR, Status.SKIP),
    ],
)
def test_status_for(verdict: Verdict, severity: Severity, status: Status) -> None:
    """The verdict x severity table the gate relies on."""
    assert status_for(verdict, severity) is status


def test_status_never_improves_as_things_get_worse() -> None:
    """A worse severity never gives a better status, and neither does a verdict that says more
    surely that the issue is here (not-affected < latent < predicted < affected = regression)."""
    severities = (Severity.INFO, Severity.WARNING, Severity.ERROR)
    verdicts = (Verdict.NOT_AFFECTED, Verdict.LATENT, Verdict.PREDICTED, Verdict.AFFECTED)
    for verdict in Verdict:
        ranks = [status_for(verdict, s).rank for s in severities]
        assert ranks == sorted(ranks), verdict
    for severity in Severity:
        ranks = [status_for(v, severity).rank for v in verdicts]
        assert ranks == sorted(ranks), severity
        assert status_for(Verdict.REGRESSION, severity) is status_for(Verdict.AFFECTED, severity)


def _documented_statuses() -> dict[tuple[Verdict, Severity], Status]:
    """The README's verdict table ("Findings, statuses and verdicts"), read as written: a
    status column is a status, "as affected", or "SEVERITY → STATUS" pairs with an optional
    "else STATUS"."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("| verdict | meaning | status |")
    rows: dict[Verdict, str] = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[Verdict(cells[0].strip("`"))] = cells[-1]
    table: dict[tuple[Verdict, Severity], Status] = {}
    for verdict, text in rows.items():
        if text == "as affected":
            text = rows[Verdict.AFFECTED]
        text = re.sub(r"\s*\(.*?\)", "", text.removeprefix("by severity:")).strip()
        pairs = dict(re.findall(r"(\w+) → (\w+)", text))
        otherwise = re.search(r"else (\w+)", text)
        for severity in Severity:
            if pairs:
                status = pairs.get(severity.value) or (otherwise and otherwise.group(1))
            else:
                status = text
            assert status, (verdict, text)
            table[verdict, severity] = Status(status)
    return table


def test_status_for_is_the_documented_table() -> None:
    """Every verdict x severity pair gets the status the README documents, and the README
    documents every verdict (inconclusive, like not-applicable, is a skip)."""
    documented = _documented_statuses()
    assert set(documented) == set(itertools.product(Verdict, Severity))
    assert documented[Verdict.INCONCLUSIVE, Severity.ERROR] is Status.SKIP
    assert documented[Verdict.AFFECTED, Severity.INFO] is Status.PASS
    assert documented[Verdict.LATENT, Severity.ERROR] is Status.WARN
    for (verdict, severity), status in documented.items():
        assert status_for(verdict, severity) is status, (verdict, severity)


def test_a_check_that_fails_its_own_verification_is_an_error() -> None:
    """A real call that disagrees where a kernel exists is the check's failure: an error
    saying so, on a CPU torch as on an XPU one; never "not applicable" or a clean pass."""
    result = {
        "reproduced": False,
        "evidence": "qconv_pointwise on cpu FAILED: rel. error 1.1e-01 above the tolerance 1e-04",
        "check_failed": "qconv_pointwise on cpu: rel. error 1.1e-01 above the tolerance 1e-04",
    }
    cpu_torch = make_env({"torch": "2.8.0+cpu"}, torch_facts={"version": "2.8.0+cpu"})
    xpu_torch = make_env({"torch": "2.8.0+xpu"}, devices=(MAX,), torch_facts=XPU_TORCH)
    for env, device in ((cpu_torch, "cpu"), (xpu_torch, "cpu"), (xpu_torch, "xpu:0")):
        run = CheckRun("qconv-op-name", device, Outcome.OK, result=result)
        finding = next(
            f for f in judge(env, KB, runs={"qconv-op-name": [run]}) if f.id == "qconv-op-name"
        )
        assert finding.status is Status.ERROR, (env.packages, device)
        assert finding.per_device == {device: Status.ERROR}
        assert finding.title.startswith("Could not check: ")
        assert "failed its own verification (qconv_pointwise on cpu: rel. error 1.1e-01" in (
            finding.evidence.summary
        )
        assert "qconv-op-name could not verify" in finding.remediation
        assert "torch XPU release" not in finding.remediation  # the entry's fix is unrelated
    reproduced = {**result, "reproduced": True}
    run = CheckRun("qconv-op-name", "xpu:0", Outcome.OK, result=reproduced)
    finding = next(
        f for f in judge(xpu_torch, KB, runs={"qconv-op-name": [run]}) if f.id == "qconv-op-name"
    )
    assert finding.verdict is Verdict.REGRESSION and finding.status is Status.FAIL
