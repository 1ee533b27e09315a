"""What a Python program starts, seen from inside it: a fresh interpreter runs the program with
an audit hook on ``subprocess.Popen`` (CPython raises that event for every process it starts
that way), and the argv of each process started is read back. No tracer, no mock: the program
runs as it would, and what it starts runs too."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from conftest import doctor_env

# NOTE: registered before the program is imported, so its record is written after every other
# exit handler (the reaper's last sweep included) has run.
_AUDITED = """
import atexit, json, runpy, sys
record, how, what = sys.argv[1:4]
started = []
def _hook(event, args):
    if event == "subprocess.Popen":
        started.append([str(part) for part in args[1]])
sys.addaudithook(_hook)
atexit.register(lambda: open(record, "w").write(json.dumps(started)))
sys.argv = [what, *sys.argv[4:]]
if how == "module":
    runpy.run_module(what, run_name="__main__", alter_sys=True)
else:
    runpy.run_path(what, run_name="__main__")
"""


def started_by(
    record: Path,
    target: str,
    *args: str,
    module: bool = True,
    extra_env: Mapping[str, str] | None = None,
) -> tuple[subprocess.CompletedProcess[str], list[list[str]]]:
    """Run ``target`` (a module as ``python -m``, else a script's path) with ``args`` in a fresh
    interpreter; its outcome, and the argv of every process it started, in order."""
    done = subprocess.run(
        [sys.executable, "-c", _AUDITED, str(record), "module" if module else "path", target,
         *args],
        capture_output=True, text=True, timeout=600, env=doctor_env(extra_env),
        stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    started = json.loads(record.read_text()) if record.exists() else None
    assert started is not None, f"no record written: {done.stderr}"
    return done, started
