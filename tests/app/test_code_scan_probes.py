"""``scan`` runs the examined interpreter's probes while it reads the tree, and never leaves one
behind: interrupted (SIGINT, SIGTERM) or refused while they run, the doctor ends them first.

The examined interpreter is a real venv's, started through a launcher beside it that, for a
probe (run with ``-S``: the probes, never the handshake, which needs ``site``), writes its pid to
a file and sleeps for ten minutes: a probe that hangs, seen from the outside as the doctor sees
it. (The probes run none of the environment's ``.pth`` hooks, so a hook cannot stand in.)
"""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from audited import started_by
from conftest import doctor_env, make_fake_env, run_doctor, start_doctor

from ipex_doctor.probe import reaper
from ipex_doctor.probe.interpreter import HANDSHAKE_TIMEOUT_S
from ipex_doctor.scan.fix import journal as fix_journal

_HANGING_PROBE = """#!/bin/bash
# a probe (-S) writes its pid and hangs; anything else is the venv's python, named as this file
# (argv[0]: Python takes its executable from it, so the handshake names this launcher)
case " $* " in *" -S "*) echo $$ >> "$SCAN_TEST_PROBE_PIDS"; exec sleep 600;; esac
exec -a "$0" {python} "$@"
"""


@pytest.fixture
def hanging_probes(tmp_path: Path) -> tuple[str, Path]:
    """An interpreter whose probes hang (the handshake answers), and the file of their pids."""
    python = make_fake_env(tmp_path / "env", {})
    launcher = Path(python).with_name("python-hangs")
    launcher.write_text(_HANGING_PROBE.format(python=shlex.quote(python)), encoding="utf-8")
    launcher.chmod(0o755)
    return str(launcher), tmp_path / "probe.pids"


def _tree(root: Path) -> Path:
    root.mkdir()
    (root / "train.py").write_text("import intel_extension_for_pytorch as ipex\n")
    return root


def _probe_pids(pids: Path) -> list[int]:
    return [int(line) for line in pids.read_text().split()] if pids.exists() else []


def _wait_for_probes(pids: Path, process: subprocess.Popen[str], count: int) -> None:
    """Until ``count`` probes have written their pids; fails (not hangs) if the doctor ends."""
    deadline = time.monotonic() + 300
    while len(_probe_pids(pids)) < count:
        if process.poll() is not None:
            pytest.fail(f"the doctor ended ({process.returncode}): {process.communicate()[1]}")
        assert time.monotonic() < deadline, "no probe started in 300 s"
        time.sleep(0.05)


def _left_running(doctor: int, pids: list[int]) -> list[int]:
    """Of ``pids`` and every process that carries the doctor's reaper tag (each process it
    started, and theirs, whenever they started), those still running (a zombie counts as gone)
    after up to 30 s for the kernel."""
    deadline = time.monotonic() + 30
    while True:
        alive = []
        for process in psutil.process_iter():
            try:
                tagged = process.environ().get(reaper.TAG_VARIABLE, "").startswith(f"{doctor}-")
                if (tagged or process.pid in pids) and process.status() != psutil.STATUS_ZOMBIE:
                    alive.append(process.pid)
            except psutil.Error:
                continue  # NOTE: gone meanwhile, or another user's
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


