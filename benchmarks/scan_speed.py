"""Time the scanner (``ipex_doctor.scan.scan_paths``) against ``grep -rl`` of its trigger words.

    python benchmarks/scan_speed.py [DIR] [--repeat N] [--files N] [--docs]

Two trees: DIR (default: this Python's standard library, ``sysconfig.get_paths()["stdlib"]``,
thousands of Python files and no IPEX), and a synthetic project with IPEX built in a temporary
directory (``--files`` Python modules of about 7 KB, one in ``--ipex-every`` using IPEX in the
ways the rules know, half of the others plain torch; plus notebooks, requirements, a
Dockerfile, a shell script and configs).

The floor is ``grep -rlE PATTERN TREE``, PATTERN being what the scanner's prefilter searches
every file for first (``ipex_doctor.scan.grep_pattern``, derived from the shipped rules). The
scanner never enters ``site-packages``, ``__pycache__``, ``.git`` and the like, and grep -r
does (the standard library's directory holds site-packages): so the floor the budget is held
to passes grep the same ``--exclude-dir`` names; plain ``grep -rl`` is printed too. The scan
runs in a fresh ``python -c`` (imports and loading the shipped ``code_rules.yaml`` count, as in
``ipex-doctor scan``), cold (every file read: the budget's number) and again with the outcome
cache of an earlier scan of the unchanged tree (what a second ``ipex-doctor scan`` costs; the
cache lives in a temporary ``XDG_CACHE_HOME``). Best of N runs each, interleaved so machine
noise hits all alike.

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

from _timing import time_commands

BUDGET = 3.0
STDLIB = sysconfig.get_paths()["stdlib"]

_SCAN = """
import json, sys, time
from pathlib import Path
from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan import scan_paths
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


def main() -> int:
    """Run both trees, print the numbers; exit 1 when a scan is over budget."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tree", nargs="?", default=STDLIB)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--ipex-every", type=int, default=10, help="one module in N uses IPEX")
    parser.add_argument(
        "--docs", action="store_true", help="scan as 'scan --docs' (Markdown / reST blocks too)"
    )
    args = parser.parse_args()
    package = Path(__file__).resolve().parent.parent / "ipex_doctor"
    compileall.compile_dir(str(package), quiet=1)
    sys.path.insert(0, str(package.parent))
    from ipex_doctor.knowledge import code_rules
    from ipex_doctor.scan import grep_pattern
    from ipex_doctor.scan.read.ignores import SKIPPED_DIR_NAMES

    pattern = grep_pattern(code_rules.load())
    excludes = [f"--exclude-dir={name}" for name in sorted(SKIPPED_DIR_NAMES)]
    print(f"grep pattern: {pattern}\n")
    over = False
    with (
        tempfile.TemporaryDirectory(prefix="scan-speed-") as synthetic,
        tempfile.TemporaryDirectory(prefix="scan-speed-cache-") as cache,
    ):
        os.environ["XDG_CACHE_HOME"] = cache  # the warm runs' cache, gone afterwards
        write_synthetic_project(Path(synthetic), args.files, args.ipex_every)
        for label, tree in (
            ("tree without IPEX" if args.tree == STDLIB else "the tree given", args.tree),
            ("synthetic tree with IPEX", synthetic),
        ):
            over |= measure(label, tree, pattern, excludes, args.repeat, args.docs)
    return 1 if over else 0


def measure(
    label: str, tree: str, pattern: str, excludes: list[str], repeat: int, docs: bool = False
) -> bool:
    """Time grep and the scan on ``tree``, print them; whether the scan is over budget."""
    commands = {
        "grep": ["grep", "-rlE", pattern, tree],
        "grep --exclude-dir": ["grep", "-rlE", *excludes, pattern, tree],
        "scan": [sys.executable, "-c", _SCAN, tree, "cold", "docs" if docs else "code"],
        "scan, cache warm": [sys.executable, "-c", _SCAN, tree, "warm", "docs" if docs else "code"],
    }
    samples = time_commands(commands, repeat=repeat, warmup=1)
    best = {name: min(values) for name, values in samples.items()}
    report = json.loads(
        subprocess.run(commands["scan"], capture_output=True, text=True, check=True).stdout
    )
    grepped = subprocess.run(commands["grep --exclude-dir"], capture_output=True, text=True)
    ratio = best["scan"] / best["grep --exclude-dir"]
    print(f"{label}: {tree}")
    print(f"  grep -rlE (all of the tree)       {best['grep']:7.3f} s")
    print(
        f"  grep -rlE --exclude-dir (floor)   {best['grep --exclude-dir']:7.3f} s"
        f"   {len(grepped.stdout.splitlines())} files listed"
    )
    print(
        f"  scan (fresh python -c)            {best['scan']:7.3f} s"
        f"   x{ratio:.2f} the floor (budget x{BUDGET:g})"
    )
    warm = best["scan, cache warm"]
    print(
        f"  scan, unchanged since the last    {warm:7.3f} s"
        f"   x{warm / best['grep --exclude-dir']:.2f} the floor (outcome cache)"
    )
    print(
        f"    inside it: load rules {report['load_s']:.3f} s, scan_paths {report['scan_s']:.3f} s;"
        f" files seen {report['files_seen']}, parsed {report['files_parsed']},"
        f" matches {report['matches']}, skipped {report['skipped']}"
    )
    print()
    return ratio > BUDGET


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


def write_synthetic_project(root: Path, files: int, ipex_every: int = 10) -> None:
    """``files`` Python modules in packages of 50 (one in ``ipex_every`` uses IPEX, half of the
    others plain torch), notebooks, and the text files a project has."""
    for n in range(files):
        package = root / "src" / f"pkg{n // 50}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"module_{n}.py").write_text(_module(n, ipex_every), encoding="utf-8")
    notebooks = root / "notebooks"
    notebooks.mkdir()
    for n in range(20):
        cells = [{"cell_type": "code", "source": s, "metadata": {}} for s in _NOTEBOOK_CELLS]
        document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        (notebooks / f"demo_{n}.ipynb").write_text(json.dumps(document), encoding="utf-8")
    (root / "requirements.txt").write_text("torch==2.8.0\nintel-extension-for-pytorch==2.8.0\n")
    (root / "Dockerfile").write_text(
        "FROM python:3.11\nRUN pip install intel_extension_for_pytorch\n"
    )
    (root / "run.sh").write_text("#!/bin/sh\nipexrun --ninstances 2 train.py\n")
    (root / "configs").mkdir()
    for n in range(50):
        (root / "configs" / f"exp_{n}.yaml").write_text(f"lr: 0.0{n}\nbatch: 32\nipex: false\n")
    (root / ".gitignore").write_text("build/\n*.log\n")


if __name__ == "__main__":
    raise SystemExit(main())
