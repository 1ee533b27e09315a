"""The doctor on every CPU class, run for real: the ISA it reports is what the examined process
can execute, one cause is one finding, and a healthy stack passes the default gate.

Classes this machine lacks are made real two ways:
- a CPU without AVX2 (or with AVX2 alone) under Debian's qemu-user (``qemu-x86_64 -cpu
  Nehalem``, ``-cpu Haswell``): the examined interpreter is a wrapper in a venv's ``bin/`` that
  runs the real interpreter emulated, with ``argv[0]`` kept (``-0``) so ``sys.executable`` is
  the wrapper and every interpreter the doctor starts is emulated too. Slow (torch imports in
  about 30 s emulated), so only import-level.
- oneDNN capped to AVX2 (``ONEDNN_MAX_CPU_ISA=AVX2``): what torch's and IPEX's oneDNN do on an
  AVX2-only CPU (EPYC Rome/Milan): no bf16 prepack, reference kernels for bf16 convolutions.
  On a machine that has only AVX2 the cap changes nothing, so the assertions hold there too.

Under an emulated Nehalem the reference stack dies of SIGILL in one of two places, and which
one depends on numpy's OpenBLAS, which picks its kernels from CPUID: kernels the emulated CPU
lacks kill ``import torch`` in numpy's import check; kernels for this CPU let torch import and
IPEX die. Each outcome is forced with ``OPENBLAS_CORETYPE`` (the variable OpenBLAS reads to
override what it detected), so both run on any host, and the product's guarantee is asserted
for each: one failing finding, cpu-no-avx2, naming AVX2, with the emulated CPU's flags.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import real_env, run_doctor

from ipex_doctor.model.environment import IPEX_MODULE
from ipex_doctor.probe import host

pytestmark = pytest.mark.envs


def _findings(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in report["findings"]}


EMULATED = ("--timeout", "600")
"""qemu-user's emulation makes every step of the examined interpreter many times slower (the
import of torch and IPEX took over the default 180 s without progress on a 2-core machine at a
load average of 8 to 11): the limit is the test's, the doctor's default is for real CPUs."""


def _emulated_venv(
    root: Path, python: str, cpu: str, variables: Mapping[str, str | None] | None = None
) -> str:
    """A venv beside ``python``'s whose ``bin/python-<cpu>`` runs it under qemu-user ``-cpu``,
    with ``variables`` set (a value) or unset (``None``) for the emulated interpreter."""
    real_root = Path(python).parent.parent
    (root / "bin").mkdir(parents=True)
    shutil.copy(real_root / "pyvenv.cfg", root / "pyvenv.cfg")
    lib = next((real_root / "lib").glob("python3.*"))
    (root / "lib" / lib.name).mkdir(parents=True)
    (root / "lib" / lib.name / "site-packages").symlink_to(lib / "site-packages")
    qemu = shutil.which("qemu-x86_64")
    assert qemu is not None
    wrapper = root / "bin" / f"python-{cpu.lower()}"
    settings = "".join(
        f"unset {name}\n" if value is None else f"export {name}={value}\n"
        for name, value in (variables or {}).items()
    )
    wrapper.write_text(
        f'#!/bin/sh\n{settings}exec {qemu} -0 "$0" -cpu {cpu} {Path(python).resolve()} "$@"\n'
    )
    wrapper.chmod(0o755)
    return str(wrapper)


def _qemu_or_skip() -> None:
    if shutil.which("qemu-x86_64") is None:
        if os.environ.get("CI"):
            pytest.fail("qemu-x86_64 is missing: make sysdeps installs qemu-user")
        pytest.skip("qemu-x86_64 is not installed (make sysdeps installs qemu-user)")


def test_the_isa_is_read_in_the_examined_process(tmp_path: Path) -> None:
    """Under qemu -cpu Nehalem the CPUID probe answers for the emulated CPU (no AVX, no AVX2,
    and its own name), whatever /proc/cpuinfo says of the host."""
    _qemu_or_skip()
    python = _emulated_venv(tmp_path / "venv", real_env("bare"), "Nehalem")
    answer = host.executable_isa(python)
    assert answer["source"] == "cpuid"
    assert "sse4_2" in answer["flags"]
    assert not {"avx", "avx2", "avx512f"} & set(answer["flags"])
    assert "Nehalem" in answer["brand"]


def _assert_one_cpu_finding(done: Any, *, ipex: bool) -> tuple[dict[str, Any], list[str]]:
    """What the doctor guarantees for an import that an illegal instruction killed on a CPU
    without AVX2, whichever import it was: exactly one failing finding, cpu-no-avx2, and no
    error; SIGILL, the module and AVX2 in its evidence; a remedy that can work (a CPU with
    AVX2; never a reinstall); the emulated CPU's own flags and name, read with CPUID; each
    killed import's own finding pointing at it. Returns the report and the killed modules."""
    report = json.loads(done.stdout)
    findings = _findings(report)
    failing = [f["id"] for f in report["findings"] if f["status"] in ("fail", "error")]
    assert failing == ["cpu-no-avx2"], (failing, done.stderr[-2000:])
    cause = findings["cpu-no-avx2"]
    killed = [
        i["module"]
        for i in report["environment"]["runtime"]["imports"]
        if (i.get("fatal") or {}).get("signal") == "SIGILL"
    ]
    assert killed, report["environment"]["runtime"]["imports"]
    summary = cause["evidence"]["summary"]
    assert "killed by SIGILL" in summary and "has no AVX or AVX2" in summary
    assert all(f"importing {module} was killed by SIGILL" in summary for module in killed)
    assert "CPU with AVX2" in cause["remediation"] and "Reinstall" not in cause["remediation"]
    assert ("intel-extension-for-pytorch" in cause["remediation"]) is ipex
    machine = report["environment"]["host"]
    assert machine["isa_source"] == "cpuid" and "Nehalem" in machine["cpu_model"]
    assert "sse4_2" in machine["cpu_flags"] and "avx2" not in machine["cpu_flags"]
    pointers = {"torch": "torch-import-failed", IPEX_MODULE: "ipex-import-failed"}
    for module in killed:
        pointer = findings[pointers[module]]
        assert pointer["status"] == "skip" and "cpu-no-avx2" in pointer["title"], pointer
    assert findings["import-illegal-instruction"]["status"] == "skip"
    if ipex:
        assert findings["bf16-prepack-isa"]["status"] == "skip"
    assert done.returncode == 1
    return report, killed


