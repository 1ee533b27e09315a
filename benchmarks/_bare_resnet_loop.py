"""A bare PyTorch loop doing the sanity run's throughput work, for benchmarks/sanity_overhead.py.

    python _bare_resnet_loop.py [--image 224] [--batch 8] [--layout channels_last] [--warmup 2]
                                [--timed 5] [--min-seconds 1] [--device cpu]

Prints one JSON object: images/s for fp32 and bf16-AMP training and inference. Written apart
from the doctor on purpose (no shared code), so the comparison measures the doctor's overhead
(benchmarks/sanity_overhead.py) and what the device can do in other regimes
(benchmarks/amp_regimes.py).
"""

import argparse
import json
import time

import torch
import torchvision


def main() -> None:
    """Measure and print the four throughputs."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--image", type=int, default=224)
    parser.add_argument(
        "--layout", choices=["channels_last", "contiguous"], default="channels_last"
    )
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--timed", type=int, default=5)
    parser.add_argument("--min-seconds", type=float, default=1.0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument(
        "--with-ipex", action="store_true", help="import IPEX first, as the doctor's worker does"
    )
    args = parser.parse_args()
    # ipex-doctor: ignore[ipex-path-switch] the benchmark's flag for the reference stack's IPEX path
    if args.with_ipex:
        # ipex-doctor: ignore[ipex-import] measures the IPEX path of the reference stack on purpose
        import intel_extension_for_pytorch  # noqa: F401
    device, kind = args.device, torch.device(args.device).type
    torch.manual_seed(0)
    layout = {"channels_last": torch.channels_last, "contiguous": torch.contiguous_format}[
        args.layout
    ]
    model = torchvision.models.resnet50(weights=None, num_classes=10).to(device)
    model = model.to(memory_format=layout)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.005, momentum=0.9)
    x = torch.randn(args.batch, 3, args.image, args.image, device=device)
    x = x.contiguous(memory_format=layout)
    y = (torch.arange(args.batch) % 10).to(device)
    if kind == "cuda":
        torch.backends.cudnn.benchmark = True

    def sync() -> None:
        if kind != "cpu":
            getattr(torch, kind).synchronize()

    def timed(step, amp: bool) -> float:
        sync()
        started = time.perf_counter()
        steps = 0
        while steps < args.timed or time.perf_counter() - started < args.min_seconds:
            step(amp)
            steps += 1
            if steps % 5 == 0:
                sync()
        sync()
        return args.batch * steps / (time.perf_counter() - started)

    def train(amp: bool) -> None:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(kind, dtype=torch.bfloat16, enabled=amp):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()

    def infer(amp: bool) -> None:
        with torch.no_grad(), torch.autocast(kind, dtype=torch.bfloat16, enabled=amp):
            model(x)

    modes = (
        ("train_fp32", train, False, True),
        ("train_amp", train, True, True),
        ("infer_fp32", infer, False, False),
        ("infer_amp", infer, True, False),
    )
    for _name, step, amp, training in modes:
        model.train(training)
        for _ in range(args.warmup):
            step(amp)
    # NOTE: 3 alternating rounds, the best of each mode kept.
    out: dict[str, float] = {}
    for _round in range(3):
        for name, step, amp, training in modes:
            model.train(training)
            out[name] = max(out.get(name, 0.0), timed(step, amp))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
