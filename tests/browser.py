"""A real browser for the HTML report's tests: headless Chromium driven over its DevTools pipe.

Debian's ``chromium-headless-shell`` (or ``chromium``) speaks the DevTools protocol on file
descriptors 3 and 4 with ``--remote-debugging-pipe``: JSON messages ended by a NUL byte. That
needs nothing beyond the standard library, and no port is opened. ``open_page`` loads a file,
records every console message, exception and network request the page causes, measures its
charts, and can take a screenshot or print it to PDF.

    python tests/browser.py REPORT.html SHOT.png [WIDTH]     (a screenshot by hand)
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")
INSTALL = "apt-get install chromium-headless-shell"


def find_browser() -> str | None:
    """The first headless-capable Chromium on PATH (or ``$IPEX_DOCTOR_BROWSER``)."""
    named = os.environ.get("IPEX_DOCTOR_BROWSER")
    if named:
        return named
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(Exception):
    """The browser could not be started or did not answer in time."""


@dataclass
class Page:
    """A page loaded in the browser, with what it did while loading."""

    browser: _Pipe
    session: str
    console: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def evaluate(self, expression: str) -> Any:
        """The JSON value of ``expression`` evaluated in the page."""
        reply = self.browser.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, self.session
        )
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression!r} raised {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def charts(self) -> list[dict[str, Any]]:
        """Every ``svg.chart``: its rendered size, whether it is visible, how many marks it has."""
        value = self.evaluate(
            "JSON.stringify([...document.querySelectorAll('svg.chart')].map(e => {"
            "const r = e.getBoundingClientRect(), s = getComputedStyle(e);"
            "return {title: (e.querySelector('title') || {}).textContent, width: r.width,"
            "height: r.height, visible: s.display !== 'none' && s.visibility !== 'hidden',"
            "marks: e.querySelectorAll('polyline.series, rect.bar').length}}))"
        )
        charts: list[dict[str, Any]] = json.loads(value)
        return charts

    def overflows(self) -> bool:
        """Whether the page is wider than the window (a horizontal scroll bar)."""
        return bool(self.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1"))

    def screenshot(self, path: Path) -> None:
        """The whole page, top to bottom, as a PNG."""
        metrics = self.browser.call("Page.getLayoutMetrics", {}, self.session)
        size = metrics["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        shot = self.browser.call(
            "Page.captureScreenshot",
            {"format": "png", "clip": clip, "captureBeyondViewport": True},
            self.session,
        )
        path.write_bytes(base64.b64decode(shot["data"]))

    def pdf(self) -> bytes:
        """The page as printed (A4 portrait, the print style sheet applied)."""
        printed = self.browser.call(
            "Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69}, self.session
        )
        return base64.b64decode(printed["data"])


def _above_4(fd: int) -> int:
    """``fd`` moved to a number above 4, so that placing the pipe ends on 3 and 4 in the child
    never overwrites one end with the other (pytest may hold low numbers free for reuse)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class _Pipe:
    """One Chromium process and its DevTools pipe."""

    def __init__(self, executable: str, profile: str) -> None:
        to_browser_r, self._to_browser = map(_above_4, os.pipe())
        self._from_browser, from_browser_w = map(_above_4, os.pipe())
        # NOTE: the protocol wants exactly fds 3 (commands in) and 4 (replies out); bash moves
        # the pipe ends there before exec (dash reads no fd number above 9), so no preexec_fn
        # (a fork hook) is needed.
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$@" 3<&{to_browser_r} 4>&{from_browser_w}', "bash", executable,
             "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--disable-extensions", "--disable-background-networking",
             f"--user-data-dir={profile}", "about:blank"],
            pass_fds=(to_browser_r, from_browser_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any], session: str | None = None) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("the browser did not answer within the time allowed")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    said = (
                        self.process.stderr.read().decode(errors="replace")[-2000:]
                        if (self.process.poll() is not None and self.process.stderr)
                        else ""
                    )
                    raise BrowserError(f"the browser closed its pipe: {said}")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    def call(
        self, method: str, params: dict[str, Any], session: str | None = None, timeout: float = 60
    ) -> dict[str, Any]:
        """Send one command and wait for its reply; events meanwhile go to ``events``."""
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self._read(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)

    def wait_for(self, method: str, session: str, timeout: float = 60) -> None:
        """Wait until the event ``method`` of ``session`` arrives (or has arrived)."""
        deadline = time.monotonic() + timeout
        while not any(e["method"] == method and e.get("sessionId") == session for e in self.events):
            message = self._read(deadline)
            if "method" in message:
                self.events.append(message)

    def close(self) -> None:
        """Ask the browser to quit (its helper processes go with it), then make sure."""
        try:
            self.send("Browser.close", {})
            self.process.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self.process.kill()
        self.process.wait(timeout=30)


@contextmanager
def open_page(path: Path, *, width: int = 1200, height: int = 900) -> Iterator[Page]:
    """Load ``path`` in a fresh headless browser ``width`` CSS pixels wide; yield the page."""
    executable = find_browser()
    if executable is None:
        raise BrowserError(f"no headless Chromium found; install one: {INSTALL}")
    with tempfile.TemporaryDirectory(
        prefix="ipex-doctor-browser-", ignore_cleanup_errors=True
    ) as profile:
        pipe = _Pipe(executable, profile)
        try:
            target = pipe.call("Target.createTarget", {"url": "about:blank"})
            attached = pipe.call(
                "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
            )
            session = attached["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                pipe.call(f"{domain}.enable", {}, session)
            pipe.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                session,
            )
            pipe.call("Page.navigate", {"url": path.resolve().as_uri()}, session)
            pipe.wait_for("Page.loadEventFired", session)
            page = Page(pipe, session)
            for event in pipe.events:
                if event.get("sessionId") != session:
                    continue
                params = event.get("params", {})
                if event["method"] == "Runtime.consoleAPICalled":
                    page.console.append(params)
                elif event["method"] == "Log.entryAdded":
                    page.console.append(params.get("entry", {}))
                elif event["method"] == "Runtime.exceptionThrown":
                    page.exceptions.append(params)
                elif event["method"] == "Network.requestWillBeSent":
                    page.requests.append(params.get("request", {}).get("url", ""))
            yield page
        finally:
            pipe.close()


def assert_renders(path: Path, *, min_charts: int = 0) -> None:
    """The page loads in Chromium with no console message, no exception and no request but
    its own file; every chart is visible, sized and drawn; it fits a narrow window; it prints.

    Without a browser the caller is skipped, except in CI (``CI`` set), where it fails: the
    HTML report's promise is only kept if a browser really rendered it.
    """
    import pytest

    if find_browser() is None:
        message = f"no headless Chromium to render {path.name}; install one: {INSTALL}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with open_page(path) as page:
        assert page.console == [] and page.exceptions == [], (page.console, page.exceptions)
        assert page.requests == [path.resolve().as_uri()], page.requests
        charts = page.charts()
        assert len(charts) >= min_charts, charts
        for chart in charts:
            assert chart["visible"] and chart["width"] > 150 and chart["height"] > 60, chart
            assert chart["marks"] > 0, chart
        assert not page.overflows()
        assert page.pdf().startswith(b"%PDF")
    with open_page(path, width=380, height=800) as narrow:
        assert not narrow.overflows(), "the page needs a horizontal scroll bar at 380 px"


def main(argv: list[str]) -> int:
    """Screenshot an HTML file: ``browser.py IN.html OUT.png [WIDTH]``."""
    width = int(argv[3]) if len(argv) > 3 else 1200
    with open_page(Path(argv[1]), width=width) as page:
        page.screenshot(Path(argv[2]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