@pytest.mark.slow
@pytest.mark.parametrize(
    "coretype",
    [
        pytest.param("HASWELL", id="torch-dies"),
        pytest.param("NEHALEM", id="ipex-dies"),
        pytest.param(None, id="as-detected"),
    ],
)
def test_a_cpu_without_avx2_is_one_finding_with_sigill_as_evidence(
    tmp_path: Path, coretype: str | None
) -> None:
    """The reference stack on an emulated Nehalem: an illegal instruction kills torch's import
    in numpy (OpenBLAS told to run Haswell kernels), or IPEX's (OpenBLAS told this CPU's);
    with OPENBLAS_CORETYPE unset, whichever the host makes happen. Either way the one finding
    the doctor guarantees (``_assert_one_cpu_finding``); where forced, the import that died is
    the one forced, and the remedy names what helps there."""
    _qemu_or_skip()
    python = _emulated_venv(
        tmp_path / "venv", real_env("reference"), "Nehalem", {"OPENBLAS_CORETYPE": coretype}
    )
    done = run_doctor("env", "--python", python, *EMULATED, "--json", "-", timeout=900)
    report, killed = _assert_one_cpu_finding(done, ipex=True)
    remediation = _findings(report)["cpu-no-avx2"]["remediation"]
    if coretype == "HASWELL":
        assert killed == ["torch"]
        assert "OPENBLAS_CORETYPE=NEHALEM" in remediation
        assert report["environment"]["runtime"]["imports"][0]["fatal"]["package"] == "numpy"
    elif coretype == "NEHALEM":
        assert killed == [IPEX_MODULE]
        assert "NO AVX" in report["environment"]["runtime"]["torch"].get("cpu_capability", "")


