"""Exit codes and the expected-failure exceptions of the doctor.

Every failure the user can cause or fix (a bad option, an invalid knowledge-base file, a
``--python`` that is not a usable interpreter, an output path that cannot be written) is a
``DoctorError`` subclass carrying its exit code. The CLI turns it into one line on stderr and
that exit code, never a traceback. Anything else escaping the core is the doctor's own bug and
exits with ``ExitCode.INTERNAL_ERROR``.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable
from pathlib import Path
from typing import NoReturn


@enum.unique
class ExitCode(enum.IntEnum):
    """All exit codes of ``ipex-doctor``; documented in the README."""

    OK = 0
    """No finding at or above the fail threshold."""
    FINDINGS = 1
    """At least one finding at or above the fail threshold (or `explain` matched nothing)."""
    USAGE = 2
    """Bad option, invalid knowledge-base or policy file, unusable ``--python``, unwritable output."""
    INTERNAL_ERROR = 3
    """A bug in the doctor itself."""
    LAYER_ONLY = 4
    """`explain`: no known issue names the text, but it comes from the Intel stack, and the
    layer it comes from is named (with what examines it and what to collect)."""
    INTERRUPTED = 130
    """Interrupted by the user (SIGINT); a partial report, marked incomplete, was written."""
    TERMINATED = 143
    """Stopped by SIGTERM; a partial report, marked incomplete, was written."""


class DoctorError(Exception):
    """An expected failure, reported to the user as one line plus an optional tip.

    Subsystems subclass this to name the failure (``KnowledgeBaseError``,
    ``InterpreterError``, ...). ``exit_code`` says how the process ends.
    """

    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str, *, tip: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.tip = tip

    def __str__(self) -> str:
        return self.message if self.tip is None else f"{self.message}\nTip: {self.tip}"


class KnowledgeBaseError(DoctorError):
    """A knowledge-base file is unreadable or invalid; the message names the file and line."""


class InterpreterError(DoctorError):
    """The interpreter given with ``--python`` cannot be used to examine an environment."""


class OutputError(DoctorError):
    """A report could not be written where the user asked."""


class Terminated(BaseException):
    """Raised by the doctor's SIGTERM handler; like ``KeyboardInterrupt``, not an ``Exception``,
    so no ``except Exception`` on the way swallows it and every ``finally`` still runs."""


class Stopped(DoctorError):
    """The run was interrupted (SIGINT) or terminated (SIGTERM); the message says what was kept."""

    def __init__(self, message: str, *, exit_code: ExitCode) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def did_you_mean(name: str, choices: Iterable[str], *, otherwise: str) -> str:
    """A tip naming the choices closest to ``name``, or ``otherwise`` when none is close."""
    close = difflib.get_close_matches(name, list(choices), n=3)
    return f"did you mean {', '.join(close)}?" if close else otherwise


def read_bounded(path: Path, limit: int, error: type[DoctorError], what: str) -> str:
    """The UTF-8 text of ``path``, refused (as ``error``, one line) when it is missing,
    unreadable, a directory, not text, or larger than ``limit`` bytes. No more than ``limit``
    bytes and one are ever read, whatever the file says its size is (``/dev/zero`` says 0), and
    opening never waits (a FIFO no one writes reads as empty); a pipe that is written
    (``<(...)``) is read as it comes."""
    import os
    import stat

    try:
        # NOTE: O_NONBLOCK only for the open (a FIFO's open waits for a writer); reads block.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise error(f"{path}: no such {what} file") from None
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    try:
        os.set_blocking(fd, True)
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise error(f"{path}: is a directory, not a {what} file")
        return read_bounded_from(fd, path, limit, error, what)
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)


def read_bounded_from(fd: int, path: Path, limit: int, error: type[DoctorError], what: str) -> str:
    """The UTF-8 text read from the open file ``fd`` (named ``path`` in errors), refused as
    ``read_bounded`` refuses it; the caller opened ``fd`` and closes it. For a reader that
    judged the very file it opened (no name looked up twice)."""
    import os

    try:
        chunks: list[bytes] = []
        size = 0
        while size <= limit and (chunk := os.read(fd, min(1 << 20, limit + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise error(f"{path}: larger than {limit // 1024} KiB; not a {what} file")
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None


def assert_never(value: NoReturn) -> NoReturn:
    """End a ``match`` over an enum: mypy proves every member handled (a new member is a type
    error at each such place). ``typing.assert_never`` is Python 3.11+; the package runs on 3.10."""
    raise AssertionError(f"unhandled value {value!r}")
