"""Build ``xpu-ipex2120-arc-a770.json``: a report of an XPU environment, constructed.

No Intel GPU exists on this project's machines, so this report was NOT recorded on Intel
hardware. It is constructed from published issue data: the environment of IPEX #597 (Arc A770,
IPEX 2.1.20+xpu with Intel's torch 2.1.0.post0+cxx11.abi, ResNet18 grad vs no_grad MAE 1.4759)
and the error text of IPEX #673 ('"dot" not implemented for 'Half''), in the report format of
this ipex-doctor version, with the knowledge base of the time it was built.

    python tests/assets/reports/build_xpu_fixture.py     (rewrites the JSON next to it)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from ipex_doctor.knowledge import known_issues  # noqa: E402
from ipex_doctor.model.environment import (  # noqa: E402
    Environment,
    Host,
    ImportOutcome,
    Interpreter,
    Package,
    RuntimeProbe,
)
from ipex_doctor.model.findings import Report  # noqa: E402
from ipex_doctor.model.observations import CheckRun, Outcome  # noqa: E402
from ipex_doctor.model.versions import build_variant  # noqa: E402
from ipex_doctor.verdicts.judge import judge  # noqa: E402

ARC = {
    "type": "xpu",
    "index": 0,
    "name": "Intel(R) Arc(TM) A770 Graphics",
    "platform_name": "Intel(R) Level-Zero",
    "driver_version": "1.3.27642",
    "total_memory": 16225243136,
    "has_fp64": False,
    "has_fp16": True,
    "max_compute_units": 512,
}


def build() -> Report:
    """The constructed report."""
    packages = {
        "torch": "2.1.0.post0+cxx11.abi",
        "torchvision": "0.16.0.post0+cxx11.abi",
        "intel-extension-for-pytorch": "2.1.20+xpu",
        "intel-sycl-rt": "2024.1.0",
    }
    env = Environment(
        interpreter=Interpreter(
            "/home/user/venv/bin/python", "3.10.12", "CPython", "/home/user/venv", True
        ),
        host=Host(
            "Linux",
            "Ubuntu 22.04.4 LTS",
            "6.5.0-28-generic",
            "x86_64",
            "Intel(R) Core(TM) i9-13900K",
            32,
            ("sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni"),
            67108864000,
            60000000000,
            ({"path": "/dev/dri/renderD128", "readable": True, "writable": True},),
        ),  # fmt: skip
        packages=tuple(Package(n, v, build_variant(v)) for n, v in packages.items()),
        env_vars={"ONEAPI_DEVICE_SELECTOR": "level_zero:0"},
        runtime=RuntimeProbe(
            ran=True,
            duration_s=9.8,
            returncode=None,
            imports=(
                ImportOutcome("torch", True, "2.1.0.post0+cxx11.abi", 2.1),
                ImportOutcome("torchvision", True, "0.16.0.post0+cxx11.abi", 0.9),
                ImportOutcome("intel_extension_for_pytorch", True, "2.1.20+xpu", 4.2),
            ),
            torch={"version": "2.1.0.post0+cxx11.abi", "xpu_compiled": True, "cxx11_abi": True},
            ipex={"version": "2.1.20+xpu", "build_type": "Release"},
            devices=(ARC,),
        ),
    )
    runs = {
        "grad-mode-divergence": [
            CheckRun(
                "grad-mode-divergence", "xpu:0", Outcome.OK,
                result={
                    "reproduced": True, "mae_grad_vs_no_grad": 1.4759, "relative_mae": 1.4759 / 1.3,
                    "evidence": "resnet18 grad vs no_grad MAE 1.48 (the issue's number; threshold 1e-03 relative)",
                },
            )
        ],
        "dot-half": [
            CheckRun(
                "dot-half", "xpu:0", Outcome.OK,
                result={
                    "reproduced": True,
                    "evidence": "raised '\"dot\" not implemented for \\'Half\\''; autocast workaround verified in float16",
                },
            )
        ],
    }  # fmt: skip
    return Report(
        doctor_version="0.1.0",
        created_at="2024-04-17T12:00:00Z",
        command="check",
        environment=env,
        findings=judge(env, known_issues.load(), runs=runs),
    )


if __name__ == "__main__":
    target = HERE / "xpu-ipex2120-arc-a770.json"
    target.write_text(json.dumps(build().to_dict(), indent=2) + "\n")
    print(target)
