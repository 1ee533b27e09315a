"""explain: the causes that the stack's own troubleshooting pages document (IPEX's
troubleshooting page, ipex-llm's FAQ and quickstarts), each named by the message as the software
that raises it prints it, and each next to near misses that a broader form of its symptom would
name (another program's words, CUDA, ROCm, MPS, NCCL, plain Python)."""

from __future__ import annotations

import pytest

from ipex_doctor.knowledge import known_issues
from ipex_doctor.knowledge.explain import diagnose, explain

KB = known_issues.load()


def _first(text: str) -> str | None:
    found = explain(text, KB)
    return found[0].issue.id if found else None


def _silent(text: str) -> None:
    """``text`` names no entry and no layer."""
    found = diagnose(text, KB)
    assert found.matches == [] and found.layer is None, (text, found)


@pytest.mark.parametrize(
    "text",
    [
        # ipex-llm's llama.cpp quickstart, Troubleshooting 2, as the SYCL runtime throws it
        "terminate called after throwing an instance of 'sycl::_V1::invalid_parameter_error'\n"
        "  what():  DeviceList is empty. -30 (PI_ERROR_INVALID_VALUE)",
        "DeviceList is empty. -30 (PI_ERROR_INVALID_VALUE)",
    ],
)  # fmt: skip
def test_the_sycl_runtimes_empty_device_list_is_no_level_zero_device(text: str) -> None:
    """The SYCL runtime refusing a context over no device names ``sycl-device-list-empty`` (the
    level-zero layer; on the old knowledge base only the runtime layer)."""
    found = explain(text, KB)
    assert [m.issue.id for m in found] == ["sycl-device-list-empty"], found
    assert found[0].issue.layer == "level-zero"


@pytest.mark.parametrize(
    "text",
    [
        # another program's device lists: an Android USB manager, a home-automation CCU, an FTDI
        # tool (a symptom without its case, its full stop or its word boundary would name them)
        'Log.e(CONNECT_TAG, "++can\'t connect to device, mDeviceList is empty!");',
        "[Server] unable to generate service list. CCU Devicelist is empty",
        "SetAllFTDIdevicesLatencyTimer ERROR: FTDI_DeviceList is empty, cannot proceed.",
        "no usb drivers found by prober and deviceList is empty.",
    ],
)  # fmt: skip
def test_another_programs_empty_device_list_names_nothing(text: str) -> None:
    _silent(text)


def test_oneccl_without_its_level_zero_loader_is_the_loader_by_name() -> None:
    """oneCCL's "ze_data was not initialized" (ipex-llm's FAQ) names
    ``oneccl-level-zero-loader`` (the distributed layer; on the old knowledge base only that
    layer); another library's or torch's "was not initialized" names no entry."""
    for text in (
        "RuntimeError: oneCCL: comm_selector.cpp:57 create_comm_impl: EXCEPTION: ze_data was not "
        "initialized",
        "2024:09:02-10:51:52:(3318) |CCL_ERROR| comm_selector.cpp:57 create_comm_impl: EXCEPTION: "
        "ze_data was not initialized",
    ):
        found = explain(text, KB)
        assert [m.issue.id for m in found] == ["oneccl-level-zero-loader"], found
    for other in (
        "NCCL WARN comm 0x55d0c2a0 rank 0: the communicator was not initialized",
        "RuntimeError: Default process group was not initialized, call init_process_group first",
        "RuntimeError: MPS backend was not initialized",
        "hipErrorNotInitialized: the HIP runtime was not initialized",
    ):
        _silent(other)


def test_onemkl_failing_to_load_its_own_libraries_names_nothing_alone() -> None:
    """oneMKL's "FATAL ERROR: Cannot load" one of its libraries is what IPEX's troubleshooting
    page traces to MKLs of two origins, and what every other MKL user prints too (MXNet's build,
    apache/mxnet #20301): alone it names no entry of the stack (a false alarm there). A library
    of the list that lacks a symbol is the load signatures' to judge, not this line's."""
    for text in (
        "Intel MKL FATAL ERROR: Cannot load libmkl_avx2.so.2 or libmkl_def.so.2.",
        "Undefined symbol: mkl_lapack_dspevd.\nIntel MKL FATAL ERROR: cannot load "
        "libmkl_vml_avx512.so.2 or libmkl_vml_def.so.2.",
        "Intel MKL ERROR: Parameter 4 was incorrect on entry to DGELSD.",
    ):
        assert "oneapi-runtime-libs" not in [m.issue.id for m in explain(text, KB)], text


def test_triton_xpu_finding_no_cpp_compiler_is_its_toolchain() -> None:
    """Triton XPU's launcher build finding no C++ compiler (IPEX's troubleshooting page:
    torch.compile on Windows outside the Visual Studio developer environment) names
    ``triton-xpu-toolchain`` (on the old knowledge base: nothing); upstream Triton's own
    sentence, which goes on "or set triton.knobs.build.impl", names nothing."""
    text = "RuntimeError: Failed to find C++ compiler. Please specify via CXX environment variable."
    assert _first(text) == "triton-xpu-toolchain"
    _silent(
        "RuntimeError: Failed to find C++ compiler. Please specify via CXX environment variable "
        "or set triton.knobs.build.impl."
    )
