"""Saved reports and snapshots as a user (or an attacker) hands them to ``fix``: real files,
made from a real report of a real environment, then edited the way a forger would."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from conftest import run_doctor

FINDING = "torch-missing"
"""The finding the edits go to: it fails in every environment without torch."""


def pip_env(index_url: str) -> dict[str, str]:
    """pip's configuration for a test: only ``index_url`` (the machine's pip.conf, a mirror or
    a wheel directory must not decide what a test installs)."""
    return {"PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": index_url, "PIP_FIND_LINKS": ""}


def action(python: str, verb: str, *requirements: str, index_url: str | None = None) -> dict[str, Any]:  # fmt: skip
    """A pip action as a report's JSON carries it."""
    return {"python": python, "verb": verb, "requirements": list(requirements),
            "index_url": index_url, "extra_index_urls": []}  # fmt: skip


def command(entry: Mapping[str, Any]) -> str:
    """The shell text of an action, as a report older than schema 1.9 carried it."""
    words = [entry["python"], "-m", "pip", entry["verb"]]
    words += ["-y"] if entry["verb"] == "uninstall" else []
    words += entry["requirements"]
    words += ["--index-url", entry["index_url"]] if entry["index_url"] else []
    return " ".join(shlex.quote(word) for word in words)


def saved_report(
    tmp_path: Path, python: str, actions: Sequence[Mapping[str, Any]], status: str = "fail", *,
    legacy: bool = False, interpreter: str | None = None,
) -> Path:  # fmt: skip
    """A real report of ``python``'s environment (``env --json``) whose torch-missing finding
    carries ``actions`` at ``status``: typed, or (``legacy``) as the shell text of a schema 1.7
    report. ``interpreter`` replaces the interpreter the report says it examined."""
    path = tmp_path / "before.json"
    done = run_doctor("env", "--python", python, "--json", str(path), "-q")
    assert done.returncode == 1, done.stderr
    data = json.loads(path.read_text())
    for finding in data["findings"]:
        if legacy:  # NOTE: the commands (rendered) stay, as an old report wrote them
            finding.pop("actions", None), finding.pop("manual_commands", None)
    finding = next(f for f in data["findings"] if f["id"] == FINDING)
    finding["status"] = status
    if legacy:
        data["schema_version"] = "1.7"
        finding["commands"] = [command(entry) for entry in actions]
    else:
        finding["actions"] = list(actions)
    if interpreter is not None:
        data["environment"]["interpreter"]["executable"] = interpreter
    path.write_text(json.dumps(data))
    return path


def snapshot(path: Path, python: str, edit: Callable[[list[dict[str, Any]]], object] | None = None) -> Path:  # fmt: skip
    """The snapshot ``fix`` would write of ``python``'s environment, its distributions (JSON)
    changed in place by ``edit`` before it is written to ``path``."""
    from ipex_doctor.model.repair import Snapshot
    from ipex_doctor.runs import pip_actions

    data = Snapshot(python, "2026-11-25T00:00:00Z", pip_actions.installed(python)).to_dict()
    if edit is not None:
        edit(data["distributions"])
    path.write_text(json.dumps(data))
    return path
