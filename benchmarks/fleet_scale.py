"""Merge time, peak memory and console lines of ``ipex-doctor merge`` at fleet scale.

    python benchmarks/fleet_scale.py [--nodes 100,1000,10000] [--keep DIR]

N node reports are synthesised from the recorded reference-stack report
(``tests/assets/reports/cpu-reference-check.json``), each under its own node name, with three
planted outliers at seeded positions: one with another torch build, one whose CPU differs, one
where a known issue fails that passes elsewhere. The merge runs as users run it (a fresh
process, the files on disk); the benchmark fails unless the fleet report names exactly the
planted nodes. The floor is what no merge can avoid: a fresh interpreter reading and parsing
every file (``json.loads``).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "tests" / "assets" / "reports" / "cpu-reference-check.json"
FLOOR = (
    "import json, pathlib, sys\n"
    "for path in sorted(pathlib.Path(sys.argv[1]).glob('*.json')):\n"
    "    json.loads(path.read_bytes())\n"
)


def plant(report: dict[str, Any], kind: str) -> dict[str, Any]:
    """A copy of ``report`` that differs from it in one way."""
    odd = copy.deepcopy(report)
    if kind == "torch":
        for package in odd["environment"]["packages"]:
            if package["name"] == "torch":
                package["version"] = "2.7.1"
    elif kind == "cpu":
        odd["environment"]["host"]["cpu_model"] = "Intel(R) Xeon(R) Platinum 8480+"
    else:
        finding = next(f for f in odd["findings"] if f["status"] == "pass" and f.get("verdict"))
        finding["status"], finding["verdict"] = "fail", "affected"
    return odd


def synthesise(directory: Path, nodes: int, seed: int = 7) -> dict[str, str]:
    """Write ``nodes`` reports into ``directory``; return {planted node: how it differs}."""
    source = json.loads(SOURCE.read_text())
    width = len(str(nodes))
    names = [f"node{i:0{width}d}" for i in range(1, nodes + 1)]
    planted = dict(
        zip(random.Random(seed).sample(names, 3), ("torch", "cpu", "finding"), strict=True)
    )
    usual = json.dumps(source)
    for name in names:
        text = json.dumps(plant(source, planted[name])) if name in planted else usual
        (directory / f"{name}.json").write_text(text)
    return planted


def measure(argv: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak resident MiB and stdout of one fresh process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, COLUMNS="200", NO_COLOR="1"),
    )
    assert process.stdout is not None
    output = process.stdout.read().decode()
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0  # NOTE: reaped by wait4 above
    return time.perf_counter() - started, usage.ru_maxrss / 1024, output


def run(nodes: int, directory: Path) -> dict[str, Any]:
    planted = synthesise(directory, nodes)
    out = directory.parent / f"fleet-{nodes}.json"
    floor_s, floor_mib, _ = measure([sys.executable, "-c", FLOOR, str(directory)])
    doctor = [sys.executable, "-m", "ipex_doctor", "merge", str(directory), "--fail-on", "never"]
    wall, peak, console = measure([*doctor, "--json", str(out)])
    fleet = json.loads(out.read_text())
    named = {n for f in fleet["findings"] if f["id"] == "fleet-outlier" for n in f["nodes"]}
    if named != set(planted):
        raise SystemExit(f"{nodes} nodes: named {sorted(named)}, planted {sorted(planted)}")
    lines = console.splitlines()
    first_screen = "\n".join(lines[:40])
    return {
        "nodes": nodes,
        "wall_s": round(wall, 2),
        "peak_mib": round(peak),
        "floor_s": round(floor_s, 2),
        "x_floor": round(wall / floor_s, 2),
        "console_lines": len(lines),
        "outliers_in_first_screen": all(name in first_screen for name in planted),
        "report_mib": round(out.stat().st_size / 2**20, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="100,1000,10000")
    parser.add_argument("--keep", type=Path, help="write the node reports here and keep them")
    args = parser.parse_args()
    print(f"{'nodes':>6} {'wall s':>7} {'peak MiB':>9} {'floor s':>8} {'x floor':>8} "
          f"{'lines':>6} {'odd in 1st screen':>18} {'report MiB':>10}")  # fmt: skip
    for count in (int(n) for n in args.nodes.split(",")):
        with tempfile.TemporaryDirectory(dir=args.keep) as scratch:
            directory = Path(scratch) / "nodes"
            directory.mkdir()
            row = run(count, directory)
        print(f"{row['nodes']:>6} {row['wall_s']:>7} {row['peak_mib']:>9} {row['floor_s']:>8} "
              f"{row['x_floor']:>8} {row['console_lines']:>6} "
              f"{row['outliers_in_first_screen']!s:>18} {row['report_mib']:>10}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
