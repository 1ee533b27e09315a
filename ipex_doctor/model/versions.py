"""Version parsing and range matching for PyTorch-on-Intel builds.

PEP 440 specifiers are awkward for these builds: local labels
(``2.1.20+xpu``) are ignored by ``==`` but make ``>2.1.20`` false, and Intel's pre-2.6 XPU torch
builds are named as pre-releases of the release they are (``2.1.0a0+cxx11.abi``), which
``>=2.1.0`` rejects. The knowledge base therefore states ranges OSV-style (``introduced``,
``fixed``, ``last_affected``) and this module compares them on a *matching key*:

- the public version (local label dropped), pre-releases included;
- except that a pre-release *with a local label* (an Intel ABI build such as ``2.1.0a0+git...``)
  counts as its base release, because that is what it was built from.

Nightlies (``2.8.0.dev20250410``) keep their ``.dev`` part, so ranges between nightlies work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from ipex_doctor.model.codec import JsonModel


@dataclass(frozen=True)
class BuildVariant(JsonModel):
    """The build variant of a package, parsed from its version's local label and pre-release."""

    accelerator: str | None
    """``xpu``, ``cpu``, ``cuda``, ``rocm`` or ``None`` when the version carries no label."""
    local: str | None
    """The raw local label (``xpu``, ``cu128``, ``cxx11.abi``), if any."""
    cxx11_abi: bool
    """Labelled as a CXX11-ABI build (Intel's pre-2.6 XPU torch builds)."""
    prerelease: bool
    """A pre-release version (``2.1.0a0``: Intel's builds of stock releases)."""


_CUDA_LABEL = re.compile(r"^cu\d+")
_ROCM_LABEL = re.compile(r"^rocm\d")


def parse(text: str) -> Version | None:
    """Parse ``text`` as a PEP 440 version; ``None`` when it is not one."""
    try:
        return Version(text.strip())
    except InvalidVersion:
        return None


def matching_key(version: Version) -> Version:
    """The version that ranges are compared against (see the module docstring)."""
    if version.local is not None and version.pre is not None:
        return Version(version.base_version)
    return Version(version.public)


def build_variant(version_text: str) -> BuildVariant:
    """Parse the build variant out of a version string such as ``2.8.0+xpu`` or ``2.1.0a0+cxx11.abi``."""
    version = parse(version_text)
    local = None if version is None else version.local
    prerelease = False if version is None else version.pre is not None
    accelerator: str | None = None
    if local is not None:
        first = local.split(".")[0]
        if first == "xpu" or first.startswith("xpu"):
            accelerator = "xpu"
        elif first == "cpu":
            accelerator = "cpu"
        elif _CUDA_LABEL.match(first):
            accelerator = "cuda"
        elif _ROCM_LABEL.match(first):
            accelerator = "rocm"
    cxx11_abi = local is not None and "cxx11" in local
    return BuildVariant(
        accelerator=accelerator, local=local, cxx11_abi=cxx11_abi, prerelease=prerelease
    )


def major_minor(version_text: str) -> str | None:
    """``"2.8"`` for ``"2.8.0+cpu"``; ``None`` when the text is not a version."""
    version = parse(version_text)
    if version is None or len(version.release) < 2:
        return None
    return f"{version.release[0]}.{version.release[1]}"


@dataclass(frozen=True)
class VersionRange:
    """An OSV-style affected range on the matching key.

    ``introduced=None`` means "every earlier version"; ``fixed`` is exclusive and
    ``last_affected`` inclusive (at most one of the two).
    """

    introduced: Version | None = None
    fixed: Version | None = None
    last_affected: Version | None = None

    def contains(self, version_text: str) -> bool | None:
        """Whether ``version_text`` is in the range; ``None`` when it is not a PEP 440 version."""
        version = parse(version_text)
        if version is None:
            return None
        key = matching_key(version)
        if self.introduced is not None and key < self.introduced:
            return False
        if self.fixed is not None and key >= self.fixed:
            return False
        return not (self.last_affected is not None and key > self.last_affected)

    def describe(self) -> str:
        """The range in words, e.g. ``>=2.1.20, <2.1.30`` or ``all versions``."""
        parts = []
        if self.introduced is not None:
            parts.append(f">={self.introduced}")
        if self.fixed is not None:
            parts.append(f"<{self.fixed}")
        if self.last_affected is not None:
            parts.append(f"<={self.last_affected}")
        return ", ".join(parts) if parts else "all versions"
