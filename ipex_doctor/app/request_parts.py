"""The parts of a request, built from the values the user typed (no parser involved).

The command line declares the options and hands their parsed values here: what to examine
(``probe_options``), where the report goes and how the gate judges it (``output_options``),
how the sanity run goes (``sanity_options``), and the one-value options read once
(``baseline``, ``interpreter``). Each builder's parameters are named as the options that give
them, so the command line can check, when a command is declared, that a group of options and
its builder agree.

Light on purpose: the command line imports this module for every command, ``--help``
included, so each builder imports what it builds only when it is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ipex_doctor.errors import DoctorError

if TYPE_CHECKING:
    from ipex_doctor.probe.options import ProbeOptions
    from ipex_doctor.reporting.output_options import OutputOptions
    from ipex_doctor.reporting.saved_reports import SavedReport
    from ipex_doctor.runs.sanity_options import SanityOptions


def probe_options(python: str | None, timeout_s: float) -> ProbeOptions:
    """What to examine: the interpreter ``python`` (``None``: the one running the doctor),
    each step limited to ``timeout_s``."""
    import sys

    from ipex_doctor.probe.options import ProbeOptions

    return ProbeOptions(python=sys.executable if python is None else python, timeout_s=timeout_s)


def output_options(
    json_path: str | None, junit_path: str | None, markdown_path: str | None,
    html_path: str | None, fail_on: str | None, ignores: tuple[str, ...],
    policy_file: str | None, quiet: bool, verbose: int, sarif_path: str | None = None,
) -> OutputOptions:  # fmt: skip
    """The output options: a sink for each report path given, in the formats' order, the gate
    ``fail_on`` (``None``: the policy's, else the default), and the verbosity (``quiet``: -1,
    else the count of ``verbose``). ``sarif_path`` is scan's alone."""
    from ipex_doctor.reporting.formats.kinds import Format
    from ipex_doctor.reporting.output_options import FailOn, OutputOptions

    kinds = (Format.JSON, Format.JUNIT, Format.MARKDOWN, Format.HTML, Format.SARIF)
    paths = zip(kinds, (json_path, junit_path, markdown_path, html_path, sarif_path), strict=True)
    return OutputOptions(
        sinks=tuple((kind, path) for kind, path in paths if path is not None),
        fail_on=FailOn(fail_on) if fail_on else None,
        ignores=ignores,
        policy_file=policy_file,
        verbosity=-1 if quiet else verbose,
    )


def sanity_options(
    profile: str,
    amp_dtype: str,
    lr: float | None,
    weights: str | None,
    data: str | None,
    no_ipex: bool,
) -> SanityOptions:
    """How the sanity run goes; ``no_ipex`` leaves out the ``ipex.optimize`` training path."""
    from ipex_doctor.runs.sanity_options import SanityOptions

    return SanityOptions(profile, amp_dtype, lr, weights, data, use_ipex=not no_ipex)


def baseline(path: str) -> SavedReport:
    """The ``--baseline`` report at ``path``, read and validated once; a missing, unreadable
    or invalid file is a ``DoctorError`` naming it."""
    from ipex_doctor.reporting.saved_reports import SavedReport

    return SavedReport.read(path)


def interpreter(path: str) -> str:
    """``--python`` as typed; an empty or blank path is a ``DoctorError`` (it would otherwise
    fall back, silently, to the doctor's own interpreter)."""
    if not path.strip():
        raise DoctorError(
            f"--python {path!r} names no interpreter; give the path of the environment's "
            "python, or leave --python out to examine the one running the doctor"
        )
    return path
