"""The doctor on every CPU class, run for real: the ISA it reports is what the examined process
can execute, one cause is one finding, and a healthy stack passes the default gate.

Classes this machine lacks are made real two ways:
- a CPU without AVX2 under Debian's qemu-user (``qemu-x86_64 -cpu Nehalem``): the examined
  interpreter is a wrapper in a venv's ``bin/`` that runs the real interpreter emulated, with
  ``argv[0]`` kept (``-0``) so ``sys.executable`` is the wrapper and every interpreter the doctor
  starts is emulated too. Slow (torch imports in about 30 s emulated), so only import-level.
- oneDNN capped to AVX2 (``ONEDNN_MAX_CPU_ISA=AVX2``): what torch's and IPEX's oneDNN do on an
  AVX2-only CPU (EPYC Rome/Milan): no bf16 prepack, reference kernels for bf16 convolutions.
  On a machine that has only AVX2 the cap changes nothing, so the assertions hold there too.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import real_env, run_doctor

from ipex_doctor.probe import host

pytestmark = pytest.mark.envs


def _findings(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in report["findings"]}


def _emulated_venv(root: Path, python: str, cpu: str) -> str:
    """A venv beside ``python``'s whose ``bin/python-<cpu>`` runs it under qemu-user ``-cpu``."""
    real_root = Path(python).parent.parent
    (root / "bin").mkdir(parents=True)
    shutil.copy(real_root / "pyvenv.cfg", root / "pyvenv.cfg")
    lib = next((real_root / "lib").glob("python3.*"))
    (root / "lib" / lib.name).mkdir(parents=True)
    (root / "lib" / lib.name / "site-packages").symlink_to(lib / "site-packages")
    qemu = shutil.which("qemu-x86_64")
    assert qemu is not None
    wrapper = root / "bin" / f"python-{cpu.lower()}"
    wrapper.write_text(f'#!/bin/sh\nexec {qemu} -0 "$0" -cpu {cpu} {Path(python).resolve()} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def _qemu_or_skip() -> None:
    if shutil.which("qemu-x86_64") is None:
        if os.environ.get("CI"):
            pytest.fail("qemu-x86_64 is missing: make sysdeps installs qemu-user")
        pytest.skip("qemu-x86_64 is not installed (make sysdeps installs qemu-user)")


def test_the_isa_is_read_in_the_examined_process(tmp_path: Path) -> None:
    """Under qemu -cpu Nehalem the CPUID probe answers for the emulated CPU (no AVX, no AVX2),
    whatever /proc/cpuinfo says of the host."""
    _qemu_or_skip()
    python = _emulated_venv(tmp_path / "venv", real_env("bare"), "Nehalem")
    answer = host.executable_isa(python)
    assert answer["source"] == "cpuid"
    assert "sse4_2" in answer["flags"]
    assert not {"avx", "avx2", "avx512f"} & set(answer["flags"])


@pytest.mark.slow
def test_a_cpu_without_avx2_is_one_finding_with_sigill_as_evidence(tmp_path: Path) -> None:
    """The reference stack on an emulated Nehalem: IPEX dies on an illegal instruction while
    importing. One failing finding (cpu-no-avx2) with SIGILL as its evidence and a remedy that
    can help; the ISA shown is the emulated CPU's; ipex-import-failed and bf16-prepack-isa point
    at it instead of failing or warning again; no error finding."""
    _qemu_or_skip()
    python = _emulated_venv(tmp_path / "venv", real_env("reference"), "Nehalem")
    done = run_doctor("env", "--python", python, "--json", "-", timeout=900)
    report = json.loads(done.stdout)
    findings = _findings(report)
    failing = [f["id"] for f in report["findings"] if f["status"] in ("fail", "error")]
    assert failing == ["cpu-no-avx2"], (failing, done.stderr[-2000:])
    cause = findings["cpu-no-avx2"]
    assert "SIGILL" in cause["evidence"]["summary"]
    assert "CPU with AVX2" in cause["remediation"] and "Reinstall" not in cause["remediation"]
    machine = report["environment"]["host"]
    assert machine["isa_source"] == "cpuid" and "avx2" not in machine["cpu_flags"]
    pointer = findings["ipex-import-failed"]
    assert pointer["status"] == "skip" and "cpu-no-avx2" in pointer["title"]
    assert findings["bf16-prepack-isa"]["status"] == "skip"
    assert "NO AVX" in report["environment"]["runtime"]["torch"].get("cpu_capability", "")
    assert done.returncode == 1


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
