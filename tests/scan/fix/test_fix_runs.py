"""The rewritten code runs on upstream torch: snippets of IPEX-era code are fixed with
``fix_source`` and run, as fixed, in the real ``torch28-only`` environment (torch 2.8.0 CPU,
no IPEX, no torch-ccl). XPU-only calls are guarded by ``torch.xpu.is_available()`` there, so
on this CPU build they are compiled and their API checked, not called."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from textwrap import dedent

import pytest
from conftest import doctor_env, real_env

from ipex_doctor.scan.fix.rewrite import fix_source

pytestmark = pytest.mark.envs


def _run(python: str, code: str, cwd: Path, extra_path: str | None = None) -> dict[str, object]:
    """Run ``code`` with ``python`` in ``cwd``; the JSON it prints last."""
    env = doctor_env()
    if extra_path:
        env["PATH"] = extra_path + os.pathsep + env.get("PATH", "")
        env["PYTHONPATH"] = str(cwd)
    script = cwd / "snippet.py"
    script.write_text(code)
    done = subprocess.run(
        [python, "-W", "error::FutureWarning", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _fixed(source: str, *fix_ids: str) -> str:
    outcome = fix_source(dedent(source), fix_ids)
    assert outcome.changed and not outcome.refusals, outcome.refusals
    return outcome.source


AUTOCAST = """\
import json
import torch
from torch.xpu.amp import autocast

a, b = torch.randn(4, 4), torch.randn(4, 4)
out = {}
with torch.cpu.amp.autocast():
    out["cpu_dtype"] = str(torch.mm(a, b).dtype)

# IPEX's XPU autocast means bfloat16, even inside a float16 region
with torch.amp.autocast("xpu", dtype=torch.float16, cache_enabled=False):
    with torch.xpu.amp.autocast():
        out["xpu_dtype"] = str(torch.get_autocast_dtype("xpu"))
        out["xpu_cache"] = torch.is_autocast_cache_enabled()

@autocast(enabled=False)
def plain():
    return torch.is_autocast_enabled("xpu")

out["decorated_disabled"] = plain()
torch.xpu.set_autocast_xpu_dtype(torch.float16)
torch.xpu.set_autocast_xpu_enabled(True)
out["state"] = [str(torch.xpu.get_autocast_xpu_dtype()), torch.xpu.is_autocast_xpu_enabled()]
torch.xpu.set_autocast_xpu_enabled(False)
scaler = torch.xpu.amp.GradScaler(init_scale=1024.0, growth_interval=10)
out["scaler"] = [scaler.get_growth_interval(), scaler.get_backoff_factor()]
print(json.dumps(out))
"""


def test_rewritten_amp_code_runs_on_upstream_torch(tmp_path: Path) -> None:
    """autocast (cpu, xpu, as ``with`` and decorator), the autocast state functions and
    GradScaler, rewritten, run on torch 2.8 CPU without a deprecation warning, and keep IPEX's
    meaning: ``torch.xpu.amp.autocast()`` is bfloat16 with the cache on even inside a float16
    region without cache (the pinned defaults)."""
    code = _fixed(AUTOCAST, "autocast-xpu", "autocast-cpu", "autocast-xpu-state", "grad-scaler-xpu")
    assert "xpu.amp" not in code and "cpu.amp" not in code
    result = _run(real_env("torch28-only"), code, tmp_path)
    assert result == {
        "cpu_dtype": "torch.bfloat16",
        "xpu_dtype": "torch.bfloat16",
        "xpu_cache": True,
        "decorated_disabled": False,
        "state": ["torch.float16", True],
        "scaler": [10, 0.5],
    }


DEVICE = """\
import json
import torch
import intel_extension_for_pytorch as ipex

checked = {"get_device_properties": hasattr(torch.xpu, "get_device_properties"),
           "mem_get_info": hasattr(torch.xpu, "mem_get_info")}
if torch.xpu.is_available():
    checked["fp64"] = torch.xpu.has_fp64_dtype()
    checked["xmx"] = torch.xpu.has_xmx()
    checked["block_io"] = torch.xpu.has_2d_block_array(0)
    checked["free"] = ipex.xpu.mem_get_info()[0]
print(json.dumps(checked))
"""


def test_rewritten_device_queries_compile_and_exist_upstream(tmp_path: Path) -> None:
    """device-properties and mem-get-info, rewritten, no longer import IPEX (absent here) and
    name APIs upstream torch has; the queries themselves need an XPU and are guarded."""
    code = _fixed(DEVICE, "device-properties", "mem-get-info", "ipex-side-effect-import")
    assert "intel_extension_for_pytorch" not in code and "ipex." not in code
    result = _run(real_env("torch28-only"), code, tmp_path)
    assert result == {"get_device_properties": True, "mem_get_info": True}


FAKE_TORCH_CCL = """\
# A stand-in for torch-ccl: registers a "ccl" backend (gloo underneath) on import.
import torch.distributed as dist
from torch.distributed import ProcessGroupGloo

