"""Time the Intel runtime probe against its floor: a bare interpreter start of the same Python.

    python benchmarks/runtime_probe.py [PYTHON ...] [--repeat N]

For each examined interpreter (default: this one), three commands, interleaved so machine
noise hits all alike:

* the floor, ``PYTHON -I -c pass``: the probe cannot cost less than the interpreter it runs in;
* the probe script alone, ``PYTHON -I probe/scripts/unified_runtime.py`` (Level Zero, libsycl
  loaded as torch would, the Unified Runtime loader, adapters, platforms, devices);
* the probe as the doctor runs it, ``probe.gpu.gpu_facts`` (the script in a spawned interpreter,
  then the ELF symbol versions and the wheels' pins read in the doctor's process).

Prints medians and the ratio to the floor; what the probe saw is printed once per interpreter
(loader, adapters, devices), so the numbers say what was loaded.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from _timing import time_commands

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "ipex_doctor" / "probe" / "scripts" / "unified_runtime.py"
_FACTS = """
import json, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from ipex_doctor.probe import gpu
target = sys.argv[2]
site = json.loads(subprocess.run([target, "-c", "import json, sys; print(json.dumps(sys.path))"],
                                 capture_output=True, text=True, check=True).stdout)
started = time.perf_counter()
gpu.gpu_facts(target, sys_path=site, python_version=(3, 11, 0))
print(time.perf_counter() - started)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("pythons", nargs="*", default=[sys.executable])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    for python in args.pythons:
        commands = {
            "floor: python -I -c pass": [python, "-I", "-c", "pass"],
            "probe script": [python, "-I", str(SCRIPT)],
            "gpu_facts (doctor)": [sys.executable, "-c", _FACTS, str(ROOT), python],
        }
        samples = time_commands(commands, repeat=args.repeat, warmup=1)
        floor = statistics.median(samples["floor: python -I -c pass"])
        print(f"examined: {python}")
        for name, values in samples.items():
            median = statistics.median(values)
            print(f"  {name:<28} {median:7.3f} s   x{median / floor:5.1f} the floor")
        seen = json.loads(
            subprocess.run(
                [python, "-I", str(SCRIPT)], capture_output=True, text=True, check=True
            ).stdout
        )
        runtime = seen["runtime"]
        adapters = [
            f"{a['backend']}: {len(a['platforms'])} platform(s), "
            f"{sum(len(p['devices']) for p in a['platforms'])} device(s)"
            for a in runtime.get("adapters") or ()
        ]
        print(
            f"  saw: zeInit {seen['level_zero'].get('ze_init')}; loader {runtime.get('loader')}; "
            f"libsycl error {runtime.get('sycl_error')}; adapters {adapters or 'none'}"
        )
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
