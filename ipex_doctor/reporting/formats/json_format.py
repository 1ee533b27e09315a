"""The JSON report (schema: ``docs/report.schema.json``)."""

from __future__ import annotations

import json

from ipex_doctor.model.findings import Report


def render_json(report: Report) -> str:
    """The report as indented JSON text ending in a newline."""
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
