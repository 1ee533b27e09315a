"""Reports older than schema 1.9 carry remedies as shell text: read into the typed actions a new
report carries, word for word, and nothing more."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, run_doctor

from ipex_doctor.model.remedy import PipAction
from ipex_doctor.model.terms import StepKind
from ipex_doctor.reporting.legacy_commands import parse_command, split_commands
from ipex_doctor.reporting.saved_reports import load_report

PY = "/envs/a/bin/python"
INDEX = "https://download.pytorch.org/whl/cpu"


@pytest.mark.parametrize(
    ("command", "action"),
    [
        (f"{PY} -m pip install 'torchvision==0.23.*'",
         PipAction(PY, StepKind.INSTALL, ("torchvision==0.23.*",))),
        (f"{PY} -m pip install torch==2.8.* torchvision==0.23.* --index-url {INDEX}",
         PipAction(PY, StepKind.INSTALL, ("torch==2.8.*", "torchvision==0.23.*"), INDEX)),
        (f"{PY} -m pip install x==1.0.0 --index-url={INDEX} --extra-index-url https://e/ --extra-index-url=https://f/",
         PipAction(PY, StepKind.INSTALL, ("x==1.0.0",), INDEX, ("https://e/", "https://f/"))),
        ("'/My Envs/bin/python' -m pip uninstall -y intel-extension-for-pytorch",
         PipAction("/My Envs/bin/python", StepKind.UNINSTALL, ("intel-extension-for-pytorch",))),
    ],
)  # fmt: skip
def test_the_two_shapes_of_remedy_are_read_word_for_word(command: str, action: PipAction) -> None:
    """Each word lands in its field, unjudged (the policy judges it after), and the action
    renders back to a command pip reads the same way."""
    assert parse_command(command) == action
    assert parse_command(action.render()) == action


@pytest.mark.parametrize(
    "command",
    [
        "sudo usermod -aG render $USER",
        f"{PY} -m pip install",  # nothing to install
        f"{PY} -m pip install --user torch==2.8.0",  # an option no remedy had
        f"{PY} -m pip install torch==2.8.0 --index-url",  # an option without its value
        f"{PY} -m pip install torch==2.8.0 --index-url {INDEX} --index-url https://pypi.org/simple",
        f"{PY} -m pip uninstall torch",  # without -y it would prompt
        f"{PY} -m pip uninstall -y --yes torch",
        f"{PY} -m pip download torch==2.8.0",
        f"{PY} -c 'import os'",
        f"{PY} -m pip install 'torch==2.8.0",  # unbalanced quote
        "",
    ],
)
def test_anything_else_stays_a_manual_command(command: str) -> None:
    assert parse_command(command) is None
    assert split_commands([command]) == ([], [command])


@pytest.mark.parametrize("version", ["1.7", "1.8"])
def test_an_old_report_is_read_with_its_actions_and_renders_the_same_commands(tmp_path: Path, version: str) -> None:  # fmt: skip
    """A report of schema 1.7 or 1.8 (the last without actions) whose finding has only
    commands: read back, the finding has the actions they spell and the manual command they do
    not; ``report`` writes them as 1.9 carries them, with the commands rendered as they were."""
    data = json.loads(
        (REPO / "tests" / "assets" / "reports" / "cpu-reference-check.json").read_text()
    )
    data["schema_version"] = version
    commands = [f"{PY} -m pip install 'intel-extension-for-pytorch==2.8.*'", "sudo reboot"]
    data["findings"][0]["commands"] = commands
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    finding = load_report(path).findings[0]
    assert finding.actions == (
        PipAction(PY, StepKind.INSTALL, ("intel-extension-for-pytorch==2.8.*",)),
    )
    assert finding.manual_commands == ("sudo reboot",)
    assert list(finding.commands) == commands
    done = run_doctor("report", str(path), "--as-recorded", "--json", "-", "--fail-on", "never")
    written = json.loads(done.stdout)["findings"]
    replayed = next(f for f in written if f["id"] == data["findings"][0]["id"])
    assert replayed["commands"] == commands and replayed["manual_commands"] == ["sudo reboot"]
    assert replayed["actions"] == [finding.actions[0].to_dict()]
