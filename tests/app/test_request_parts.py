"""The parts of a request, built from typed values without a parser: the same values the
command line hands them, and the same refusals, in one line each."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO, doctor_env

from ipex_doctor.app import request_parts
from ipex_doctor.errors import DoctorError
from ipex_doctor.reporting.formats.kinds import Format
from ipex_doctor.reporting.output_options import FailOn

_NO_OUTPUT = dict.fromkeys(
    ("json_path", "junit_path", "markdown_path", "html_path", "fail_on", "policy_file")
)


def test_output_options_pair_each_path_with_its_format_in_the_formats_order() -> None:
    """A sink for each path given and none for the others, JSON first whatever was typed;
    the gate parsed, the ignores and policy kept as typed."""
    out = request_parts.output_options(
        **{**_NO_OUTPUT, "html_path": "r.html", "json_path": "-", "fail_on": "warn"},
        ignores=("a=why",), quiet=False, verbose=0, sarif_path="r.sarif",
    )  # fmt: skip
    assert out.sinks == ((Format.JSON, "-"), (Format.HTML, "r.html"), (Format.SARIF, "r.sarif"))
    assert (out.fail_on, out.ignores, out.policy_file) == (FailOn.WARN, ("a=why",), None)


@pytest.mark.parametrize(("quiet", "verbose", "verbosity"), [(True, 2, -1), (False, 2, 2)])
def test_quiet_wins_over_verbose(quiet: bool, verbose: int, verbosity: int) -> None:
    out = request_parts.output_options(**_NO_OUTPUT, ignores=(), quiet=quiet, verbose=verbose)
    assert (out.verbosity, out.sinks, out.fail_on) == (verbosity, (), None)


def test_probe_options_examine_the_doctors_interpreter_unless_one_is_named() -> None:
    assert request_parts.probe_options(None, 5.0).python == sys.executable
    named = request_parts.probe_options("/opt/env/bin/python", 5.0)
    assert (named.python, named.timeout_s) == ("/opt/env/bin/python", 5.0)


def test_sanity_options_no_ipex_leaves_out_the_ipex_path() -> None:
    typed = ("full", "float16", 0.01, None, None)
    assert request_parts.sanity_options(*typed, no_ipex=True).use_ipex is False
    kept = request_parts.sanity_options(*typed, no_ipex=False)
    assert (kept.profile, kept.amp_dtype, kept.lr, kept.use_ipex) == ("full", "float16", 0.01, True)


@pytest.mark.parametrize("path", ["", " ", "\t"])
def test_a_blank_interpreter_is_refused_in_one_line(path: str) -> None:
    with pytest.raises(DoctorError) as refused:
        request_parts.interpreter(path)
    assert str(refused.value).startswith(f"--python {path!r} names no interpreter; give the path")


def test_an_interpreter_is_kept_as_typed() -> None:
    assert request_parts.interpreter(" ./venv/bin/python") == " ./venv/bin/python"


def test_a_baseline_is_read_once_and_a_missing_one_named() -> None:
    """The saved report is read and validated here; a missing file is a one-line error."""
    path = str(REPO / "tests/assets/reports/cpu-reference-check.json")
    saved = request_parts.baseline(path)
    assert saved.path == path and saved.report.findings
    with pytest.raises(DoctorError, match="no-such.json: no such report file"):
        request_parts.baseline(str(REPO / "no-such.json"))


def test_the_module_imports_nothing_it_builds_until_asked() -> None:
    """The command line imports it for ``--help``: in a fresh interpreter, importing it loads
    no probe, reporting or runs module (the builders import those when called)."""
    code = (
        "import sys, ipex_doctor.app.request_parts\n"
        "print('\\n'.join(m for m in sys.modules if m.startswith('ipex_doctor.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=doctor_env(), check=True
    )
    loaded = set(done.stdout.split())
    assert "ipex_doctor.app.request_parts" in loaded
    heavy = ("ipex_doctor.probe", "ipex_doctor.reporting", "ipex_doctor.runs")
    assert not {m for m in loaded if m.startswith(heavy)}
