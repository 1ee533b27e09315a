"""A real package index on localhost, for the tests of ``fix``: tiny wheels, and a gate that
holds a wheel's download by the real install half-way until the test lets it go.

pip talks to it as to any index (PEP 503 pages, with PEP 658 metadata files so a dry run reads
only the metadata and the wheel itself is fetched by the real install). The gate makes "pip is
in the middle of a step" an observable fact instead of a guess about timing: the test waits for
``downloading`` (pip has asked for the wheel and holds its first bytes), signals, then
``release()``s the rest or never does.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import tarfile
import threading
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psutil

_PAD_BYTES = 2 * 1024 * 1024
"""Each wheel carries this much incompressible padding, so the held download is mid-file."""


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def metadata_text(name: str, version: str, requires: Sequence[str] = ()) -> str:
    """The core metadata of the tiny distribution ``name`` ``version``."""
    needs = "".join(f"Requires-Dist: {r}\n" for r in requires)
    return f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{needs}"


def build_wheel(directory: Path, name: str, version: str, requires: Sequence[str] = ()) -> Path:
    """A pure-Python wheel of ``name`` ``version`` (one module and padding) in ``directory``,
    depending on ``requires``."""
    module = name.replace("-", "_")
    info = f"{module}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": f"__version__ = {version!r}\n".encode(),
        f"{module}/padding.bin": hashlib.sha256(name.encode()).digest() * (_PAD_BYTES // 32),
        f"{info}/METADATA": metadata_text(name, version, requires).encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [_record_line(path, data) for path, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = directory / f"{module}-{version}-py3-none-any.whl"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    path.write_bytes(buffer.getvalue())
    return path


def build_sdist(directory: Path, name: str, version: str, marker: Path) -> Path:
    """A source distribution of ``name`` ``version`` whose ``setup.py`` writes ``marker``
    when anything builds it (or merely asks it for its metadata)."""
    base = f"{name.replace('-', '_')}-{version}"
    setup = (
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('built')\n"
        f"from setuptools import setup\nsetup(name={name!r}, version={version!r})\n"
    )
    members = {"setup.py": setup, "PKG-INFO": metadata_text(name, version)}
    path = directory / f"{base}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for member, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{base}/{member}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


@dataclass
class LocalIndex:
    """A running index: its URL, the files it serves (one per name), and the gate on their
    downloads."""

    url: str
    wheels: dict[str, Path]
    described: set[str] = field(default_factory=set)
    """Names whose metadata file (PEP 658) is served: the wheels ``serve`` built."""
    hold: set[str] = field(default_factory=set)
    """Names whose wheel download stops after its first bytes until ``release``."""
    downloading: threading.Event = field(default_factory=threading.Event)
    """Set once pip has received the first bytes of a held wheel."""
    released: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        """Let every held download finish."""
        self.released.set()


def _handler(index: LocalIndex) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return None

        def _send(self, body: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_HEAD(self) -> None:
            wheel = self._wheel()
            if wheel is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(wheel[1].stat().st_size))
            self.end_headers()

        def _wheel(self) -> tuple[str, Path] | None:
            for name, path in index.wheels.items():
                if self.path == f"/files/{path.name}":
                    return name, path
            return None

        def do_GET(self) -> None:
            parts = self.path.strip("/").split("/")
            if parts[0] == "simple" and len(parts) == 2:
                path = index.wheels.get(parts[1])
                if path is None:
                    self.send_error(404)
                    return
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                meta = hashlib.sha256(metadata_text(parts[1], _version(path)).encode()).hexdigest()
                described = (f'data-dist-info-metadata="sha256={meta}" '
                             f'data-core-metadata="sha256={meta}"')  # fmt: skip
                if parts[1] not in index.described:
                    described = ""
                link = f'<a href="/files/{path.name}#sha256={digest}" {described}>{path.name}</a>'
                self._send(f"<!DOCTYPE html><html><body>{link}</body></html>".encode(), "text/html")
                return
            if self.path.endswith(".whl.metadata"):
                for name, path in index.wheels.items():
                    if name not in index.described:
                        continue
                    if self.path == f"/files/{path.name}.metadata":
                        self._send(metadata_text(name, _version(path)).encode(), "text/plain")
                        return
            wheel = self._wheel()
            if wheel is None:
                self.send_error(404)
                return
            name, path = wheel
            data = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if name in index.hold and not _from_dry_run(self.client_address[1]):
                self.wfile.write(data[:65536])
                self.wfile.flush()
                index.downloading.set()
                index.released.wait(timeout=600)
                data = data[65536:]
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # NOTE: pip was stopped mid-download: what the test wanted

    return Handler


def _from_dry_run(port: int) -> bool:
    """Whether the connection from local ``port`` is a ``pip install --dry-run`` (which, up to
    pip 23.2, downloads every wheel it resolves: it is let through, the real install held)."""
    for connection in psutil.net_connections(kind="tcp"):
        if connection.laddr and connection.laddr.port == port and connection.pid:
            try:
                return "--dry-run" in psutil.Process(connection.pid).cmdline()
            except psutil.Error:
                return False
    return False


def _version(path: Path) -> str:
    return path.name.split("-")[1]


@contextmanager
def serve(directory: Path, packages: dict[str, str], hold: tuple[str, ...] = (),
          files: Mapping[str, Path] | None = None) -> Iterator[LocalIndex]:  # fmt: skip
    """Build a wheel per ``{name: version}`` in ``directory`` and serve them as an index, with
    ``files`` (``{name: path}``: sdists, wheels with dependencies) beside them."""
    wheels = {name: build_wheel(directory, name, version) for name, version in packages.items()}
    described = set(wheels)
    wheels.update(files or {})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    url = f"http://127.0.0.1:{server.server_address[1]}/simple"
    index = LocalIndex(url, wheels, described, set(hold))
    server.RequestHandlerClass = _handler(index)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield index
    finally:
        index.release()
        server.shutdown()
        server.server_close()
