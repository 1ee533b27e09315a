"""explain: real error texts, mangled the ways people paste them; never crashes."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import doctor_env, run_doctor
from hypothesis import given, settings
from hypothesis import strategies as st

from ipex_doctor.knowledge import kb
from ipex_doctor.knowledge.explain import explain

KB = kb.load()

CASES = [
    # IPEX 2.1.x prints its mismatch with runs of spaces (line continuations in the source)
    ("ERROR! Intel® Extension for PyTorch* needs to work with PyTorch       2.1.*, but PyTorch 2.2.1+cpu is found. "
     "Please switch to the matching version and run again.", "torch-ipex-mismatch"),
    # the newer oneDNN spelling, wrapped by a terminal in the middle of a word
    ("  File \"/opt/app/llama/model.py\", line 271, in forward\n    xq = self.wq(x)\nRuntimeError: could not create a "
     "primitive descriptor for the inner product forward propaga\ntion primitive. Run workload with environment "
     "variable ONEDNN_VERBOSE=all", "bf16-linear"),
    # Windows paths around the error
    ("Traceback (most recent call last):\n  File \"C:\\\\Users\\\\dev\\\\LivePortrait\\\\speed.py\", line 40\n"
     "RuntimeError: \"dot\" not implemented for 'Half'", "dot-half"),
    ("AttributeError: module 'os' has no attribute 'exit'", "ipex-os-exit"),
    ("RuntimeError: operator torchvision::nms does not exist", "torchvision-broken"),
    # what IPEX says when it is imported after a failed torchvision import in one interpreter
    ("AttributeError: partially initialized module 'torchvision' has no attribute 'extension' "
     "(most likely due to a circular import)", "torchvision-broken"),
    ("ImportError: libmkl_sycl.so.3: cannot open shared object file: No such file or directory", "oneapi-runtime-libs"),
    ("RuntimeError: Required aspect fp64 is not supported on the device", "xpu-no-fp64"),
    ("RuntimeError: Cannot re-initialize XPU in forked subprocess. To use XPU with multiprocessing, "
     "you must use the 'spawn' start method", "xpu-fork-reinit"),
    ("NotImplementedError: 'onednn::qconv_pointwise'", "qconv-op-name"),
    ("OSError: [WinError 126] The specified module could not be found. Error loading "
     "\"C:\\\\py\\\\lib\\\\site-packages\\\\intel_extension_for_pytorch\\\\bin\\\\intel-ext-pt-gpu.dll\"", "windows-dll-load"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_best_match(text: str, expected: str) -> None:
    """The right entry comes first."""
    matches = explain(text, KB)
    assert matches and matches[0].issue.id == expected, [m.issue.id for m in matches]


def test_cli_exit_codes_and_json() -> None:
    """Exit 0 with a match (argument), 1 without; --json is machine-readable."""
    done = run_doctor("explain", "RuntimeError: \"dot\" not implemented for 'Half'")
    assert done.returncode == 0 and "dot-half" in done.stdout and "2.3.110" in done.stdout
    none = run_doctor("explain", "everything is fine")
    assert none.returncode == 1 and "No known issue" in none.stdout
    import json

    data = json.loads(run_doctor("explain", "--json", CASES[1][0]).stdout)
    assert data["matched"] and data["matches"][0]["id"] == "bf16-linear"


def test_stdin_and_file(tmp_path: Path) -> None:
    """--file PATH, --file - and a bare - read the text; a missing file is a one-line error."""
    path = tmp_path / "tb.txt"
    path.write_text(CASES[0][0])
    from_file = run_doctor("explain", "--file", str(path))
    assert from_file.returncode == 0 and "torch-ipex-mismatch" in from_file.stdout
    for args in (["--file", "-"], ["-"]):
        piped = subprocess.run(
            [sys.executable, "-m", "ipex_doctor", "explain", *args],
            input=CASES[4][0], capture_output=True, text=True, env=doctor_env(), check=False,
        )  # fmt: skip
        assert piped.returncode == 0 and "torchvision-broken" in piped.stdout, args
    missing = run_doctor("explain", "--file", str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=5000))
def test_arbitrary_text_never_crashes_and_is_fast(text: str) -> None:
    """Any text: a list back, after bounded work.

    CPU time of this process, not wall time: another process loading the machine slows the
    clock, not the work. Idle, one example costs well under 10 ms; a catastrophic pattern
    would cost seconds."""
    started = time.process_time()
    assert isinstance(explain(text, KB), list)
    assert time.process_time() - started < 1.0


def test_huge_input_is_bounded() -> None:
    """Megabytes of log with the error at the end: found, in bounded time."""
    text = "noise line\n" * 300_000 + "RuntimeError: operator torchvision::nms does not exist"
    started = time.process_time()  # CPU time: see test_arbitrary_text_never_crashes_and_is_fast
    assert explain(text, KB)[0].issue.id == "torchvision-broken"
    assert time.process_time() - started < 10
