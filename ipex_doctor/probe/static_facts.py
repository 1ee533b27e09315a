"""What the doctor learns of an interpreter without importing torch: the static facts.

The handshake (``interpreter.Handshake``, started by ``begin`` while the doctor does other
work: a scan reads its knowledge base and rules meanwhile) says what the interpreter is and
where it looks for packages; the package metadata, the allow-listed variables and the host are
read in the doctor's own process; the CPU's instruction sets as that interpreter executes them
and the Intel GPU stack below torch are asked in two spawned interpreters (``host``, ``gpu``),
started the moment the handshake answers and run side by side while the doctor does other work
(a scan reads the tree meanwhile, ``examine`` starts the runtime probe's worker).
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ipex_doctor.errors import InterpreterError
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
    (``facts``: asking waits for the handshake); the CPUID and Intel runtime probes, two
    spawned interpreters, started by a thread of this examination the moment the handshake
    answers (not when the doctor first asks), run side by side while the doctor works, and
    ``finish`` collects them into the whole static facts.

    A context manager: leaving it with the handshake or a probe unanswered (an interrupt, an
    error, a refusal) kills and reaps it, and waits for the thread, so neither outlives the
    block."""

    def __init__(
        self,
        handshake: interpreter.Handshake,
        environ: Mapping[str, str],
        progress: Callable[[str], None] = _quiet,
    ) -> None:
        self._handshake, self._environ, self._progress = handshake, environ, progress
        self._answered: StaticFacts | None = None
        self._isa: spawn.JsonScript | None = None
        self._gpu: spawn.JsonScript | None = None
        # NOTE: the lock orders the thread's start of the probes against ``end``: a probe is
        # started only while the examination is open, and ``end`` kills whatever was started.
        self._lock = threading.Lock()
        self._open = True
        self._starter_failed: BaseException | None = None
        self._starter = threading.Thread(
            target=self._start_probes_at_answer, name="ipex-doctor-probes-start", daemon=True
        )
        try:
            self._starter.start()
        except BaseException:
            handshake.end()
            raise

    def _start_probes_at_answer(self) -> None:
        """The thread: wait for the handshake's interpreter to exit, then, if it answered as a
        usable interpreter and the examination is still open, start the probes. Never raises:
        a refusal is the main thread's to say (``target``), any other failure too."""
        # NOTE: a small project's scan waited for the doctor's first ask, after its knowledge
        # base, rules and gate, before the probes started: in a torch environment that chain of
        # children (the handshake paying the environment's .pth hooks, then the probes) was the
        # command's wall. The thread starts no process before the handshake says it is a Python
        # interpreter (nothing else is run with what the user named), as before.
        try:
            self._handshake.wait()
            with self._lock:
                if self._open:
                    self._start_probes(self._handshake.target())
        except InterpreterError:
            return  # NOTE: said by the main thread, in its order of errors
        except BaseException as failure:  # NOTE: handed to the main thread
            self._starter_failed = failure

    @property
    def target(self) -> interpreter.Target:
        """The interpreter that answered the handshake (waited for, with the probes' start);
        ``InterpreterError`` when it cannot be used."""
        try:
            # NOTE: an interrupt or SIGTERM breaks this wait (a lock's wait on POSIX)
            self._starter.join()
            return self._handshake.target()
        except BaseException:
            self.end()
            raise

    @property
    def facts(self) -> StaticFacts:
        """The static facts read in the doctor's process, the handshake answered (waited for)."""
        if self._answered is None:
            target = self.target
            self._progress(f"examining {target.interpreter.executable}: reading package metadata")
            packages = interpreter.installed_packages(target.sys_path)
            env_vars = reported_env_vars(self._environ, Redactor(self._environ))
            self._answered = StaticFacts(target.interpreter, host.probe_host(), packages, env_vars)
        return self._answered

    def __enter__(self) -> StaticExamination:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.end()

    def start_probes(self) -> None:
        """Make sure the CPUID and Intel runtime probes run in the examined interpreter (the
        thread starts them at the handshake's answer; this waits for it): ``InterpreterError``
        when the interpreter cannot be used."""
        target = self.target
        try:
            if self._starter_failed is not None:
                raise self._starter_failed
            with self._lock:
                self._start_probes(target)
        except BaseException:
            self.end()
            raise

    def _start_probes(self, target: interpreter.Target) -> None:
        """Start whichever probe is not running yet (the lock held)."""
        python, prefix = target.interpreter.executable, target.interpreter.prefix
        if self._isa is None:
            self._isa = host.start_executable_isa(python, env=self._environ)
        if self._gpu is None:
            self._gpu = gpu.start_runtime_probe(python, env=self._environ, prefix=prefix)

    def finish(self) -> StaticFacts:
        """The whole static facts: the probes' answers (started now if they were not) joined to
        ``facts``; an interrupt while waiting ends both probes."""
        self.start_probes()
        assert self._isa is not None and self._gpu is not None
        try:
            facts = self.facts  # NOTE: read while the probes run, if they still do
            isa = host.executable_isa_of(self._isa)
            stack = gpu.gpu_facts_of(
                self._gpu,
                env=self._environ,
                sys_path=self.target.sys_path,
                python_version=self.target.version_info,
            )
        finally:
            self.end()
        machine = dataclasses.replace(host.with_executable_isa(facts.host, isa), gpu=stack)
        return dataclasses.replace(facts, host=machine)

    def end(self) -> None:
        """Kill and reap the handshake and every probe not collected yet, once the thread that
        starts the probes has ended (killing the handshake ends its wait)."""
        with self._lock:
            self._open = False
        self._handshake.end()
        self._starter.join()
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
