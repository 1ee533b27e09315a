"""Fix commands for the torch / torchvision / IPEX triple: the smallest change that is consistent.

A remedy is a typed pip command (``model.remedy.PipAction``) that renders to one the user can
paste and run: it names the examined interpreter (``/path/to/venv/bin/python -m pip ...``,
never a bare ``python`` that may be another one) and the index the packages come from. Among
the changes that make the triple consistent the smallest wins: moving IPEX (one package of
about 50 MB) to the release built for the installed torch beats moving torch (gigabytes of CUDA
wheels, and torchvision must follow it).

The release lines are facts of the IPEX and PyTorch release history:
- IPEX X.Y requires torch X.Y (its ``__init__`` refuses any other major.minor);
- CPU releases exist for torch 1.10 to 2.8; PyPI serves 2.6, 2.7 and 2.8 for current Pythons,
  older lines come from Intel's CPU index;
- XPU releases (Intel's XPU index only) exist for torch 1.13, 2.0, 2.1, 2.3, 2.5, 2.6, 2.7 and
  2.8, each as one ``+xpu`` version;
- torchvision 0.(N+15) pairs with torch 2.N.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import quote

from ipex_doctor.model.environment import IPEX
from ipex_doctor.model.remedy import PipAction
from ipex_doctor.model.terms import Reference, StepKind
from ipex_doctor.model.versions import major_minor, parse

if TYPE_CHECKING:
    from ipex_doctor.model.environment import Environment, Package

LAST_IPEX_LINE = "2.8"
"""IPEX was retired after 2.8 (2.8.0+cpu and 2.8.10+xpu are its last releases)."""

INTEL_CPU_INDEX = "https://pytorch-extension.intel.com/release-whl/stable/cpu/us/"
INTEL_XPU_INDEX = "https://pytorch-extension.intel.com/release-whl/stable/xpu/us/"
PYTORCH_INDEX = "https://download.pytorch.org/whl/"
IPEX_REPOSITORY = "https://github.com/intel/intel-extension-for-pytorch"
"""IPEX's sources; each release is tagged ``v<version>+cpu`` or ``v<version>+xpu``."""

_CPU_LINES = ("1.10", "1.11", "1.12", "1.13", "2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6",
              "2.7", "2.8")  # fmt: skip
_CPU_ON_PYPI = ("2.6", "2.7", "2.8")
_XPU_RELEASES = {
    "1.13": "1.13.120+xpu",
    "2.0": "2.0.110+xpu",
    "2.1": "2.1.40+xpu",
    "2.3": "2.3.110+xpu",
    "2.5": "2.5.10+xpu",
    "2.6": "2.6.10+xpu",
    "2.7": "2.7.10+xpu",
    "2.8": "2.8.10+xpu",
}
_TORCHVISION_OFFSET = 15
_PYTORCH_LABEL = re.compile(r"cpu|xpu|cu\d+|rocm\d+(\.\d+)*")


def install(
    env: Environment, *requirements: str, index_url: str | None = None,
    extra_index_url: str | None = None,
) -> PipAction:  # fmt: skip
    """``<examined python> -m pip install REQUIREMENTS``, from ``index_url`` instead of pip's
    default index, or from ``extra_index_url`` besides it."""
    extra = (extra_index_url,) if extra_index_url else ()
    return PipAction(env.interpreter.executable, StepKind.INSTALL, requirements, index_url, extra)


def uninstall(env: Environment, *names: str) -> PipAction:
    """``<examined python> -m pip uninstall -y NAMES``."""
    return PipAction(env.interpreter.executable, StepKind.UNINSTALL, names)


def torchvision_for(torch_line: str) -> str | None:
    """The torchvision line that pairs with torch ``2.N`` (``0.N+15``), if it is a 2.x line."""
    major, _, minor = torch_line.partition(".")
    if major != "2" or not minor.isdigit():
        return None
    return f"0.{int(minor) + _TORCHVISION_OFFSET}"


def torch_for(torchvision_line: str) -> str | None:
    """The torch line torchvision ``0.M`` was built for (``2.(M-15)``), if it is one."""
    major, _, minor = torchvision_line.partition(".")
    if major != "0" or not minor.isdigit() or int(minor) < _TORCHVISION_OFFSET:
        return None
    return f"2.{int(minor) - _TORCHVISION_OFFSET}"


def torch_index(torch: Package | None) -> str | None:
    """The index torch came from, by its build label: PyPI (no label) or download.pytorch.org."""
    local = None if torch is None else torch.variant.local
    if local is not None and _PYTORCH_LABEL.fullmatch(local):
        return PYTORCH_INDEX + local
    return None