@pytest.mark.slow
def test_torch_alone_killed_by_sigill_is_the_cpu_finding_without_ipex_advice(
    tmp_path: Path,
) -> None:
    """torch and numpy without IPEX on an emulated Nehalem, numpy's OpenBLAS on Haswell
    kernels: the CPU finding owns the SIGILL although no IPEX asks for AVX2, and its remedy is
    for torch (OPENBLAS_CORETYPE for this CPU, or a CPU with AVX2), with no word of IPEX.
    (torch28-only has no numpy: the reference stack's numpy is added on PYTHONPATH.)"""
    _qemu_or_skip()
    numpy = tmp_path / "numpy-only"
    numpy.mkdir()
    site = next((Path(real_env("reference")).parent.parent / "lib").glob("python3.*/site-packages"))
    for entry in site.glob("numpy*"):
        (numpy / entry.name).symlink_to(entry)
    python = _emulated_venv(
        tmp_path / "venv",
        real_env("torch28-only"),
        "Nehalem",
        {"OPENBLAS_CORETYPE": "HASWELL", "PYTHONPATH": str(numpy)},
    )
    done = run_doctor("env", "--python", python, *EMULATED, "--json", "-", timeout=900)
    report, killed = _assert_one_cpu_finding(done, ipex=False)
    assert killed == ["torch"]
    assert "OPENBLAS_CORETYPE=NEHALEM" in _findings(report)["cpu-no-avx2"]["remediation"]


@pytest.mark.slow
def test_the_reference_stack_imports_on_an_emulated_avx2_only_cpu(tmp_path: Path) -> None:
    """An emulated Haswell (AVX2, no AVX-512): torch and IPEX import, nothing fails, the flags
    are the emulated CPU's, and the prepack limitation is the one warning of the CPU layer."""
    _qemu_or_skip()
    python = _emulated_venv(tmp_path / "venv", real_env("reference"), "Haswell")
    done = run_doctor("env", "--python", python, *EMULATED, "--json", "-", timeout=900)
    report = json.loads(done.stdout)
    failing = [f["id"] for f in report["findings"] if f["status"] in ("fail", "error")]
    assert failing == [] and done.returncode == 0, (failing, done.stderr[-2000:])
    machine = report["environment"]["host"]
    assert machine["isa_source"] == "cpuid" and "Haswell" in machine["cpu_model"]
    assert "avx2" in machine["cpu_flags"] and "avx512f" not in machine["cpu_flags"]
    assert all(i["ok"] for i in report["environment"]["runtime"]["imports"])
    assert _findings(report)["bf16-prepack-isa"]["status"] == "warn"


@pytest.mark.slow
def test_the_reference_stack_passes_with_onednn_capped_to_avx2() -> None:
    """torch 2.8 + IPEX 2.8 where oneDNN has only AVX2 (as on an AVX2-only EPYC): exit 0, no
    error; bf16-linear affected with its workaround verified on the path IPEX allows there
    (weights_prepack=False + autocast); one warning for the prepack limitation, naming the
    cap when the CPU itself could prepack; the IPEX training path not failed."""
    done = run_doctor(
        "check", "--python", real_env("reference"), "--json", "-",
        extra_env={"ONEDNN_MAX_CPU_ISA": "AVX2"}, timeout=900,
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr[-3000:]
    findings = _findings(report)
    assert not [f["id"] for f in report["findings"] if f["status"] in ("fail", "error")]
    linear = findings["bf16-linear"]
    assert (linear["status"], linear["verdict"]) == ("warn", "affected")
    summary = linear["evidence"]["summary"]
    assert "weights_prepack=False" in summary and "workaround verified" in summary
    assert "weights_prepack=False" in linear["remediation"]
    assert "autocast" in linear["remediation"]
    prepack = findings["bf16-prepack-isa"]
    assert prepack["status"] == "warn"
    assert "weights_prepack=False" in prepack["remediation"]
    assert "autocast" in prepack["remediation"]
    if "avx512bw" in report["environment"]["host"]["cpu_flags"]:
        assert "ONEDNN_MAX_CPU_ISA" in prepack["evidence"]["summary"]
    assert findings["sanity-train-ipex"]["status"] in ("pass", "skip")
    assert findings["sanity-train"]["status"] == "pass"
