"""Time the scanner (``ipex_doctor.scan.scan_paths``) against ``grep -rl`` of its trigger words.

    python benchmarks/scan_speed.py [DIR]... [--repeat N] [--files N] [--docs]
        [--small-files N] [--small-only] [--baseline CHECKOUT]

The trees: each DIR (default: this Python's standard library, ``sysconfig.get_paths()["stdlib"]``,
thousands of Python files and no IPEX), and a synthetic project with IPEX built in a temporary
directory (``--files`` Python modules of about 7 KB, one in ``--ipex-every`` using IPEX in the
ways the rules know, half of the others plain torch; plus notebooks, requirements, a
Dockerfile, a shell script and configs).

The floor is grep of PATTERN, what the scanner's prefilter searches every file for first
(``ipex_doctor.scan.grep_pattern``, derived from the shipped rules), and there are two, both
printed:

* the tree's (issue 31's words: ``grep -rl`` over the same tree): ``grep -rlE`` with
  ``--exclude-dir`` for each directory name the scanner never enters (``site-packages``,
  ``__pycache__``, ``.git`` and the like), run from inside the root on ``.``: grep's
  ``--exclude-dir`` also skips a command-line directory of that name, so grep given the root
  itself lists nothing for a root named ``site-packages`` (0.003 s, 0 files: no floor at all);
* the strict one: ``grep -lE`` over exactly the files the scanner reads (their bytes opened by
  a cold scan of this checkout, listed first in a process of their own): grep -r of a tree
  also reads what the scanner never opens (an environment's shared libraries, gigabytes).

Plain ``grep -rlE`` of the whole tree is printed too. The scan runs in a fresh ``python -c``
(imports and loading the shipped ``code_rules.yaml`` count, as in
``ipex-doctor scan``), cold (every file read: the budget's number) and again with the outcome
cache of an earlier scan of the unchanged tree (what a second ``ipex-doctor scan`` costs; the
cache lives in a temporary ``XDG_CACHE_HOME``). Best of N runs each, interleaved so machine
noise hits all alike.

A small project last (``write_small_project``): ``--small-files`` modules (50) of the same kinds,
10 notebooks, 30 configs, a requirements file, a Dockerfile, a shell script and a
``.gitignore``: 94 files, under issue 31's 100. It is timed as a pre-commit hook runs it, the
whole command ``python -m ipex_doctor scan . -q`` in the project's root (the interpreter's
start, the imports, the examination of the interpreter and the report included; no policy file
there, so none is read: run from the doctor's checkout, it read the checkout's own), with
``--no-cache`` and with the cache of an earlier run: its budget is ``SMALL_BUDGET_S`` of wall
time. ``--small-only`` times that alone.

``--workers-ladder N,N,...`` times, instead, the cold scan of synthetic trees of N modules each
with the spawned workers as shipped and with them off (``engine.HELP_WHEN_LEFT_S`` out of
reach), in the same rounds: whether a second process pays at that many parsed files on this
machine, under its load.

``--baseline CHECKOUT`` (another checkout of the doctor, e.g. ``git worktree add /tmp/base
main``) times its scan beside this one's, in the same interleaved rounds: before and after on
the same machine under the same load. Each command runs in its checkout's root (``python -c``
and ``-m`` look there first).

Budget: the scan costs at most 3x the floor; on a tree without IPEX, close to it. (grep -l
stops reading a file at its first hit, the scanner parses every file that has one: the more
files use IPEX, the further apart the two are; the numbers inside the scan say where its time
went.)
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from _timing import measure_commands

BUDGET = 3.0
SMALL_BUDGET_S = 0.3
STDLIB = sysconfig.get_paths()["stdlib"]

_SCAN = """
import json, sys, time
from pathlib import Path
from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan import engine, scan_paths
if sys.argv[4:] == ["one-process"]:
    engine.HELP_WHEN_LEFT_S = float("inf")
started = time.perf_counter()
rules = code_rules.load()
loaded = time.perf_counter()
result = scan_paths([Path(sys.argv[1])], rules, cache=sys.argv[2] == "warm",
                    docs=sys.argv[3] == "docs")
