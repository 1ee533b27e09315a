"""The one place that starts child processes: spawned (never forked), bounded, always reaped.

Every child runs in a new session (its own process group) so that on a timeout, an interrupt
or a normal exit the whole group can be killed: a probe that leaves grandchildren behind, or
hangs inside a driver call, never outlives the doctor. Descendants that left the group (a
``setsid`` daemon) are found and killed too (``reaper``). Output is read by two threads that keep
only the tail, so a child printing megabytes cannot exhaust the doctor's memory or deadlock it
on a full pipe.
"""

from __future__ import annotations

import collections
import contextlib
import io
import json
import os
import queue
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ipex_doctor.probe import reaper

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

    @property
    def signal_meaning(self) -> str | None:
        """What ``signal_name`` means, as the C library says it (``Illegal instruction``)."""
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            return signal.strsignal(-self.returncode)
        except ValueError:
            return None

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
    with Running(argv, timeout=timeout, env=env, cwd=cwd, output_limit=output_limit) as child:
        return child.finish()


class Running:
    """A child started now and collected later (``finish``), so the doctor can work while it
    runs: ``run`` is ``Running(...).finish()``.

    ``timeout`` counts from the start. Used as a context manager it is ended on the way out
    whatever happens (an interrupt, an error, a refusal): a child that was never collected
    has its whole group killed and is reaped, so it never outlives the doctor. Raises
    ``OSError`` when the program cannot be started at all.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
    ) -> None:
        self.argv = tuple(argv)
        self.started = time.monotonic()
        self._deadline = self.started + timeout
        try:
            self.process = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=reaper.tagged_environment(env),
                cwd=cwd,
                start_new_session=True,
            )
        except BaseException:
            # NOTE: tagged_environment opened the subreaper window; a child that never started
            # must not leave this process a subreaper (it would keep adopting orphans).
            reaper.release()
            raise
        reaper.started(self.process.pid)
        assert self.process.stdout is not None and self.process.stderr is not None
        # NOTE: Popen with PIPE and no text mode gives BufferedReaders, which have read1().
        out = cast(io.BufferedReader, self.process.stdout)
        err = cast(io.BufferedReader, self.process.stderr)
        self._readers = [_TailReader(out, output_limit), _TailReader(err, output_limit)]
        for reader in self._readers:
            reader.start()
        self._completed: Completed | None = None

    def __enter__(self) -> Running:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.end()

    def finish(self) -> Completed:
        """Wait for the child's exit until the deadline (killed then, ``timed_out``); the
        outcome. The group is killed and reaped on the way out however the wait ends."""
        if self._completed is not None:
            return self._completed
        timed_out = False
        try:
            _wait_exit(self.process, self._deadline - time.monotonic())
        except subprocess.TimeoutExpired:
            timed_out = True
        except BaseException:
            self._collect(timed_out=False)  # NOTE: an interrupt while waiting
            raise
        return self._collect(timed_out)

    def wait_exit(self) -> None:
        """Wait until the child has exited or its deadline has passed, collecting nothing: a
        thread may wait here while another collects (``finish``, ``end``), which kills the
        child and so ends this wait too."""
        if self._completed is not None:
            return
        with contextlib.suppress(subprocess.TimeoutExpired, OSError, ValueError):
            _wait_exit(self.process, self._deadline - time.monotonic())

    def end(self) -> Completed:
        """Kill the child's group now unless it was collected already; the outcome."""
        if self._completed is not None:
            return self._completed
        return self._collect(timed_out=False)

    def _collect(self, timed_out: bool) -> Completed:
        process = self.process
        try:
            # NOTE: kill the group even after a normal exit: grandchildren the child left
            # behind (a worker pool, a stuck driver helper) must not outlive the doctor.
            reaper.reap_tree(process.pid, lambda: _kill_group(process))
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover - an unkillable (D-state) child
                pass
            for reader in self._readers:
                reader.join(timeout=5)
        finally:
            assert process.stdout is not None and process.stderr is not None
            process.stdout.close()
            process.stderr.close()
            self._completed = Completed(
                argv=self.argv,
                returncode=process.returncode,
                timed_out=timed_out,
                duration_s=time.monotonic() - self.started,
                stdout=self._readers[0].text(),
                stderr=self._readers[1].text(),
            )
        return self._completed


def _wait_exit(process: subprocess.Popen[bytes], timeout: float) -> None:
    """``process.wait(timeout=timeout)``, woken the moment the child exits.

    NOTE: ``Popen.wait`` with a timeout polls, sleeping up to 50 ms between looks (Python
    3.11): a probe that ends after 60 ms is seen ending after 110. A pidfd (Linux 5.3 and
    later) is readable from the child's exit on, so ``poll`` on it returns then; where
    ``pidfd_open`` is missing or refused (an older kernel, a seccomp filter), the polling
    wait. ``TimeoutExpired`` when the child still runs after ``timeout`` seconds, as there.
    """
    try:
        handle = os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        process.wait(timeout=timeout)
        return
    try:
        waiting = select.poll()
        waiting.register(handle, select.POLLIN)
        if not waiting.poll(max(timeout, 0) * 1000):
            raise subprocess.TimeoutExpired(process.args, timeout)
    finally:
        os.close(handle)
    process.wait()


def json_script(
    python: str,
    script: str,
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    what: str,
) -> tuple[dict[str, Any] | None, str]:
    """Run the probe ``script`` in ``python -I`` and read the JSON object on its last line.

    Returns ``(answer, "")``, or ``(None, why)`` when it could not start, timed out, failed or
    printed no JSON; ``what`` names the probe in ``why``. Never raises for the script's sake.
    """
    with JsonScript(python, script, timeout=timeout, env=env, what=what) as probe:
        return probe.answer()


