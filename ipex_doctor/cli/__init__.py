"""The command line: thin Click commands over the core, and every outcome mapped to an exit code.

May import every room below it; nothing imports it but ``__main__``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn

import click

from ipex_doctor import __version__
from ipex_doctor.cli.commands import cli
from ipex_doctor.cli.fix_command import fix
from ipex_doctor.errors import DoctorError, ExitCode, Terminated

cli.add_command(fix)


def _fail(message: str, code: ExitCode) -> NoReturn:
    click.echo(f"ipex-doctor: error: {message}", err=True)
    sys.exit(code)


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Console-script entry point: run the CLI and map every outcome to a documented exit code."""
    try:
        code = cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except DoctorError as exc:
        _fail(str(exc).replace("\nTip:", "\n  tip:"), exc.exit_code)
    except click.exceptions.Abort:
        _fail("interrupted", ExitCode.INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(ExitCode.USAGE if isinstance(exc, click.UsageError) else exc.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted", ExitCode.INTERRUPTED)
    except Terminated:
        _fail("terminated (SIGTERM)", ExitCode.TERMINATED)
    except BrokenPipeError:
        sys.exit(ExitCode.OK)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback for users
        from ipex_doctor.reporting.output import write_crash_log

        where = write_crash_log(exc, __version__)
        hint = f"; details in {where}" if where else ""
        message = (
            f"internal error ({type(exc).__name__}: {exc}); this is a bug in ipex-doctor{hint}"
        )
        _fail(message, ExitCode.INTERNAL_ERROR)
    sys.exit(int(code) if isinstance(code, int) else ExitCode.OK)