def ipex_release(torch_line: str, variant: str | None) -> tuple[str, str | None] | None:
    """The IPEX requirement built for torch ``torch_line`` in ``variant``, and its extra index.

    ``None`` when no IPEX release exists for that line (torch 2.9 and later, or 2.2/2.4 on XPU).
    """
    if variant == "xpu":
        release = _XPU_RELEASES.get(torch_line)
        return None if release is None else (f"{IPEX}=={release}", INTEL_XPU_INDEX)
    if torch_line not in _CPU_LINES:
        return None
    index = None if torch_line in _CPU_ON_PYPI else INTEL_CPU_INDEX
    return f"{IPEX}=={torch_line}.*", index


def is_after_last_ipex(torch_line: str) -> bool:
    """Whether torch ``torch_line`` is newer than every IPEX release."""
    mine, last = parse(f"{torch_line}.0"), parse(f"{LAST_IPEX_LINE}.0")
    return mine is not None and last is not None and mine > last


def move_ipex(env: Environment, torch_line: str, variant: str | None) -> list[PipAction]:
    """The command that installs the IPEX release for ``torch_line`` ([] when none exists)."""
    release = ipex_release(torch_line, variant)
    if release is None:
        return []
    requirement, index = release
    return [install(env, requirement, extra_index_url=index)]


def move_torch(env: Environment, torch_line: str) -> list[PipAction]:
    """The command that moves torch to ``torch_line``, torchvision with it when installed."""
    requirements = [f"torch=={torch_line}.*"]
    pair = torchvision_for(torch_line)
    if env.package("torchvision") is not None and pair is not None:
        requirements.append(f"torchvision=={pair}.*")
    return [install(env, *requirements, index_url=torch_index(env.package("torch")))]


def install_torchvision(env: Environment, line: str) -> list[PipAction]:
    """The commands that put torchvision ``line``, built like torch, in place, from the index
    torch came from.

    When the installed torchvision is of ``line`` already but of another build (a CUDA one
    beside a ``+cpu`` torch), ``==0.N.*`` would not move it: pip ignores a local label the
    requirement does not name, calls the requirement satisfied and changes nothing. So the
    requirement names torch's label (``==0.28.0+cpu``, which only that build satisfies), and
    where torch has none (PyPI's build), the labelled torchvision is uninstalled first."""
    torch, installed = env.package("torch"), env.package("torchvision")
    index = torch_index(torch)
    requirement = f"torchvision=={line}.*"
    tv = None if installed is None else parse(installed.version)
    if tv is None or f"{tv.major}.{tv.minor}" != line:
        return [install(env, requirement, index_url=index)]
    label = None if torch is None else torch.variant.local
    if label is not None and _PYTORCH_LABEL.fullmatch(label) and tv.local != label:
        return [install(env, f"torchvision=={tv.public}+{label}", index_url=index)]
    if label is None and tv.local is not None:
        return [uninstall(env, "torchvision"), install(env, requirement)]
    return [install(env, requirement, index_url=index)]


def ipex_pin(ipex_line: str, variant: str | None) -> str:
    """The requirement that pins IPEX to its ``ipex_line`` release (``...==2.7.*``, on XPU the
    line's one ``+xpu`` version), for a requirements file beside ``torch==<line>.*``."""
    release = ipex_release(ipex_line, variant)
    return release[0] if release is not None else f"{IPEX}=={ipex_line}.*"


def matching_pair(line: str, variant: str | None) -> str:
    """``torch==2.7.* with intel-extension-for-pytorch==2.7.*``: the pair of one line that
    loads together, as requirements to pin."""
    return f"torch=={line}.* with {ipex_pin(line, variant)}"


def ipex_tag(version: str, variant: str | None) -> str | None:
    """The release tag of IPEX ``version`` (``v2.6.0+cpu``, ``v2.7.10+xpu``): the version
    without its label, then the build (``variant``, else the version's own label, else ``cpu``,
    the only build PyPI serves). ``None`` when ``version`` is not a version."""
    parsed = parse(version)
    if parsed is None:
        return None
    build = variant if variant in ("cpu", "xpu") else (parsed.local or "cpu")
    return f"v{parsed.public}+{build}"


def ipex_version_check(version: str, variant: str | None) -> Reference | None:
    """IPEX's own major.minor check as this release has it: its ``__init__.py`` at the tag of
    the installed ``version``, so a finding cites the code that judged this environment (not
    another release's)."""
    tag = ipex_tag(version, variant)
    line = major_minor(version)
    if tag is None or line is None:
        return None
    return Reference(
        url=f"{IPEX_REPOSITORY}/blob/{quote(tag, safe='')}/intel_extension_for_pytorch/__init__.py",
        title=f"IPEX {tag[1:]} __init__.py: the check that accepts only torch {line}.*",
    )
