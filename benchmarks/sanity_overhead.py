"""Compare the sanity run's throughputs with a bare PyTorch loop doing the same work.

    python benchmarks/sanity_overhead.py [--rounds N] [--python PATH] [--device D] [--profile P]

Each round runs ``ipex-doctor sanity --json -`` (the doctor's worker, spawned interpreter,
captured output, progress records) and ``benchmarks/_bare_resnet_loop.py`` with the same
interpreter, model, batch, image size and step counts; rounds alternate so machine noise hits
both alike. Reported: the median images/s of each and the doctor's overhead
(1 - doctor/bare; target <= 5 %).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
import testenvs  # noqa: E402

METRICS = ("train_fp32", "train_amp", "infer_fp32", "infer_amp")


def main() -> int:
    """Run the rounds and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--python", default=None, help="examined interpreter (default: reference env)"
    )
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--profile", choices=["quick", "full"], default="quick")
    args = parser.parse_args()
    python = args.python or str(testenvs.build("reference"))
    env = dict(os.environ, NO_COLOR="1")
    doctor: dict[str, list[float]] = {m: [] for m in METRICS}
    bare: dict[str, list[float]] = {m: [] for m in METRICS}
    for _ in range(args.rounds):
        done = subprocess.run(
            [sys.executable, "-m", "ipex_doctor", "sanity", "--python", python, "--device", args.device,
             "--profile", args.profile, "--no-ipex", "--json", "-"],
            capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        report = json.loads(done.stdout)
        numbers = next(f for f in report["findings"] if f["id"] == "sanity-throughput")["evidence"][
            "data"
        ]
        for metric in METRICS:
            doctor[metric].append(numbers[metric])
        # NOTE: the bare loop runs in the regime the doctor reports it measured in.
        regime = numbers["regime"]
        # NOTE: the doctor's worker has imported IPEX (the probe does), and IPEX replaces some
        # CPU autocast kernels; the bare loop imports it too, so both run the same kernels.
        with_ipex = ["--with-ipex"] if report["environment"]["runtime"]["ipex"] else []
        loop = subprocess.run(
            [python, str(HERE / "_bare_resnet_loop.py"), *with_ipex, "--image", str(regime["image"]),
             "--batch", str(regime["batch"]), "--layout", regime["layout"], "--warmup", str(regime["warmup"]),
             "--timed", str(regime["min_steps"]), "--min-seconds", str(regime.get("min_seconds", 0.0)),
             "--device", args.device],
            capture_output=True, text=True, env=env, check=True,
        )  # fmt: skip
        result = json.loads(loop.stdout.strip().splitlines()[-1])
        for metric in METRICS:
            bare[metric].append(result[metric])
    print(f"{'metric (img/s)':<14} {'doctor':>9} {'bare loop':>10} {'overhead':>9}")
    worst = 0.0
    for metric in METRICS:
        d, b = statistics.median(doctor[metric]), statistics.median(bare[metric])
        overhead = 1 - d / b
        worst = max(worst, overhead)
        print(f"{metric:<14} {d:9.1f} {b:10.1f} {overhead:9.1%}")
    print(
        f"worst overhead {worst:.1%} (target <= 5%), {args.rounds} rounds, profile {args.profile}, {args.device}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
