"""The JSON report (schema: ``docs/report.schema.json``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ipex_doctor.model.findings import Report

if TYPE_CHECKING:
    from ipex_doctor.reporting.policy import Gate


def render_json(report: Report, gate: Gate | None = None) -> str:
    """The report as indented JSON text ending in a newline (the statuses say what the gate
    decides by; ``gate`` is not written)."""
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
