"""The spawned processes that read chunks of a large tree beside the doctor's, and what is
done when one of them dies or stops making progress (issue 31).

``read_with_workers`` starts the workers (spawned, never forked: the doctor's process may hold
threads, and a fork would copy them half-way). Each takes chunk indexes from one shared counter
and sends every chunk's outcomes back as soon as they are read, so a worker that dies loses
at most the chunk it was reading, never the ones it finished. The doctor's process reads
chunks from the same counter meanwhile: a worker that dies at start-up, before it took any,
only leaves more for it.

The contract: every file of every chunk ends with exactly one outcome. A chunk that no process
delivered (its reader was killed, crashed, ran out of memory, or made no progress for
``HANG_AFTER_S``) is read again, one file at a time, by a fresh worker that reports each
file as it goes: a file whose reader dies again is named, unread (a ``SkippedFile`` saying
how the process ended, which the scan reports as ``scan-unread``), and the files after it go
to the next fresh worker. At most ``MAX_REREADS`` workers are started for this, so the scan
never loops: what they did not reach is named too. A file is never read again in the doctor's
own process, since what killed a worker (a parse that exhausts memory, a crash in the
interpreter) would kill the doctor. Which process reads what depends on timing; what is
found in a file does not, and the caller sorts the results.

Tests make a worker fail on purpose through ``FAULT_VARIABLE`` (see ``_fault``).
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.scan.match.ruleset import RuleSet
from ipex_doctor.scan.outcome import Outcome
from ipex_doctor.scan.read.discovery import Candidate
from ipex_doctor.scan.readers import skipped

HANG_AFTER_S = 10.0
"""A worker whose CPU time has not moved for this long (wall clock) while it owes work is
stopped as hung. Its CPU time, not its silence: a worker reading one large file may be silent
for minutes on a busy machine, but its CPU time moves all the while; one stopped, blocked on a
lock a dead process held, or waiting on a stalled disk does not move at all."""
MAX_REREADS = 8
"""Fresh workers started to read again what dead workers did not deliver (bounded: each
death either names one file unread or happened before the worker read anything)."""
FAULT_VARIABLE = "IPEX_DOCTOR_SCAN_WORKER_FAULT"
"""Tests only: ``start`` (the worker kills itself at start-up), ``read:NAME`` (it kills
itself when it reaches a file named NAME), ``hang:NAME`` (it sleeps there, using no CPU).
Honoured only under pytest (``PYTEST_CURRENT_TEST`` set), and only in a worker."""

_POLL_S = 1.0

Chunk = Sequence[Candidate]


def read_with_workers(
    chunks: list[Chunk],
    helpers: int,
    rules: CodeRules,
    read: Callable[[Candidate], Outcome],
    max_file_bytes: int,
) -> Iterator[tuple[Candidate, Outcome]]:
    """The outcomes of ``chunks``, read by this process (with ``read(candidate)``) and
    ``helpers`` spawned workers; every candidate exactly once, in no particular order."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    counter = context.Value("i", 0)
    delivered: set[int] = set()
    crew = _Crew(context)
    try:
        shared = crew.save(rules, chunks)
        for _ in range(helpers):
            crew.start(shared, counter, max_file_bytes)
        for index in _turns(counter, len(chunks), timeout=HANG_AFTER_S):
            delivered.add(index)
            for candidate in chunks[index]:
                yield candidate, read(candidate)
            # NOTE: a worker's pipe holds tens of kilobytes: one not emptied between this
            # process's chunks would leave the worker waiting on its send instead of reading
            for _worker, (done, outcomes) in crew.take(timeout=0):
                delivered.add(done)
                yield from zip(chunks[done], outcomes, strict=True)
        for _worker, (done, outcomes) in crew.messages():
            delivered.add(done)
            yield from zip(chunks[done], outcomes, strict=True)
        lost = [c for index, chunk in enumerate(chunks) if index not in delivered for c in chunk]
        if lost:
            yield from _read_again(lost, crew, rules, max_file_bytes)
    finally:
        crew.stop()


def _read_again(
    lost: list[Candidate], crew: _Crew, rules: CodeRules, max_file_bytes: int
) -> Iterator[tuple[Candidate, Outcome]]:
    """``lost`` read by fresh workers, one file at a time: a file being read when its worker
    ended is named unread, and at most ``MAX_REREADS`` workers are started (what they did not
    reach is named unread too)."""
    left = lost
    end = ""
    for _ in range(MAX_REREADS):
        worker = crew.start(crew.save(rules, left), None, max_file_bytes)
        reached = 0
        ready = False
        for _worker, message in crew.messages():
            if message == "ready":
                ready = True
                continue
            yield left[reached], message
            reached += 1
        left = left[reached:]
        if not left:
            return
        end = crew.ends[worker]
        if ready:  # NOTE: it started and read up to this file: this file ended it
            yield left[0], _unread(left[0], f"the process reading it {end}")
            left = left[1:]
            if not left:
                return
    why = f"{MAX_REREADS} fresh processes ended before they reached it (the last {end})"
    for candidate in left:
        yield candidate, _unread(candidate, why)


def _unread(candidate: Candidate, why: str) -> Outcome:
    # NOTE: not lasting: the outcome cache must not keep it, the next scan reads the file
    return skipped(candidate, f"not read: {why}")._replace(lasting=False)


