"""What ``fix`` may run: the one policy every pip action passes, however it was read.

A remedy is applied only when it is, field by field, what the knowledge base's own remedies
produce (``remedies``, ``verdicts.xpu_runtime``):

- it names the examined interpreter;
- an install names requirements pinned to one version, ``NAME==X.Y.Z`` (a build label such as
  ``+cpu`` allowed) or ``NAME==X.Y.*``: one specifier, no URL, extras or markers; an uninstall
  names bare names;
- each name is a package the knowledge base may touch (``MAY_TOUCH``), never one that keeps
  pip and the doctor working (``PROTECTED``);
- an index is one the knowledge base knows, over https (``known_index``).

Anything else is advice, printed and never run, with the reason this module gives. The user's
own pip configuration (pip.conf, ``PIP_*``) is not judged here: pip reads it itself, as it
would for any install the user runs.

A snapshot read back by ``fix --undo`` is held to the same grammar (``distribution_refusal``:
a PEP 508 name, a PEP 440 version) and installs from an index or a local wheel file only
(``source_refusal``).
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from ipex_doctor.model.remedy import PipAction
from ipex_doctor.model.terms import StepKind

RUNTIME_WHEELS = frozenset({
    "intel-sycl-rt", "intel-cmplr-lib-rt", "intel-cmplr-lib-ur", "intel-cmplr-lic-rt",
    "intel-opencl-rt", "intel-openmp", "intel-pti", "dpcpp-cpp-rt", "mkl", "mkl-dpcpp",
    "onemkl-sycl-blas", "onemkl-sycl-dft", "onemkl-sycl-lapack", "onemkl-sycl-rng",
    "onemkl-sycl-sparse", "tbb", "tcmlib", "umf", "impi-rt", "oneccl", "oneccl-devel",
})  # fmt: skip
"""The oneAPI runtime wheels torch's XPU build and IPEX pin exactly (``Requires-Dist: ...==``):
the versions finding installs the pins that disagree (``verdicts.xpu_runtime``)."""
MAY_TOUCH = frozenset({
    "torch", "torchvision", "torchaudio", "intel-extension-for-pytorch",
    "oneccl-bind-pt",  # IPEX's oneCCL bindings for torch.distributed
    "pytorch-triton-xpu",  # triton for XPU, pinned by torch's XPU build
    *RUNTIME_WHEELS,
})  # fmt: skip
"""The distributions a remedy may name (as pip normalises names): the stack the knowledge base
judges and its remedies move. A dependency pip resolves for them is not named, so not judged
here, unless it is ``PROTECTED``."""
PROTECTED = frozenset({"pip", "setuptools", "wheel", "ipex-doctor"})
"""Never removed or replaced, by a plan or an undo: without them neither the undo nor the
doctor itself runs again ("No module named pip")."""

_PYTORCH_INDEX = re.compile(r"/whl/(cpu|xpu|cu\d+|rocm\d+(\.\d+)*)/?")
_INTEL_INDEX = re.compile(r"/release-whl/stable/(cpu|xpu)/(us|cn)/?")
_KNOWN_HOSTS = {
    "pypi.org": re.compile(r"/simple/?"),
    "download.pytorch.org": _PYTORCH_INDEX,
    "pytorch-extension.intel.com": _INTEL_INDEX,
}
KNOWN_INDEXES = (
    "https://pypi.org/simple/",
    "https://download.pytorch.org/whl/<label>/",
    "https://pytorch-extension.intel.com/release-whl/stable/<cpu|xpu>/<us|cn>/",
)
"""In words, for the advice: the indexes the remedies name (``remedies``)."""


def known_index(url: str) -> bool:
    """Whether ``url`` is one of ``KNOWN_INDEXES`` exactly: https, no credentials, port, query
    or fragment (a lookalike host or path is not)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    path = _KNOWN_HOSTS.get(parts.netloc)
    return (
        parts.scheme == "https" and port is None and not parts.query and not parts.fragment
        and path is not None and path.fullmatch(parts.path) is not None
    )  # fmt: skip


