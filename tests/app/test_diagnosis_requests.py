"""The requests of the diagnosis commands, built from what was typed: repro and sanity explain
what they found (every finding's evidence shown, as with -v) unless -q; check and env do not."""

from __future__ import annotations

import pytest

from ipex_doctor.app.diagnosis import (
    Request,
    check_request,
    env_request,
    repro_request,
    sanity_request,
)
from ipex_doctor.model.terms import Isolation
from ipex_doctor.probe.options import ProbeOptions
from ipex_doctor.reporting.output_options import OutputOptions
from ipex_doctor.runs.sanity_options import SanityOptions


def _requested(command: str, verbosity: int) -> Request:
    probe, out, worker = ProbeOptions(), OutputOptions(verbosity=verbosity), Isolation.WORKER
    match command:
        case "repro":
            return repro_request(("dot-half",), probe, out, (), None, worker, ())
        case "sanity":
            return sanity_request(probe, out, (), None, None, SanityOptions())
        case "check":
            return check_request(
                probe, out, (), None, None, worker, (), True, False, (), SanityOptions()
            )
        case _:
            return env_request(probe, out, ())


@pytest.mark.parametrize(
    ("command", "typed", "shown"),
    [
        ("repro", -1, -1), ("repro", 0, 1), ("repro", 2, 2),
        ("sanity", -1, -1), ("sanity", 0, 1), ("sanity", 1, 1),
        ("check", 0, 0), ("check", -1, -1), ("env", 0, 0), ("env", 2, 2),
    ],
)  # fmt: skip
def test_repro_and_sanity_show_the_evidence_unless_quiet(
    command: str, typed: int, shown: int
) -> None:
    """-q (-1) stays quiet everywhere; otherwise repro and sanity show at least -v's detail."""
    assert _requested(command, typed).out.verbosity == shown


def test_repro_runs_the_checks_named_and_no_sanity_run() -> None:
    """repro's request names its checks (each once) and never the sanity run."""
    checks = repro_request(
        ("dot-half", "dot-half"), ProbeOptions(), OutputOptions(), (), None, Isolation.WORKER, ()
    ).checks
    assert checks is not None and checks.only == ("dot-half",) and checks.sanity is None
