"""onednn::qconv_pointwise vs onednn::qconv2d_pointwise: kernels per device, Inductor's choice, a real call.

Reproduces: pytorch #150751 made Inductor's quantized-conv lowering emit the new
onednn::qconv_pointwise op, which had CPU kernels only, so quantized conv under torch.compile
failed on XPU with NotImplementedError until #151092 registered its XPU kernel.
https://github.com/pytorch/pytorch/issues/151011

Reports which of the two names exist, on which dispatch keys each has a kernel (CPU, MkldnnCPU,
XPU, CUDA, Meta), which name this torch's Inductor emits (read from its source, no compile),
and calls the op for real on the device when a kernel exists there, checked against a float
conv of the dequantized tensors. Reproduced when torch is built with XPU and the emitted name
has no XPU kernel. A real call that fails where a kernel exists is not this issue but a wrong
measurement (of this script or of the kernel): the result then says so in ``check_failed``.

Run by hand:  python qconv_op_name.py --device xpu:0   (add --json for the raw result)
Needs only torch.
"""

import argparse
import json
import os
import re
import sys
import warnings

NAMES = ("onednn::qconv_pointwise", "onednn::qconv2d_pointwise")
KEYS = ("CPU", "MkldnnCPU", "XPU", "CUDA", "Meta")
# NOTE: a float conv of the dequantized tensors differs from the int8 kernel only by float
# accumulation order: measured 1.8e-07 relative on the CPU (torch 2.8.0 and 2.13.0).
TOLERANCE = 1e-4
_EMITTED = re.compile(r"torch\.ops\.onednn\.(qconv\w*?_pointwise)\.(\w+),\s*args=new_args")


def _kernels(torch):
    table = {}
    for name in NAMES:
        short = name.split("::")[1]
        try:
            overloads = list(getattr(torch.ops.onednn, short).overloads())
        except (AttributeError, RuntimeError):
            table[name] = {"exists": False}
            continue
        keys = {}
        for key in KEYS:
            try:
                keys[key] = bool(torch._C._dispatch_has_kernel_for_dispatch_key(name, key))
            except RuntimeError:
                keys[key] = False
        table[name] = {"exists": True, "overloads": overloads, "kernels": keys}
    return table


def _emitted(torch):
    path = os.path.join(
        os.path.dirname(torch.__file__), "_inductor", "fx_passes", "quantization.py"
    )
    try:
        with open(path, encoding="utf-8") as handle:
            match = _EMITTED.search(handle.read())
    except OSError:
        return None, path
    return ("onednn::" + match.group(1) + "." + match.group(2)) if match else None, path


def _real_call(torch, name, device):
    """Quantize, prepack, call the op; compare with a float conv of the dequantized tensors."""
    functional = torch.nn.functional
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(1, 4, 8, 8, generator=generator)
    w = torch.randn(6, 4, 3, 3, generator=generator)
    bias = torch.randn(6, generator=generator)
    # NOTE: activations use 7 of uint8's 8 bits ([1, 127] around zero point 64), the way
    # PyTorch's own x86 observers do (reduce_range). Without VNNI, oneDNN's int8 kernels sum
    # u8 x s8 products in pairs into a saturating int16 (vpmaddubsw): 255 * 127 * 2 overflows
    # it and the result is off by 1.1e-01 relative (ONEDNN_MAX_CPU_ISA=AVX2 or AVX512_CORE,
    # torch 2.8.0), while 127 * 128 * 2 fits: with 7 bits it is 1.8e-07 with oneDNN capped at
    # each of SSE41, AVX, AVX2, AVX2_VNNI, AVX512_CORE and AVX512_CORE_VNNI.
    x_scale, x_zp = float(x.abs().max() / 63), 64
    qx = torch.clamp(torch.round(x / x_scale) + x_zp, 0, 127).to(torch.uint8)
    w_scale = (w.abs().amax(dim=(1, 2, 3)) / 127).to(torch.float32)
    qw = torch.clamp(torch.round(w / w_scale[:, None, None, None]), -128, 127).to(torch.int8)
    w_zp = torch.zeros(6, dtype=torch.int64)
    reference = functional.conv2d(
        (qx.float() - x_zp) * x_scale, qw.float() * w_scale[:, None, None, None], bias, 1, 1
    )
    qx, qw, w_scale, w_zp, bias = (t.to(device) for t in (qx, qw, w_scale, w_zp, bias))
    packed = torch.ops.onednn.qconv_prepack(
        qw, w_scale, x_scale, x_zp, [1, 1], [1, 1], [1, 1], 1, [1, 4, 8, 8]
    )
    op = getattr(torch.ops.onednn, name.split("::")[1])
    out = op(
        qx.contiguous(memory_format=torch.channels_last),
        x_scale,
        x_zp,
        packed,
        w_scale,
        w_zp,
        bias,
        [1, 1],
        [1, 1],
        [1, 1],
        1,
        1.0,
        0,
        torch.float32,
        "none",
        [],
        "",
    )
    error = float((out.float().cpu() - reference).abs().max() / reference.abs().max())
    return {"ok": error <= TOLERANCE, "rel_error": error, "tolerance": TOLERANCE}


