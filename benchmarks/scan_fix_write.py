"""Time what ``scan --fix`` adds to computing its rewrites: the undo record and the in-place
writes, all or none (``ipex_doctor.scan.fix.run.commit``).

    python benchmarks/scan_fix_write.py [--files N] [--repeat N]

A tree of ``--files`` Python modules (each about 1 KB, one autocast to rewrite) is copied
afresh for every round; then, in this process, ``fix_run.plan`` reads and fixes every file in
memory (what ``--diff`` computes: the floor), and ``fix_run.commit`` writes the record and
every file in place, each fsynced (what ``--fix`` adds). Rounds run one after the other, the
median of each is printed with the ratio commit / plan.

Budget: the writes cost at most as much as the planning they follow (ratio <= 1.0). The
record and one fsync per file are the price of a run that is all or none and undoable; on a
disk where fsync is slow they are most of it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

BUDGET = 1.0
MODULE = '''\
"""A training step."""
import torch
from torch import nn


def step(model: nn.Module, batch: torch.Tensor) -> torch.Tensor:
    """One step, in mixed precision."""
    with torch.xpu.amp.autocast():
        loss = model(batch).sum()
    loss.backward()
    return loss
''' + "".join(f"\n\ndef helper_{i}(x):\n    return x + {i}\n" for i in range(20))


def main() -> int:
    """Run the benchmark and print the numbers; exit 1 when the writes are over budget."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="ipex-doctor-fix-bench-"))
    os.environ["XDG_STATE_HOME"] = str(base / "state")
    from ipex_doctor.scan.fix import run as fix_run

    template = base / "template"
    for index in range(args.files):
        path = template / f"pkg{index % 10}" / f"module_{index:04}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(MODULE)
    wanted = {
        path.relative_to(template).as_posix(): {"autocast-xpu"} for path in template.rglob("*.py")
    }
    plans: list[float] = []
    commits: list[float] = []
    try:
        for _ in range(args.repeat + 1):  # NOTE: the first round warms the imports up
            tree = base / "tree"
            shutil.rmtree(tree, ignore_errors=True)
            shutil.copytree(template, tree)
            started = time.perf_counter()
            planned = fix_run.plan([tree], wanted)
            planned_at = time.perf_counter()
            applied = fix_run.commit(planned)
            done = time.perf_counter()
            assert len(applied.changed) == args.files, "every file is rewritten"
            plans.append(planned_at - started)
            commits.append(done - planned_at)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    plan_s, commit_s = statistics.median(plans[1:]), statistics.median(commits[1:])
    ratio = commit_s / plan_s
    print(f"{args.files} files, median of {args.repeat} rounds")
    print(f"plan (read and fix in memory, the floor)  {plan_s:7.3f} s")
    print(f"commit (record, write in place, fsync)    {commit_s:7.3f} s"
          f"  ({commit_s / args.files * 1000:.1f} ms a file)")  # fmt: skip
    print(f"commit / plan                             {ratio:7.2f}  (budget {BUDGET:.1f})")
    return 0 if ratio <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
