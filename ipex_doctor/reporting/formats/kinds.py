"""The report formats by name, apart from their renderers (the output options name them
without importing any formatter)."""

from __future__ import annotations

from ipex_doctor.model.terms import TextEnum


class Format(TextEnum):
    """A report format written to a file or stdout (``--json``, ``--junit-xml``, ...)."""

    JSON = "json"
    JUNIT = "junit"
    MARKDOWN = "markdown"
    HTML = "html"
    SARIF = "sarif"
    """SARIF 2.1.0: the code findings of ``scan``, for code scanning."""
