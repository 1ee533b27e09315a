"""The one place that starts child processes: spawned (never forked), bounded, always reaped.

Every child runs in a new session (its own process group) so that on a timeout, an interrupt
or a normal exit the whole group can be killed: a probe that leaves grandchildren behind, or
hangs inside a driver call, never outlives the doctor. Output is read by two threads that keep
only the tail, so a child printing megabytes cannot exhaust the doctor's memory or deadlock it
on a full pipe.
"""

from __future__ import annotations

import collections
import io
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

DEFAULT_OUTPUT_LIMIT = 256 * 1024
"""Bytes of stdout and of stderr kept per child (the tail)."""


@dataclass(frozen=True)
class Completed:
    """How a child process ended and the tail of what it printed."""

    argv: tuple[str, ...]
    returncode: int | None
    """Exit status; negative for a signal (as ``subprocess``), ``None`` if it could not be reaped."""
    timed_out: bool
    duration_s: float
    stdout: str
    stderr: str

    @property
    def signal_name(self) -> str | None:
        """``SIGSEGV`` etc. when the child was killed by a signal (and did not time out)."""
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"

    def describe_end(self) -> str:
        """How the child ended, in words: ``exit code 1``, ``killed by SIGSEGV``..."""
        if self.timed_out:
            return f"timed out after {self.duration_s:.0f} s and was killed"
        if self.signal_name is not None:
            return f"killed by {self.signal_name}"
        return f"exit code {self.returncode}"


class _TailReader(threading.Thread):
    """Drains a pipe, keeping the last ``limit`` bytes."""

    def __init__(self, stream: io.BufferedReader, limit: int) -> None:
        super().__init__(daemon=True)
        self._stream, self._limit = stream, limit
        self._chunks: collections.deque[bytes] = collections.deque()
        self._size = 0
        self.dropped = 0

    def run(self) -> None:
        try:
            while chunk := self._stream.read1(65536):
                self._chunks.append(chunk)
                self._size += len(chunk)
                while self._size - len(self._chunks[0]) >= self._limit:
                    dropped = self._chunks.popleft()
                    self._size -= len(dropped)
                    self.dropped += len(dropped)
        except (OSError, ValueError):
            pass  # NOTE: the pipe closed under us when the group was killed

    def text(self) -> str:
        data = b"".join(self._chunks)[-self._limit :]
        text = data.decode("utf-8", "replace")
        if self.dropped:
            text = f"[... {self.dropped} earlier bytes dropped ...]\n" + text
        return text


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    output_limit: int = DEFAULT_OUTPUT_LIMIT,
) -> Completed:
    """Run ``argv`` to completion or ``timeout`` seconds, whichever comes first.

    Raises ``OSError`` when the program cannot be started at all. On ``KeyboardInterrupt``
    the child's whole process group is killed before the interrupt propagates.
    """
    started = time.monotonic()
    process = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=None if env is None else dict(env),
        cwd=cwd,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stderr is not None
    # NOTE: Popen with PIPE and no text mode gives BufferedReaders, which have read1().
    out, err = cast(io.BufferedReader, process.stdout), cast(io.BufferedReader, process.stderr)
    readers = [_TailReader(out, output_limit), _TailReader(err, output_limit)]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
    finally:
        # NOTE: kill the group even after a normal exit: grandchildren the child left behind
        # (a worker pool, a stuck driver helper) must not outlive the doctor.
        _kill_group(process)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - an unkillable (D-state) child
            pass
        for reader in readers:
            reader.join(timeout=5)
        process.stdout.close()
        process.stderr.close()
    return Completed(
        argv=tuple(argv),
        returncode=process.returncode,
        timed_out=timed_out,
        duration_s=time.monotonic() - started,
        stdout=readers[0].text(),
        stderr=readers[1].text(),
    )
