"""The build variant of an installed package in words, for people reading a report.

``BuildVariant`` (``versions``) is parsed from the version the package metadata carries. Wheels
on PyPI may not carry a local label, so the metadata of PyPI's torch says ``2.8.0`` while
``torch.__version__`` says ``2.8.0+cu128``: the label that says what the build is then comes
from the import the runtime probe made, and without one from what PyPI serves on this platform
(torch, torchvision and torchaudio on Linux x86_64 are CUDA builds there, CPU-only elsewhere).
"""

from __future__ import annotations

import re

from ipex_doctor.model.environment import IPEX, Environment, Package
from ipex_doctor.model.versions import BuildVariant, build_variant

TORCH_FAMILY = ("torch", "torchvision", "torchaudio")
"""The packages PyPI serves as one build per platform (CUDA on Linux x86_64, else CPU)."""
_CUDA = re.compile(r"^cu(\d+)$")
_ROCM = re.compile(r"^rocm(\d+(?:\.\d+)*)$")
_CUDA_PLATFORMS = {("Linux", "x86_64")}
"""Where PyPI's torch is a CUDA build (its CUDA version changes with the release)."""
_CPU_PLATFORMS = ("Windows", "Darwin")
"""Where PyPI's torch is a CPU-only build (MPS on macOS needs no separate build)."""


def cuda_version(label: str) -> str | None:
    """``12.6`` for the label ``cu126`` (``9.2`` for ``cu92``); ``None`` for another label."""
    match = _CUDA.match(label)
    if match is None:
        return None
    digits = match.group(1)
    return f"{digits[:-1] or '0'}.{digits[-1]}"


def describe_label(variant: BuildVariant) -> str | None:
    """What the local label says the build is, or ``None`` when there is no label.

    ``+cpu``: ``CPU-only build``; ``+cu126``: ``CUDA 12.6 build``; ``+xpu``: ``XPU build (Intel
    GPU)``; ``+rocm6.3``: ``ROCm 6.3 build``; ``+cxx11.abi``: ``CXX11-ABI build`` (Intel's XPU
    builds before torch 2.6 were labelled so); ``+cpu.cxx11.abi``: ``CPU-only build, CXX11
    ABI``; any other label (a source build's ``+git1a2b3c``) is quoted as it is. A pre-release
    version adds ``pre-release``.
    """
    local = variant.local
    if local is None:
        return None
    parts = local.split(".")
    first = parts[0]
    cuda = cuda_version(first)
    rocm = _ROCM.match(local)
    if first == "cpu":
        text = "CPU-only build"
    elif cuda is not None:
        text = f"CUDA {cuda} build"
    elif first.startswith("xpu"):
        text = "XPU build (Intel GPU)"
    elif rocm is not None:
        text = f"ROCm {rocm.group(1)} build"
    elif variant.cxx11_abi:
        text = "CXX11-ABI build"
    else:
        text = f"build labelled +{local}"
    if variant.cxx11_abi and text != "CXX11-ABI build":
        text += ", CXX11 ABI"
    return text + (", pre-release" if variant.prerelease else "")


def _imported_variant(env: Environment, package: Package) -> BuildVariant | None:
    """The variant of the version the import reported, when it carries a label."""
    texts = []
    if package.name == "torch" and env.runtime.torch.get("version"):
        texts.append(str(env.runtime.torch["version"]))
    if package.name == IPEX and env.runtime.ipex.get("version"):
        texts.append(str(env.runtime.ipex["version"]))
    outcome = env.runtime.import_of(package.name.replace("-", "_"))
    if outcome is not None and outcome.version:
        texts.append(outcome.version)
    for text in texts:
        variant = build_variant(text)
        if variant.local is not None:
            return variant
    return None


def _compiled_in(env: Environment, package: Package) -> str:
    """``, with XPU`` when torch's label names no accelerator (Intel's ``+cxx11.abi``) but the
    imported torch says which one it was built with; empty otherwise."""
    if package.name != "torch" or package.variant.accelerator is not None:
        return ""
    facts = env.runtime.torch
    if facts.get("xpu_compiled"):
        return ", with XPU"
    if facts.get("cuda"):
        return f", with CUDA {facts['cuda']}"
    if facts.get("hip"):
        return f", with ROCm {facts['hip']}"
    return ""


def _pypi_default(env: Environment, package: Package) -> str:
    """What an unlabelled build of ``package`` is, from where it can only have come: PyPI."""
    if package.name == IPEX:
        return "CPU-only build (the only kind PyPI serves)"
    if package.name not in TORCH_FAMILY:
        return "no build label"
    facts = env.runtime.torch if package.name == "torch" else {}
    if facts.get("cuda"):
        return f"CUDA {facts['cuda']} build (PyPI default)"
    platform = (env.host.system, env.host.machine)
    if platform in _CUDA_PLATFORMS:
        return "CUDA build (PyPI default on Linux x86_64)"
    if env.host.system in _CPU_PLATFORMS:
        return f"CPU-only build (PyPI default on {env.host.system})"
    return f"PyPI default build for {env.host.system} {env.host.machine}".rstrip()


def variant_label(env: Environment, package: Package) -> str:
    """The build ``package`` is, in words; never empty.

    From the label of its metadata version; else from the label of the version its import
    reported (PyPI's wheels carry it only there: ``CUDA 12.8 build (PyPI default)``); else from
    what PyPI serves on this platform (``CUDA build (PyPI default on Linux x86_64)``); a package
    that is not built per accelerator says ``no build label``.
    """
    own = describe_label(package.variant)
    if own is not None:
        return own + _compiled_in(env, package)
    imported = _imported_variant(env, package)
    said = None if imported is None else describe_label(imported)
    if said is not None:
        return f"{said} (PyPI default)" if package.name in TORCH_FAMILY else said
    text = _pypi_default(env, package)
    return text + (", pre-release" if package.variant.prerelease else "")
