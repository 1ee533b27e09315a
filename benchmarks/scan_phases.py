"""The doctor's own CPU by phase in the whole ``scan`` of a small project (where it goes).

    python benchmarks/scan_phases.py [DIR] [--repeat N] [--baseline CHECKOUT]

Runs ``python -m ipex_doctor scan . -q --no-cache`` in DIR, as a pre-commit hook in a
project's root does (DIR: the small project of ``scan_speed.py``, 94 files, written to a
temporary directory; no policy file there) ``--repeat`` times, each in a
fresh interpreter that reads ``time.process_time`` at the start of each phase (the use case's
steps, wrapped by name: a step renamed makes this fail loudly, never measure silently
nothing), and prints the median of each phase, and the children's CPU (the examination's
handshake and probes, beside the doctor). ``--baseline CHECKOUT`` runs another checkout in
the same interleaved rounds. CPU, not wall: on a busy machine wall times say more of the load
than of the doctor; the load average is printed with the table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from scan_speed import write_small_project

ROOT = Path(__file__).resolve().parent.parent

# NOTE: run with ``python -c`` in the tree's root, the checkout (argv[1]) first on the path, so
# it imports that checkout's doctor; each wrapped step marks the CPU time when it starts and
# when it returns.
_TIMED = """
import json, os, resource, sys, time
marks = {}
def mark(name):
    marks.setdefault(name, time.process_time())
sys.path.insert(0, sys.argv.pop(1))
try:
    from ipex_doctor import start_up
except ImportError:  # a checkout from before the collector was held while a command loads
    pass
else:
    start_up.hold()  # what the console entry's first line does (cli.main, not called here)
from ipex_doctor.cli.commands import cli
mark("command")
import ipex_doctor.app.code_scan as use_case
from ipex_doctor.knowledge import known_issues
from ipex_doctor.probe import static_facts
mark("use case imported")
def timed(owner, name):
    step = getattr(owner, name)
    def run(*args, **kwargs):
        mark(name)
        try:
            return step(*args, **kwargs)
        finally:
            mark(name + " done")
    setattr(owner, name, run)
for owner, name in ((known_issues, "load_files"), (use_case, "gate_policy"),
                    (static_facts.StaticExamination, "start_probes"),
                    (use_case, "_notice_stopped_runs"),
                    (static_facts.StaticExamination, "finish"), (use_case, "conclude")):
    timed(owner, name)
try:
    cli.main(args=sys.argv[1:], standalone_mode=False)
finally:
    mark("end")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    marks["children"] = children.ru_utime + children.ru_stime
    print(json.dumps(marks), file=sys.stderr)
"""

PHASES = (
    ("interpreter start and imports up to the command", None, "command"),
    ("the use case's imports", "command", "use case imported"),
    ("knowledge base, rules, gate", "load_files", "gate_policy done"),
    ("scanner import, handshake answer, metadata, host", "gate_policy done", "start_probes done"),
    ("the reading", "_notice_stopped_runs done", "finish"),
    ("collecting the probes", "finish", "finish done"),
    ("the report", "conclude", "conclude done"),
    ("the whole process", None, "end"),
)


def _run(checkout: Path, tree: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _TIMED, str(checkout), "scan", ".", "-q", "--no-cache"],
        cwd=tree, capture_output=True, text=True, check=False,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    marks: dict[str, float] = json.loads(done.stderr.strip().splitlines()[-1])
    return marks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", help="default: the synthetic small project")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--baseline", type=Path, help="another checkout, run beside this one")
    args = parser.parse_args()
    checkouts = {"this": ROOT}
    if args.baseline is not None:
        checkouts["baseline"] = args.baseline.resolve()
    with tempfile.TemporaryDirectory(prefix="scan-phases-") as small:
        tree = args.tree
        if tree is None:
            write_small_project(Path(small))
            tree = small
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
        loads = [os.getloadavg()[0]]
        for _ in range(args.repeat):
            for name, checkout in checkouts.items():
                runs[name].append(_run(checkout, tree))
        loads.append(os.getloadavg()[0])
    print(
        f"doctor's own CPU (s) by phase, median of {args.repeat}; load {loads[0]:.1f} to {loads[1]:.1f}"
    )
    print(f"{'phase':<52}" + "".join(f"{name:>10}" for name in checkouts))
    for label, start, end in PHASES:
        cells = [
            statistics.median(m[end] - (m[start] if start else 0.0) for m in runs[name])
            for name in checkouts
        ]
        print(f"{label:<52}" + "".join(f"{cell:10.3f}" for cell in cells))
    children = [statistics.median(m["children"] for m in runs[name]) for name in checkouts]
    print(
        f"{'children (handshake, probes), beside it':<52}" + "".join(f"{c:10.3f}" for c in children)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
