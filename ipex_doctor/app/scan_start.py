"""``scan``'s start: the examination of the interpreter begun before the use case
(``code_scan``) and its heavier modules are imported.

The examination's children are on a small project's critical path: the handshake (which, in a
torch environment, pays that environment's ``.pth`` hooks), then the CPUID and Intel runtime
probes that start at its answer. Begun here, the handshake runs while the use case, the
knowledge base, the rules and the scanner are imported and read, so it has answered, and the
probes have started, long before the doctor needs them. This module imports only what that
start needs.
"""

from __future__ import annotations

from collections.abc import Callable

from ipex_doctor import start_up
from ipex_doctor.app.interrupts import sigterm_raises
from ipex_doctor.app.scan_request import ScanRequest
from ipex_doctor.errors import ExitCode
from ipex_doctor.probe import static_facts
from ipex_doctor.probe.options import ProbeOptions

Notify = Callable[[str], None]


def probe_options(request: ScanRequest) -> ProbeOptions:
    """The examination a scan makes: the interpreter's static facts, never importing torch."""
    return ProbeOptions(request.probe.python, request.probe.timeout_s, runtime_probe=False)


def scan_and_publish(request: ScanRequest, *, notify: Notify, emit: Notify) -> ExitCode:
    """Scan, judge, publish (``code_scan.scan_examined``); the exit code. ``notify`` carries
    messages for the user, ``emit`` the diffs of ``--diff`` / ``--fix`` and the places left
    alone.

    The report's destinations are checked first; the examination then begins, and the use
    case is imported inside its block. Leaving the block any other way than by its answer (an
    interrupt, SIGTERM, an error, a refusal, an import that fails) kills and reaps whichever
    of the examination's children still runs, and ends its thread."""
    request.out.check()
    with sigterm_raises(), static_facts.begin(probe_options(request)) as examining:
        try:
            from ipex_doctor.app.code_scan import scan_examined
        finally:
            start_up.loaded()  # NOTE: the scan is loaded: its work runs with the collector on
        return scan_examined(request, examining, notify=notify, emit=emit)
