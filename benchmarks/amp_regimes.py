"""What AMP gains in each regime, and how close the sanity run's numbers come to the best.

    python benchmarks/amp_regimes.py [--python PATH] [--device D] [--batches 64,128,256]
                                     [--layouts channels_last,contiguous] [--profile quick]

Runs ``ipex-doctor sanity`` on the device, then ``benchmarks/_bare_resnet_loop.py`` (a plain
PyTorch loop, no code shared with the doctor) at 224x224 for every batch x memory layout, all
with the same interpreter. Prints fp32 and bf16-AMP images/s per regime and the doctor's AMP
training and inference throughput as a fraction of the best plain-loop regime measured in the
same run (target: at least 0.9). Default batches: 64, 128, 256 on an accelerator; 4, 8, 32 on
the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
import testenvs  # noqa: E402

METRICS = ("train_fp32", "train_amp", "infer_fp32", "infer_amp")
# NOTE: a CPU step of ResNet-50 at 224x224 takes about a second: fewer, as the sanity run does.
STEPS = {
    "cpu": ["--warmup", "1", "--timed", "2", "--min-seconds", "0"],
    "accelerator": ["--warmup", "5", "--timed", "10", "--min-seconds", "1.0"],
}


def _doctor(python: str, device: str, profile: str, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", "sanity", "--python", python, "--device", device,
         "--profile", profile, "--no-ipex", "--json", "-"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    report = json.loads(done.stdout)
    finding = next(f for f in report["findings"] if f["id"] == "sanity-throughput")
    data: dict[str, object] = finding["evidence"]["data"]
    return data | {"status": finding["status"], "title": finding["title"]}


def _bare(
    python: str, device: str, batch: int, layout: str, env: dict[str, str]
) -> dict[str, float]:
    done = subprocess.run(
        [python, str(HERE / "_bare_resnet_loop.py"), "--device", device, "--image", "224",
         "--batch", str(batch), "--layout", layout, *STEPS["cpu" if device == "cpu" else "accelerator"]],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["?"]
        raise RuntimeError(f"batch {batch} {layout}: {tail[0]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    """Measure every regime, print the table and the doctor's fraction of the best."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", default=None, help="examined interpreter (default: reference)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batches", default=None)
    parser.add_argument("--layouts", default="channels_last,contiguous")
    parser.add_argument("--profile", default="quick", choices=["quick", "full"])
    args = parser.parse_args()
    python = args.python or str(testenvs.build("reference"))
    default = "4,8,32" if args.device == "cpu" else "64,128,256"
    batches = [int(b) for b in (args.batches or default).split(",")]
    env = dict(os.environ, NO_COLOR="1")
    doctor = _doctor(python, args.device, args.profile, env)
    regime = doctor.get("regime") or {}
    print(f"doctor ({args.profile}): {doctor['title']} [{doctor['status']}]; regime {regime}")
    print(f"  {'':24}" + "".join(f"{m:>12}" for m in METRICS) + f"{'train x':>9}{'infer x':>9}")
    print(
        f"  {'doctor':24}"
        + "".join(f"{float(doctor[m]):12.1f}" for m in METRICS)  # type: ignore[arg-type]
        + f"{float(doctor['speedup_train']):9.2f}{float(doctor['speedup_infer']):9.2f}"  # type: ignore[arg-type]
    )
    best: dict[str, tuple[float, str]] = {}
    for layout in args.layouts.split(","):
        for batch in batches:
            label = f"bare {layout} bs{batch}"
            try:
                numbers = _bare(python, args.device, batch, layout, env)
            except RuntimeError as exc:
                print(f"  {label:24} failed: {exc}")
                continue
            print(
                f"  {label:24}" + "".join(f"{numbers[m]:12.1f}" for m in METRICS)
                + f"{numbers['train_amp'] / numbers['train_fp32']:9.2f}"
                + f"{numbers['infer_amp'] / numbers['infer_fp32']:9.2f}"
            )  # fmt: skip
            for metric in ("train_amp", "infer_amp"):
                if numbers[metric] > best.get(metric, (0.0, ""))[0]:
                    best[metric] = (numbers[metric], label)
    for metric, (value, label) in best.items():
        fraction = float(doctor[metric]) / value  # type: ignore[arg-type]
        print(
            f"doctor {metric} = {fraction:.2f} of the best plain loop ({label}, {value:.1f} img/s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
