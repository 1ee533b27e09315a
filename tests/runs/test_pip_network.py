"""The plan's download sizes go the way pip's downloads go: through the proxy pip is configured
with, even when that proxy is named only in pip's configuration file.

A real pip (the bare test environment's) reads a real configuration file; a real HTTP proxy on
localhost answers for a host that does not exist (``.invalid`` never resolves), so a size can
only come back through the proxy.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import real_env

from ipex_doctor.runs import pip_actions

WHEEL_URL = "http://index.invalid/packages/demo-1.0-py3-none-any.whl"


class _Proxy(http.server.BaseHTTPRequestHandler):
    asked: list[str] = []

    def do_HEAD(self) -> None:  # noqa: N802 - the name http.server calls
        type(self).asked.append(self.path)  # a proxy is asked for the absolute URL
        self.send_response(200)
        self.send_header("Content-Length", "123456")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - base signature
        return


@pytest.fixture
def proxy() -> Iterator[str]:
    _Proxy.asked = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Proxy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _settings(
    python: str, config: Path, monkeypatch: pytest.MonkeyPatch
) -> pip_actions.NetworkSettings:
    for name in ("PIP_PROXY", "PIP_CERT", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    pip_actions.network_settings.cache_clear()
    try:
        return pip_actions.network_settings(python)
    finally:
        pip_actions.network_settings.cache_clear()


def test_a_proxy_named_only_in_pip_conf_carries_the_size_requests(
    tmp_path: Path, proxy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pip.conf's [global] proxy (no scheme, as pip allows) is read from the examined pip and
    the size request goes through it; without it the unreachable host gives no size."""
    config = tmp_path / "pip.conf"
    config.write_text(f"[global]\nproxy = {proxy}\n")
    settings = _settings(real_env("bare"), config, monkeypatch)
    assert settings.proxy == proxy
    assert pip_actions.file_size(WHEEL_URL, pip_actions.size_opener(settings)) == 123456
    assert _Proxy.asked == [WHEEL_URL]
    unconfigured = pip_actions.size_opener(pip_actions.NetworkSettings())
    assert pip_actions.file_size(WHEEL_URL, unconfigured) is None
    assert _Proxy.asked == [WHEEL_URL]


def test_pips_own_order_install_section_over_global_and_variable_over_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PIP_PROXY wins over [install], which wins over [global]; the CA bundle is read too."""
    config = tmp_path / "pip.conf"
    config.write_text(
        "[global]\nproxy = http://global.invalid:1\ncert = /etc/ssl/certs/ca-certificates.crt\n"
        "[install]\nproxy = http://install.invalid:2\n"
    )
    python = real_env("bare")
    settings = _settings(python, config, monkeypatch)
    assert settings == pip_actions.NetworkSettings(
        proxy="http://install.invalid:2", cert="/etc/ssl/certs/ca-certificates.crt"
    )
    monkeypatch.setenv("PIP_PROXY", "http://variable.invalid:3")
    pip_actions.network_settings.cache_clear()
    try:
        assert pip_actions.network_settings(python).proxy == "http://variable.invalid:3"
    finally:
        pip_actions.network_settings.cache_clear()


def test_no_pip_means_default_settings(tmp_path: Path) -> None:
    """An interpreter whose pip cannot answer leaves the defaults (sizes asked directly)."""
    missing = tmp_path / "no-python"
    assert pip_actions.network_settings(str(missing)) == pip_actions.NetworkSettings()
