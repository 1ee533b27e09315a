"""What the probe found about an environment, as frozen dataclasses.

Two layers feed it: the static probe (package metadata, host facts, environment variables:
read by the doctor itself, no torch import) and the runtime probe (facts only a spawned
interpreter that imports torch and IPEX can tell). ``to_dict``/``from_dict`` (the generic
codec, ``model.codec``) give the ``environment`` object of the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ipex_doctor.model.codec import JsonModel
from ipex_doctor.model.versions import BuildVariant

JSONDict = dict[str, Any]

IPEX = "intel-extension-for-pytorch"
"""IPEX's distribution name, normalised (PEP 503), as ``Environment.package`` takes it."""
IPEX_MODULE = "intel_extension_for_pytorch"
"""IPEX's import name, as ``RuntimeProbe.import_of`` takes it."""


@dataclass(frozen=True)
class Interpreter(JsonModel):
    """The Python interpreter whose environment is examined (``--python``)."""

    executable: str
    version: str
    implementation: str
    prefix: str
    virtualenv: bool


@dataclass(frozen=True)
class Package(JsonModel):
    """An installed distribution of interest, read from the target's package metadata."""

    name: str
    """Normalised distribution name (PEP 503), e.g. ``intel-extension-for-pytorch``."""
    version: str
    variant: BuildVariant
    location: str = ""


@dataclass(frozen=True)
class Host(JsonModel):
    """Facts about the machine: OS, CPU and its ISA, memory, GPU device nodes."""

    system: str
    os_release: str
    kernel: str
    machine: str
    cpu_model: str
    logical_cpus: int
    cpu_flags: tuple[str, ...]
    """The ISA flags that matter to PyTorch on Intel, named as in /proc/cpuinfo: the ones the
    examined interpreter's process can execute (``isa_source``)."""
    memory_total_bytes: int
    memory_available_bytes: int
    render_nodes: tuple[Mapping[str, Any], ...] = ()
    """``/dev/dri/renderD*`` nodes: ``path``, ``readable``, ``writable`` each, and (schema 1.4)
    the owning ``group``, ``mode`` and whether this user is ``in_group``."""
    gpu: Mapping[str, Any] = field(default_factory=dict)
    """The Intel GPU stack below torch (schema 1.4): ``display_devices`` (PCI slot, vendor,
    device id, bound driver; for Intel, family and the drivers it needs), ``container``,
    ``wsl``, ``dxg`` and ``level_zero`` (loader,
    ``ze_init`` result, drivers, devices, GPU runtime libraries)."""
    isa_source: str = "/proc/cpuinfo"
    """Where ``cpu_flags`` came from (schema 1.5): ``cpuid`` (run in the examined interpreter,
    so an emulated or masked CPU is seen as the process sees it) or ``/proc/cpuinfo``."""
    isa_note: str = ""
    """Why CPUID was not used, or what /proc/cpuinfo claims beyond it (empty when they agree)."""

    def has_flag(self, flag: str) -> bool:
        """Whether the CPU reports ``flag`` (as named in /proc/cpuinfo)."""
        return flag in self.cpu_flags


@dataclass(frozen=True)
class FatalSignal(JsonModel):
    """Where an interpreter was when a signal killed it during an import (schema 1.8).

    Read from the Python stack that ``faulthandler`` wrote as the process died and from the
    native libraries the worker reported loading (``probe.fatal_signal``); every field but
    ``signal`` may be unknown (``None``, empty) when the process could write nothing.
    """

    signal: str
    """The signal's name: ``SIGILL``, ``SIGSEGV``, ``SIGBUS``, ``SIGABRT``..."""
    module: str | None = None
    """The module whose code was running: the innermost Python frame outside the import
    machinery (``numpy``, ``intel_extension_for_pytorch.cpu.runtime.multi_stream``)."""
    frame: str | None = None
    """That frame as ``path:line in function``, the path from the package's directory on."""
    library: str | None = None
    """The native library (extension module or ``ctypes`` load) it died loading, else the one
    loaded last outside the standard library; the path from the package's directory on."""
    loading_library: bool = False
    """It died while ``library`` was being loaded (its own initialisation), not afterwards."""
    package: str | None = None
    """The top-level package the fault was in: ``library``'s when it died loading it, else the
    running module's (``numpy``)."""
    stack: tuple[str, ...] = ()
    """The Python frames ``faulthandler`` wrote, innermost first (trimmed)."""


