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
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from ipex_doctor.errors import DoctorError, ExitCode
from ipex_doctor.model.findings import Report
from ipex_doctor.reporting import output
from ipex_doctor.reporting.policy import Policy, build_policy

if TYPE_CHECKING:
    from rich.console import RenderableType


@dataclass(frozen=True)
class OutputOptions:
    """Where the report goes and how the gate judges it (the CLI's output options)."""

    json_path: str | None = None
    junit_path: str | None = None
    markdown_path: str | None = None
    html_path: str | None = None
    baseline_path: str | None = None
    """A saved report to compare with (``--baseline``; check, sanity and report only)."""
    fail_on: str | None = None
    ignores: tuple[str, ...] = ()
    policy_file: str | None = None
    verbosity: int = 0
    """-1 (``-q``): problems only; 0: problems, notes and observations; 1 (``-v``): everything."""

    @classmethod
    def take(cls, params: dict[str, Any], *, explaining: bool = False) -> OutputOptions:
        """The options among a command's ``params`` (removed from it): the sinks, the gate,
        ``quiet`` and ``verbose``. ``explaining`` commands (repro, sanity) show the evidence of
        every finding unless ``-q``."""
        verbosity = -1 if params.pop("quiet") else int(params.pop("verbose"))
        if explaining and verbosity >= 0:
            verbosity = max(verbosity, 1)
        names = ("json_path", "junit_path", "markdown_path", "html_path", "fail_on", "ignores",
                 "policy_file")  # fmt: skip
        return cls(
            **{name: params.pop(name) for name in names},
            baseline_path=params.pop("baseline_path", None),
            verbosity=verbosity,
        )

    def sinks(self) -> dict[str, str]:
        """The machine formats asked for, by format name."""
        chosen = {
            "json": self.json_path,
            "junit": self.junit_path,
            "markdown": self.markdown_path,
            "html": self.html_path,
        }
        return {name: path for name, path in chosen.items() if path is not None}

    def check(self) -> None:
        """Refuse two formats on stdout or in one file, and destinations that cannot be written.

        Called before anything runs: a report path that cannot be written is a usage error
        found in a blink, not after minutes of diagnosis.
        """
        on_stdout = [name for name, path in self.sinks().items() if path == output.STDOUT]
        if len(on_stdout) > 1:
            raise DoctorError(
                f"only one format can go to stdout ('-'), not {' and '.join(on_stdout)}",
                tip="write the others to files",
            )
        files: dict[str, str] = {}
        for name, path in self.sinks().items():
            if path == output.STDOUT:
                continue
            key = os.path.realpath(path)
            if key in files:
                raise DoctorError(
                    f"{files[key]} and {name} would both be written to {path}",
                    tip="give each format its own file",
                )
            files[key] = name
            output.check_writable(path)
        self.baseline()

    def baseline(self) -> Report | None:
        """The ``--baseline`` report, read and validated (a bad file is a one-line error)."""
        if self.baseline_path is None:
            return None
        from pathlib import Path

        from ipex_doctor.reporting.replay import load_report

        return load_report(Path(self.baseline_path))

    def policy(self, known_ids: Collection[str]) -> Policy:
        """The gate policy (command line + policy file), its ids checked against ``known_ids``."""
        policy = build_policy(
            fail_on=self.fail_on, ignore_args=self.ignores, policy_file=self.policy_file
        )
        policy.check_ids(known_ids)
        return policy


def _log_width(stream: TextIO) -> int | None:
    """``None`` on a terminal (rich wraps to it); else COLUMNS, or 0: do not wrap at all."""
    try:
        if stream.isatty():
            return None
    except (AttributeError, ValueError):
        pass
    columns = os.environ.get("COLUMNS", "").strip()
    return int(columns) if columns.isdigit() else 0


def print_human(renderable: RenderableType, *, to_stderr: bool) -> None:
    """Print the human report: styled on a terminal; plain, and never cut mid-word, in a log.

    In a CI log or a file there is no line length to respect unless COLUMNS gives one, and
    rich's default 80 columns would cut paths, URLs and the commands of remedies in two.
    """
    from rich.console import Console

    from ipex_doctor.reporting.formats.console import to_plain_text

    stream = sys.stderr if to_stderr else sys.stdout
    width = _log_width(stream)
    if width is None:
        Console(stderr=to_stderr, highlight=False).print(renderable)
        return
    stream.write(to_plain_text(renderable, width=width or None))
    stream.flush()


def render_sink(name: str, report: Report, policy: Policy) -> str:
    """The text of one output format; each formatter is imported only when asked for (the HTML
    and chart code costs light commands nothing)."""
    if name == "json":
        from ipex_doctor.reporting.formats.json_format import render_json

        return render_json(report)
    if name == "junit":
        from ipex_doctor.reporting.formats.junit import render_junit

        return render_junit(report, failing=policy.fail_on.failing())
    if name == "markdown":
        from ipex_doctor.reporting.formats.markdown import render_markdown

        return render_markdown(report)
    from ipex_doctor.reporting.formats.html import render_html

    return render_html(report, fail_on=policy.fail_on.value, failing=policy.fail_on.failing())


def publish(
    report: Report, options: OutputOptions, policy: Policy, *, today: datetime.date | None = None
) -> ExitCode:
    """Apply ``policy``, print the human report, write the sinks; return the exit code."""
    from ipex_doctor.reporting.formats.console import render_console

    refusal: DoctorError | None = None
    baseline = options.baseline()
    if baseline is not None:
        from ipex_doctor.verdicts.baseline import BaselineError, attach

        try:
            report = attach(report, baseline, str(options.baseline_path))
        except BaselineError as exc:
            refusal = exc  # NOTE: the report is still written, without the comparison
    report = policy.apply(report, today=today)
    sinks = options.sinks()
    to_stdout = output.STDOUT in sinks.values()
    print_human(
        render_console(report, verbosity=options.verbosity, fail_on=policy.fail_on.value),
        to_stderr=to_stdout,
    )
    for name, path in sinks.items():
        output.write_text(path, render_sink(name, report, policy))
    if refusal is not None:
        raise refusal
    return policy.exit_code(report)
