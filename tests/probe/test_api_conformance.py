"""Every torch.xpu / torch.distributed / IPEX name the probes and checks use exists for real.

No Intel GPU exists here, so the XPU code paths never run; what can be checked is that they
call real APIs. The ``torch.xpu`` module and the ``_XpuDeviceProperties`` stubs ship in every
torch wheel (CPU and CUDA builds too), so each name is checked against the installed torch of
the test environments (and of any interpreter in ``IPEX_DOCTOR_CONFORMANCE_PYTHONS``,
colon-separated: other torch lines). A name that some supported release lacks must be read
through ``getattr`` with a fallback, listed in ``GUARDED`` with what happens without it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
from conftest import REPO, doctor_env, real_env

from ipex_doctor.verdicts.device_outliers import PROPERTIES

SOURCES = sorted(
    [*(REPO / "ipex_doctor" / "probe" / "scripts").glob("*.py"), *(REPO / "checks").glob("*.py")]
)

USED: dict[str, set[str]] = {
    # torch.<accelerator> as reached through getattr(torch, kind) for xpu and cuda alike
    "torch.xpu": {"is_available", "device_count", "get_device_properties", "synchronize",
                  "set_device", "empty_cache", "_is_compiled"},
    "torch.cuda": {"is_available", "device_count", "get_device_properties", "synchronize",
                   "set_device", "empty_cache", "get_device_capability"},
    "torch.distributed": {"init_process_group", "get_rank", "get_world_size", "all_reduce",
                          "all_gather", "barrier", "gather_object", "destroy_process_group",
                          "is_nccl_available", "is_xccl_available"},
    "intel_extension_for_pytorch": {"optimize", "__version__", "_C", "xpu", "__build_type__",
                                    "__ipex_gitrev__", "__torch_gitrev__"},
    "intel_extension_for_pytorch._C": {"_get_current_isa_level",
                                       "_get_highest_cpu_support_isa_level",
                                       "_get_highest_binary_support_isa_level", "_has_xpu"},
}  # fmt: skip
"""The names used, by module; a test below keeps this list in step with the sources."""

GUARDED: dict[tuple[str, str], str] = {
    (
        "torch.distributed",
        "is_xccl_available",
    ): "present in torch 2.6, 2.7, 2.8 and 2.11 (checked); "
    "older releases may lack it: read through getattr and callable, else gloo or nccl is used",
    ("intel_extension_for_pytorch", "xpu"): "only XPU builds of IPEX have ipex.xpu; has_xmx is "
    "read through getattr, after torch's own has_subgroup_matrix_multiply_accumulate",
    ("intel_extension_for_pytorch", "__ipex_gitrev__"): "read only if hasattr",
    ("intel_extension_for_pytorch", "__torch_gitrev__"): "read only if hasattr",
    ("intel_extension_for_pytorch", "__build_type__"): "read only if hasattr",
    ("intel_extension_for_pytorch._C", "_has_xpu"): "read through getattr; XPU builds only",
}
"""Names some supported release lacks, and the fallback the code has for them."""

XPU_PROPERTIES_USED = {"name", "total_memory", "driver_version", "has_fp64", "has_fp16",
                       "max_compute_units", "gpu_eu_count",
                       "has_subgroup_matrix_multiply_accumulate"}  # fmt: skip
CUDA_PROPERTIES_USED = {"name", "total_memory", "multi_processor_count", "major", "minor"}

_PATTERNS = {
    "torch.distributed": [r"\bdist\.(\w+)", r"getattr\(dist, \"(\w+)\""],
    "intel_extension_for_pytorch": [r"\bipex\.(\w+)", r"getattr\(ipex, \"(\w+)\""],
    "accelerator": [
        r"\bbackend(?:_module)?\.(\w+)",
        r"getattr\(torch, kind\)\.(\w+)",
        r"\btorch\.(?:xpu|cuda)\.(\w+)",
        r"getattr\(torch\.(?:xpu|cuda), \"(\w+)\"",
        r"getattr\(xpu, \"(\w+)\"",
    ],
}


def _found(patterns: list[str]) -> set[str]:
    text = "\n".join(path.read_text() for path in SOURCES)
    return {name for pattern in patterns for name in re.findall(pattern, text)}


def test_the_list_covers_every_use_in_the_sources() -> None:
    """A new torch.xpu / dist / ipex name in a probe or check must be added to USED (and so
    be checked against real torch) before it can land."""
    assert _found(_PATTERNS["torch.distributed"]) <= USED["torch.distributed"]
    assert _found(_PATTERNS["intel_extension_for_pytorch"]) <= USED["intel_extension_for_pytorch"]
    accelerator = _found(_PATTERNS["accelerator"]) - {"amp"}
    assert accelerator <= USED["torch.xpu"] | USED["torch.cuda"], accelerator
    assert set(PROPERTIES) <= XPU_PROPERTIES_USED | CUDA_PROPERTIES_USED


_PROBE = r"""
import importlib, importlib.util, json, os, re, sys
used = json.loads(sys.argv[1])
out = {"missing": [], "absent": [], "torch": None, "ipex": None, "xpu_fields": [], "cuda_fields": []}
import torch
out["torch"] = torch.__version__
stub = open(os.path.join(os.path.dirname(torch.__file__), "_C", "__init__.pyi")).read()
for cls, key in (("_XpuDeviceProperties", "xpu_fields"), ("_CudaDeviceProperties", "cuda_fields")):
    body = re.search(r"class %s[^:]*:\n((?:    .*\n|\n)+)" % cls, stub)
    out[key] = re.findall(r"^    (\w+): ", body.group(1), re.M) if body else []
