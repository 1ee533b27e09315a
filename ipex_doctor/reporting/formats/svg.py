"""Inline SVG charts for the HTML report: a line chart of losses and grouped bars.

Pure functions from numbers to SVG text; no script, no external font, no external reference.
Series are told apart by colour *and* by dash pattern or hatching, and every value is written
as text too, so a chart reads in grey print and for colour-blind readers. Colours are the
Okabe-Ito palette (distinguishable under the common colour-vision deficiencies).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
DASHES = ("", "6 3", "2 3", "8 3 2 3")
_FONT = 'font-family="system-ui, sans-serif" font-size="11"'


def _nice(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def line_chart(
    series: Sequence[tuple[str, Sequence[float]]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 420,
    height: int = 220,
) -> str:
    """A line per series (label, values by step); a legend names each with its first and last
    value. Non-finite values are marked with a cross at the top of the chart."""
    left, right, top = 48, 12, 24
    plot_w, plot_h = width - left - right, height - top - 52
    total_h = height + 14 * len(series)
    finite = [v for _, values in series for v in values if math.isfinite(v)]
    low = min(0.0, min(finite)) if finite else 0.0
    high = max(finite) if finite else 1.0
    high = high if high > low else low + 1.0
    steps = max((len(values) for _, values in series), default=1)

    def x_at(index: int) -> float:
        return left + (plot_w * index / (steps - 1) if steps > 1 else plot_w / 2)

    def y_at(value: float) -> float:
        return top + plot_h * (1 - (value - low) / (high - low))

    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {total_h}" width="{width}" '
        f'height="{total_h}">',
        f"<title>{escape(title)}</title>",
        f'<text x="{left}" y="14" {_FONT} font-weight="bold">{escape(title)}</text>',
    ]
    for tick in range(5):
        value = low + (high - low) * tick / 4
        y = y_at(value)
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" {_FONT}>{_nice(value)}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.0f}" y="{top + plot_h + 28}" text-anchor="middle" '
        f"{_FONT}>{escape(x_label)} (1-{steps})</text>"
        f'<text transform="translate(12 {top + plot_h / 2:.0f}) rotate(-90)" '
        f'text-anchor="middle" {_FONT}>{escape(y_label)}</text>'
    )
    for index, (label, values) in enumerate(series):
        colour, dash = PALETTE[index % len(PALETTE)], DASHES[index % len(DASHES)]
        points = " ".join(
            f"{x_at(i):.1f},{y_at(v):.1f}" for i, v in enumerate(values) if math.isfinite(v)
        )
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<polyline class="series" points="{points}" fill="none" stroke="{colour}" '
            f'stroke-width="2"{dashed}/>'
        )
        for i, value in enumerate(values):
            if not math.isfinite(value):
                parts.append(
                    f'<text x="{x_at(i):.1f}" y="{top + 10}" text-anchor="middle" '
                    f'fill="{colour}" {_FONT}>×</text>'
                )
        legend_y = top + plot_h + 44 + 14 * index
        first = _nice(values[0]) if values else "-"
        last = _nice(values[-1]) if values else "-"
        parts.append(
            f'<line x1="{left}" x2="{left + 24}" y1="{legend_y - 4}" y2="{legend_y - 4}" '
            f'stroke="{colour}" stroke-width="2"{dashed}/>'
            f'<text x="{left + 30}" y="{legend_y}" {_FONT}>{escape(label)}: {first} → '
            f"{last}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


HATCH_DEFS = (
    '<svg width="0" height="0" aria-hidden="true" style="position:absolute"><defs>'
    '<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#fff" '
    'stroke-width="2"/></pattern></defs></svg>'
)
"""The hatching bar charts use; a page that shows bar charts includes it once."""


def bar_chart(
    groups: Sequence[tuple[str, Sequence[tuple[str, float | None]]]],
    *,
    title: str,
    unit: str,
    width: int = 420,
    bar_height: int = 16,
    value_text: Callable[[float], str] = _nice,
) -> str:
    """Horizontal bars: for each group (e.g. ``train``) one bar per series (e.g. ``fp32``,
    ``AMP``, ``AMP, baseline``), each labelled with its value and unit, the value written by
    ``value_text`` (the caller's rule, so a bar reads as the report's text does). ``None`` is
    drawn as "not measured"."""
    label_w, value_w = 110, 90
    plot_w = width - label_w - value_w
    values = [v for _, bars in groups for _, v in bars if v is not None and math.isfinite(v)]
    high = max(values) if values else 1.0
    high = high if high > 0 else 1.0
    rows = sum(len(bars) for _, bars in groups) + len(groups)
    total_h = 24 + rows * (bar_height + 4) + 8
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {total_h}" width="{width}" '
        f'height="{total_h}">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="14" {_FONT} font-weight="bold">{escape(title)}</text>',
    ]
    y = 24
    for group, bars in groups:
        parts.append(f'<text x="0" y="{y + bar_height - 4}" {_FONT} font-weight="bold">'
                     f"{escape(group)}</text>")  # fmt: skip
        y += bar_height + 4
        for index, (series, value) in enumerate(bars):
            colour = PALETTE[index % len(PALETTE)]
            parts.append(f'<text x="8" y="{y + bar_height - 4}" {_FONT}>{escape(series)}</text>')
            if value is None or not math.isfinite(value):
                parts.append(
                    f'<text x="{label_w}" y="{y + bar_height - 4}" {_FONT} fill="#555">'
                    "not measured</text>"
                )
            else:
                length = max(1.0, plot_w * value / high)
                parts.append(
                    f'<rect class="bar" x="{label_w}" y="{y}" width="{length:.1f}" '
                    f'height="{bar_height}" fill="{colour}"/>'
                )
                if index % 2:  # NOTE: every other series hatched, so grey print tells them apart
                    parts.append(
                        f'<rect x="{label_w}" y="{y}" width="{length:.1f}" '
                        f'height="{bar_height}" fill="url(#hatch)"/>'
                    )
                parts.append(
                    f'<text x="{label_w + length + 4:.1f}" y="{y + bar_height - 4}" '
                    f"{_FONT}>{escape(value_text(value))} {escape(unit)}</text>"
                )
            y += bar_height + 4
    parts.append("</svg>")
    return "".join(parts)
