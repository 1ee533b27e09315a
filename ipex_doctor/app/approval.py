"""Whether the user approves what a flow asks before it acts (``fix`` applying a plan or running
a file's interpreter, ``scan --undo`` restoring files): ``--yes``, else the user's answer at a
terminal, else no.

An answer is never waited for where none can come (standard input is not a terminal: a pipe, a
CI job, ``/dev/null``, or closed, when Python sets ``sys.stdin`` to ``None``), and none is read
from a terminal that went away while asking (a hangup: the read fails): the question is answered
no, and the flow that asked says what it did not do. How the question is put to the user is the
caller's (``ask``); nothing here prints.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

Approve = Callable[[str], bool]
"""Asked a question, says yes or no."""


def can_ask() -> bool:
    """Whether a question can be answered: standard input is a terminal."""
    # NOTE: started with standard input closed (``0<&-``), Python sets sys.stdin to None.
    return sys.stdin is not None and sys.stdin.isatty()


def approver(yes: bool, ask: Approve, *, say: Callable[[str], None] | None = None) -> Approve:
    """Yes to every question with ``yes`` (each question and its answer said through ``say``,
    when given, so a log shows what was approved), else ``ask``'s answer where standard input is
    a terminal (no if reading it fails); else no, without asking."""

    def approve(question: str) -> bool:
        if yes:
            if say is not None:
                say(f"{question} yes (--yes)")
            return True
        if not can_ask():
            return False
        try:
            return ask(question)
        except OSError:
            # NOTE: the terminal went away while asking (a closed ssh session: EIO): no answer.
            return False

    return approve