for module, names in used.items():
    if importlib.util.find_spec(module.split(".")[0]) is None:
        out["absent"].append(module)  # not installed here (IPEX on an upstream-torch stack)
        continue
    try:
        mod = importlib.import_module(module)
    except Exception as exc:
        out["missing"] += ["%s (module: %s)" % (module, type(exc).__name__)]
        continue
    if module == "intel_extension_for_pytorch":
        out["ipex"] = getattr(mod, "__version__", None)
    out["missing"] += ["%s.%s" % (module, n) for n in names if not hasattr(mod, n)]
print(json.dumps(out))
"""


def _pythons() -> list[str]:
    extra = [p for p in os.environ.get("IPEX_DOCTOR_CONFORMANCE_PYTHONS", "").split(":") if p]
    return [real_env("reference"), *extra]


def problems_of(python: str) -> tuple[dict[str, object], list[str]]:
    """The facts of ``python``'s torch (and IPEX) and what in them contradicts USED."""
    done = subprocess.run(
        [python, "-c", _PROBE, json.dumps({k: sorted(v) for k, v in USED.items()})],
        capture_output=True, text=True, env=doctor_env(), check=False, timeout=300,
    )  # fmt: skip
    if done.returncode != 0:
        return {}, [f"{python} failed: {done.stderr.strip()[-500:]}"]
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    problems = [
        f"{name} does not exist and has no fallback"
        for name in facts["missing"]
        if tuple(name.rsplit(".", 1)) not in GUARDED
    ]
    if not facts["xpu_fields"] or not facts["cuda_fields"]:
        problems.append("no _XpuDeviceProperties / _CudaDeviceProperties stubs found")
    problems += [f"XPU property {p} is not in _XpuDeviceProperties" for p in
                 sorted(XPU_PROPERTIES_USED - set(facts["xpu_fields"]))]  # fmt: skip
    problems += [f"CUDA property {p} is not in _CudaDeviceProperties" for p in
                 sorted(CUDA_PROPERTIES_USED - set(facts["cuda_fields"]))]  # fmt: skip
    if "has_xmx" in facts["xpu_fields"]:
        problems.append("has_xmx is a device property after all")
    return facts, problems


@pytest.mark.envs
def test_every_used_name_exists_in_real_torch_and_ipex() -> None:
    """Against the real installed torch and IPEX: every used name exists or is guarded, and
    every device property the doctor reads is a field of torch's device-properties stubs."""
    for python in _pythons():
        facts, problems = problems_of(python)
        assert not problems, (python, facts.get("torch"), facts.get("ipex"), problems)


if __name__ == "__main__":
    import sys

    failed = 0
    for interpreter in sys.argv[1:]:
        found, wrong = problems_of(interpreter)
        print(f"{interpreter}: torch {found.get('torch')}, IPEX {found.get('ipex')}, "
              f"absent {found.get('absent')}: {'; '.join(wrong) or 'every name exists'}")  # fmt: skip
        failed += bool(wrong)
    raise SystemExit(1 if failed else 0)
