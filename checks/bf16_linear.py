"""bf16 Linear after ipex.optimize(dtype=torch.bfloat16) fed fp32 input without autocast (IPEX #748).

Reproduces: `RuntimeError: could not create a primitive descriptor for an/the inner product
forward propagation primitive`: ipex.optimize(model.eval(), dtype=torch.bfloat16) casts and
prepacks the Linear weights to bf16 while the input stays fp32.
https://github.com/intel/intel-extension-for-pytorch/issues/748

Workaround verified: the same call under torch.autocast(device, dtype=torch.bfloat16) runs and
agrees with the fp32 model within TOLERANCE.

On a CPU that cannot prepack BF16 weights (no avx_ne_convert, no AVX-512 BW/VL/DQ: AVX2-only
EPYC Rome/Milan) ipex.optimize(dtype=torch.bfloat16) refuses with "BF16 weight prepack needs the
cpu support ..." unless weights_prepack=False. The script then takes that path, the one IPEX
allows there: the Linear weights are still cast to bf16, fp32 input then fails with the same
issue in torch's spelling ("mat1 and mat2 must have the same dtype"), and autocast still fixes it.

Run by hand:  python bf16_linear.py --device cpu   (add --json for the raw result)
Needs torch and intel_extension_for_pytorch; without IPEX the issue does not apply.
"""

import argparse
import copy
import json
import re
import sys
import warnings

# NOTE: bf16 keeps 8 significant bits. For this two-layer MLP the max error relative to the
# largest fp32 output measured 2.9e-3 to 5.2e-3 over 20 seeds (torch 2.8.0, IPEX 2.8.0+cpu);
# 3e-2 is about 6x the worst seed, so only a real breakage exceeds it.
TOLERANCE = 3e-2
SYMPTOM = re.compile(
    r"could not create a primitive descriptor for (an|the) inner product forward"
    r"|mat1 and mat2 must have the same dtype"
)
PREPACK_REFUSED = re.compile(r"BF16 weight prepack needs the cpu support")


def _relative_error(value, reference):
    value, reference = value.float().cpu(), reference.float().cpu()
    scale = reference.abs().max().clamp_min(1e-12)
    return float((value - reference).abs().max() / scale)


def run(device):
    """Reproduce on ``device``; returns reproduced, evidence and the measured numbers."""
    import torch

    try:
        import intel_extension_for_pytorch as ipex
    except Exception as exc:  # noqa: BLE001 - a missing or broken IPEX means "not applicable"
        return {
            "device": device,
            "reproduced": None,
            "applicable": False,
            "evidence": "not applicable: intel_extension_for_pytorch does not import (%s: %s)"
            % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ""),
        }
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 16))
    model = model.eval().to(device)
    x = torch.randn(4, 64, device=device)
    with torch.no_grad():
        reference = model(x)
    result = {
        "device": device,
        "torch": torch.__version__,
        "ipex": getattr(ipex, "__version__", "?"),
        "applicable": True,
        "path": "ipex.optimize(model, dtype=torch.bfloat16)",
    }
    try:
        optimized = ipex.optimize(copy.deepcopy(model), dtype=torch.bfloat16)
    except AssertionError as exc:
        if not PREPACK_REFUSED.search(str(exc)):
            raise
        # NOTE: IPEX's own ISA assertion: the path it allows on this CPU is without prepack.
        result["prepack_refused"] = " ".join(str(exc).split())
        result["path"] = "ipex.optimize(model, dtype=torch.bfloat16, weights_prepack=False)"
        optimized = ipex.optimize(copy.deepcopy(model), dtype=torch.bfloat16, weights_prepack=False)
    try:
        with torch.no_grad():
            out = optimized(x)
        result["fp32_input"] = {"ok": True, "dtype": str(out.dtype)}
    except RuntimeError as exc:
        result["fp32_input"] = {"ok": False, "error": str(exc).splitlines()[0]}
    kind = torch.device(device).type
    try:
        with torch.no_grad(), torch.autocast(kind, dtype=torch.bfloat16):
            out = optimized(x)
        error = _relative_error(out, reference)
        result["workaround"] = {
            "ok": error <= TOLERANCE,
            "rel_error": error,
            "tolerance": TOLERANCE,
            "dtype": str(out.dtype),
        }
    except RuntimeError as exc:
        result["workaround"] = {"ok": False, "error": str(exc).splitlines()[0]}

    error_text = result["fp32_input"].get("error", "")
    result["reproduced"] = bool(SYMPTOM.search(error_text))
    workaround = result["workaround"]
    if workaround.get("ok"):
        verified = (
            "workaround verified: under autocast(bfloat16) it runs and matches fp32 (rel. error %.1e <= %.0e)"
            % (
                workaround["rel_error"],
                TOLERANCE,
            )
        )
    elif "rel_error" in workaround:
        verified = "workaround ran but differs from fp32 (rel. error %.1e > %.0e)" % (
            workaround["rel_error"],
            TOLERANCE,
        )
    else:
        verified = "workaround failed: %s" % workaround.get("error")
    refused = result.get("prepack_refused")
    if refused:
        verified = "%s; %s" % (
            verified.replace(
                "under autocast(bfloat16)",
                "with weights_prepack=False and under autocast(bfloat16)",
            ),
            "this CPU cannot prepack BF16 weights (IPEX: %r), so the check took the path IPEX allows here, weights_prepack=False"
            % refused.split(", but")[0],
        )
        if result["reproduced"] and workaround.get("ok"):
            result["remediation"] = (
                "On this CPU IPEX refuses to prepack BF16 weights: call ipex.optimize(model, "
                "dtype=torch.bfloat16, weights_prepack=False) and run the model under autocast: "
                "with torch.no_grad(), torch.amp.autocast(%r, dtype=torch.bfloat16): out = "
                "model(x) (verified here)." % kind
            )
    if result["reproduced"]:
        result["evidence"] = "fp32 input raised %r; %s" % (error_text, verified)
    elif error_text:
        result["evidence"] = "fp32 input raised another error: %r; %s" % (error_text, verified)
    else:
        result["evidence"] = "fp32 input ran (output %s); %s" % (
            result["fp32_input"]["dtype"],
            verified,
        )
    return result


