"""``scan``, ``scan --diff``, ``scan --fix`` and ``fix_source`` on one huge Python file, against
the floors, for three shapes of file.

    python benchmarks/fix_speed.py [--mib 10] [--repeat 1] [--shapes sparse,giant,dense]
                                   [--timeout 600] [--dense-ladder 0.25,0.5,1] [--ladder-only]

The shapes, written deterministically into a temporary directory, each just under ``--mib``
MiB (the scan's limit is 10 MiB):

* ``sparse``: generated code and data (a table of half the size, then plain functions) with a
  few IPEX uses: an ``import intel_extension_for_pytorch`` kept only for its side effect, an
  ``ipex.optimize`` and a ``torch.xpu.amp.autocast`` at the end;
* ``dense``: thousands of small functions, each with a ``torch.xpu.amp.autocast``;
* ``giant``: one list literal of the whole size, with an IPEX import before it and the same
  use after it.

Every command is a real process (``python -m ipex_doctor``, a fresh copy of the file for each
``--fix``), timed wall to wall, its peak resident memory read from ``wait4``. The floors:
``python -c "import ast; ast.parse(open(F).read())"`` (what any reading of the file as Python
costs) and ``grep -lE`` of the scan's prefilter pattern (what finding the file costs). The
ratio of each command to both is printed. The ``--fix`` budget (issue 28), at most 30 s and
1 GiB on two cores, holds for the whole ``scan --fix`` process (its scans, the fix, the writes
and the report) and for ``fix_source`` alone (a process that reads the file and fixes it, no
scan, no report), every shape; the exit status is 1 when either is over. The time judged is
the process's CPU time (user and system, from ``wait4``): each is one thread, so on two idle
cores its wall time is about that, and on a shared machine the wall time grows with the
others' load (both are printed).

Dense files need a rewrite in every statement. Their calls are spliced as text from ``ast``
(``scan/fix/splice.py``) and laid over the original lines without LibCST
(``fix.verbatim.lay_in_place``); the scan reads most of their runs once
(``readers._read_runs``: see ``docs/scan-fix.md``). ``--dense-ladder`` runs the ``ast.parse`` floor,
``fix_source`` alone and the whole ``scan --fix`` on the dense shape at those sizes (MiB) and
prints seconds per MiB, peak memory and the ratio to the floor, to show the cost is linear;
``--ladder-only`` runs only that (not every command on each shape at ``--mib``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024
FIX_BUDGET_S = 30.0
FIX_BUDGET_BYTES = 1024 * MIB

HEAD = '''"""A generated module."""
import torch
import intel_extension_for_pytorch
import intel_extension_for_pytorch as ipex

'''
TAIL = """

def train(model, optimizer, batch):
    model, optimizer = ipex.optimize(model, optimizer=optimizer, dtype=torch.bfloat16)
    with torch.xpu.amp.autocast():
        return model(batch)
