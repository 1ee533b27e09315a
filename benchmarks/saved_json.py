"""What reading saved reports within limits costs: ``bounded_json.read_json`` against ``json.loads``.

    python benchmarks/saved_json.py [--nodes 10624] [--repeat 5]

N node reports are synthesised as ``benchmarks/fleet_scale.py`` does (the recorded
reference-stack report under N names), then merged once into a fleet report. Each reading is
timed in a fresh process, the runs interleaved: the floor reads every file and parses it with
``json.loads``; the doctor's reader (``read_json`` with the report limits) also bounds the
count of values on the text, hands every number to a hook, and walks the parsed value level by
level for its depth. The first pair reads the N node reports (what ``merge`` reads), the second
the fleet report (what ``report`` or ``--baseline`` read of a fleet).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from _timing import table, time_commands
from fleet_scale import synthesise

FLOOR = (
    "import json, pathlib, sys\n"
    "for path in sorted(pathlib.Path(sys.argv[1]).glob('*.json')) or [pathlib.Path(sys.argv[1])]:\n"
    "    json.loads(path.read_text(encoding='utf-8'))\n"
)
BOUNDED = (
    "import pathlib, sys\n"
    "from ipex_doctor.bounded_json import read_json\n"
    "from ipex_doctor.errors import DoctorError\n"
    "from ipex_doctor.reporting.saved_reports import REPORT_LIMITS\n"
    "for path in sorted(pathlib.Path(sys.argv[1]).glob('*.json')) or [pathlib.Path(sys.argv[1])]:\n"
    "    read_json(path, REPORT_LIMITS, DoctorError, 'report')\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_624)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        nodes = Path(scratch) / "nodes"
        nodes.mkdir()
        synthesise(nodes, args.nodes)
        fleet = Path(scratch) / "fleet.json"
        subprocess.run([sys.executable, "-m", "ipex_doctor", "merge", str(nodes), "--fail-on",
                        "never", "--json", str(fleet)], stdout=subprocess.DEVNULL, check=True)  # fmt: skip
        for what, target in ((f"{args.nodes} node reports", nodes), ("the fleet report", fleet)):
            size = sum(
                p.stat().st_size for p in ([target] if target.is_file() else target.iterdir())
            )
            print(f"{what}: {size / 1e6:.1f} MB")
            commands = {
                "floor: json.loads": [sys.executable, "-c", FLOOR, str(target)],
                "bounded_json.read_json": [sys.executable, "-c", BOUNDED, str(target)],
            }
            print(table(time_commands(commands, repeat=args.repeat), "floor: json.loads"))


if __name__ == "__main__":
    main()
