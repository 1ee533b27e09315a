"""Environments constructed from published issue data, shared by the tests of several rooms.

No Intel GPU exists on any machine of this project: the XPU branches of the judgement run on
environments built here from the versions, labels and device properties the upstream issues
report. They are descriptions, not recordings, and they say so in their interpreter path.
"""

from __future__ import annotations

from typing import Any

from ipex_doctor.model.environment import (
    Environment,
    Host,
    ImportOutcome,
    Interpreter,
    Package,
    RuntimeProbe,
)
from ipex_doctor.model.versions import build_variant

FLAGS = ("avx2", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_bf16", "amx_bf16")

ARC = {"type": "xpu", "index": 0, "name": "Intel(R) Arc(TM) A770 Graphics", "has_fp64": False}
MAX = {"type": "xpu", "index": 0, "name": "Intel(R) Data Center GPU Max 1550", "has_fp64": True}
XPU_TORCH = {"version": "2.1.0.post0+cxx11.abi", "xpu_compiled": True, "cxx11_abi": True}


def make_env(
    packages: dict[str, str],
    *,
    devices: tuple[dict[str, Any], ...] = (),
    torch_facts: dict[str, Any] | None = None,
    flags: tuple[str, ...] = FLAGS,
    env_vars: dict[str, str] | None = None,
    imports: tuple[ImportOutcome, ...] = (),
) -> Environment:
    """An environment with PACKAGES installed whose runtime probe reported the given facts."""
    return Environment(
        interpreter=Interpreter("/x/bin/python", "3.10.12", "CPython", "/x", True),
        host=Host("Linux", "Ubuntu 22.04", "6.5.0", "x86_64", "Intel Xeon", 8, flags, 2**34, 2**33),
        packages=tuple(
            Package(name, version, build_variant(version)) for name, version in packages.items()
        ),
        env_vars=env_vars or {},
        runtime=RuntimeProbe(ran=True, torch=torch_facts or {}, devices=devices, imports=imports),
    )