class JsonScript:
    """``json_script`` started now, its answer collected later (``answer``), so several probes
    run at once and the doctor works meanwhile. A context manager: leaving it without the
    answer kills and reaps the probe (``Running``)."""

    def __init__(
        self,
        python: str,
        script: str,
        *,
        timeout: float,
        env: Mapping[str, str] | None = None,
        what: str,
        site: bool = True,
        args: Sequence[str] = (),
    ) -> None:
        """``site=False`` runs it with ``-S`` as well: for a script of the standard library
        alone that needs nothing of the environment (not even its ``sys.prefix``, which ``site``
        sets in a virtual environment), sparing the environment's ``.pth`` hooks (a coverage
        or a redirector import: 40 ms a start in a real torch environment); ``args`` follow the
        script."""
        self._python, self._what = python, what
        self._child: Running | None = None
        self._why = ""
        flags = ["-I"] if site else ["-I", "-S"]
        try:
            self._child = Running([python, *flags, script, *args], timeout=timeout, env=env)
        except OSError as exc:
            self._why = f"could not start {python}: {exc.strerror}"

    def __enter__(self) -> JsonScript:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.end()

    def end(self) -> None:
        """Kill and reap the probe now unless its answer was collected."""
        if self._child is not None:
            self._child.end()

    def answer(self) -> tuple[dict[str, Any] | None, str]:
        """Wait for the probe; ``(answer, "")`` or ``(None, why)``, as ``json_script``."""
        if self._child is None:
            return None, self._why
        done, what = self._child.finish(), self._what
        if done.timed_out or done.returncode != 0:
            return None, f"{what} {done.describe_end()}: {done.stderr.strip()[-300:]}"
        try:
            answer = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return None, f"{what} printed no result"
        if not isinstance(answer, dict):
            return None, f"{what} printed no result"
        return answer, ""


class WorkerTimeout(Exception):
    """No record arrived from a worker within the time allowed."""


class Worker:
    """A long-lived child: tasks go in on its stdin, JSON records come back on a private pipe.

    The record pipe is separate from stdout/stderr, so whatever the examined code prints can
    never be mistaken for a result; lines on it that are not JSON objects come back as
    ``{"event": "garbage"}`` records. At end of file (the child died or closed it) the next
    record is ``None``. The child runs in its own session; ``close`` kills its whole group.
    """

    def __init__(
        self,
        build_argv: Callable[[int], Sequence[str]],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
    ) -> None:
        """Start the child; ``build_argv`` gets the file descriptor the child must write to."""
        read_fd, write_fd = os.pipe()
        self.started = time.monotonic()
        try:
            self.argv = tuple(build_argv(write_fd))
            self.process = subprocess.Popen(
                list(self.argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=reaper.tagged_environment(env),
                cwd=cwd,
                pass_fds=(write_fd,),
                start_new_session=True,
            )
            reaper.started(self.process.pid)
        except BaseException:
            os.close(read_fd)
            reaper.release()  # NOTE: no child started: close the subreaper window again
            raise
        finally:
            os.close(write_fd)
        out = cast(io.BufferedReader, self.process.stdout)
        err = cast(io.BufferedReader, self.process.stderr)
        self._readers = [_TailReader(out, output_limit), _TailReader(err, output_limit)]
        for reader in self._readers:
            reader.start()
        self._records: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._record_thread = threading.Thread(
            target=self._read_records, args=(read_fd,), daemon=True
        )
        self._record_thread.start()
        self._eof = False
        self.timed_out = False
        self._completed: Completed | None = None

    def _read_records(self, fd: int) -> None:
        with open(fd, "rb") as stream:
            for raw in stream:
                line = raw.decode("utf-8", "replace").strip()
                if not line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    record = None
                if not isinstance(record, dict):
                    record = {"event": "garbage", "line": line[:200]}
                self._records.put(record)
        self._records.put(None)

    def next_record(self, timeout: float) -> dict[str, Any] | None:
        """The next record; ``None`` once the channel closed; ``WorkerTimeout`` after ``timeout``."""
        if self._eof:
            return None
        try:
            record = self._records.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise WorkerTimeout from None
        if record is None:
            self._eof = True
        return record

    def send(self, message: Mapping[str, Any]) -> bool:
        """Write one JSON line to the child's stdin; False when the child is gone."""
        stdin = self.process.stdin
        if stdin is None or stdin.closed:
            return False
        try:
            stdin.write((json.dumps(dict(message)) + "\n").encode("utf-8"))
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return False
        return True

    def output_tail(self, lines: int = 25) -> str:
        """The last lines the child printed on stdout and stderr so far."""
        text = self._readers[0].text() + "\n" + self._readers[1].text()
        return "\n".join(text.strip().splitlines()[-lines:])

    def close(self, *, grace: float = 5.0, timed_out: bool = False) -> Completed:
        """Close stdin, give the child ``grace`` seconds to exit, then kill its group."""
        if self._completed is not None:
            return self._completed
        self.timed_out = self.timed_out or timed_out
        stdin = self.process.stdin
        if stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                stdin.close()
        if not self.timed_out:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=grace)
        reaper.reap_tree(self.process.pid, lambda: _kill_group(self.process))
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        for reader in self._readers:
            reader.join(timeout=5)
        self._record_thread.join(timeout=5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        self._completed = Completed(
            argv=self.argv,
            returncode=self.process.returncode,
            timed_out=self.timed_out,
            duration_s=time.monotonic() - self.started,
            stdout=self._readers[0].text(),
            stderr=self._readers[1].text(),
        )
        return self._completed

    def alive(self) -> bool:
        """Whether the child process is still running."""
        return self.process.poll() is None
