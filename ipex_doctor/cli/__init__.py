"""The command line: thin Click commands over the core, and every outcome an exit code.

May import every room below it; nothing imports it but ``__main__``.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from types import FrameType
from typing import NoReturn

from ipex_doctor import __version__, start_up
from ipex_doctor.errors import ExitCode, Terminated


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Console-script entry point: run the CLI and end with a documented exit code, never a
    traceback (``app.endings`` says how a raised run ends). Run on the process's own command
    line (``argv`` None), it holds the cyclic collector off while the command loads
    (``start_up``)."""
    if argv is None:
        start_up.hold()
    # NOTE: imported here, once the collector is held: Click is a fifth of what a command loads
    import click

    # NOTE: SIGTERM is heard as ``Terminated`` from main's first line, not only once a use case
    # installs its own handler (``app.interrupts``, which restores this one after): a run
    # stopped while its commands load or its request is built ends as every SIGTERM does, 143
    # and one line, instead of dying by the signal without a word.
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        # NOTE: imported inside the ``try``: loading the commands takes half a second on a busy
        # machine, and a Ctrl-C then ends as any interrupt does (130), not with a traceback.
        from ipex_doctor.cli.commands import cli

        code = cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except click.exceptions.Abort:
        _end(KeyboardInterrupt())
    except click.ClickException as exc:
        exc.show()
        sys.exit(ExitCode.USAGE if isinstance(exc, click.UsageError) else exc.exit_code)
    except (Exception, KeyboardInterrupt, Terminated) as exc:  # noqa: BLE001 - no traceback
        _end(exc)
    finally:
        start_up.loaded()  # NOTE: where no command ended the load (--help, a usage error)
    sys.exit(int(code) if isinstance(code, int) else ExitCode.OK)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def _end(exc: BaseException) -> NoReturn:
    import click

    from ipex_doctor.app.endings import ending_of

    ending = ending_of(exc, __version__)
    if ending.line is not None:
        click.echo(ending.line, err=True)
    sys.exit(ending.code)