@pytest.mark.parametrize(
    ("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_a_signal_while_the_probes_run_ends_them(
    tmp_path: Path, hanging_probes: tuple[str, Path], sig: int, code: int
) -> None:
    """Both probes run at once (their pids are written while neither has answered); a signal
    then ends the scan with its exit code, one line and no traceback, and neither probe, nor
    anything else the doctor started, outlives it. (Before, the probes ran one after the
    other, and SIGTERM killed the doctor outright, leaving the running probe behind.)"""
    python, pids = hanging_probes
    process = start_doctor(
        "scan", str(_tree(tmp_path / "tree")), "--python", python, "--no-cache",
        extra_env={"SCAN_TEST_PROBE_PIDS": str(pids)},
    )  # fmt: skip
    _wait_for_probes(pids, process, count=2)
    started = [child.pid for child in psutil.Process(process.pid).children(recursive=True)]
    process.send_signal(sig)
    _out, stderr = process.communicate(timeout=300)
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert set(_probe_pids(pids)) <= set(started)
    assert _left_running(process.pid, [*started, *_probe_pids(pids)]) == []


_HANGING_HANDSHAKE = """#!/bin/bash
# every start says its first argument; the handshake (-c) writes its pid and hangs, as an
# interpreter whose .pth hook hangs would
echo "$1" >> "$SCAN_TEST_STARTS"
case "$1" in -c) echo $$ >> "$SCAN_TEST_PROBE_PIDS"; exec sleep 600;; esac
exec -a "$0" {python} "$@"
"""


@pytest.mark.parametrize(
    ("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_a_signal_while_the_handshake_hangs_ends_it_and_starts_no_probe(
    tmp_path: Path, sig: int, code: int
) -> None:
    """The examination's thread waits for the handshake's answer to start the probes; a signal
    meanwhile (the use case still being imported, or waiting for the answer) ends the scan with
    its exit code and one line, the hanging handshake is killed and reaped, and no probe is
    ever started: the thread ends with the block rather than starting them on its way out."""
    python = make_fake_env(tmp_path / "env", {})
    launcher = Path(python).with_name("python-handshake-hangs")
    launcher.write_text(_HANGING_HANDSHAKE.format(python=shlex.quote(python)), encoding="utf-8")
    launcher.chmod(0o755)
    pids, starts = tmp_path / "handshake.pids", tmp_path / "starts"
    process = start_doctor(
        "scan", str(_tree(tmp_path / "tree")), "--python", str(launcher), "--no-cache",
        extra_env={"SCAN_TEST_PROBE_PIDS": str(pids), "SCAN_TEST_STARTS": str(starts)},
    )  # fmt: skip
    _wait_for_probes(pids, process, count=1)
    started = [child.pid for child in psutil.Process(process.pid).children(recursive=True)]
    signalled = time.monotonic()
    process.send_signal(sig)
    _out, stderr = process.communicate(timeout=300)
    # NOTE: acted on at once, not once the handshake's own time limit has run out
    assert time.monotonic() - signalled < HANDSHAKE_TIMEOUT_S / 2
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert _left_running(process.pid, [*started, *_probe_pids(pids)]) == []
    assert starts.read_text().split() == ["-c"]  # NOTE: the handshake alone; a probe: -I -S


def test_a_refusal_while_the_probes_run_ends_them(
    tmp_path: Path, hanging_probes: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``scan --fix`` over a tree an earlier ``--fix`` left half-rewritten is refused (exit 2)
    while the probes run: the refusal kills and reaps them on its way out rather than waiting
    for them, and nothing the doctor started is left."""
    python, pids = hanging_probes
    tree = _tree(tmp_path / "tree")
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    fix_journal.begin([str(tree.resolve())], [])  # NOTE: a run killed while it rewrote
    process = subprocess.Popen(
        [sys.executable, "-m", "ipex_doctor", "scan", str(tree), "--python", python, "--fix"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=doctor_env({"SCAN_TEST_PROBE_PIDS": str(pids), "XDG_STATE_HOME": str(state)}),
    )  # fmt: skip
    doctor = psutil.Process(process.pid)
    seen: set[int] = set()
    while process.poll() is None:
        # NOTE: every process the doctor starts, as long as it runs, to be checked afterwards
        try:
            seen.update(child.pid for child in doctor.children(recursive=True))
        except psutil.NoSuchProcess:
            break
        time.sleep(0.02)
    _out, stderr = process.communicate(timeout=300)
    assert process.returncode == 2, stderr
    assert "stopped mid-way" in stderr and "Traceback" not in stderr
    assert _left_running(process.pid, [*seen, *_probe_pids(pids)]) == []


def test_a_scan_starts_the_handshake_and_the_two_probes_and_nothing_else(tmp_path: Path) -> None:
    """What the doctor's own process starts for a scan, read by an audit hook inside it: the
    examined interpreter's handshake, then its CPUID and Intel runtime probes, each once. (It
    also ran ``ldconfig -p`` six times, at each child's start and end, to find the C library.)"""
    done, started = started_by(
        tmp_path / "started.json", "ipex_doctor", "scan", str(_tree(tmp_path / "tree")),
        "--python", sys.executable, "--no-cache", "-q",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # NOTE: a warning (the IPEX import) passes the gate
    assert [argv[0] for argv in started] == [sys.executable] * 3, started
    handshake, *probes = started
    assert handshake[1] == "-c" and "IPEX-DOCTOR-HANDSHAKE" in handshake[2]
    assert sorted(Path(argv[3]).name for argv in probes) == ["cpu_isa.py", "unified_runtime.py"]
    # NOTE: isolated and without site: the environment's .pth hooks run in the handshake alone
    assert all(argv[1:3] == ["-I", "-S"] for argv in probes)


def test_a_refused_rules_file_ends_a_handshake_that_hangs(tmp_path: Path) -> None:
    """The handshake starts before the rules are read; a refused ``--rules`` file then ends the
    scan with its own one-line error (exit 2), and the interpreter that never answered is
    killed on the way out, not left to its timeout. An unusable ``--python`` is still said
    only after the rules' error, as when the handshake came later."""
    hangs = tmp_path / "python"
    hangs.write_text("#!/bin/sh\nexec sleep 600\n")
    hangs.chmod(0o755)
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: [\n")
    tree = str(_tree(tmp_path / "tree"))
    process = start_doctor("scan", tree, "--python", str(hangs), "--rules", str(rules))
    _out, stderr = process.communicate(timeout=300)
    assert process.returncode == 2, stderr
    assert "rules.yaml:2: malformed YAML" in stderr and "Traceback" not in stderr, stderr
    assert _left_running(process.pid, []) == []
    missing = run_doctor("scan", tree, "--python", str(tmp_path / "nothing"), "--rules", str(rules))
    assert missing.returncode == 2 and "rules.yaml:2: malformed YAML" in missing.stderr