def run(device):
    """Collect the kernel facts, call the op on ``device``; returns reproduced and evidence."""
    import torch

    kind = torch.device(device).type
    key = {"cpu": ("CPU", "MkldnnCPU"), "xpu": ("XPU",), "cuda": ("CUDA",)}.get(kind, ())
    xpu = getattr(torch, "xpu", None)
    xpu_compiled = bool(xpu is not None and getattr(xpu, "_is_compiled", lambda: False)())
    table = _kernels(torch)
    emitted, source = _emitted(torch)
    result = {
        "device": device,
        "torch": torch.__version__,
        "xpu_compiled": xpu_compiled,
        "ops": table,
        "inductor_emits": emitted,
        "inductor_source": source,
        "calls": {},
    }
    for name, facts in table.items():
        kernels = facts.get("kernels", {})
        if not any(kernels.get(k) for k in key):
            result["calls"][name] = {
                "ok": None,
                "skipped": "no %s kernel" % "/".join(key or (kind,)),
            }
            continue
        try:
            result["calls"][name] = _real_call(torch, name, device)
        except Exception as exc:  # noqa: BLE001 - a failing call is the finding
            result["calls"][name] = {
                "ok": False,
                "error": "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0]),
            }
    emitted_op = emitted.rsplit(".", 1)[0] if emitted else None
    emitted_xpu = bool(emitted_op and table.get(emitted_op, {}).get("kernels", {}).get("XPU"))
    result["reproduced"] = bool(xpu_compiled and emitted_op and not emitted_xpu)
    facts = []
    for name, info in table.items():
        if not info["exists"]:
            facts.append("%s absent" % name)
            continue
        keys = [k for k, v in info["kernels"].items() if v]
        facts.append("%s kernels: %s" % (name, ", ".join(keys) or "none"))
    calls, failed = [], []
    for name, call in result["calls"].items():
        short = name.split("::")[1]
        if call.get("ok") is None:
            calls.append("%s not called on %s (%s)" % (short, device, call["skipped"]))
        elif call.get("ok"):
            calls.append(
                "%s on %s matches the float conv (rel. error %.1e)"
                % (short, device, call["rel_error"])
            )
        else:
            why = call.get("error") or "rel. error %.1e above the tolerance %.0e" % (
                call["rel_error"],
                call["tolerance"],
            )
            calls.append("%s on %s FAILED: %s" % (short, device, why))
            failed.append("%s on %s: %s" % (short, device, why))
    if failed:
        # NOTE: the call runs only where a kernel is registered, so a failure there is not the
        # issue this script reproduces (a missing kernel) but a wrong measurement: of this
        # script or of the kernel. The doctor reports a run with check_failed as an error of
        # the check, never as a clean or not-applicable one.
        result["check_failed"] = "; ".join(failed)
    if not xpu_compiled:
        xpu_part = "XPU part not applicable: torch is not built with XPU"
    elif emitted_xpu:
        xpu_part = "the emitted name has an XPU kernel"
    else:
        xpu_part = (
            "the emitted name has NO XPU kernel: quantized conv under torch.compile fails on XPU"
        )
    result["evidence"] = "%s; Inductor emits %s; %s; %s" % (
        "; ".join(facts),
        emitted or "(not found in %s)" % source,
        "; ".join(calls),
        xpu_part,
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
