"""The output options of a command, typed: where the report goes and how the gate judges it.

Light on purpose: the command line builds them for every command, light ones included, so
the writers and the policy reader are imported only when a report is published.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, replace

from ipex_doctor.errors import DoctorError, assert_never
from ipex_doctor.model.terms import Status, TextEnum
from ipex_doctor.reporting.formats.kinds import Format


@enum.unique
class FailOn(TextEnum):
    """Which findings make the run exit 1."""

    FAIL = "fail"
    """fail and error findings (the default)."""
    WARN = "warn"
    """warn, fail and error findings."""
    NEVER = "never"
    """none: report only (usage and internal errors still exit 2 and 3)."""

    def failing(self) -> frozenset[Status]:
        """The statuses that fail the run under this threshold."""
        match self:
            case FailOn.NEVER:
                return frozenset()
            case FailOn.WARN:
                return frozenset({Status.WARN, Status.FAIL, Status.ERROR})
            case FailOn.FAIL:
                return frozenset({Status.FAIL, Status.ERROR})
            case _:
                assert_never(self)


@dataclass(frozen=True)
class OutputOptions:
    """Where the report goes and how the gate judges it (the CLI's output options, typed)."""

    sinks: tuple[tuple[Format, str], ...] = ()
    """The machine formats asked for, each with its path (``-``: stdout), in the order given."""
    fail_on: FailOn | None = None
    """``--fail-on``; ``None``: the policy file's, else ``fail``."""
    ignores: tuple[str, ...] = ()
    """``--ignore ID[=REASON]`` as typed."""
    policy_file: str | None = None
    verbosity: int = 0
    """-1 (``-q``): problems only; 0: problems, notes and observations; 1 (``-v``): everything."""

    def showing_evidence(self) -> OutputOptions:
        """These options for a command that explains what it found (repro, sanity): every
        finding's evidence shown, as with ``-v``, unless ``-q``."""
        return self if self.verbosity < 0 else replace(self, verbosity=max(self.verbosity, 1))

    def check(self) -> None:
        """Refuse two formats on stdout or in one file, and destinations that cannot be written.

        Called before anything runs: a report path that cannot be written is a usage error
        found in a blink, not after minutes of diagnosis.
        """
        from ipex_doctor.reporting import output

        on_stdout = [str(fmt) for fmt, path in self.sinks if path == output.STDOUT]
        if len(on_stdout) > 1:
            raise DoctorError(
                f"only one format can go to stdout ('-'), not {' and '.join(on_stdout)}",
                tip="write the others to files",
            )
        files: dict[str, Format] = {}
        for fmt, path in self.sinks:
            if path == output.STDOUT:
                continue
            key = os.path.realpath(path)
            if key in files:
                raise DoctorError(
                    f"{files[key]} and {fmt} would both be written to {path}",
                    tip="give each format its own file",
                )
            files[key] = fmt
            output.check_writable(path)
