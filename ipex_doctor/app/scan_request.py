"""What the user asked ``scan`` for (``ScanRequest``), apart from the use case, so that the
command's request is built, and the examination begun (``scan_start``), before the use case's
heavier modules are imported."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ipex_doctor.probe.options import ProbeOptions
from ipex_doctor.reporting.output_options import OutputOptions


@dataclass(frozen=True)
class ScanRequest:
    """What the user asked ``scan`` for."""

    roots: tuple[Path, ...]
    out: OutputOptions
    probe: ProbeOptions
    kb_overlays: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    fix: bool = False
    """Apply the mechanical rewrites (all files or none, each in place) before reporting."""
    diff: bool = False
    """Print the rewrites as a unified diff; write nothing."""
    cache: bool = True
    """Reuse the outcomes of files unchanged since the last scan (``scan.outcome_cache``)."""
    docs: bool = False
    """Read the code blocks of the Markdown and reST documents under the roots too."""
    rule_overlays: tuple[str, ...] = ()
    """The site's code-rules files (``--rules``), applied over the shipped rules in order."""
