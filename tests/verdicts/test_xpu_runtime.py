"""The runtime's verdicts where an Intel GPU would be: the facts below are what the probe wrote
for the real ``rt-old-loader`` and ``rt-matched`` environments (paths shortened), judged here
beside an XPU build of torch (which no machine of this project has): the mismatch that only
warns without an XPU build fails with one, the rung above it is not reached, and nothing
claims a device that was not listed."""

from __future__ import annotations

from typing import Any

from test_xpu_ladder import HEALTHY, statuses, xpu_env

from ipex_doctor.model.environment import Environment
from ipex_doctor.model.findings import Finding, Status
from ipex_doctor.verdicts.xpu_ladder import expects_xpu, ladder_findings
from ipex_doctor.verdicts.xpu_runtime import runtime_findings


def judged(env: Environment) -> dict[str, Finding]:
    """The ladder's findings and the versions finding, as ``check`` and ``env`` emit them."""
    return {f.id: f for f in [*ladder_findings(env), *runtime_findings(env, expects_xpu(env))]}


OLD_LOADER: dict[str, Any] = {
    "ran": True,
    "sycl": [{"path": "/env/lib/libsycl.so.8", "major": 8, "source": "environment"}],
    "sycl_loaded": "/env/lib/libsycl.so.8",
    "sycl_error": "/env/lib/libur_loader.so.0: version `LIBUR_LOADER_0.12' not found "
    "(required by /env/lib/libsycl.so.8)",
    "loader_candidates": [{"path": "/env/lib/libur_loader.so.0", "source": "environment"}],
    "loader": "/env/lib/libur_loader.so.0",
    "init": "UR_RESULT_SUCCESS",
    "adapters": [{"backend": "opencl", "platforms": [], "error": None}],
    "libraries": [
        {
            "library": "/env/lib/libsycl.so.8",
            "resolved": {},
            "problems": [
                {
                    "needs": "libur_loader.so.0",
                    "found": "/env/lib/libur_loader.so.0",
                    "via": "DT_RUNPATH",
                    "missing": ["LIBUR_LOADER_0.12"],
                    "newest_there": "LIBUR_LOADER_0.10",
                }
            ],
        }
    ],
    "requirements": [
        {
            "by": "intel-sycl-rt 2025.3.1",
            "requires": "intel-cmplr-lib-ur==2025.3.1",
            "installed": "2025.0.4",
            "ok": False,
        }
    ],
    "owners": {
        "/env/lib/libsycl.so.8": "intel-sycl-rt 2025.3.1",
        "/env/lib/libur_loader.so.0": "intel-cmplr-lib-ur 2025.0.4",
    },
}


def test_with_an_xpu_build_the_mismatch_fails_and_names_both_files() -> None:
    env = xpu_env({**HEALTHY, "runtime": OLD_LOADER})
    found = judged(env)
    versions = found["xpu-runtime-versions"]
    assert versions.status is Status.FAIL
    assert (
        "libsycl.so.8 (intel-sycl-rt 2025.3.1) needs LIBUR_LOADER_0.12" in versions.evidence.summary
    )
    assert "/env/lib/libur_loader.so.0 (intel-cmplr-lib-ur 2025.0.4)" in versions.evidence.summary
    assert versions.commands[0].endswith("-m pip install intel-cmplr-lib-ur==2025.3.1")
    rungs = statuses(env)
    assert rungs["runtime"] is Status.FAIL  # the first broken rung: the cause
    assert rungs["selection"] is Status.SKIP and rungs["torch"] is Status.SKIP  # not reached
    assert versions.commands[0] in found["xpu-rung-runtime"].remediation


def test_a_runtime_that_loads_but_lists_no_device_claims_none() -> None:
    matched = {
        "ran": True,
        "sycl": [{"path": "/env/lib/libsycl.so.8", "major": 8, "source": "environment"}],
        "loader": "/env/lib/libur_loader.so.0",
        "init": "UR_RESULT_SUCCESS",
        "adapters": [{"backend": "opencl", "platforms": [], "error": None}],
        "adapter_libraries": ["/env/lib/libur_adapter_level_zero.so.0"],
        "icd_files": [],
        "libraries": [{"library": "/env/lib/libsycl.so.8", "resolved": {}, "problems": []}],
        "requirements": [],
        "owners": {},
    }
    level_zero = {**HEALTHY["level_zero"], "ze_init": "ZE_RESULT_ERROR_UNINITIALIZED"}
    env = xpu_env({**HEALTHY, "level_zero": level_zero, "runtime": matched})
    found = judged(env)
    said = found["xpu-rung-runtime"].evidence.summary
    assert "opencl adapter: no platform: no OpenCL ICD file" in said
    assert "level_zero adapter loaded but offers nothing: zeInit returned" in said
    assert "driver " not in said  # no device was listed, so none is described
    assert found["xpu-runtime-versions"].status is Status.PASS


def test_no_runtime_facts_leave_the_versions_unjudged() -> None:
    found = judged(xpu_env(HEALTHY))
    assert found["xpu-runtime-versions"].status is Status.SKIP


def test_two_libsycl_majors_on_the_search_path_warn_and_name_both() -> None:
    two = {
        "ran": True,
        "sycl": [
            {"path": "/opt/intel/oneapi/lib/libsycl.so.7", "major": 7, "source": "LD_LIBRARY_PATH"},
            {"path": "/env/lib/libsycl.so.8", "major": 8, "source": "environment"},
        ],
        "loader": "/env/lib/libur_loader.so.0",
        "init": "UR_RESULT_SUCCESS",
        "adapters": [],
        "libraries": [],
        "requirements": [],
        "owners": {},
    }
    env = xpu_env({**HEALTHY, "runtime": two})
    versions = judged(env)["xpu-runtime-versions"]
    assert versions.status is Status.WARN  # nothing failed to load: a warning, not the cause
    assert "/opt/intel/oneapi/lib/libsycl.so.7 (LD_LIBRARY_PATH)" in versions.evidence.summary
    assert "/env/lib/libsycl.so.8 (environment)" in versions.evidence.summary
