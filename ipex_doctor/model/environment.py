"""What the probe found about an environment, as frozen dataclasses.

Two layers feed it: the static probe (package metadata, host facts, environment variables:
read by the doctor itself, no torch import) and the runtime probe (facts only a spawned
interpreter that imports torch and IPEX can tell). ``to_dict``/``from_dict`` give the
``environment`` object of the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

JSONDict = dict[str, Any]


@dataclass(frozen=True)
class Interpreter:
    """The Python interpreter whose environment is examined (``--python``)."""

    executable: str
    version: str
    implementation: str
    prefix: str
    virtualenv: bool

    def to_dict(self) -> JSONDict:
        """JSON shape."""
        return {
            "executable": self.executable,
            "version": self.version,
            "implementation": self.implementation,
            "prefix": self.prefix,
            "virtualenv": self.virtualenv,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Interpreter:
        """Inverse of ``to_dict``."""
        return cls(
            executable=str(d["executable"]),
            version=str(d["version"]),
            implementation=str(d.get("implementation", "")),
            prefix=str(d.get("prefix", "")),
            virtualenv=bool(d.get("virtualenv", False)),
        )


@dataclass(frozen=True)
class BuildVariant:
    """The build variant of a package, parsed from its version's local label and pre-release."""

    accelerator: str | None
    """``xpu``, ``cpu``, ``cuda``, ``rocm`` or ``None`` when the version carries no label."""
    local: str | None
    """The raw local label (``xpu``, ``cu128``, ``cxx11.abi``), if any."""
    cxx11_abi: bool
    """Labelled as a CXX11-ABI build (Intel's pre-2.6 XPU torch builds)."""
    prerelease: bool
    """A pre-release version (``2.1.0a0``: Intel's builds of stock releases)."""

    def to_dict(self) -> JSONDict:
        """JSON shape."""
        return {
            "accelerator": self.accelerator,
            "local": self.local,
            "cxx11_abi": self.cxx11_abi,
            "prerelease": self.prerelease,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BuildVariant:
        """Inverse of ``to_dict``."""
        return cls(
            accelerator=d.get("accelerator"),
            local=d.get("local"),
            cxx11_abi=bool(d.get("cxx11_abi", False)),
            prerelease=bool(d.get("prerelease", False)),
        )


@dataclass(frozen=True)
class Package:
    """An installed distribution of interest, read from the target's package metadata."""

    name: str
    """Normalised distribution name (PEP 503), e.g. ``intel-extension-for-pytorch``."""
    version: str
    variant: BuildVariant
    location: str = ""

    def to_dict(self) -> JSONDict:
        """JSON shape."""
        return {
            "name": self.name,
            "version": self.version,
            "variant": self.variant.to_dict(),
            "location": self.location,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Package:
        """Inverse of ``to_dict``."""
        return cls(
            name=str(d["name"]),
            version=str(d["version"]),
            variant=BuildVariant.from_dict(d.get("variant") or {}),
            location=str(d.get("location", "")),
        )


@dataclass(frozen=True)
class Host:
    """Facts about the machine: OS, CPU and its ISA, memory, GPU device nodes."""

    system: str
    os_release: str
    kernel: str
    machine: str
    cpu_model: str
    logical_cpus: int
    cpu_flags: tuple[str, ...]
    """The ISA flags that matter to PyTorch on Intel (a subset of /proc/cpuinfo flags)."""
    memory_total_bytes: int
    memory_available_bytes: int
    render_nodes: tuple[Mapping[str, Any], ...] = ()
    """``/dev/dri/renderD*`` nodes: ``{"path", "readable", "writable"}`` each."""

    def has_flag(self, flag: str) -> bool:
        """Whether the CPU reports ``flag`` (as named in /proc/cpuinfo)."""
        return flag in self.cpu_flags

    def to_dict(self) -> JSONDict:
        """JSON shape."""
        return {
            "system": self.system,
            "os_release": self.os_release,
            "kernel": self.kernel,
            "machine": self.machine,
            "cpu_model": self.cpu_model,
            "logical_cpus": self.logical_cpus,
            "cpu_flags": list(self.cpu_flags),
            "memory_total_bytes": self.memory_total_bytes,
            "memory_available_bytes": self.memory_available_bytes,
            "render_nodes": [dict(node) for node in self.render_nodes],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Host:
        """Inverse of ``to_dict``."""
        return cls(
            system=str(d.get("system", "")),
            os_release=str(d.get("os_release", "")),
            kernel=str(d.get("kernel", "")),
            machine=str(d.get("machine", "")),
            cpu_model=str(d.get("cpu_model", "")),
            logical_cpus=int(d.get("logical_cpus", 0)),
            cpu_flags=tuple(d.get("cpu_flags") or ()),
            memory_total_bytes=int(d.get("memory_total_bytes", 0)),
            memory_available_bytes=int(d.get("memory_available_bytes", 0)),
            render_nodes=tuple(dict(n) for n in d.get("render_nodes") or ()),
        )


@dataclass(frozen=True)
class ImportOutcome:
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

    def to_dict(self) -> JSONDict:
        """JSON shape."""
        return {
            "module": self.module,
            "ok": self.ok,
            "version": self.version,
            "seconds": self.seconds,
            "error_type": self.error_type,
            "error": self.error,
            "output": self.output,
            "missing_library": self.missing_library,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ImportOutcome:
        """Inverse of ``to_dict``."""
        return cls(
            module=str(d["module"]),
            ok=bool(d["ok"]),
            version=d.get("version"),
            seconds=d.get("seconds"),
            error_type=d.get("error_type"),
            error=d.get("error"),
            output=str(d.get("output", "")),
            missing_library=d.get("missing_library"),
        )


@dataclass(frozen=True)
class RuntimeProbe:
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

    def to_dict(self) -> JSONDict:
        """JSON shape."""
        return {
            "ran": self.ran,
            "skip_reason": self.skip_reason,
            "duration_s": self.duration_s,
            "returncode": self.returncode,
            "signal": self.signal,
            "timed_out": self.timed_out,
            "unfinished_stage": self.unfinished_stage,
            "imports": [outcome.to_dict() for outcome in self.imports],
            "torch": dict(self.torch),
            "ipex": dict(self.ipex),
            "devices": [dict(device) for device in self.devices],
            "output_tail": self.output_tail,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RuntimeProbe:
        """Inverse of ``to_dict``."""
        return cls(
            ran=bool(d.get("ran", False)),
            skip_reason=str(d.get("skip_reason", "")),
            duration_s=float(d.get("duration_s", 0.0)),
            returncode=d.get("returncode"),
            signal=d.get("signal"),
            timed_out=bool(d.get("timed_out", False)),
            unfinished_stage=d.get("unfinished_stage"),
            imports=tuple(ImportOutcome.from_dict(i) for i in d.get("imports") or ()),
            torch=dict(d.get("torch") or {}),
            ipex=dict(d.get("ipex") or {}),
            devices=tuple(dict(x) for x in d.get("devices") or ()),
            output_tail=str(d.get("output_tail", "")),
        )


@dataclass(frozen=True)
class Environment:
    """The whole probe result: interpreter, host, packages, variables and runtime facts."""

    interpreter: Interpreter
    host: Host
    packages: tuple[Package, ...]
    env_vars: Mapping[str, str]
    """Allow-listed environment variables, secret-looking values redacted."""
    runtime: RuntimeProbe

    def package(self, name: str) -> Package | None:
        """The installed distribution ``name`` (normalised), or ``None``."""
        for package in self.packages:
            if package.name == name:
                return package
        return None

    def to_dict(self) -> JSONDict:
        """JSON shape."""
        return {
            "interpreter": self.interpreter.to_dict(),
            "host": self.host.to_dict(),
            "packages": [package.to_dict() for package in self.packages],
            "env_vars": dict(self.env_vars),
            "runtime": self.runtime.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Environment:
        """Inverse of ``to_dict``."""
        return cls(
            interpreter=Interpreter.from_dict(d["interpreter"]),
            host=Host.from_dict(d.get("host") or {}),
            packages=tuple(Package.from_dict(p) for p in d.get("packages") or ()),
            env_vars=dict(d.get("env_vars") or {}),
            runtime=RuntimeProbe.from_dict(d.get("runtime") or {}),
        )
