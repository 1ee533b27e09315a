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


def _readme_statuses() -> dict[str, dict[str, str]]:
    """The README's verdict table as {verdict: {severity: status}}, read from its wording."""
    section = README.split("| verdict | meaning | status |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|") for line in section.strip().splitlines()[1:]]
    table: dict[str, dict[str, str]] = {}
    for row in rows:
        verdict, rule = row[1].strip().strip("`"), row[3].strip()
        if rule == "as affected":
            table[verdict] = dict(table["affected"])
        elif rule.startswith("by severity:"):
            pairs = re.findall(r"(error|warning|info) → (\w+)", rule)
            table[verdict] = dict(pairs)
        elif rule == "error → warn, else pass":
            table[verdict] = {"error": "warn", "warning": "pass", "info": "pass"}
        else:
            table[verdict] = dict.fromkeys(("error", "warning", "info"), rule)
    return table


def test_every_verdict_and_severity_gives_the_status_the_readme_says() -> None:
    """status_for agrees with the README's table on all 7 x 3 pairs (inconclusive: skip)."""
    from ipex_doctor.model.terms import Severity, Verdict
    from ipex_doctor.verdicts.judge import status_for

    table = _readme_statuses()
    assert set(table) == {v.value for v in Verdict}
    for verdict in Verdict:
        for severity in Severity:
            expected = table[verdict.value][severity.value]
            assert status_for(verdict, severity).value == expected, (verdict, severity)


def test_the_room_table_names_every_use_case() -> None:
    """The README's room table names each module of ``app/`` (the use cases a newcomer looks
    for first), and no module that is not there."""
    row = next(line for line in README.splitlines() if line.startswith("| `app/` |"))
    named = set(re.findall(r"`(\w+)`", row.split("|")[2]))
    modules = {p.stem for p in (REPO / "ipex_doctor" / "app").glob("*.py") if p.stem != "__init__"}
    assert modules <= named, sorted(modules - named)