def _create(store, rank, size, timeout):
    return ProcessGroupGloo(store, rank, size, timeout)

dist.Backend.register_backend("ccl", _create, devices=["cpu"])
"""

CCL = """\
import json
import os
import sys
import torch
import torch.distributed as dist
import oneccl_bindings_for_pytorch  # noqa: F401

store = "file://" + os.path.abspath("store")
dist.init_process_group(backend="ccl", init_method=store, rank=0, world_size=1)
t = torch.ones(2)
dist.all_reduce(t)
print(json.dumps({"backend": dist.get_backend(), "sum": t.tolist(),
                  "torch_ccl_imported": "oneccl_bindings_for_pytorch" in sys.modules}))
dist.destroy_process_group()
"""


def test_rewritten_ccl_code_still_runs_where_xccl_is_missing(tmp_path: Path) -> None:
    """On torch 2.8 CPU (no XCCL) the rewritten program still imports torch-ccl and uses
    ``ccl`` (a stand-in module registers it), as before the fix."""
    code = _fixed(CCL, "ccl-to-xccl")
    assert "is_xccl_available" in code
    (tmp_path / "oneccl_bindings_for_pytorch.py").write_text(FAKE_TORCH_CCL)
    result = _run(real_env("torch28-only"), code, tmp_path, extra_path=str(tmp_path))
    assert result == {"backend": "ccl", "sum": [1.0, 1.0], "torch_ccl_imported": True}


LAUNCH = """\
import json
import subprocess

done = subprocess.run(["ipexrun", "cpu", "--ninstances", "1", "hello.py"], capture_output=True, text=True)
print(json.dumps({"rc": done.returncode, "out": done.stdout.strip().splitlines()[-1:]}))
"""


def test_rewritten_launcher_runs_upstream(tmp_path: Path) -> None:
    """``python -m torch.backends.xeon.run_cpu --help`` exits 0, and a rewritten ``ipexrun``
    command list launches a script through run_cpu for real."""
    python = real_env("torch28-only")
    help_run = subprocess.run(
        [python, "-m", "torch.backends.xeon.run_cpu", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env=doctor_env(),
        check=False,
    )
    assert help_run.returncode == 0, help_run.stderr[-2000:]
    assert "--ninstances" in help_run.stdout
    code = _fixed(LAUNCH, "launcher")
    assert (
        '["python", "-m", "torch.backends.xeon.run_cpu", "--ninstances", "1", "hello.py"]' in code
    )
    (tmp_path / "hello.py").write_text("print('hello from run_cpu')\n")
    # NOTE: the rewritten command runs "python": this environment's, first on PATH.
    result = _run(python, code, tmp_path, extra_path=str(Path(python).parent))
    assert result == {"rc": 0, "out": ["hello from run_cpu"]}


WITH_AND_AND_QCONV = """\
import json
import torch

x = torch.randn(2, 2, requires_grad=True)
with torch.no_grad() and torch.autocast("cpu", dtype=torch.bfloat16):
    inside = {"grad": torch.is_grad_enabled(), "autocast": torch.is_autocast_enabled("cpu")}
op = torch.ops.onednn.qconv2d_pointwise.default
# NOTE: by name, so the fix leaves this line alone (strings are never touched)
new, old = (getattr(torch.ops.onednn, n) for n in ("qconv_pointwise", "qconv2d_pointwise"))
same = {
    name: str(getattr(new, name)._schema).replace("qconv_pointwise", "X")
    == str(getattr(old, name)._schema).replace("qconv2d_pointwise", "X")
    for name in ("default", "tensor")
}
print(json.dumps({"inside": inside, "op": str(op), "same_schema": same,
                  "new_overloads": sorted(new.overloads())}))
"""


def test_rewritten_with_and_qconv_run_upstream(tmp_path: Path) -> None:
    """with-and: both context managers are now entered (grad off and autocast on). qconv: the
    renamed op exists in torch 2.8 and its default and tensor overloads take exactly the
    arguments of the old op's (the fact the rename rests on); it has no binary overload."""
    code = _fixed(WITH_AND_AND_QCONV, "with-and", "qconv-op-rename")
    assert "torch.ops.onednn.qconv_pointwise.default" in code
    result = _run(real_env("torch28-only"), code, tmp_path)
    assert result == {
        "inside": {"grad": False, "autocast": True},
        "op": "onednn.qconv_pointwise.default",
        "same_schema": {"default": True, "tensor": True},
        "new_overloads": ["default", "tensor"],
    }
