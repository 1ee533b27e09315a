"""``renderer``: the renderer of a machine format (``Format``), imported only when asked for."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from ipex_doctor.errors import assert_never
from ipex_doctor.reporting.formats.kinds import Format

if TYPE_CHECKING:
    from ipex_doctor.model.findings import Report
    from ipex_doctor.reporting.policy import Gate


class Renderer(Protocol):
    """A machine format: the report (policy applied) and the gate's decision, to text."""

    def __call__(self, report: Report, gate: Gate | None = None) -> str: ...


class ChunkRenderer(Protocol):
    """A machine format's text in pieces (``output.write_text`` takes them as they come)."""

    def __call__(self, report: Report, gate: Gate | None = None) -> Iterable[str]: ...


def chunk_renderer(fmt: Format) -> ChunkRenderer:
    """The renderer of ``fmt`` in pieces: JSON and SARIF make each finding's text when it is
    written (a scan's 100,000 findings are never held as text whole, nor as JSON data); the
    other formats' text whole, as one piece."""
    if fmt is Format.JSON:
        from ipex_doctor.reporting.formats.json_format import json_chunks

        return json_chunks
    if fmt is Format.SARIF:
        from ipex_doctor.reporting.formats.sarif import sarif_chunks

        return sarif_chunks
    whole = renderer(fmt)
    return lambda report, gate=None: (whole(report, gate),)


def renderer(fmt: Format) -> Renderer:
    """The renderer of ``fmt``, imported only when asked for (the HTML and chart code costs
    the light commands nothing)."""
    match fmt:
        case Format.JSON:
            from ipex_doctor.reporting.formats.json_format import render_json

            return render_json
        case Format.JUNIT:
            from ipex_doctor.reporting.formats.junit import render_junit

            return render_junit
        case Format.MARKDOWN:
            from ipex_doctor.reporting.formats.markdown import render_markdown

            return render_markdown
        case Format.HTML:
            from ipex_doctor.reporting.formats.html import render_html

            return render_html
        case Format.SARIF:
            from ipex_doctor.reporting.formats.sarif import render_sarif

            return render_sarif
        case _:
            assert_never(fmt)
