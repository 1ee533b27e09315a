"""How a run that raised ends: the exception, as a documented exit code and the line said.

Every expected failure (``DoctorError``) ends with its own exit code and one line (its tip
indented under it), an interrupt with 130 or 143, a closed pipe quietly with 0, and anything
else is the doctor's own bug: exit 3, one line naming the crash log, the traceback only in
the log. Click's own errors are the command line's to show (they print its usage line).

Imported only once a command has raised: a command that returns never loads it.
"""

from __future__ import annotations

from typing import NamedTuple

from ipex_doctor.errors import DoctorError, ExitCode, Terminated

PREFIX = "ipex-doctor: error: "


class Ending(NamedTuple):
    """The exit code, and the line for stderr (``None``: end silently)."""

    code: int
    line: str | None


def ending_of(exc: BaseException, version: str) -> Ending:
    """How a run that raised ``exc`` ends; an internal error's traceback is written to the
    crash log first (``version`` heads it). ``SystemExit`` and the like are raised again:
    they already say how to end."""
    match exc:
        case DoctorError():
            return Ending(exc.exit_code, PREFIX + str(exc).replace("\nTip:", "\n  tip:"))
        case KeyboardInterrupt():
            return Ending(ExitCode.INTERRUPTED, PREFIX + "interrupted")
        case Terminated():
            return Ending(ExitCode.TERMINATED, PREFIX + "terminated (SIGTERM)")
        case BrokenPipeError():
            return Ending(ExitCode.OK, None)
        case Exception():
            return Ending(ExitCode.INTERNAL_ERROR, PREFIX + _internal_error(exc, version))
    raise exc


def _internal_error(exc: Exception, version: str) -> str:
    from ipex_doctor.reporting.output import write_crash_log

    where = write_crash_log(exc, version)
    hint = f"; details in {where}" if where else ""
    return f"internal error ({type(exc).__name__}: {exc}); this is a bug in ipex-doctor{hint}"
