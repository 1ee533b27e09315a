"""Merge time, peak memory and console lines of ``ipex-doctor merge`` at fleet scale.

    python benchmarks/fleet_scale.py [--nodes 100,1000,10624] [--keep DIR]

N node reports of a GPU fleet are synthesised from the recorded reference-stack report
(``tests/assets/reports/cpu-reference-check.json``), each under its own node name, given six
XPU devices (``DEVICE``) with a sanity throughput each that varies by up to 5 % from node to
node, as measured figures do. One node in a hundred carries a planted fault, the kinds in turn
at seeded positions: another torch build, another GPU driver, a device missing, a known issue
failing only there, a device far slower than its peers. The merge runs as users run it (a
fresh process, the files on disk); the benchmark fails unless the fleet report names every
planted node, each in an outlier of its own kind, and nothing else. The floor is what no merge
can avoid: a fresh interpreter reading and parsing every file (``json.loads``); Aurora has
10,624 nodes.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ipex_doctor.verdicts.hostlist import expand

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "tests" / "assets" / "reports" / "cpu-reference-check.json"
FLOOR = (
    "import json, pathlib, sys\n"
    "for path in sorted(pathlib.Path(sys.argv[1]).glob('*.json')):\n"
    "    json.loads(path.read_bytes())\n"
)
DEVICE = {
    "type": "xpu",
    "name": "Intel(R) Data Center GPU Max 1550",
    "platform_name": "Intel(R) Level-Zero",
    "driver_version": "1.6.31294",
    "total_memory": 68719476736,
    "has_fp64": True,
    "has_fp16": True,
    "max_compute_units": 448,
}
DEVICES = 6
_HOSTLIST = re.compile(r"node(?:\[[\d,\-]+\]|\d+)")
KINDS = ("build", "driver", "device-missing", "known-issue", "slow-device")
AMP_TRAIN = 1450.0
"""AMP training img/s of a device, the figure the fleet holds devices to their peers by."""


def gpu_node(source: dict[str, Any]) -> dict[str, Any]:
    """The reference report as a node with ``DEVICES`` XPUs, each with its sanity throughput."""
    node = copy.deepcopy(source)
    node["environment"]["runtime"]["devices"] = [
        {**DEVICE, "index": index} for index in range(DEVICES)
    ]
    cpu = next(f for f in node["findings"] if f["id"] == "sanity-throughput")
    for index in range(DEVICES):
        device = copy.deepcopy(cpu)
        device["device"], device["per_device"] = f"xpu:{index}", {f"xpu:{index}": "pass"}
        device["evidence"]["data"]["train_amp"] = AMP_TRAIN
        node["findings"].append(device)
    return node


def vary(node: dict[str, Any], rng: random.Random) -> None:
    """Each device's throughput as one run measures it: within 5 % of the others'."""
    for finding in node["findings"]:
        if finding["id"] == "sanity-throughput" and finding["device"] != "cpu":
            finding["evidence"]["data"]["train_amp"] = round(AMP_TRAIN * rng.uniform(0.95, 1.05), 1)


def plant(node: dict[str, Any], kind: str) -> None:
    """Make ``node`` differ from its peers in one way, a fault of ``kind``."""
    devices = node["environment"]["runtime"]["devices"]
    if kind == "build":
        for package in node["environment"]["packages"]:
            if package["name"] == "torch":
                package["version"] = "2.7.1"
    elif kind == "driver":
        for device in devices:
            device["driver_version"] = "1.3.27642"
    elif kind == "device-missing":
        gone = f"xpu:{devices.pop()['index']}"
        node["findings"] = [f for f in node["findings"] if f.get("device") != gone]
    elif kind == "known-issue":
        finding = next(f for f in node["findings"] if f["id"] == "grad-mode-divergence")
        finding.update(status="fail", verdict="affected", device="xpu:0",
                       per_device={"xpu:0": "fail"},
                       title="XPU outputs differ between torch.no_grad() and grad mode")  # fmt: skip
        finding["evidence"]["summary"] = "reproduced on xpu:0: grad vs no_grad MAE 0.41"
    else:
        slow = next(f for f in node["findings"] if f.get("device") == "xpu:3")
        slow["evidence"]["data"]["train_amp"] = round(AMP_TRAIN * 0.35, 1)


def synthesise(directory: Path, nodes: int, seed: int = 7) -> dict[str, str]:
    """Write ``nodes`` reports into ``directory``; return {planted node: its fault's kind}."""
    rng = random.Random(seed)
    base = gpu_node(json.loads(SOURCE.read_text()))
    width = len(str(nodes))
    names = [f"node{i:0{width}d}" for i in range(1, nodes + 1)]
    faulty = rng.sample(names, max(len(KINDS), nodes // 100))
    planted = {name: KINDS[index % len(KINDS)] for index, name in enumerate(faulty)}
    for name in names:
        node = copy.deepcopy(base)
        vary(node, rng)
        if name in planted:
            plant(node, planted[name])
        (directory / f"{name}.json").write_text(json.dumps(node))
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
    outliers = [f for f in fleet["findings"] if f["id"] == "fleet-outlier"]
    named = {n for f in outliers for n in f["nodes"]}
    if named != set(planted):
        missed, extra = sorted(set(planted) - named), sorted(named - set(planted))
        raise SystemExit(
            f"{nodes} nodes: planted but not named {missed}; named, not planted {extra}"
        )
    mixed = [f["title"] for f in outliers if len({planted[n] for n in f["nodes"]}) != 1]
    if mixed:
        raise SystemExit(f"{nodes} nodes: outliers of several kinds of fault in one: {mixed}")
    lines = console.splitlines()
    first_screen = "\n".join(lines[:40])
    return {
        "planted": len(planted),
        "nodes": nodes,
        "wall_s": round(wall, 2),
        "peak_mib": round(peak),
        "floor_s": round(floor_s, 2),
        "x_floor": round(wall / floor_s, 2),
        "console_lines": len(lines),
        "outliers_in_first_screen": set(planted)
        <= {node for group in _HOSTLIST.findall(first_screen) for node in expand(group)},
        "report_mib": round(out.stat().st_size / 2**20, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="100,1000,10624")
    parser.add_argument("--keep", type=Path, help="write the node reports here and keep them")
    args = parser.parse_args()
    print(f"{'nodes':>6} {'planted':>7} {'wall s':>7} {'peak MiB':>9} {'floor s':>8} {'x floor':>8} "
          f"{'lines':>6} {'odd in 1st screen':>18} {'report MiB':>10}")  # fmt: skip
    for count in (int(n) for n in args.nodes.split(",")):
        with tempfile.TemporaryDirectory(dir=args.keep) as scratch:
            directory = Path(scratch) / "nodes"
            directory.mkdir()
            row = run(count, directory)
        print(f"{row['nodes']:>6} {row['planted']:>7} {row['wall_s']:>7} {row['peak_mib']:>9} {row['floor_s']:>8} "
              f"{row['x_floor']:>8} {row['console_lines']:>6} "
              f"{row['outliers_in_first_screen']!s:>18} {row['report_mib']:>10}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
