"""Approval: ``--yes`` approves (and says so when asked to), else the user's answer at a
terminal, else no without asking: never a wait on input that cannot come."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Iterator
from typing import TextIO

import pytest

from ipex_doctor.app.approval import approver


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[TextIO]:
    """Standard input on a real pseudo-terminal."""
    controller, follower = os.openpty()
    with os.fdopen(follower) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        yield stdin
    os.close(controller)


@pytest.fixture
def pipe(monkeypatch: pytest.MonkeyPatch) -> Iterator[TextIO]:
    """Standard input on a real file that is not a terminal (as in a CI job)."""
    with open(os.devnull) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        yield stdin


def _asker(answer: bool, asked: list[str]) -> Callable[[str], bool]:
    def ask(question: str) -> bool:
        asked.append(question)
        return answer

    return ask


@pytest.mark.usefixtures("pipe")
def test_yes_approves_without_asking_and_says_so_when_told() -> None:
    asked: list[str] = []
    said: list[str] = []
    assert approver(True, _asker(False, asked), say=said.append)("Apply this plan?") is True
    assert approver(True, _asker(False, asked))("Restore 2 files?") is True
    assert asked == [] and said == ["Apply this plan? yes (--yes)"]


@pytest.mark.parametrize("answer", [True, False])
@pytest.mark.usefixtures("terminal")
def test_at_a_terminal_the_users_answer_decides(answer: bool) -> None:
    asked: list[str] = []
    assert approver(False, _asker(answer, asked))("Apply this plan?") is answer
    assert asked == ["Apply this plan?"]


@pytest.mark.usefixtures("pipe")
def test_without_a_terminal_the_answer_is_no_and_nothing_is_asked() -> None:
    """Asking would wait for input that cannot come (or read a pipe meant for something else)."""
    asked: list[str] = []
    assert approver(False, _asker(True, asked))("Apply this plan?") is False
    assert asked == []


def test_with_standard_input_closed_the_answer_is_no_and_nothing_is_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Started with fd 0 closed (``0<&-``), Python's ``sys.stdin`` is ``None``: no, not a
    crash (it was exit 3, AttributeError; the command itself is in test_repair_hostile)."""
    monkeypatch.setattr(sys, "stdin", None)
    asked: list[str] = []
    assert approver(False, _asker(True, asked))("Apply this plan?") is False
    assert asked == []


@pytest.mark.usefixtures("terminal")
def test_a_terminal_that_goes_away_while_asking_answers_no() -> None:
    """The terminal hung up while the question waited (a dropped ssh session): the blocked read
    fails with EIO, as input() does then; the answer is no. Before: the OSError escaped (exit 3,
    a crash report), seen with a real ``fix --undo`` whose pseudo-terminal was closed
    mid-question. The failing read is raised here: when the hangup comes before the read
    starts, the read returns end of file instead, so a real hangup cannot be timed to it."""
    asked: list[str] = []

    def ask(question: str) -> bool:
        asked.append(question)
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    assert approver(False, ask)("Apply this plan?") is False
    assert asked == ["Apply this plan?"]