# ---- shared by every script in checks/ ------------------------------------------------------
# Each script must run alone (python checks/<name>.py, or copied out to attach to a bug report),
# so it cannot import a common module: _cannot_run, main and the __main__ guard below are copied
# into every script on purpose, and tests/test_check_scripts_shared.py keeps the copies
# identical. Change them in every script at once.


def _cannot_run(device):
    """Why this script cannot run on ``device`` here (torch missing, no such device), or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NOTE: torch's own import chatter (no NumPy...)
            import torch
    except Exception as exc:  # noqa: BLE001 - any import failure means: cannot run here
        return "torch does not import: %s: %s" % (type(exc).__name__, exc)
    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError) as exc:
        return "%r is not a device: %s" % (device, exc)
    if parsed.type == "cpu":
        return None
    if parsed.type == "xpu":
        try:  # NOTE: before torch 2.5, torch.xpu (and so the device) came with IPEX
            import intel_extension_for_pytorch  # noqa: F401
        except Exception:  # noqa: BLE001 - torch's own XPU support may still see the device
            pass
    backend = getattr(torch, parsed.type, None)
    count = backend.device_count() if backend is not None and backend.is_available() else 0
    if count == 0:
        return "no %s device is available here" % parsed.type
    if parsed.index is not None and parsed.index >= count:
        return "%s does not exist here (%d %s device(s))" % (device, count, parsed.type)
    return None


def main(argv=None):
    """Command line: --device DEVICE [--json]. Exit 1 reproduced, 0 not, 2 cannot run here."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", action="store_true", help="print the result dict as JSON")
    args = parser.parse_args(argv)
    problem = _cannot_run(args.device)
    if problem is not None:
        print("%s: cannot run on %s: %s" % (parser.prog, args.device, problem), file=sys.stderr)
        return 2
    result = run(args.device)
    if args.json:
        print(json.dumps(result, indent=2, default=repr))
    else:
        state = {True: "REPRODUCED", False: "not reproduced", None: "could not tell"}
        print("%s on %s: %s" % (__doc__.splitlines()[0], args.device, state[result["reproduced"]]))
        print("  " + result["evidence"])
        if result.get("check_failed"):
            print("  the check failed its own verification: " + result["check_failed"])
    return 1 if result["reproduced"] else 0


if __name__ == "__main__":
    sys.exit(main())