done = time.perf_counter()
print(json.dumps({
    "load_s": loaded - started, "scan_s": done - loaded,
    "files_seen": result.files_seen, "files_parsed": result.files_parsed,
    "matches": len(result.matches), "skipped": len(result.skipped),
}))
"""


ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    """Run every tree, print the numbers; exit 1 when a scan is over budget."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("trees", nargs="*", default=[STDLIB])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--ipex-every", type=int, default=10, help="one module in N uses IPEX")
    parser.add_argument(
        "--docs", action="store_true", help="scan as 'scan --docs' (Markdown / reST blocks too)"
    )
    parser.add_argument("--small-files", type=int, default=50, help="0: no small project")
    parser.add_argument(
        "--small-only", action="store_true", help="time the small project alone, no tree"
    )
    parser.add_argument("--baseline", type=Path, help="another checkout, timed beside this one")
    parser.add_argument(
        "--workers-ladder",
        type=lambda text: [int(n) for n in text.split(",")],
        help="N,N,...: the cold scan of synthetic trees of N modules, workers on and off",
    )
    args = parser.parse_args()
    checkouts = {"": ROOT}
    if args.baseline is not None:
        checkouts[" (baseline)"] = args.baseline.resolve()
    for checkout in checkouts.values():
        compileall.compile_dir(str(checkout / "ipex_doctor"), quiet=1)
    sys.path.insert(0, str(ROOT))
    from ipex_doctor.knowledge import code_rules
    from ipex_doctor.scan import grep_pattern
    from ipex_doctor.scan.read.ignores import SKIPPED_DIR_NAMES

    pattern = grep_pattern(code_rules.load())
    excludes = [f"--exclude-dir={name}" for name in sorted(SKIPPED_DIR_NAMES)]
    print(f"grep pattern: {pattern}\n")
    over = False
    print(f"load average {' '.join(f'{n:.2f}' for n in os.getloadavg())}\n")
    with (
        tempfile.TemporaryDirectory(prefix="scan-speed-") as synthetic,
        tempfile.TemporaryDirectory(prefix="scan-speed-small-") as small,
        tempfile.TemporaryDirectory(prefix="scan-speed-cache-") as cache,
    ):
        os.environ["XDG_CACHE_HOME"] = cache  # the warm runs' cache, gone afterwards
        if args.workers_ladder:
            for files in args.workers_ladder:
                tree = Path(synthetic) / str(files)
                write_synthetic_project(tree, files, args.ipex_every)
                measure_workers(str(tree), args.repeat)
            return 0
        if not args.small_only:
            write_synthetic_project(Path(synthetic), args.files, args.ipex_every)
        trees = [
            ("tree without IPEX" if tree == STDLIB else "the tree given", tree)
            for tree in args.trees
        ]
        for label, tree in (
            [] if args.small_only else [*trees, ("synthetic tree with IPEX", synthetic)]
        ):
            over |= measure(label, tree, pattern, excludes, args.repeat, checkouts, args.docs)
        if args.small_files:
            write_small_project(Path(small), args.small_files, args.ipex_every)
            over |= measure_small(small, args.repeat, checkouts)
    print(f"load average {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
    return 1 if over else 0


def _in(checkout: Path, argv: list[str]) -> list[str]:
    """``argv`` run in ``checkout``'s root (``python -c`` / ``-m`` import the doctor there)."""
    return ["/bin/sh", "-c", 'cd "$1" && shift && exec "$@"', "sh", str(checkout), *argv]


def doctor_in(checkout: Path, directory: str, argv: list[str]) -> list[str]:
    """``argv`` run in ``directory`` with ``checkout``'s doctor first on the path (``python
    -m ipex_doctor`` imports it from there): the command as a hook in a project's root runs it."""
    # NOTE: the caller's PYTHONPATH is kept after the checkout: where the doctor's dependencies
    # are not installed in this interpreter (a machine given them in a folder of its own), a
    # command without them would fail at its first import and be timed as if it had scanned.
    return [
        "/bin/sh", "-c",
        'cd "$1" && PYTHONPATH="$2${PYTHONPATH:+:$PYTHONPATH}" && export PYTHONPATH && shift 2'
        ' && exec "$@"',
        "sh", directory, str(checkout), *argv,
    ]  # fmt: skip


def check_runs(commands: dict[str, list[str]]) -> None:
    """Run each command once; stop with its last words unless it ended as a scan ends (exit 0:
    no finding at the threshold, 1: some; its report's summary line printed), so that a command
    that failed is never timed as one that scanned (Python's own failure to import the doctor
    also exits 1, with no report)."""
    for name, argv in commands.items():
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode not in (0, 1) or "Summary:" not in done.stdout:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise SystemExit(f"{name}: exit {done.returncode}, not a scan's: {last}")


# NOTE: every file's bytes go through discovery.read_candidate (one open, checked regular and
# bounded), imported by name where it is used: the record replaces each of those names. A
# .gitignore, read the same way, is no file the rules match and is left out of the list.
_LIST_READ = """
import json, os, pathlib, sys
from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan import engine, one_file, scan_paths
from ipex_doctor.scan.read import discovery
engine.HELP_WHEN_LEFT_S = float("inf")  # one process: every read is seen here
read = set()
read_candidate = discovery.read_candidate
def recorded(path, limit):
    read.add(os.path.relpath(path, sys.argv[1]))
    return read_candidate(path, limit)
engine.read_candidate = one_file.read_candidate = recorded
scan_paths([pathlib.Path(sys.argv[1])], code_rules.load(), docs=sys.argv[2] == "docs")
if not read:
    raise SystemExit("no file read was recorded: the scan reads its files another way now")
print(json.dumps(sorted(read)))
"""


def files_read(tree: str, docs: bool = False) -> list[str]:
    """The files under ``tree`` (relative to it) whose bytes a cold scan of this checkout
    reads, each once: what the strict floor greps."""
    how = "docs" if docs else "code"
    listed = subprocess.run(
        _in(ROOT, [sys.executable, "-c", _LIST_READ, tree, how]),
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    files: list[str] = json.loads(listed.stdout)
    return files


def floor_commands(
    tree: str, pattern: str, excludes: list[str], read_list: Path
) -> dict[str, list[str]]:
    """The grep commands of ``tree``: ``grep`` (all of it), ``floor, the tree`` (less the
    directories the scanner never enters) and ``floor, files read`` (the NUL-separated paths
    in ``read_list``, relative to ``tree``). Each runs from inside ``tree``, on ``.``:
    ``--exclude-dir`` matches a directory named on the command line too, and a root named
    like one it excludes (``site-packages``) would be no tree at all."""
    return {
        # NOTE: -e: a pattern may begin with "-", which grep would read as an option
        "grep": _in(Path(tree), ["grep", "-rlE", "-e", pattern, "."]),
        "floor, the tree": _in(Path(tree), ["grep", "-rlE", *excludes, "-e", pattern, "."]),
        "floor, files read": _in(
            Path(tree), ["xargs", "-0", "-a", str(read_list), "grep", "-lE", "-e", pattern, "--"]
        ),
    }


def measure(
    label: str,
    tree: str,
    pattern: str,
    excludes: list[str],
    repeat: int,
    checkouts: dict[str, Path],
    docs: bool = False,
) -> bool:
    """Time grep and the scan (of each checkout) on ``tree``, print them; whether this
    checkout's cold scan is over budget against the tree's floor."""
    how = "docs" if docs else "code"
    read = files_read(tree, docs)
    with tempfile.NamedTemporaryFile("w", prefix="scan-speed-read-", suffix=".list") as listing:
        listing.write("".join(f"{path}\0" for path in read))
        listing.flush()
        commands = floor_commands(tree, pattern, excludes, Path(listing.name))
        floors = dict(commands)
        for suffix, checkout in checkouts.items():
            commands["scan" + suffix] = _in(
                checkout, [sys.executable, "-c", _SCAN, tree, "cold", how]
            )
            commands["scan, cache warm" + suffix] = _in(
                checkout, [sys.executable, "-c", _SCAN, tree, "warm", how]
            )
        runs = measure_commands(commands, repeat=repeat, warmup=1)
        listed = {
            name: len(subprocess.run(argv, capture_output=True, text=True).stdout.splitlines())
            for name, argv in floors.items()
        }
    best = {name: min(run.wall_s for run in values) for name, values in runs.items()}
    cpu = {name: min(run.cpu_s for run in values) for name, values in runs.items()}
    print(f"{label}: {tree}  ({len(read)} files read by the scan)")
    for name, what in (
        ("grep", "grep -rlE (all of the tree)     "),
        ("floor, the tree", "grep -rlE --exclude-dir (floor) "),
        ("floor, files read", "grep -lE, files read (strict)   "),
    ):
        print(
            f"  {what}  {best[name]:7.3f} s wall, {cpu[name]:.3f} s CPU"
            f"   {listed[name]} files listed"
        )
    tree_floor, strict = "floor, the tree", "floor, files read"
    for suffix in checkouts:
        report = json.loads(
            subprocess.run(
                commands["scan" + suffix], capture_output=True, text=True, check=True
            ).stdout
        )
        for name, what in (("scan" + suffix, "cold"), ("scan, cache warm" + suffix, "warm")):
            print(
                f"  scan{suffix:<12} {what} (python -c) {best[name]:7.3f} s wall,"
                f" {cpu[name]:.3f} s CPU   x floor (wall, CPU):"
                f" tree {best[name] / best[tree_floor]:.2f}, {cpu[name] / cpu[tree_floor]:.2f};"
                f" strict {best[name] / best[strict]:.2f}, {cpu[name] / cpu[strict]:.2f}"
                + (f" (budget x{BUDGET:g})" if what == "cold" else " (outcome cache)")
            )
        print(
            f"    inside it: load rules {report['load_s']:.3f} s,"
            f" scan_paths {report['scan_s']:.3f} s; files seen {report['files_seen']},"
            f" parsed {report['files_parsed']}, matches {report['matches']},"
            f" skipped {report['skipped']}"
        )
    print()
    return best["scan"] / best[tree_floor] > BUDGET


def measure_workers(tree: str, repeat: int) -> None:
    """Time the cold scan of ``tree`` with the spawned workers as shipped and with them off
    (best of ``repeat``, wall and CPU: the CPU of the doctor and its workers), print both."""
    commands = {
        how: _in(ROOT, [sys.executable, "-c", _SCAN, tree, "cold", "code", how])
        for how in ("workers as shipped", "one-process")
    }
    runs = measure_commands(commands, repeat=repeat, warmup=1)
    report = json.loads(
        subprocess.run(commands["one-process"], capture_output=True, text=True, check=True).stdout
    )
    print(f"synthetic tree: {report['files_seen']} files seen, {report['files_parsed']} parsed")
    for name, values in runs.items():
        wall = min(run.wall_s for run in values)
        cpu = min(run.cpu_s for run in values)
        print(f"  {name:<20} {wall:7.3f} s wall, {cpu:.3f} s CPU (the scan and its workers)")
    print()


def measure_small(tree: str, repeat: int, checkouts: dict[str, Path]) -> bool:
    """Time the whole ``scan`` command on the small project ``tree`` (wall and CPU, best of
    ``repeat``), print it; whether this checkout's is over ``SMALL_BUDGET_S``."""
    commands: dict[str, list[str]] = {}
    scan = [sys.executable, "-m", "ipex_doctor", "scan", ".", "-q"]
    for suffix, checkout in checkouts.items():
        commands["--no-cache" + suffix] = doctor_in(checkout, tree, [*scan, "--no-cache"])
        commands["cache warm" + suffix] = doctor_in(checkout, tree, scan)
    check_runs(commands)
    runs = measure_commands(commands, repeat=repeat, warmup=1)
    files = sum(1 for path in Path(tree).rglob("*") if path.is_file())
    print(
        f"small project ({files} files): python -m ipex_doctor scan . -q in its root, whole command"
    )
    for name, values in runs.items():
        wall = min(run.wall_s for run in values)
        cpu = min(run.cpu_s for run in values)
        print(
            f"  {name:<24} {wall:7.3f} s wall, {cpu:.3f} s CPU (itself and its children)"
            f"   budget {SMALL_BUDGET_S:g} s wall"
        )
    print()
    return min(run.wall_s for run in runs["--no-cache"]) > SMALL_BUDGET_S


# --- the synthetic project ----------------------------------------------------------------------
# Modules of about 8 KB (the standard library's median), in three flavours; the IPEX ones use it
# the ways the shipped rules know, once each, among ordinary code.

_PLAIN = '''

@dataclass
class Record{n}_{k}:
    """A row of table {k}: a name and a value, validated on creation."""

    name: str
    value: float
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError(f"row {{self!r}}: empty name")

    def scaled(self, factor: float) -> float:
        """The value times ``factor``, for example when a sample is resampled."""
        return self.value * factor

    def as_dict(self) -> dict[str, object]:
        return {{"name": self.name, "value": self.value, "tags": list(self.tags)}}


def load_{k}(path: str) -> list[Record{n}_{k}]:
    """Rows of ``path`` (JSON lines); blank lines and comments are skipped."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{{path}}:{{number}}: {{error}}") from error
            rows.append(Record{n}_{k}(data["name"], float(data["value"]), tuple(data.get("tags", ()))))
    return rows
'''

_TORCH = '''

class Block{n}_{k}(nn.Module):
    """A residual block: linear, norm, activation, dropout."""

    def __init__(self, width: int = 64, dropout: float = 0.1) -> None:
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.dropout(torch.relu(self.norm(self.linear(x))))


def train_{k}(model: nn.Module, batches, epochs: int = 1) -> float:
    """Mean loss over ``epochs`` passes of ``batches`` under CPU bf16 autocast."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    total, count = 0.0, 0
    for _ in range(epochs):
        for x, y in batches:
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            total, count = total + float(loss), count + 1
    return total / max(count, 1)
'''

_IPEX_USES = """

def setup_{n}(model, optimizer):
    dist.init_process_group(backend="ccl")
    model, optimizer = ipex.optimize(model, optimizer=optimizer, dtype=torch.bfloat16)
    return model, optimizer


def step_{n}(model, x):
    with torch.cpu.amp.autocast() and torch.no_grad():
        out = model(x)
    with amp.autocast(dtype=torch.bfloat16):
        out = model(out)
    if torch.xpu.has_fp64_dtype():
        out = out.double()
    return out
"""

_HEADERS = {
    "plain": '"""Data module {n}."""\nimport json\nfrom dataclasses import dataclass\n',
    "torch": '"""Models {n}: plain PyTorch."""\nimport torch\nfrom torch import nn\n',
    "ipex": (
        '"""Trainer {n}: written for IPEX."""\nimport torch\nfrom torch import nn\n'
        "import intel_extension_for_pytorch as ipex\nimport torch.distributed as dist\n"
        "from torch.xpu import amp\n"
    ),
}

_NOTEBOOK_CELLS = [
    "!pip install intel-extension-for-pytorch\n",
    "import torch\nimport intel_extension_for_pytorch as ipex\n",
    "model = torch.nn.Linear(4, 4)\nmodel = ipex.optimize(model)\n",
]


def _module(n: int, ipex_every: int) -> str:
    flavour = "ipex" if n % ipex_every == 0 else "torch" if n % 2 else "plain"
    body = _PLAIN if flavour == "plain" else _TORCH
    parts = [_HEADERS[flavour].format(n=n)]
    parts += [body.format(n=n, k=k) for k in range(6)]
    if flavour == "ipex":
        parts.insert(4, _IPEX_USES.format(n=n))
    return "".join(parts)


def write_synthetic_project(
    root: Path, files: int, ipex_every: int = 10, *, notebooks: int = 20, configs: int = 50
) -> None:
    """``files`` Python modules in packages of 50 (one in ``ipex_every`` uses IPEX, half of the
    others plain torch), ``notebooks`` notebooks, ``configs`` YAML configs, and the four other
    text files a project has (requirements, Dockerfile, shell script, ``.gitignore``)."""
    for n in range(files):
        package = root / "src" / f"pkg{n // 50}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"module_{n}.py").write_text(_module(n, ipex_every), encoding="utf-8")
    notebook_dir = root / "notebooks"
    notebook_dir.mkdir()
    for n in range(notebooks):
        cells = [{"cell_type": "code", "source": s, "metadata": {}} for s in _NOTEBOOK_CELLS]
        document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        (notebook_dir / f"demo_{n}.ipynb").write_text(json.dumps(document), encoding="utf-8")
    (root / "requirements.txt").write_text("torch==2.8.0\nintel-extension-for-pytorch==2.8.0\n")
    (root / "Dockerfile").write_text(
        "FROM python:3.11\nRUN pip install intel_extension_for_pytorch\n"
    )
    (root / "run.sh").write_text("#!/bin/sh\nipexrun --ninstances 2 train.py\n")
    (root / "configs").mkdir()
    for n in range(configs):
        (root / "configs" / f"exp_{n}.yaml").write_text(f"lr: 0.0{n}\nbatch: 32\nipex: false\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    # NOTE: a checkout, as a pre-commit hook's project is: outside a git work tree the scan
    # applies no .gitignore (discovery), and the walk would not pay for reading this one
    (root / ".git").mkdir()


def write_small_project(root: Path, modules: int = 50, ipex_every: int = 10) -> None:
    """Issue 31's small project, as a pre-commit hook sees one: ``modules`` Python modules
    (50), 10 notebooks, 30 configs and the four other text files (94 files at 50 modules,
    under the issue's 100)."""
    write_synthetic_project(root, modules, ipex_every, notebooks=10, configs=30)


if __name__ == "__main__":
    raise SystemExit(main())