@dataclass(frozen=True)
class ImportOutcome(JsonModel):
    """How importing one module went in the runtime probe."""

    module: str
    ok: bool
    version: str | None = None
    seconds: float | None = None
    error_type: str | None = None
    """Exception class name, ``SystemExit``, ``died`` (process ended) or ``timeout``."""
    error: str | None = None
    """The exception text, or what the process printed before it died."""
    output: str = ""
    """What the import printed (stdout and stderr), trimmed."""
    missing_library: str | None = None
    """A shared library that could not be loaded, when the probe could name it."""
    fatal: FatalSignal | None = None
    """Where the interpreter was when a signal killed it importing this module (schema 1.8)."""


@dataclass(frozen=True)
class RuntimeProbe(JsonModel):
    """What the spawned interpreter reported after importing torch, torchvision and IPEX."""

    ran: bool
    """False when the runtime probe was not attempted (``skip_reason`` says why)."""
    skip_reason: str = ""
    duration_s: float = 0.0
    returncode: int | None = None
    signal: str | None = None
    timed_out: bool = False
    unfinished_stage: str | None = None
    """The stage in progress when the probe process ended early, if it did."""
    imports: tuple[ImportOutcome, ...] = ()
    torch: Mapping[str, Any] = field(default_factory=dict)
    """Build facts of torch (versions, compiled backends, ABI, oneDNN)."""
    ipex: Mapping[str, Any] = field(default_factory=dict)
    """Build facts of IPEX (version, build type, CPU ISA level)."""
    devices: tuple[Mapping[str, Any], ...] = ()
    """Accelerator devices with their properties (``type``, ``index``, ``name``...)."""
    output_tail: str = ""
    """The last lines the probe process printed, for errors nobody anticipated."""

    def import_of(self, module: str) -> ImportOutcome | None:
        """The outcome of importing ``module``, or ``None`` when it was not attempted."""
        for outcome in self.imports:
            if outcome.module == module:
                return outcome
        return None


@dataclass(frozen=True)
class Environment(JsonModel):
    """The whole probe result: interpreter, host, packages, variables and runtime facts."""

    interpreter: Interpreter
    host: Host
    packages: tuple[Package, ...]
    env_vars: Mapping[str, str]
    """Allow-listed environment variables, secret-looking values redacted."""
    runtime: RuntimeProbe

    @property
    def device_labels(self) -> list[str]:
        """``cpu`` and every accelerator the runtime probe saw, as ``type:index``."""
        return ["cpu", *(device_label(d) for d in self.runtime.devices)]

    def package(self, name: str) -> Package | None:
        """The installed distribution ``name`` (normalised), or ``None``."""
        for package in self.packages:
            if package.name == name:
                return package
        return None

    def devices_of(self, kind: str) -> list[Mapping[str, Any]]:
        """The accelerators of ``kind`` (``xpu``, ``cuda``) the runtime probe saw, in its order."""
        return [device for device in self.runtime.devices if device.get("type") == kind]

    def torch_version(self) -> str | None:
        """The torch version: what the import said, else the package metadata."""
        runtime = self.runtime.torch.get("version")
        if isinstance(runtime, str) and runtime:
            return runtime
        package = self.package("torch")
        return None if package is None else package.version

    def ipex_version(self) -> str | None:
        """The IPEX version: what the import said, else the package metadata (with its label)."""
        runtime = self.runtime.ipex.get("version")
        if isinstance(runtime, str) and runtime:
            return runtime
        package = self.package(IPEX)
        if package is None:
            return None
        local = package.variant.local
        if local is None or "+" in package.version:
            return package.version
        return f"{package.version}+{local}"

    def effective_variant(self, package: Package) -> str | None:
        """The build variant of ``package`` (``cpu``, ``xpu``, ``cuda``, ``rocm``) from its
        label, else from what the runtime probe saw; ``None`` when neither tells."""
        if package.variant.accelerator is not None:
            return package.variant.accelerator
        if package.name == "torch" and self.runtime.torch:
            facts = self.runtime.torch
            if facts.get("xpu_compiled"):
                return "xpu"
            if facts.get("cuda"):
                return "cuda"
            if facts.get("hip"):
                return "rocm"
            return "cpu"
        if package.name == IPEX:
            # NOTE: PyPI only ever hosted IPEX CPU wheels, whose metadata version has no label
            # ("2.8.0" while ipex.__version__ says "2.8.0+cpu"); XPU wheels carry "+xpu".
            return "cpu"
        return None


def device_label(device: Mapping[str, Any]) -> str:
    """The label of an accelerator the probe reported: ``xpu:0``, ``cuda:1``."""
    return f"{device.get('type')}:{device.get('index')}"
