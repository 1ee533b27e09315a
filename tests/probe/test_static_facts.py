"""The examination's own thread (``static_facts.StaticExamination``): it starts the CPUID and
runtime probes the moment the handshake answers, without waiting for the doctor to ask, and it
never outlives the examination's block, whatever ends the block."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import psutil
import pytest
from conftest import fresh_interpreter_prints

from ipex_doctor.errors import InterpreterError
from ipex_doctor.probe import static_facts
from ipex_doctor.probe.interpreter import HANDSHAKE_TIMEOUT_S
from ipex_doctor.probe.options import ProbeOptions

_THREAD = "ipex-doctor-probes-start"

# NOTE: a fresh interpreter hears each process started (an audit hook cannot be removed, so
# not in the test's own process) and never asks the examination for anything until the
# examination's thread has ended by itself.
_UNASKED = """
import sys, threading, time
from ipex_doctor.probe import static_facts
from ipex_doctor.probe.options import ProbeOptions
started = []
sys.addaudithook(lambda event, args: started.append(args[1]) if event == "subprocess.Popen" else None)
with static_facts.begin(ProbeOptions(sys.executable, 60.0, runtime_probe=False)) as examining:
    deadline = time.monotonic() + 120
    while any(t.name == "ipex-doctor-probes-start" for t in threading.enumerate()):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    print(len(started), sorted(str(argv[3]).rsplit("/", 1)[-1] for argv in started[1:]))
    facts = examining.finish()
    print(len(started), facts.interpreter.executable == sys.executable)
"""


def test_the_probes_start_at_the_answer_without_being_asked() -> None:
    """Before anything is asked of the examination, its thread has waited for the handshake
    and started both probes; asking for the whole facts then starts nothing more."""
    assert fresh_interpreter_prints(_UNASKED) == [
        "3 ['cpu_isa.py', 'unified_runtime.py']",
        "3 True",
    ]


def _hangs(tmp_path: Path) -> tuple[str, Path]:
    """An "interpreter" that writes its pid and hangs, and the file of its pids."""
    pids = tmp_path / "pids"
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\necho $$ >> {pids}\nexec sleep 600\n")
    python.chmod(0o755)
    return str(python), pids


def _gone(pid: int) -> bool:
    """Whether ``pid`` has ended and been reaped (a zombie is not yet gone)."""
    return not psutil.pid_exists(pid)


def _wait_for_pid(pids: Path) -> int:
    deadline = time.monotonic() + 120
    while not pids.exists() or not pids.read_text().strip():
        assert time.monotonic() < deadline, "the handshake never started"
        time.sleep(0.01)
    return int(pids.read_text().split()[0])


def _examination_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == _THREAD]


def test_an_error_in_the_block_ends_the_thread_and_the_handshake(tmp_path: Path) -> None:
    """An error raised while the handshake hangs (the thread waiting for it) leaves the block
    at once: the handshake is killed and reaped, the thread has ended, no probe was started,
    and none of it waited for the handshake's time limit."""
    python, pids = _hangs(tmp_path)
    before = set(psutil.Process().children(recursive=True))
    started = time.monotonic()
    with pytest.raises(KeyError), static_facts.begin(ProbeOptions(python, 60.0, False)):
        handshake = _wait_for_pid(pids)
        assert len(_examination_threads()) == 1
        raise KeyError("the doctor's own error")
    assert time.monotonic() - started < HANDSHAKE_TIMEOUT_S / 2
    assert _examination_threads() == []
    assert _gone(handshake)
    assert set(psutil.Process().children(recursive=True)) == before
    assert pids.read_text().split() == [str(handshake)]


def test_a_refused_interpreter_starts_no_probe_and_ends_the_thread(tmp_path: Path) -> None:
    """An interpreter that does not answer the handshake as Python is refused where the
    doctor asks (``InterpreterError``, its one line), never before: the thread, which saw the
    same answer, started no probe and has ended."""
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\necho $$ >> {tmp_path / 'pids'}\necho not python\n")
    python.chmod(0o755)
    with static_facts.begin(ProbeOptions(str(python), 60.0, False)) as examining:
        deadline = time.monotonic() + 120
        while _examination_threads():
            assert time.monotonic() < deadline
            time.sleep(0.01)
        with pytest.raises(InterpreterError, match="did not answer the handshake"):
            examining.start_probes()
    assert _examination_threads() == []
    assert len((tmp_path / "pids").read_text().split()) == 1  # NOTE: the handshake alone
