"""What the doctor learns of an interpreter without importing torch: the static facts.

The handshake (``interpreter.Handshake``, started by ``begin`` while the doctor does other
work: a scan reads its knowledge base and rules meanwhile) says what the interpreter is and
where it looks for packages; the package metadata, the allow-listed variables and the host are read in the
doctor's own process; the CPU's instruction sets as that interpreter executes them and the
Intel GPU stack below torch are asked in two spawned interpreters (``host``, ``gpu``), run side
by side while the doctor does other work (a scan reads the tree meanwhile, ``examine`` starts
the runtime probe's worker).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ipex_doctor.model.environment import Environment, Host, Interpreter, Package, RuntimeProbe
from ipex_doctor.probe import gpu, host, interpreter, spawn
from ipex_doctor.probe.options import ProbeOptions
from ipex_doctor.probe.secrets import Redactor, reported_env_vars

NEVER_IMPORTS_TORCH = "this command reads package metadata and never imports torch"
"""Why a command that must not import torch (scan) has no runtime probe: said so, not that the
user switched something off."""


def _quiet(_: str) -> None:
    return None


@dataclass(frozen=True)
class StaticFacts:
    """What the doctor's own process learns before any torch import."""

    interpreter: Interpreter
    host: Host
    packages: tuple[Package, ...]
    env_vars: Mapping[str, str]
    """The allow-listed variables, secret-looking values already redacted."""


class StaticExamination:
    """The static facts of an interpreter being read: the handshake (started by ``begin``),
    then, once it answered, its package metadata, the allow-listed variables and the host
    (``target``, ``facts``: asking either waits for the handshake); the CPUID and Intel
    runtime probes, two spawned interpreters, run side by side once started (``start_probes``)
    while the doctor works, and ``finish`` collects them into the whole static facts.

    A context manager: leaving it with the handshake or a probe unanswered (an interrupt, an
    error, a refusal) kills and reaps it, so it never outlives the doctor."""

    def __init__(
        self,
        handshake: interpreter.Handshake,
        environ: Mapping[str, str],
        progress: Callable[[str], None] = _quiet,
    ) -> None:
        self._handshake, self._environ, self._progress = handshake, environ, progress
        self._answered: tuple[interpreter.Target, StaticFacts] | None = None
        self._isa: spawn.JsonScript | None = None
        self._gpu: spawn.JsonScript | None = None

    @property
    def target(self) -> interpreter.Target:
        """The interpreter that answered the handshake (waited for); ``InterpreterError`` when
        it cannot be used."""
        return self._answer()[0]

    @property
    def facts(self) -> StaticFacts:
        """The static facts read in the doctor's process, the handshake answered (waited for)."""
        return self._answer()[1]

    def _answer(self) -> tuple[interpreter.Target, StaticFacts]:
        if self._answered is None:
            try:
                target = self._handshake.target()
            except BaseException:
                self.end()
                raise
            self._progress(f"examining {target.interpreter.executable}: reading package metadata")
            packages = interpreter.installed_packages(target.sys_path)
            env_vars = reported_env_vars(self._environ, Redactor(self._environ))
            facts = StaticFacts(target.interpreter, host.probe_host(), packages, env_vars)
            self._answered = (target, facts)
        return self._answered

    def __enter__(self) -> StaticExamination:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.end()

    def start_probes(self) -> None:
        """Start the CPUID and Intel runtime probes in the examined interpreter (once)."""
        python, prefix = self.target.interpreter.executable, self.target.interpreter.prefix
        try:
            if self._isa is None:
                self._isa = host.start_executable_isa(python, env=self._environ)
            if self._gpu is None:
                self._gpu = gpu.start_runtime_probe(python, env=self._environ, prefix=prefix)
        except BaseException:
            self.end()
            raise

    def finish(self) -> StaticFacts:
        """The whole static facts: the probes' answers (started now if they were not) joined to
        ``facts``; an interrupt while waiting ends both probes."""
        self.start_probes()
        assert self._isa is not None and self._gpu is not None
        try:
            isa = host.executable_isa_of(self._isa)
            stack = gpu.gpu_facts_of(
                self._gpu,
                env=self._environ,
                sys_path=self.target.sys_path,
                python_version=self.target.version_info,
            )
        finally:
            self.end()
        machine = dataclasses.replace(host.with_executable_isa(self.facts.host, isa), gpu=stack)
        return dataclasses.replace(self.facts, host=machine)

    def end(self) -> None:
        """Kill and reap the handshake and every probe not collected yet."""
        self._handshake.end()
        for probe in (self._isa, self._gpu):
            if probe is not None:
                probe.end()


def without_runtime_probe(static: StaticFacts) -> Environment:
    """The environment of a command that never imports torch (``scan``): the static facts, and
    the runtime probe not run (``NEVER_IMPORTS_TORCH``), as ``examine`` gives it with
    ``runtime_probe=False``."""
    return Environment(
        interpreter=static.interpreter,
        host=static.host,
        packages=static.packages,
        env_vars=static.env_vars,
        runtime=RuntimeProbe(ran=False, skip_reason=NEVER_IMPORTS_TORCH),
    )


def begin(
    options: ProbeOptions,
    *,
    environ: Mapping[str, str] | None = None,
    progress: Callable[[str], None] = _quiet,
) -> StaticExamination:
    """Start the examination of ``options.python``: its handshake runs while the doctor does
    other work; asking for the ``target`` or the ``facts`` (or ``start_probes``) waits for it,
    and raises ``InterpreterError`` there when ``options.python`` cannot be used at all."""
    environ = os.environ if environ is None else environ
    # NOTE: no progress line before the handshake: a --python that is not usable must end
    # with its one-line error alone. The probes start only after it: until the handshake
    # says it is a Python interpreter, nothing else is run with what the user named.
    return StaticExamination(interpreter.Handshake(options.python), environ, progress)


def start(
    options: ProbeOptions,
    *,
    environ: Mapping[str, str] | None = None,
    progress: Callable[[str], None] = _quiet,
) -> StaticExamination:
    """Read the static facts of ``options.python`` up to its probes (``StaticExamination``,
    the handshake answered).

    Raises ``InterpreterError`` when ``options.python`` cannot be used at all."""
    examining = begin(options, environ=environ, progress=progress)
    examining.facts  # noqa: B018 - NOTE: waits for the handshake, reads the facts
    return examining
