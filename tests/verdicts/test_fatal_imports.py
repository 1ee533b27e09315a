"""An import that a signal kills: one finding, named by the signal and the place it struck.

The doctor-level tests examine tiny real venvs (``make_fake_env``) whose stand-in torch or
torchvision dies on import by a real signal: an illegal instruction executed by the CPU, a
read of address 0, a read of a mapped file that was truncated, abort(3). The table of places
(``PLACES``) is also tested on its own: every place is reachable and the first match wins.
"""

from __future__ import annotations

import _ctypes
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from builders import make_env
from conftest import FAKE_TORCH_OK, make_fake_env, run_doctor

from ipex_doctor.model.environment import FatalSignal, ImportOutcome
from ipex_doctor.verdicts import fatal_imports

_ILLEGAL_INSTRUCTION = """
import ctypes, mmap
# NOTE: ud2, the instruction x86 defines to be illegal, executed for real by this CPU
page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(bytes.fromhex("0f0b"))
ctypes.CFUNCTYPE(None)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()
"""
_SEGFAULT = "import ctypes\nctypes.string_at(0)\n"
_BUS_ERROR = """
import mmap, tempfile
handle = tempfile.TemporaryFile()
handle.write(b"x" * mmap.PAGESIZE)
handle.flush()
mapped = mmap.mmap(handle.fileno(), mmap.PAGESIZE)
handle.truncate(0)
mapped[0]
"""
_OPENMP_ABORT = """
import os
print("OMP: Error #15: Initializing libiomp5.so, but found libiomp5.so already initialized.")
os.abort()
"""


def _examine(tmp_path: Path, packages: dict[str, tuple[str, str]]) -> tuple[Any, dict[str, Any]]:
    """``env --json -`` of a fake venv with ``packages``: (the report, its findings by id)."""
    python = make_fake_env(tmp_path / "env", packages)
    done = run_doctor("env", "--python", python, "--json", "-", "--timeout", "60")
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    assert done.returncode == (1 if _failing(report) else 0), done.stderr
    return report, {f["id"]: f for f in report["findings"]}


def _failing(report: dict[str, Any]) -> list[str]:
    return [f["id"] for f in report["findings"] if f["status"] in ("fail", "error")]


def _fatal(report: dict[str, Any], module: str) -> dict[str, Any]:
    outcome = next(i for i in report["environment"]["runtime"]["imports"] if i["module"] == module)
    fatal: dict[str, Any] = outcome["fatal"]
    return fatal


def test_an_illegal_instruction_in_torch_is_one_cpu_finding(tmp_path: Path) -> None:
    """torch executes an instruction the CPU rejects: one failing finding of the CPU layer,
    with the signal, the place, and the instruction sets this CPU lacks; torch-import-failed
    points at it. Which finding owns it depends on the CPU the test runs on: without AVX2 it
    is cpu-no-avx2 (the cause IPEX and builds for x86-64-v3 share), else
    import-illegal-instruction; the test holds the product to the rule, not to this CPU."""
    report, findings = _examine(tmp_path, {"torch": ("2.8.0", _ILLEGAL_INSTRUCTION)})
    flags = report["environment"]["host"]["cpu_flags"]
    owner = "import-illegal-instruction" if "avx2" in flags else "cpu-no-avx2"
    assert _failing(report) == [owner]
    cause = findings[owner]
    summary = cause["evidence"]["summary"]
    assert "killed by SIGILL (Illegal instruction) in torch (torch/__init__.py:" in summary
    assert "the flags this interpreter can execute" in summary
    if "avx512f" not in flags:
        assert "AVX-512" in summary
    if owner == "import-illegal-instruction":
        assert "Install PyPI's torch wheel" in cause["remediation"]
    pointer = findings["torch-import-failed"]
    assert pointer["status"] == "skip" and owner in pointer["title"]
    fatal = _fatal(report, "torch")
    assert (fatal["signal"], fatal["package"], fatal["module"]) == ("SIGILL", "torch", "torch")
    assert fatal["frame"].startswith("torch/__init__.py:") and not fatal["loading_library"]


def test_a_segfault_after_a_gpu_runtime_library_loaded_names_the_runtime(tmp_path: Path) -> None:
    """The library loaded last is the GPU runtime's (a real library, loaded by ctypes under the
    Level Zero loader's name): the crash is put down to the runtime, with its remedy."""
    library = tmp_path / "libs" / "libze_loader.so.1"
    library.parent.mkdir()
    shutil.copy(_ctypes.__file__, library)  # NOTE: any real shared library loads the same
    source = f"import ctypes\nctypes.CDLL({str(library)!r})\n{_SEGFAULT}"
    report, findings = _examine(tmp_path, {"torch": ("2.8.0", source)})
    assert _failing(report) == ["import-crashed"]
    crashed = findings["import-crashed"]
    assert crashed["title"] == "import torch was killed by SIGSEGV"
    assert "the native library loaded last: " in crashed["evidence"]["summary"]
    assert "the Intel GPU runtime crashed in libze_loader.so.1" in crashed["evidence"]["summary"]
    assert "setvars.sh" in crashed["remediation"]
    assert _fatal(report, "torch")["library"].endswith("libze_loader.so.1")
    assert findings["torch-import-failed"]["status"] == "skip"


