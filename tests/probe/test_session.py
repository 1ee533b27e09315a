"""The runtime probe in real spawned interpreters whose torch misbehaves on import.

The stand-in packages are tiny, but everything around them is real: the venv, the package
metadata the static probe reads, the spawned interpreter, its death and the doctor's report.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import FAKE_TORCH_OK, FAKE_TORCH_WORKER, TESTS, make_fake_env, run_doctor

from ipex_doctor.probe import spawn
from ipex_doctor.probe.session import Session

FAULT_CHECKS = TESTS / "assets" / "fault_checks"


def findings_of(stdout: str) -> dict[str, dict[str, object]]:
    report = json.loads(stdout)
    return {f["id"]: f for f in report["findings"]}


@pytest.mark.parametrize(
    ("source", "error_type", "said", "owner"),
    [
        ("import ctypes\nctypes.string_at(0)\n", "died", "killed by SIGSEGV", "import-crashed"),
        (
            "import os\nprint('bye', flush=True)\nos._exit(3)\n",
            "died",
            "exit code 3",
            "torch-import-failed",
        ),
        (
            "raise ImportError('libmkl_sycl.so.3: cannot open shared object file: No such file or directory')\n",
            "ImportError",
            "libmkl_sycl.so.3",
            "oneapi-runtime-libs",
        ),
        ("import sys\nsys.exit(127)\n", "SystemExit", "exit(127)", "torch-import-failed"),
    ],
)
def test_broken_torch_import_is_a_finding(
    tmp_path: Path, source: str, error_type: str, said: str, owner: str
) -> None:
    """Segfault, os._exit, a missing library or exit() at import: a finding, exit 1, no
    traceback. One cause is one failing finding: a signal's death is import-crashed's (which
    names the place), a missing oneAPI library oneapi-runtime-libs', and torch-import-failed
    points there instead of failing a second time."""
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", source)})
    done = run_doctor("env", "--python", python, "--json", "-", "--timeout", "60")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    findings = findings_of(done.stdout)
    finding = findings[owner]
    assert finding["status"] == "fail"
    assert said in str(finding["evidence"]), finding["evidence"]
    failing = [i for i, f in findings.items() if f["status"] in ("fail", "error")]
    assert failing == [owner], failing
    if owner != "torch-import-failed":
        pointer = findings["torch-import-failed"]
        assert pointer["status"] == "skip" and owner in str(pointer["title"])
    imports = json.loads(done.stdout)["environment"]["runtime"]["imports"]
    assert imports[0]["error_type"] == error_type


def test_missing_oneapi_library_is_named(tmp_path: Path) -> None:
    """An ImportError naming a oneAPI soname is also judged as a oneAPI runtime problem."""
    source = "raise ImportError('libsycl.so.7: cannot open shared object file: No such file or directory')\n"
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", source)})
    done = run_doctor("env", "--python", python, "--json", "-", "--timeout", "60")
    finding = findings_of(done.stdout)["oneapi-runtime-libs"]
    assert finding["status"] == "fail" and "libsycl.so" in str(finding["evidence"])


def test_hanging_import_times_out(tmp_path: Path) -> None:
    """An import that hangs is killed at --timeout and reported with the stage it hung in."""
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", "import time\ntime.sleep(600)\n")})
    done = run_doctor("env", "--python", python, "--json", "-", "--timeout", "3")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["environment"]["runtime"]["timed_out"] is True
    evidence = str(findings_of(done.stdout)["torch-import-failed"]["evidence"])
    assert "timed out after" in evidence and "importing torch" in evidence


def test_ipex_hard_exit_after_mismatch(tmp_path: Path) -> None:
    """A fake IPEX 2.5 that prints the mismatch and os._exit(127)s, next to torch 2.8."""
    ipex = (
        "import os, torch\n"
        "print('ERROR! Intel® Extension for PyTorch* needs to work with PyTorch 2.5.*, '\n"
        "      'but PyTorch 2.8.0+cpu is found. Please switch to the matching version and run again.')\n"
        "os._exit(127)\n"
    )
    python = make_fake_env(
        tmp_path / "env",
        {"torch": ("2.8.0", FAKE_TORCH_OK), "intel_extension_for_pytorch": ("2.5.0", ipex)},
    )
    done = run_doctor("env", "--python", python, "--json", "-", "--timeout", "60")
    assert done.returncode == 1, done.stderr
    findings = findings_of(done.stdout)
    mismatch = findings["torch-ipex-mismatch"]
    assert mismatch["status"] == "fail"
    evidence = str(mismatch["evidence"])
    assert "IPEX 2.5.0 needs torch 2.5.*" in evidence and "2.8.0+cpu" in evidence
    # NOTE: the smallest consistent change moves IPEX to torch's line, not torch to IPEX's
    assert mismatch["commands"] == [f"{python} -m pip install 'intel-extension-for-pytorch==2.8.*'"]
    assert "torch==2.5" not in json.dumps(mismatch)
    runtime_facts = json.loads(done.stdout)["environment"]["runtime"]
    assert runtime_facts["unfinished_stage"] == "import intel_extension_for_pytorch"
    assert runtime_facts["returncode"] == 127
    # the message printed right before os._exit survived
    assert "needs to work with PyTorch 2.5" in json.dumps(runtime_facts)
    assert findings["torch-import-failed"]["status"] == "pass"


def test_garbage_in_the_result_channel_is_marked_not_fatal() -> None:
    """A worker writing non-JSON to its record pipe yields 'garbage' records, then end of file."""
    code = (
        "import os, sys\n"
        "fd = int(sys.argv[1])\n"
        'os.write(fd, b\'{"event": "hello"}\\nnot json\\n[1, 2]\\n{"event": "done"}\\n\')\n'
    )
    worker = spawn.Worker(lambda fd: [sys.executable, "-c", code, str(fd)])
    events = []
    while (record := worker.next_record(30)) is not None:
        events.append(record["event"])
    assert events == ["hello", "garbage", "garbage", "done"]
    assert worker.close().returncode == 0


def test_worker_timeout_and_kill() -> None:
    """A worker that never reports times out, and close() kills it."""
    worker = spawn.Worker(
        lambda fd: [sys.executable, "-c", "import time; time.sleep(600)", str(fd)]
    )
    with pytest.raises(spawn.WorkerTimeout):
        worker.next_record(0.5)
    end = worker.close(timed_out=True)
    assert end.timed_out and not worker.alive()


def _session_with_fake_torch(tmp_path: Path) -> Session:
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", FAKE_TORCH_WORKER)})
    session = Session(python, probe=False)
    probe = session.start_up(120)
    assert session.ready, probe
    return session


def test_a_check_that_reports_progress_is_not_timed_out(tmp_path: Path) -> None:
    """The limit is on time without news: 8 s of steady progress under a 2 s limit completes."""
    session = _session_with_fake_torch(tmp_path)
    steps: list[int] = []
    try:
        run = session.run_check(
            "progresses", str(FAULT_CHECKS / "progresses.py"), "cpu", 2.0,
            on_progress=lambda phase, done, total: steps.append(done),
        )  # fmt: skip
    finally:
        session.close()
    assert run.outcome == "ok", run
    assert steps[-1] == 40


def test_a_timeout_names_the_option_that_raises_it(tmp_path: Path) -> None:
    """A check that hangs is stopped after the limit, and the message says how to raise it."""
    session = _session_with_fake_torch(tmp_path)
    try:
        run = session.run_check("sleeps", str(FAULT_CHECKS / "sleeps.py"), "cpu", 1.0)
    finally:
        session.close()
    assert run.outcome == "timeout"
    assert "did not finish within 1 s" in run.error and "--timeout" in run.error
