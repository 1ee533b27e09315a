"""Progress names each phase in the unit its evidence will use: the sanity run's training in
SGD steps ("in 12 steps"), its throughput in rounds ("best of 3 rounds")."""

from __future__ import annotations

import io

from ipex_doctor.reporting.progress import LiveFeedback, PlainFeedback


def _log(*steps: tuple[str, int, int]) -> list[str]:
    stream = io.StringIO()
    feedback = PlainFeedback(stream)
    feedback.status("running sanity on cpu")
    for phase, done, total in steps:
        feedback.step(phase, done, total)
    return [line.split("] ", 1)[1] for line in stream.getvalue().splitlines()]


def test_a_phase_counts_steps_unless_it_names_its_unit() -> None:
    from ipex_doctor.reporting.progress import phase_line, phase_unit

    assert phase_unit("train (AMP)") == ("train (AMP)", "steps")
    assert phase_unit("throughput: rounds") == ("throughput", "rounds")
    assert phase_line("train (AMP)", 12) == "train (AMP) (12 steps)"
    assert phase_line("throughput: rounds", 3) == "throughput (3 rounds)"
    assert phase_line("inference agreement", 1) == "inference agreement"


def test_the_log_says_rounds_where_the_evidence_says_rounds() -> None:
    """The throughput phase, reported per measurement in completed rounds of 3, is one line
    "throughput (3 rounds)", as its evidence says "best of 3 rounds"; training stays in steps."""
    lines = _log(
        *(("throughput: rounds", done, 3) for done in (0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3)),
        *(("train (AMP)", done, 12) for done in range(1, 13)),
    )
    assert lines == ["running sanity on cpu", "  throughput (3 rounds)", "  train (AMP) (12 steps)"]
    assert not any("steps" in line for line in lines if "throughput" in line)


def test_a_live_bar_names_the_unit_and_prints_brackets_as_they_are() -> None:
    with LiveFeedback() as feedback:
        feedback.step("throughput: rounds", 1, 3)
        feedback.step("train [amp]", 2, 12)
        described = [task.description for task in feedback._progress.tasks[1:]]
    assert described == ["  throughput, rounds", "  train \\[amp], steps"]