"""


def _fill(parts: list[str], size: int, lines: object) -> None:
    """Append the pieces ``lines`` yields while the text stays under ``size`` characters."""
    total = sum(map(len, parts))
    for piece in lines:  # type: ignore[attr-defined]
        if total + len(piece) > size:
            return
        parts.append(piece)
        total += len(piece)


def sparse(size: int) -> str:
    parts = [HEAD, "TABLE = {\n"]
    _fill(parts, size // 2, (f'    "key_{n:07d}": ({n}, {n * 0.5}, "value {n % 97}"),\n'
                             for n in range(10**9)))  # fmt: skip
    parts.append("}\n")
    _fill(parts, size - len(TAIL), (f"\n\ndef plain_{n:06d}(x, y):\n    z = x * {n % 13} + y\n"
                                    "    return helper(z, 'plain')\n" for n in range(10**9)))  # fmt: skip
    return "".join(parts) + TAIL


def dense(size: int) -> str:
    parts = ["import torch\n"]
    _fill(parts, size, (f"\n\ndef step_{n:06d}(model, x):\n    with torch.xpu.amp.autocast():\n"
                        "        return model(x)\n" for n in range(10**9)))  # fmt: skip
    return "".join(parts)


def giant(size: int) -> str:
    parts = [HEAD, "DATA = [\n"]
    _fill(parts, size - len(TAIL) - 2, ("    " + ", ".join(str(n * 16 + k) for k in range(16))
                                        + ",\n" for n in range(10**9)))  # fmt: skip
    return "".join(parts) + "]\n" + TAIL


SHAPES = {"sparse": sparse, "dense": dense, "giant": giant}

LADDER = ("floor: ast.parse", "scan --fix", "fix_source alone")
_FIX_ALONE = (
    "import sys; from ipex_doctor.scan.fix.rewrite import FIX_IDS, fix_source; "
    "out = fix_source(open(sys.argv[1], encoding='utf-8').read(), FIX_IDS); "
    "sys.exit(0 if out.changed else 3)"
)


def run(argv: Sequence[str], timeout: float) -> tuple[float, int, int, float]:
    """Wall seconds, peak resident bytes, exit status (-9: killed at ``timeout``) and CPU
    seconds (user and system) of ``argv``. On a shared machine the wall time grows with the
    load; the CPU time much less."""
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1", COLUMNS="200")
    started = time.perf_counter()
    child = subprocess.Popen(
        list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            child.kill()
            _, status, usage = os.wait4(child.pid, 0)
            return timeout, usage.ru_maxrss * 1024, -9, usage.ru_utime + usage.ru_stime
        time.sleep(0.02)
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return time.perf_counter() - started, usage.ru_maxrss * 1024, child.returncode, cpu


def measure(
    path: Path, scratch: Path, repeat: int, timeout: float, pattern: str, ladder: bool = False
) -> dict[str, tuple[float, int, int, float]]:
    """Best wall time (and the peak memory of that run) of each command on ``path`` (for the
    dense ladder: the ``ast.parse`` floor, ``scan --fix`` and ``fix_source`` alone)."""
    python = sys.executable
    scan = [python, "-m", "ipex_doctor", "scan", "--no-cache", "-q"]
    commands = {
        "floor: ast.parse": [python, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())",
                             str(path)],
        "floor: grep -lE": ["grep", "-lE", "-e", pattern, str(path)],
        "scan": [*scan, str(path)],
        "scan --diff": [*scan, "--diff", str(path)],
        "scan --fix": [*scan, "--fix", str(scratch / path.name)],
        "fix_source alone": [python, "-c", _FIX_ALONE, str(path)],
    }  # fmt: skip
    if ladder:
        commands = {name: commands[name] for name in LADDER}
    best: dict[str, tuple[float, int, int, float]] = {}
    for _ in range(repeat):
        for name, argv in commands.items():
            if name == "scan --fix":
                shutil.copyfile(path, scratch / path.name)
            result = run(argv, timeout)
            if name not in best or result[0] < best[name][0]:
                best[name] = result
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--shapes", default="sparse,giant,dense")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--dense-ladder", default="0.25,0.5,1")
    parser.add_argument("--ladder-only", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from ipex_doctor.knowledge import code_rules
    from ipex_doctor.scan import grep_pattern

    pattern = grep_pattern(code_rules.load())
    # NOTE: just under the scan's limit (a file over 10 MiB is skipped unread)
    size = int(args.mib * MIB) - 4096
    over = False
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        root, scratch = Path(tmp) / "files", Path(tmp) / "scratch"
        root.mkdir()
        scratch.mkdir()
        for shape in [] if args.ladder_only else args.shapes.split(","):
            path = root / f"{shape}.py"
            path.write_text(SHAPES[shape](size), encoding="utf-8")
            best = measure(path, scratch, args.repeat, args.timeout, pattern)
            ast_s, grep_s = best["floor: ast.parse"][0], best["floor: grep -lE"][0]
            print(f"\n{shape}: {path.stat().st_size / MIB:.2f} MiB")
            print(f"  {'command':<20} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9} {'x ast':>7} "
                  f"{'x grep':>8}")  # fmt: skip
            for name, (seconds, peak, status, cpu) in best.items():
                late = " (killed at the timeout)" if status == -9 else ""
                print(f"  {name:<20} {seconds:8.2f} {cpu:8.2f} {peak / MIB:9.0f} "
                      f"{seconds / ast_s:7.2f} {seconds / grep_s:8.1f}{late}")  # fmt: skip
            for name in ("scan --fix", "fix_source alone"):
                _, peak, _, cpu = best[name]
                if cpu > FIX_BUDGET_S or peak > FIX_BUDGET_BYTES:
                    over = True
                    print(f"  OVER BUDGET: {name} {cpu:.1f} CPU s, {peak / MIB:.0f} MiB")
        if "dense" in args.shapes and args.dense_ladder:
            print("\ndense, by size:")
            print(f"  {'MiB':>6} {'command':<20} {'wall s':>8} {'cpu s':>8} {'cpu s/MiB':>9} "
                  f"{'peak MiB':>9} {'cpu x ast':>9}")  # fmt: skip
            for mib in (float(m) for m in args.dense_ladder.split(",")):
                path = root / f"dense-{mib}.py"
                path.write_text(dense(int(mib * MIB)), encoding="utf-8")
                best = measure(path, scratch, args.repeat, args.timeout, pattern, ladder=True)
                ast_cpu = best["floor: ast.parse"][3]
                for name, (seconds, peak, status, cpu) in best.items():
                    late = " (killed at the timeout)" if status == -9 else ""
                    budget = name != "floor: ast.parse" and (
                        cpu > FIX_BUDGET_S or peak > FIX_BUDGET_BYTES
                    )
                    over = over or budget
                    print(f"  {mib:6.3f} {name:<20} {seconds:8.2f} {cpu:8.2f} {cpu / mib:9.1f} "
                          f"{peak / MIB:9.0f} {cpu / ast_cpu:9.1f}{late}"
                          f"{'  OVER BUDGET' if budget else ''}")  # fmt: skip
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
