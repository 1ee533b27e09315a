"""explain and SYCL: the Khronos standard has several implementations and only DPC++ is Intel's.
SYCL's shared words place a text in the Intel stack where it names no other implementation;
beside AdaptiveCpp's, ComputeCpp's or triSYCL's names they place it nowhere, while DPC++'s own
parts and the Intel GPU's (Level Zero under AdaptiveCpp) still do."""

from __future__ import annotations

from pathlib import Path

import pytest

from ipex_doctor.knowledge import known_issues
from ipex_doctor.knowledge.explain import diagnose, names_intel_stack

KB = known_issues.load()


@pytest.mark.parametrize(
    "text",
    [
        # AdaptiveCpp (formerly hipSYCL) on its OpenMP host backend, by its banner
        "[AdaptiveCpp Error] from /opt/acpp/src/runtime/omp/omp_queue.cpp:120 @ submit(): "
        "omp_queue: SYCL kernel submission failed",
        # its compiler driver under its old name, and its runtime library
        "syclcc warning: No optimization flag was given, optimizations are disabled by default.\n"
        "error: SYCL kernel failed to compile",
        "error while loading shared libraries: libacpp-rt.so: cannot open shared object file "
        "(SYCL program built with acpp)",
        # Codeplay's ComputeCpp, by its runtime's message code and by its device compiler
        "terminate called after throwing an instance of 'cl::sycl::runtime_error'\n  what():  "
        "Error: [ComputeCpp:RT0101] Failed to create kernel ((Kernel Name: SYCL_class_add))",
        "compute++: error: SYCL kernel cannot call a virtual function",
        "triSYCL: error: sycl::queue::submit is not implemented",
        # the standard's revision as a build model's name (BabelStream #228) names no implementation
        "CMake Error: Unsupported model: sycl2020-acc  / sycl2020-usm\n"
        "CMake Error: Model sycl2020 has been renamed to sycl2020-acc  / sycl2020-usm ...",
    ],
)  # fmt: skip
def test_sycl_of_another_implementation_is_no_intel_stack(text: str) -> None:
    assert not names_intel_stack(text, KB), text
    found = diagnose(text, KB)
    assert found.matches == [] and found.layer is None, found


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        # SYCL's words with no other implementation named are DPC++'s, as before
        ("CMake Error at CMakeLists.txt:12: SYCL backend not found: set SYCL_LIBRARY", "sycl-build"),
        # DPC++'s -fsycl flag given to AdaptiveCpp's compiler (oneMath #478): DPC++'s part, named
        # in the very piece that matched, places the text beside the other implementation
        ("acpp error: fatal: The -fsycl flag is a component from a different SYCL "
         "implementation. This flag is neither needed nor meaningful for AdaptiveCpp.", "sycl-build"),
        # DPC++'s ABI namespace and the Intel GPU's Level Zero beside hipSYCL's banner
        ("[AdaptiveCpp Error] hipSYCL error report: sycl::_V1::queue on Level Zero: "
         "zeCommandListAppendLaunchKernel failed", "level-zero"),
    ],
)  # fmt: skip
def test_dpcpp_or_the_intel_gpu_beside_sycl_words_still_places_the_text(
    text: str, layer: str
) -> None:
    assert names_intel_stack(text, KB), text
    found = diagnose(text, KB)
    assert found.matches == [] and found.layer is not None, found
    assert found.layer.layer.id == layer, found


def test_adaptivecpp_on_level_zero_keeps_the_intel_gpus_cause() -> None:
    """AdaptiveCpp's Level Zero backend losing the device (AdaptiveCpp #1239) is the Intel GPU's
    failure whichever SYCL ran on it: the ze_ names beside the banner keep the entry."""
    text = ("[AdaptiveCpp Error] from /opt/acpp/src/runtime/ze/ze_event.cpp:67 @ wait(): "
            "ze_node_event: Could not wait for event (error code = ze:1879048193)")  # fmt: skip
    assert [m.issue.id for m in diagnose(text, KB).matches][:1] == ["xpu-device-lost"]


def test_the_sycl_implementations_are_knowledge_base_data(tmp_path: Path) -> None:
    """``stack.other_sycl`` is data: an overlay that names one more implementation takes SYCL's
    words of a text that names it out of the Intel stack, and the text alone stays in."""
    text = "MySYCL runtime: SYCL kernel submission failed"
    assert names_intel_stack(text, KB)
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(
        "schema_version: 1\nstack:\n  other_sycl:\n    - '\\bMySYCL\\b'\nissues: []\n",
        encoding="utf-8",
    )
    extended = known_issues.load([overlay])
    assert not names_intel_stack(text, extended)
    assert names_intel_stack("SYCL kernel submission failed", extended)
