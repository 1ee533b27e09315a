"""The command's start (``start_up``): the cyclic collector held off while a command loads, run
as the console runs it (a real ``python -m ipex_doctor`` process), and on for the command's own
work; a caller that hands ``main`` its arguments keeps its collector as it was."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import doctor_env

from ipex_doctor.cli import main

# NOTE: runs the doctor as ``python -m ipex_doctor`` does (main reads the process's own command
# line) and prints, at exit, the collector's state where each command's own work ran: the
# scan's reading, or the leaf command's callback for any other; plus the number of collections
# between the hold and the end of the load.
_WATCHED = """
import atexit, gc, json, runpy, sys
import click
from ipex_doctor import start_up
seen = {"collections": 0}
def count(phase, info):
    if phase == "start" and start_up._held:
        seen["collections"] += 1
gc.callbacks.append(count)
def at_work(where):
    seen.setdefault(where, {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count() > 0})
import ipex_doctor.scan.engine as engine
scan_paths = engine.scan_paths
def reading(*args, **kwargs):
    at_work("work")
    return scan_paths(*args, **kwargs)
engine.scan_paths = reading
import ipex_doctor.app.fix_undo as fix_undo
undo_scan_fix = fix_undo.undo_scan_fix
def undoing(*args, **kwargs):
    at_work("work")
    return undo_scan_fix(*args, **kwargs)
fix_undo.undo_scan_fix = undoing
invoke = click.core.Command.invoke
def leaf(self, context):
    if not isinstance(self, click.core.Group) and self.name != "scan":
        at_work("work")
    return invoke(self, context)
click.core.Command.invoke = leaf
atexit.register(lambda: print("|" + json.dumps({**seen, "on_at_exit": gc.isenabled()}),
                              file=sys.stderr))
runpy.run_module("ipex_doctor", run_name="__main__", alter_sys=True)
"""


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "train.py").write_text(
        "import torch\nimport intel_extension_for_pytorch as ipex\nmodel = ipex.optimize(model)\n"
    )
    return root


def _watched(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _WATCHED, *args], capture_output=True, text=True,
        env=doctor_env(), stdin=subprocess.DEVNULL, timeout=120, check=False,
    )  # fmt: skip
    lines = [line for line in done.stderr.splitlines() if line.startswith("|")]
    assert lines, done.stderr[-2000:]
    seen: dict[str, object] = json.loads(lines[-1][1:])
    seen["returncode"] = done.returncode
    return seen


def test_a_scan_loads_with_the_collector_held_and_reads_with_it_on(tmp_path: Path) -> None:
    """No collection runs while the scan loads (from the console entry's first line to its use
    case's import); the tree is read with the collector on and what was loaded frozen; it is
    on at the exit."""
    project = _project(tmp_path / "project")
    seen = _watched("scan", str(project), "--no-cache", "-q")
    assert seen["returncode"] in (0, 1)  # NOTE: 1 where this interpreter has torch (the gate)
    assert seen["collections"] == 0
    assert seen["work"] == {"enabled": True, "frozen": True}
    assert seen["on_at_exit"] is True


@pytest.mark.parametrize(
    "args",
    [("kb", "list"), ("explain", "RuntimeError: XPU out of memory"), ("--help",),
     ("scan", "--undo", "no-such-record.json"), ("scan", "--no-such-option")],
    ids=["kb list", "explain", "help", "scan --undo", "usage error"],
)  # fmt: skip
def test_every_other_command_runs_with_the_collector_on(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """Every command's own work runs with the collector on (the commands' group ends the load
    for each but scan, and scan --undo ends it itself), and no path leaves it off at the exit
    (--help, a usage error, a record scan --undo refuses)."""
    record = tmp_path / "no-such-record.json"
    record.write_text("{}")
    seen = _watched(*(str(record) if arg == record.name else arg for arg in args))
    if "work" in seen:
        assert seen["work"] == {"enabled": True, "frozen": True}
    else:
        assert args in (("--help",), ("scan", "--no-such-option"))
    assert seen["collections"] == 0
    assert seen["on_at_exit"] is True


def test_a_caller_that_hands_main_its_arguments_keeps_its_collector(tmp_path: Path) -> None:
    """``main(argv)`` in this very process (a test, a program of its own) neither turns the
    collector off nor freezes this process's objects."""
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    with pytest.raises(SystemExit) as ended:
        main(["kb", "list"])
    assert ended.value.code == 0
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
