"""Host facts: the ISA flags come from what the examined process can execute."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from conftest import venv_with_a_site_hook

from ipex_doctor.probe import host


def test_cpuid_wins_over_proc_cpuinfo_and_the_difference_is_kept() -> None:
    """/proc/cpuinfo lists the host's AVX-512 (as under qemu-user); CPUID in the examined
    process says AVX2 only: the flags are CPUID's and the note names what was claimed beyond."""
    machine = dataclasses.replace(host.probe_host(), cpu_flags=("avx", "avx2", "avx512f"))
    judged = host.with_executable_isa(machine, {"source": "cpuid", "flags": ["avx", "avx2"]})
    assert judged.cpu_flags == ("avx", "avx2") and judged.isa_source == "cpuid"
    assert "avx512f" in judged.isa_note and "cannot execute" in judged.isa_note


def test_without_cpuid_the_kernel_list_stays_and_says_why() -> None:
    machine = dataclasses.replace(host.probe_host(), cpu_flags=("avx2",))
    judged = host.with_executable_isa(machine, {"source": None, "why": "not an x86-64 process"})
    assert judged.cpu_flags == ("avx2",) and judged.isa_source == "/proc/cpuinfo"
    assert judged.isa_note == "not an x86-64 process"


def test_the_real_probe_answers_for_this_interpreter() -> None:
    """Real: on x86-64 CPUID answers (every x86-64 CPU has SSE2, and these flags are a subset
    of the ones the doctor knows); elsewhere it says why not, and never raises."""
    answer = host.executable_isa(sys.executable)
    if answer["source"] == "cpuid":
        assert set(answer["flags"]) <= set(host.ISA_FLAGS)
        assert answer["vendor"]
    else:
        assert answer["why"]


def test_an_interpreter_that_cannot_start_is_a_reason_not_an_error() -> None:
    answer = host.executable_isa("/nonexistent/python")
    assert answer["source"] is None and "could not start" in answer["why"]


def test_the_probe_runs_none_of_the_environments_site_hooks(tmp_path: Path) -> None:
    """CPUID is the executable's: the probe runs without ``site``, so a ``.pth`` hook of the
    examined environment (real ones import coverage or a redirector, 40 ms a start) never runs,
    and the answer is the same."""
    python, starts = venv_with_a_site_hook(tmp_path)
    subprocess.run([python, "-c", "pass"], check=True)
    assert starts.exists()  # NOTE: the hook is real: any start with site runs it
    starts.unlink()
    answer = host.executable_isa(python)
    assert not starts.exists()
    assert answer == host.executable_isa(sys.executable)