class _Crew:
    """The workers started, the pipe each answers on, how each ended, and the files their
    work is handed over in."""

    def __init__(self, context: Any) -> None:
        self._context = context
        self._live: dict[Connection, Any] = {}
        self._folder: str | None = None
        self.ends: dict[Any, str] = {}

    def save(self, rules: CodeRules, work: list[Chunk] | list[Candidate]) -> str:
        """A private file holding ``rules`` and ``work`` for workers to load.

        NOTE: never in the worker's arguments: ``spawn`` writes those into a pipe whose
        reading end the parent keeps open while it writes, so arguments larger than the
        pipe (a tree's chunks are hundreds of kilobytes) block the parent for good when the
        child dies before reading them (seen: a worker killed at its start hung the scan).
        """
        if self._folder is None:
            self._folder = tempfile.mkdtemp(prefix="ipex-doctor-scan-")
        handle, path = tempfile.mkstemp(dir=self._folder, suffix=".pickle")
        with os.fdopen(handle, "wb") as file:
            pickle.dump((rules, work), file, protocol=pickle.HIGHEST_PROTOCOL)
        return path

    def start(self, work_file: str, counter: Any, max_file_bytes: int) -> Any:
        receiver, sender = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_serve, args=(sender, work_file, counter, max_file_bytes), daemon=True
        )
        process.start()
        sender.close()  # NOTE: so that the worker's death ends the pipe here
        self._live[receiver] = process
        return process

    def messages(self) -> Iterator[tuple[Any, Any]]:
        """Each message of the live workers until every one has ended (said it is done,
        died, or was stopped as hung), as (worker, message)."""
        progress: dict[Any, tuple[float, float]] = {}
        while self._live:
            yield from self.take(timeout=_POLL_S)
            for receiver, process in list(self._live.items()):
                if _stalled(process, progress):
                    process.kill()
                    self._end(receiver, f"made no progress for {HANG_AFTER_S:g} s and was stopped")
                    progress.pop(process, None)

    def take(self, timeout: float) -> list[tuple[Any, Any]]:
        """The messages waiting (or arriving within ``timeout``), as (worker, message); a
        worker whose pipe ended is reaped and its end kept."""
        taken: list[tuple[Any, Any]] = []
        for receiver in wait(list(self._live), timeout=timeout):
            assert isinstance(receiver, Connection)
            process = self._live[receiver]
            try:
                message = receiver.recv()
            except (EOFError, OSError):
                self._end(receiver, _death(process))
                continue
            if message is None:
                self._end(receiver, "ended")
            else:
                taken.append((process, message))
        return taken

    def _end(self, receiver: Connection, how: str) -> None:
        process = self._live.pop(receiver)
        receiver.close()
        process.join(timeout=HANG_AFTER_S)
        self.ends[process] = how

    def stop(self) -> None:
        """Kill and reap whatever is still running (an interrupt, a consumer that stopped),
        and remove the work files."""
        for receiver, process in list(self._live.items()):
            process.kill()
            self._end(receiver, "was stopped")
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)


def _stalled(process: Any, progress: dict[Any, tuple[float, float]]) -> bool:
    """Whether ``process``'s CPU time has stood still for ``HANG_AFTER_S`` (wall clock)."""
    import psutil

    try:
        times = psutil.Process(process.pid).cpu_times()
    except psutil.Error:
        return False  # NOTE: it is ending: its pipe says so on the next turn
    used = times.user + times.system
    now = time.monotonic()
    seen = progress.get(process)
    if seen is None or seen[1] != used:
        progress[process] = (now, used)
        return False
    return now - seen[0] >= HANG_AFTER_S


def _death(process: Any) -> str:
    process.join(timeout=HANG_AFTER_S)
    code = process.exitcode
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code} before it finished"


def _turns(counter: Any, count: int, timeout: float | None = None) -> Iterator[int]:
    """The chunk indexes this process takes from the shared ``counter``, until none are left
    (or, with ``timeout``, until its lock cannot be had that long: a process killed while it
    held the lock never gives it back, and the chunks left are then read again)."""
    lock = counter.get_lock()
    while True:
        if not lock.acquire(timeout=timeout):
            return
        try:
            index = counter.value
            counter.value = index + 1
        finally:
            lock.release()
        if index >= count:
            return
        yield index


def _serve(sender: Connection, work_file: str, counter: Any, max_file_bytes: int) -> None:
    """A worker: with a ``counter``, the chunks it takes, each sent as (index, outcomes);
    without, every file of ``work`` in order, "ready" first and then each outcome alone."""
    from ipex_doctor.scan.one_file import read_file

    fault = _fault()
    if fault == ("start", ""):
        os.kill(os.getpid(), signal.SIGKILL)
    with open(work_file, "rb") as file:
        rules, work = pickle.load(file)  # NOTE: written by this scan's own process, 0600
    ruleset = RuleSet(rules)

    def read(candidate: Candidate) -> Outcome:
        if fault is not None and candidate.path.name == fault[1]:
            if fault[0] == "read":
                os.kill(os.getpid(), signal.SIGKILL)
            if fault[0] == "hang":
                time.sleep(3600)
        return read_file(candidate, ruleset, max_file_bytes)

    if counter is None:
        sender.send("ready")
        for candidate in work:
            assert isinstance(candidate, Candidate)
            sender.send(read(candidate))
    else:
        for index in _turns(counter, len(work)):
            chunk = work[index]
            assert not isinstance(chunk, Candidate)
            sender.send((index, [read(candidate) for candidate in chunk]))
    sender.send(None)


def _fault() -> tuple[str, str] | None:
    """The fault a test asks this worker to suffer (``FAULT_VARIABLE``), if any."""
    wanted = os.environ.get(FAULT_VARIABLE)
    if not wanted or "PYTEST_CURRENT_TEST" not in os.environ:
        return None
    kind, _, name = wanted.partition(":")
    return kind, name