def _pinned(requirement: Requirement) -> bool:
    """One ``==`` specifier: ``X.Y.Z`` (a local build label allowed) or ``X.Y.*``."""
    specifiers = list(requirement.specifier)
    if len(specifiers) != 1 or specifiers[0].operator != "==":
        return False
    text = specifiers[0].version
    wildcard = text.endswith(".*")
    try:
        version = Version(text[:-2] if wildcard else text)
    except InvalidVersion:
        return False
    plain = version.epoch == 0 and version.pre is None and version.post is None and not version.dev
    if wildcard:
        return plain and version.local is None and len(version.release) == 2
    return plain and len(version.release) == 3


def requirement_refusal(text: str, verb: StepKind) -> str | None:
    """Why requirement ``text`` may not be run by ``verb``; ``None`` when it may."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return f"{text!r} is not a requirement"
    name = canonicalize_name(requirement.name)
    if requirement.url or requirement.extras or requirement.marker:
        return f"{text!r} names a URL, extras or a marker; fix runs only pinned names"
    if name in PROTECTED:
        return f"fix never removes or replaces {name} ({', '.join(sorted(PROTECTED))})"
    if name not in MAY_TOUCH:
        return f"{requirement.name} is not a package the knowledge base may touch"
    if verb is StepKind.UNINSTALL and requirement.specifier:
        return f"{text!r}: an uninstall names the distribution alone"
    if verb is StepKind.INSTALL and not _pinned(requirement):
        return f"{text!r} is not pinned to one version (==X.Y.Z or ==X.Y.*)"
    return None


def action_refusal(action: PipAction, python: str) -> str | None:
    """Why ``action`` may not run in the environment of ``python``; ``None`` when it may."""
    if action.python != python:
        return f"it names {action.python}, not the examined interpreter {python}"
    if not action.requirements:
        return "it names no requirement"
    if action.verb is StepKind.UNINSTALL and (action.index_url or action.extra_index_urls):
        return "an uninstall takes no index"
    for url in filter(None, (action.index_url, *action.extra_index_urls)):
        if not known_index(url):
            return (
                f"the index {url} is not one the knowledge base knows ({', '.join(KNOWN_INDEXES)})"
            )
    for requirement in action.requirements:
        refusal = requirement_refusal(requirement, action.verb)
        if refusal is not None:
            return refusal
    return None


def distribution_refusal(name: str, version: str) -> str | None:
    """Why a snapshot's entry is not a distribution (a PEP 508 name, a PEP 440 version);
    ``None`` when it is. A snapshot the doctor wrote never has such an entry."""
    try:
        parsed = Requirement(name)
    except InvalidRequirement:
        parsed = None
    if parsed is None or parsed.name != name or str(parsed) != name:
        return f"{name!r} is not a distribution name"
    try:
        Version(version)
    except InvalidVersion:
        return f"{name}: {version!r} is not a version"
    if any(character.isspace() for character in version):
        return f"{name}: {version!r} is not a version"
    return None


def source_refusal(name: str, version: str, source: str | None) -> str | None:
    """Why a snapshot's distribution cannot be installed back from ``source`` with no build:
    only an index (``None``: pip recorded no URL) or a local wheel file of this very name and
    version (``file://.../NAME-VERSION-....whl``) can. ``None`` when it can."""
    if source is None:
        return None
    parts = urlsplit(source)
    filename = unquote(parts.path).rsplit("/", 1)[-1]
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or parts.query:
        return f"{name} {version} came from {source}, not an index or a local wheel file"
    if not filename.endswith(".whl"):
        return f"{name} {version} came from {source}, which is not a wheel (it would be built)"
    try:
        wheel_name, wheel_version, _, _ = parse_wheel_filename(filename)
    except (InvalidWheelFilename, InvalidVersion):
        return f"{name} {version} came from {source}, which is not a wheel's file name"
    try:
        same = wheel_name == canonicalize_name(name) and wheel_version == Version(version)
    except InvalidVersion:
        same = False
    if not same:
        return f"{source} is not the wheel of {name} {version}"
    return None
