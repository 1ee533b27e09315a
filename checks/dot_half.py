"""Half/BFloat16 torch.dot and a spectral-normed layer under .half() (IPEX #673).

Reproduces: `RuntimeError: "dot" not implemented for 'Half'` raised by the XPU dot kernel of
IPEX <= 2.1.40+xpu, seen first in a spectral_norm layer of a model converted with `.half()`
(spectral_norm computes sigma = torch.dot(u, torch.mv(weight, v)) in every forward).
https://github.com/intel/intel-extension-for-pytorch/issues/673

Workaround verified: the same layer kept in fp32 and run under
torch.autocast(device, dtype=float16 / bfloat16) runs and matches an fp32 reference.

Run by hand:  python dot_half.py --device xpu:0   (add --json for the raw result)
Needs only torch (IPEX is imported when installed, as a user's script would).
"""

import argparse
import json
import sys
import warnings

# NOTE: relative max error of autocast against fp32 for a 3x3 conv over 3 channels: fp16 keeps
# 11 significant bits (about 1e-3 per value), bf16 8 bits (about 8e-3); the tolerances leave
# room for accumulation over the 27-term dot products.
TOLERANCE = {"float16": 1e-2, "bfloat16": 5e-2}
SYMPTOM = '"dot" not implemented for'


def _load_torch():
    import torch

    try:
        import intel_extension_for_pytorch  # noqa: F401 - registers IPEX's XPU kernels
    except Exception:  # noqa: BLE001 - IPEX is optional here
        pass
    return torch


def _relative_error(torch, value, reference):
    value, reference = value.float().cpu(), reference.float().cpu()
    scale = reference.abs().max().clamp_min(1e-12)
    return float((value - reference).abs().max() / scale)


def run(device):
    """Reproduce on ``device``; returns reproduced, evidence and the measured numbers."""
    torch = _load_torch()
    torch.manual_seed(0)
    result = {"device": device, "torch": torch.__version__, "dot": {}, "reproduced": None}
    errors = []
    for name in ("float16", "bfloat16"):
        dtype = getattr(torch, name)
        a = torch.randn(256, device=device, dtype=dtype)
        b = torch.randn(256, device=device, dtype=dtype)
        try:
            value = torch.dot(a, b)
            reference = torch.dot(a.float(), b.float())
            result["dot"][name] = {
                "ok": True,
                "rel_error": _relative_error(torch, value, reference),
            }
        except RuntimeError as exc:
            result["dot"][name] = {"ok": False, "error": str(exc)}
            errors.append(str(exc))

    layer = torch.nn.utils.spectral_norm(torch.nn.Conv2d(3, 8, 3)).to(device).eval()
    x = torch.randn(2, 3, 16, 16, device=device)
    with torch.no_grad():
        reference = layer(x)
    half_layer = torch.nn.utils.spectral_norm(torch.nn.Conv2d(3, 8, 3)).to(device).eval()
    half_layer.load_state_dict(layer.state_dict())
    half_layer = half_layer.half()
    try:
        with torch.no_grad():
            half_out = half_layer(x.half())
        result["spectral_norm_half"] = {
            "ok": True,
            "rel_error": _relative_error(torch, half_out, reference),
        }
    except RuntimeError as exc:
        result["spectral_norm_half"] = {"ok": False, "error": str(exc)}
        errors.append(str(exc))

    kind = torch.device(device).type
    result["workaround"] = {}
    for name in ("float16", "bfloat16"):
        try:
            with torch.no_grad(), torch.autocast(kind, dtype=getattr(torch, name)):
                out = layer(x)
            error = _relative_error(torch, out, reference)
            result["workaround"][name] = {
                "ok": error <= TOLERANCE[name],
                "rel_error": error,
                "tolerance": TOLERANCE[name],
            }
        except RuntimeError as exc:
            result["workaround"][name] = {"ok": False, "error": str(exc)}

    hit = [e for e in errors if SYMPTOM in e]
    result["reproduced"] = bool(hit)
    verified = [n for n, w in result["workaround"].items() if w.get("ok")]
    workaround = (
        "autocast workaround verified in " + "/".join(verified)
        if verified
        else "autocast workaround did NOT verify"
    )
    if hit:
        result["evidence"] = "raised %r; %s" % (hit[0], workaround)
    elif errors:
        result["evidence"] = "no dot error, but other errors: %s; %s" % (errors[0], workaround)
    else:
        dot = ", ".join(
            "%s rel. error %.1e" % (n, r["rel_error"]) for n, r in result["dot"].items()
        )
        result["evidence"] = (
            "dot works in Half and BFloat16 (%s); spectral_norm .half() forward works (rel. error %.1e); %s"
            % (
                dot,
                result["spectral_norm_half"]["rel_error"],
                workaround,
            )
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
