"""The build variant in words: every local label says what the build is, and a package whose
metadata carries none (PyPI's wheels) is named by what its import reported, else by what PyPI
serves on the platform."""

from __future__ import annotations

import dataclasses

import pytest
from builders import make_env

from ipex_doctor.model.environment import ImportOutcome
from ipex_doctor.model.variants import cuda_version, describe_label, variant_label
from ipex_doctor.model.versions import build_variant


@pytest.mark.parametrize(
    ("version", "words"),
    [
        ("2.8.0+cpu", "CPU-only build"),
        ("2.8.0+cu126", "CUDA 12.6 build"),
        ("2.8.0+cu128", "CUDA 12.8 build"),
        ("2.9.0+cu130", "CUDA 13.0 build"),
        ("2.0.1+cu118", "CUDA 11.8 build"),
        ("1.7.1+cu92", "CUDA 9.2 build"),
        ("2.8.0+xpu", "XPU build (Intel GPU)"),
        ("2.8.10+xpu", "XPU build (Intel GPU)"),
        ("2.5.1+rocm6.2", "ROCm 6.2 build"),
        ("2.6.0+rocm6.2.4", "ROCm 6.2.4 build"),
        ("2.1.0.post0+cxx11.abi", "CXX11-ABI build"),
        ("2.1.0a0+cxx11.abi", "CXX11-ABI build, pre-release"),
        ("2.5.1+cpu.cxx11.abi", "CPU-only build, CXX11 ABI"),
        ("1.13.0a0+git6c9b55e", "build labelled +git6c9b55e, pre-release"),
    ],
)
def test_every_local_label_says_what_the_build_is(version: str, words: str) -> None:
    assert describe_label(build_variant(version)) == words


def test_no_label_is_not_described_by_the_label() -> None:
    assert describe_label(build_variant("2.8.0")) is None
    assert cuda_version("cu126") == "12.6" and cuda_version("cpu") is None


def _torch(installed: str, **facts: object) -> str:
    env = make_env({"torch": installed}, torch_facts=dict(facts) or None)
    package = env.package("torch")
    assert package is not None
    return variant_label(env, package)


def test_a_labelled_torch_shows_its_label() -> None:
    """torch 2.8.0+cu126 from download.pytorch.org: its metadata says the CUDA build."""
    assert _torch("2.8.0+cu126", version="2.8.0+cu126", cuda="12.6") == "CUDA 12.6 build"
    assert _torch("2.8.0+cpu") == "CPU-only build"
    assert _torch("2.8.0+xpu") == "XPU build (Intel GPU)"
    assert _torch("2.6.0+rocm6.2.4") == "ROCm 6.2.4 build"


def test_an_intel_abi_torch_says_what_it_was_built_with() -> None:
    """Intel's +cxx11.abi label names no accelerator; the imported torch does."""
    words = _torch("2.1.0.post0+cxx11.abi", version="2.1.0.post0+cxx11.abi", xpu_compiled=True)
    assert words == "CXX11-ABI build, with XPU"


def test_pypi_torch_is_named_by_its_import() -> None:
    """PyPI's torch 2.8.0 has no label in its metadata; ``torch.__version__`` says +cu126."""
    assert _torch("2.8.0", version="2.8.0+cu126", cuda="12.6") == "CUDA 12.6 build (PyPI default)"


def test_pypi_torch_without_an_import_is_named_by_the_platform() -> None:
    """No label anywhere (the import did not run): PyPI's build for this platform."""
    env = make_env({"torch": "2.8.0", "torchvision": "0.23.0", "numpy": "2.1.0"})
    torch, vision, numpy = (env.package(n) for n in ("torch", "torchvision", "numpy"))
    assert torch is not None and vision is not None and numpy is not None
    assert variant_label(env, torch) == "CUDA build (PyPI default on Linux x86_64)"
    assert variant_label(env, vision) == "CUDA build (PyPI default on Linux x86_64)"
    assert variant_label(env, numpy) == "no build label"
    windows = dataclasses.replace(
        env, host=dataclasses.replace(env.host, system="Windows", machine="AMD64")
    )
    assert variant_label(windows, torch) == "CPU-only build (PyPI default on Windows)"


def test_torchvision_is_named_by_its_own_import() -> None:
    env = make_env(
        {"torchvision": "0.23.0"},
        imports=(ImportOutcome("torchvision", True, version="0.23.0+cu126"),),
    )
    vision = env.package("torchvision")
    assert vision is not None
    assert variant_label(env, vision) == "CUDA 12.6 build (PyPI default)"


def test_an_unlabelled_ipex_is_pypis_cpu_build() -> None:
    env = make_env({"intel-extension-for-pytorch": "2.8.0"})
    ipex = env.package("intel-extension-for-pytorch")
    assert ipex is not None
    assert variant_label(env, ipex) == "CPU-only build (the only kind PyPI serves)"
