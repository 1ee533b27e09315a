"""The README stays true: two Quick start commands, CI runs the second, every command and
exit code documented."""

from __future__ import annotations

import re

from conftest import REPO

from ipex_doctor.cli.commands import cli
from ipex_doctor.errors import ExitCode

README = (REPO / "README.md").read_text()


def quick_start() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_is_two_commands_and_ci_runs_the_second() -> None:
    """Exactly two commands; .ci/run runs the second one, nothing less."""
    commands = quick_start()
    assert len(commands) == 2
    assert "ipex-doctor check" in commands[0] and "[ipex-cpu]" in commands[0]
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert commands[1] in ci


def test_every_command_is_documented() -> None:
    """Each Click command and kb subcommand appears in the README's command table."""
    names = []
    for name, command in cli.commands.items():
        sub = getattr(command, "commands", None)
        names.extend(f"{name} {s}" for s in sub) if sub else names.append(name)
    for name in names:
        assert f"`ipex-doctor {name}" in README, name


def test_every_exit_code_is_documented() -> None:
    """Each ExitCode value is a row of the exit-code table."""
    for code in ExitCode:
        assert re.search(rf"^\| {int(code)} \|", README, re.MULTILINE), code
