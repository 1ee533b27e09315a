"""The HTML report: self-contained, every status readable without colour, and rendered by a
real browser (headless Chromium) with no console error, its charts visible and sized."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from browser import assert_renders
from conftest import TESTS, run_doctor

from ipex_doctor.model.findings import Report, Status
from ipex_doctor.reporting.formats.html import SYMBOLS, render_html
from ipex_doctor.verdicts import baseline

REPORTS = TESTS / "assets" / "reports"
ARC = REPORTS / "xpu-ipex2120-arc-a770.json"
CPU = REPORTS / "cpu-reference-check.json"


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def _parse(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


def _page(path: Path) -> str:
    return render_html(Report.from_dict(json.loads(path.read_text())))


def test_nothing_is_loaded_from_anywhere() -> None:
    """No script, stylesheet, image, frame or font; the only http(s) are reference anchors."""
    for path in (ARC, CPU):
        parsed = _parse(_page(path))
        tags = {tag for tag, _ in parsed.tags}
        assert not tags & {"script", "link", "img", "iframe", "object", "embed", "image", "use"}
        for tag, attrs in parsed.tags:
            for name, value in attrs.items():
                if value and ("http:" in value or "https:" in value or "//" in value):
                    assert (tag, name) == ("a", "href"), (tag, name, value)
        css = "".join(parsed.styles)
        assert "@import" not in css and "url(" not in css and "@font-face" not in css


def test_every_status_has_a_symbol_and_a_word() -> None:
    """Colour is never the only carrier: each badge has the status's symbol, and its title."""
    parsed = _parse(_page(ARC))
    badges = [attrs for tag, attrs in parsed.tags if "badge" in (attrs.get("class") or "")]
    assert badges
    page = _page(ARC)
    assert f"{SYMBOLS[Status.FAIL]} fail" in page and f"{SYMBOLS[Status.WARN]} warn" in page
    assert all(attrs.get("title") for attrs in badges)


def test_the_verdict_comes_first_and_problems_before_passes() -> None:
    page = _page(ARC)
    assert page.index("Gate FAILED") < page.index("<h2>Problems</h2>") < page.index("Everything")
    assert "dot-half [xpu:0]" in page[: page.index("<h2>Problems</h2>")]  # why it failed


def test_the_sanity_run_is_drawn_with_its_regime() -> None:
    page = _page(CPU)
    assert page.count('<svg class="chart"') == 2  # loss curves, throughput bars
    assert "Training loss on cpu" in page and "Throughput on cpu" in page
    assert "batch 4 · 224x224 · channels_last" in page


def test_a_baseline_adds_a_second_series_and_a_section() -> None:
    report = Report.from_dict(json.loads(CPU.read_text()))
    page = render_html(baseline.attach(report, report, "last-good.json"))
    assert "AMP, baseline" in page and "fp32, baseline" in page
    assert "<h2>Since the baseline</h2>" in page and "last-good.json" in page


def test_the_pages_render_in_chromium(tmp_path: Path) -> None:
    # NOTE: the default gate (--fail-on fail): the XPU fixture has fail findings (exit 1), the
    # recorded CPU run warns at worst (exit 0).
    for path, charts, code in ((ARC, 0, 1), (CPU, 2, 0)):
        out = tmp_path / f"{path.stem}.html"
        done = run_doctor("report", str(path), "--html", str(out), "-q")
        assert done.returncode == code and "Traceback" not in done.stderr, done.stderr
        assert_renders(out, min_charts=charts)
