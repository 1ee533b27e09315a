"""The core of a diagnosis, free of any UI: probe the environment, judge it, build the report.

The CLI calls ``examine`` (the probe) and ``diagnose`` (probe + verdicts). Progress goes
through an injected callback (no-op by default); nothing here prints or exits.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone

from ipex_doctor import __version__, host, interpreter, runtime
from ipex_doctor.environment import Environment, RuntimeProbe
from ipex_doctor.judge import judge
from ipex_doctor.kb import KnowledgeBase
from ipex_doctor.model import FindingKind, Report
from ipex_doctor.redact import Redactor, reported_env_vars

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


@dataclass(frozen=True)
class ProbeOptions:
    """What to examine and how long the runtime probe may take."""

    python: str = sys.executable
    timeout_s: float = runtime.DEFAULT_TIMEOUT_S
    runtime_probe: bool = True


def examine(
    options: ProbeOptions,
    *,
    environ: Mapping[str, str] | None = None,
    progress: Progress = _quiet,
) -> Environment:
    """Probe the environment of ``options.python``: static facts, then the runtime probe.

    Raises ``InterpreterError`` when ``options.python`` cannot be used at all; every other
    failure (torch missing, an import that crashes) is recorded in the environment.
    """
    environ = os.environ if environ is None else environ
    progress("asking the interpreter who it is")
    target = interpreter.inspect(options.python)
    progress("reading package metadata")
    packages = interpreter.installed_packages(target.sys_path)
    machine = host.probe_host()
    redactor = Redactor(environ)
    env_vars = reported_env_vars(environ, redactor)
    if not options.runtime_probe:
        probe = RuntimeProbe(ran=False, skip_reason="the runtime probe was switched off")
    elif not any(p.name == "torch" for p in packages):
        probe = RuntimeProbe(ran=False, skip_reason="torch is not installed")
    else:
        progress("importing torch and IPEX in a spawned interpreter")
        probe = runtime.probe(target.interpreter.executable, timeout=options.timeout_s)
    return Environment(
        interpreter=target.interpreter,
        host=machine,
        packages=packages,
        env_vars=env_vars,
        runtime=probe,
    )


def now_utc() -> str:
    """The current time as an ISO 8601 UTC timestamp (seconds)."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def diagnose(
    options: ProbeOptions,
    kb: KnowledgeBase,
    *,
    command: str,
    kinds: tuple[FindingKind, ...] | None = None,
    environ: Mapping[str, str] | None = None,
    progress: Progress = _quiet,
) -> Report:
    """Probe, judge every applicable knowledge-base entry and return the redacted report."""
    environ = os.environ if environ is None else environ
    env = examine(options, environ=environ, progress=progress)
    progress("judging the knowledge base")
    findings = judge(env, kb, kinds=kinds)
    report = Report(
        doctor_version=__version__,
        created_at=now_utc(),
        command=command,
        environment=env,
        findings=findings,
    )
    return redact_report(report, Redactor(environ))


def redact_report(report: Report, redactor: Redactor) -> Report:
    """``report`` with every string scrubbed of secrets (through the JSON round trip)."""
    return Report.from_dict(redactor.deep(report.to_dict()))
