"""Do the mechanical rewrites of ``scan --fix`` run on the upstream torch at hand?

    python benchmarks/rewrites_run.py PYTHON

Writes a small program in IPEX's spellings, lets ``ipex-doctor scan --fix`` rewrite it, then
runs the rewritten program with PYTHON (an interpreter with torch, no IPEX): the autocast
spellings on the CPU and on every CUDA / XPU device present, the autocast state functions,
GradScaler where the device has one, the device properties where an XPU is present, and the
CPU launcher (``python -m torch.backends.xeon.run_cpu``) starting two instances of a script.
Prints what ran and what each rewritten line became.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

BEFORE = textwrap.dedent(
    """\
    import subprocess
    import sys

    import torch

    x = torch.randn(8, 8)
    with torch.cpu.amp.autocast():
        y = x @ x
    assert y.dtype == torch.bfloat16, y.dtype
    with torch.cpu.amp.autocast() and torch.no_grad():
        z = x @ x
    assert z.dtype == torch.bfloat16 and not z.requires_grad
    for kind in ("cuda", "xpu"):
        module = getattr(torch, kind, None)
        if module is None or not module.is_available():
            continue
        a = torch.randn(8, 8, device=kind)
        with torch.autocast(kind, dtype=torch.bfloat16):
            b = a @ a
        assert b.dtype == torch.bfloat16
        print(kind, "autocast bf16 ok")
    if torch.xpu.is_available():
        with torch.xpu.amp.autocast():
            c = torch.randn(4, 4, device="xpu") @ torch.randn(4, 4, device="xpu")
        assert c.dtype == torch.bfloat16
        print("fp64", torch.xpu.has_fp64_dtype(), "xmx", torch.xpu.has_xmx())
        print("state", torch.xpu.get_autocast_xpu_dtype(), torch.xpu.is_autocast_xpu_enabled())
    subprocess.run(["ipexrun", "--ninstances", "2", "--ncores-per-instance", "1", "CHILD"],
                   check=True)
    print("all rewritten paths ran")
    """
)
CHILD = "import os\nprint('instance on cores', sorted(os.sched_getaffinity(0)))\n"


def main() -> int:
    python = sys.argv[1]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        program, child = root / "train.py", root / "child.py"
        program.write_text(BEFORE.replace("CHILD", str(child)))
        child.write_text(CHILD)
        fixed = subprocess.run(
            [sys.executable, "-m", "ipex_doctor", "scan", str(program), "--python", python,
             "--fix", "-q"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        print(fixed.stderr)
        after = program.read_text()
        # NOTE: as in an activated environment: `ipexrun` was a script of its bin/, and the
        # rewritten command line starts `python` from there.
        path = f"{Path(python).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        ran = subprocess.run(
            [python, "-W", "error::FutureWarning", str(program)],
            capture_output=True, text=True, check=False, timeout=600,
            env={**os.environ, "PATH": path},
        )  # fmt: skip
        print(ran.stdout, ran.stderr[-3000:])
        print(f"rewritten program exit {ran.returncode}; IPEX spellings left: "
              f"{[w for w in ('cpu.amp', 'xpu.amp', 'ipexrun', 'has_fp64_dtype') if w in after]}")  # fmt: skip
        return ran.returncode


if __name__ == "__main__":
    sys.exit(main())