def test_a_bus_error_is_a_mapped_file_that_changed(tmp_path: Path) -> None:
    report, findings = _examine(tmp_path, {"torch": ("2.8.0", _BUS_ERROR)})
    assert _failing(report) == ["import-crashed"]
    summary = findings["import-crashed"]["evidence"]["summary"]
    assert "killed by SIGBUS" in summary and "changed or truncated while loaded" in summary
    assert "--force-reinstall" in findings["import-crashed"]["remediation"]


def test_an_abort_is_judged_by_what_was_printed_before_it(tmp_path: Path) -> None:
    """OpenMP's "Error #15" before an abort: two OpenMP runtimes; the line stays in the import's
    output although faulthandler's stack came after it."""
    report, findings = _examine(tmp_path, {"torch": ("2.8.0", _OPENMP_ABORT)})
    assert _failing(report) == ["import-crashed"]
    assert "two OpenMP runtimes" in findings["import-crashed"]["evidence"]["summary"]
    outcome = report["environment"]["runtime"]["imports"][0]
    assert "OMP: Error #15" in outcome["output"] and 'File "' not in outcome["output"]


@pytest.mark.parametrize(
    ("torchvision", "owner", "pointer"),
    [("0.23.0", "import-crashed", "torchvision-broken"),
     ("0.22.0", "torchvision-broken", "import-crashed")],
)  # fmt: skip
def test_a_crashing_torchvision_is_one_finding_owned_by_its_cause(
    tmp_path: Path, torchvision: str, owner: str, pointer: str
) -> None:
    """torchvision segfaults on import: with the torchvision built for this torch the crash is
    import-crashed's; with one built for another torch the pairing is the cause, and the crash
    points there. Never two failing findings for one cause."""
    packages = {"torch": ("2.8.0", FAKE_TORCH_OK), "torchvision": (torchvision, _SEGFAULT)}
    report, findings = _examine(tmp_path, packages)
    assert _failing(report) == [owner]
    assert findings[pointer]["status"] == "skip" and owner in findings[pointer]["title"]
    assert findings["torch-import-failed"]["status"] == "pass"


def _killed(signal: str, **where: Any) -> ImportOutcome:
    output = str(where.pop("output", ""))
    return ImportOutcome(
        module="torch", ok=False, error_type="died", error=f"killed by {signal}",
        output=output, fatal=FatalSignal(signal=signal, **where),
    )  # fmt: skip


PLACED = [
    (_killed("SIGILL", package="numpy"), {}, "OPENBLAS_CORETYPE=SKYLAKEX"),
    (_killed("SIGILL", package="intel_extension_for_pytorch"), {}, "torch without IPEX"),
    (_killed("SIGILL", package="torch"), {}, "PyPI's torch wheel"),
    (_killed("SIGILL", package="mylib"), {}, "build of mylib for this CPU"),
    (_killed("SIGSEGV", library="x/libsycl.so.8"), {}, "setvars.sh"),
    (_killed("SIGSEGV", package="torch"), {"LD_PRELOAD": "/x/libfoo.so"}, "without LD_PRELOAD"),
    (_killed("SIGABRT", output="OMP: Error #15: ..."), {}, "one OpenMP runtime"),
    (_killed("SIGABRT", output="Tried to register an operator"), {}, "has one torch"),
    (_killed("SIGSEGV", package="torchvision"), {}, "release built for the installed torch"),
    (_killed("SIGKILL", package="torch"), {}, "out-of-memory kill"),
    (_killed("SIGBUS", package="torch"), {}, "--force-reinstall --no-deps"),
    (_killed("SIGABRT", package="torch"), {}, "lines printed before the abort"),
    (_killed("SIGFPE", package="torch"), {}, "fresh virtual environment"),
]
"""One killed import per place of ``PLACES``, with the environment's variables and a piece of
the remedy that place gives (the default build, ``builders.FLAGS``, has AVX-512)."""


@pytest.mark.parametrize(("outcome", "env_vars", "expected"), PLACED)
def test_each_place_names_its_remedy(
    outcome: ImportOutcome, env_vars: dict[str, str], expected: str
) -> None:
    env = make_env({"torch": "2.8.0"}, env_vars=env_vars, imports=(outcome,))
    assert expected in fatal_imports.cause_of(outcome, env).remedy


def test_every_place_is_reachable_and_the_first_match_wins() -> None:
    """Each case lands on its own place, in the table's order: no place is shadowed by one
    above it, and none is left untested."""
    chosen = [
        fatal_imports.cause_of(outcome, make_env({"torch": "2.8.0"}, env_vars=env_vars)).place
        for outcome, env_vars, _ in PLACED
    ]
    assert chosen == list(fatal_imports.PLACES)


@pytest.mark.parametrize(
    ("flags", "coretype"),
    [(("sse4_2",), "NEHALEM"), (("sse4_2", "avx"), "SANDYBRIDGE"),
     (("avx", "avx2", "fma"), "HASWELL"),
     (("avx2", "avx512f", "avx512bw", "avx512vl", "avx512dq"), "SKYLAKEX")],
)  # fmt: skip
def test_openblas_is_told_the_kernels_of_this_cpu(flags: tuple[str, ...], coretype: str) -> None:
    """The newest kernels the CPU's own flags allow (a core type OpenBLAS knows)."""
    env = make_env({"torch": "2.8.0"}, flags=flags)
    assert fatal_imports.openblas_coretype(env.host) == coretype
