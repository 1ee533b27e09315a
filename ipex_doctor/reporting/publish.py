"""Publishing a finished report: apply the gate policy, print it, write every sink, exit code.

One report model feeds every format; this module chooses the streams: the human report goes to
stdout unless a machine format goes there (``-``), in which case it goes to stderr. Several
sinks can be written in one run (``--json a.json --junit-xml b.xml --markdown -``); every file
is written atomically.
"""

from __future__ import annotations

import datetime
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO

from ipex_doctor.errors import ExitCode
from ipex_doctor.model.findings import Report
from ipex_doctor.reporting import output
from ipex_doctor.reporting.formats.renderers import chunk_renderer
from ipex_doctor.reporting.output_options import OutputOptions
from ipex_doctor.reporting.policy import Policy

if TYPE_CHECKING:
    from rich.console import RenderableType


def _log_width(stream: TextIO) -> int | None:
    """``None`` on a terminal (rich wraps to it); else COLUMNS, or 0: do not wrap at all."""
    try:
        if stream.isatty():
            return None
    except (AttributeError, ValueError):
        pass
    columns = os.environ.get("COLUMNS", "").strip()
    return int(columns) if columns.isdigit() else 0


def print_human(renderable: RenderableType | Iterator[RenderableType], *, to_stderr: bool) -> None:
    """Print the human report: styled on a terminal; plain, and never cut mid-word, in a log.

    In a CI log or a file there is no line length to respect unless COLUMNS gives one, and
    rich's default 80 columns would cut paths, URLs and the commands of remedies in two.
    ``renderable`` may be the report's parts as they are made (``console_parts``): they are
    printed a group at a time, and never all held.
    """
    from ipex_doctor.reporting.formats.console import printed_parts, write_plain_text

    stream = sys.stderr if to_stderr else sys.stdout
    width = _log_width(stream)
    if width is None:
        # NOTE: imported for a terminal alone: a log's text is written without rich
        # (``console.write_plain_text``), and a pre-commit hook's scan saves its import.
        from rich.console import Console

        console = Console(stderr=to_stderr, highlight=False)
        for part in printed_parts(renderable):
            console.print(part)
        return
    write_plain_text(renderable, stream, width=width or None)
    stream.flush()


def publish(
    report: Report, options: OutputOptions, policy: Policy, *, today: datetime.date | None = None
) -> ExitCode:
    """Apply ``policy``, print the human report, write the sinks; return the gate's exit code."""
    from ipex_doctor.reporting.formats.console import console_parts

    report = policy.apply(report, today=today)
    gate = policy.decide(report)
    to_stdout = any(path == output.STDOUT for _, path in options.sinks)
    print_human(console_parts(report, gate, verbosity=options.verbosity), to_stderr=to_stdout)
    for fmt, path in options.sinks:
        output.write_text(path, chunk_renderer(fmt)(report, gate))
    return gate.exit_code
