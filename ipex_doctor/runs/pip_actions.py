"""pip, run in the examined interpreter: the only way ``fix`` changes an environment.

Every command is the examined interpreter's own pip (shown to the user as ``<python> -m pip
...``) with the user's pip configuration as it is (index, mirror, wheel directory, proxy: pip
reads them, the doctor passes them through), never another interpreter's pip and never
``sudo``. Nothing is imported from the directory the doctor was started in (see
``_WITHOUT_CURRENT_DIRECTORY``). Every install, the dry run included, takes wheels
only (``NO_BUILD``): no source distribution is built, so no package's build code runs. Three
uses:

- ``resolve``: ``pip install --dry-run --report`` says what an install would fetch, without
  changing anything; sizes come from the index (a ``HEAD`` request) or the local file;
- ``run_pip``: one real install or uninstall, its output read for what pip downloaded;
- ``installed``: the distributions the environment has now (a snapshot's content).

pip runs in a session of its own, so a Ctrl-C typed at the terminal reaches the doctor, not pip
half-way through replacing a package: the doctor lets the step finish (pip installs or rolls
back each package as a whole) and stops before the next one. A second Ctrl-C, or SIGTERM, ends
pip at once; the caller then records the step as interrupted.
"""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from ipex_doctor.errors import DoctorError
from ipex_doctor.model.repair import Distribution, Download

RESOLVE_TIMEOUT_S = 600.0
"""A dry run resolves against the index; pip's own retries bound each request."""
_HEAD_TIMEOUT_S = 15.0
NO_BUILD = "--only-binary=:all:"
"""pip takes wheels only: a source distribution's ``setup.py`` (any build backend) never runs."""
_STOP_GRACE_S = 10.0
_UNREACHABLE = re.compile(
    r"Could not fetch URL|connection error|NewConnectionError|Max retries exceeded|Failed to establish a new connection|"
    r"Temporary failure in name resolution|Name or service not known|Network is unreachable|"
    r"Connection refused|ConnectTimeout|ReadTimeout|ProxyError"
)
_ERRNO = re.compile(r"\[Errno -?\d+\] [^'\")\]]+")
_DOWNLOADING = re.compile(r"Downloading \S+ \((\d+(?:\.\d+)?) (kB|MB|GB|bytes)\)")
_UNITS = {"bytes": 1, "kB": 1000, "MB": 1000**2, "GB": 1000**3}

Notify = Callable[[str], None]

# NOTE: `python -c` and `python -m` put the current directory first on sys.path, before the
# standard library: run in a cloned project holding a `json.py` or a `pip/`, a plan that only
# reads would import and run it. Python 3.11's -P would prevent that only on 3.11 and later,
# and -I also drops PYTHONPATH and the user's site-packages (where pip may be); so each command
# drops that one entry itself before it imports anything. The working directory stays, so a
# relative wheel directory the user gave pip (PIP_FIND_LINKS=wheels) still means what it meant.
_WITHOUT_CURRENT_DIRECTORY = "import sys\nsys.path[:] = [p for p in sys.path if p != '']\n"
_RUN_PIP = _WITHOUT_CURRENT_DIRECTORY + (
    "import runpy\nrunpy.run_module('pip', run_name='__main__', alter_sys=True)\n"
)


def pip_argv(python: str, *arguments: str) -> list[str]:
    """The argument vector that runs ``python -m pip ARGUMENTS`` (as the plan shows it) without
    importing anything from the current directory: what ``ps`` shows of a running step."""
    return [python, "-c", _RUN_PIP, *arguments]


class PipError(DoctorError):
    """pip could not do what the plan needs (no index, nothing satisfies a requirement); the
    message carries pip's own last error line. Nothing was changed when this is raised."""


def _pip_environ() -> dict[str, str]:
    # NOTE: the user's configuration is kept as it is; only what would make pip talk to the
    # terminal (a prompt for credentials, a progress bar in the captured output) is turned off.
    env = dict(os.environ)
    env.setdefault("PIP_NO_INPUT", "1")
    env["PIP_PROGRESS_BAR"] = "off"
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    return env


def _last_error(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR:")]
    return (errors or lines or ["(no output)"])[-1][:300]


def _unreachable(output: str) -> str:
    """Why and where pip could not connect, from its first connection complaint
    (``[Errno -2] Name or service not known; looked in https://...``): its last error line
    is then often the resolver's, which says nothing of the network."""
    found = next(hit for line in output.splitlines() if (hit := _UNREACHABLE.search(line)))
    errno = _ERRNO.search(found.string)
    reason = errno.group(0) if errno else found.group(0)
    looked = [line.strip()[len("Looking in indexes: "):] for line in output.splitlines()
              if line.startswith("Looking in indexes: ")]  # fmt: skip
    return f"{reason}; looked in {looked[0]}" if looked else reason


def _failure(output: str, what: str) -> PipError:
    if _UNREACHABLE.search(output):
        return PipError(
            f"{what}: pip could not reach the package index ({_unreachable(output)}); "
            "nothing was changed",
            tip="check the network or proxy, or point pip at a local wheel directory "
            "(PIP_FIND_LINKS, pip.conf) and run fix again",
        )
    if "(from versions: none)" in output:
        # NOTE: with PIP_RETRIES=0 pip says nothing about a connection that failed; an index
        # that answers with no version at all is reported with where pip looked.
        looked = [line.strip() for line in output.splitlines() if line.startswith("Looking in ")]
        where = f" ({'; '.join(looked)})" if looked else ""
        return PipError(
            f"{what}: pip found no version at all{where}: the index is unreachable or does not "
            "serve this package; nothing was changed",
            tip="check the network or proxy, or point pip at a local wheel directory "
            "(PIP_FIND_LINKS, pip.conf) and run fix again",
        )
    return PipError(f"{what}: {_last_error(output)}; nothing was changed")


def resolve(python: str, arguments: Sequence[str]) -> tuple[tuple[Download, ...], int]:
    """What ``pip install ARGUMENTS`` would install, resolved by pip without installing, and
    the bytes pip fetched to resolve it (a dry run downloads every wheel it resolves unless
    the index serves the wheel's metadata file, PEP 658).

    Raises ``PipError`` (naming an unreachable index) when pip cannot resolve it."""
    with tempfile.TemporaryDirectory(prefix="ipex-doctor-plan-") as scratch:
        report = Path(scratch) / "report.json"
        # NOTE: not --quiet: pip says why an index could not be read ("Could not fetch URL
        # ...: connection error") at its info level only.
        command = pip_argv(python, "install", "--dry-run", NO_BUILD, "--report", str(report),
                       *arguments)  # fmt: skip
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, env=_pip_environ(),
                stdin=subprocess.DEVNULL, timeout=RESOLVE_TIMEOUT_S, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise PipError(
                f"pip install --dry-run {' '.join(arguments)}: no answer in "
                f"{RESOLVE_TIMEOUT_S:.0f} s; nothing was changed"
            ) from None
        if done.returncode != 0 or not report.exists():
            raise _failure(done.stdout + done.stderr, f"resolving {' '.join(arguments)}")
        data = json.loads(report.read_text(encoding="utf-8"))
    items = [
        (item["metadata"]["name"], item["metadata"]["version"], item["download_info"]["url"])
        for item in data.get("install", [])
    ]
    # NOTE: pip's network settings cost an interpreter start (`pip config list`): asked only
    # when a size must come from an index, not for wheels in a local directory.
    remote = any(urlparse(url).scheme != "file" for _, _, url in items)
    opener = size_opener(network_settings(python)) if remote else None
    with ThreadPoolExecutor(max_workers=8) as pool:
        sizes = list(pool.map(lambda url: file_size(url, opener), [url for _, _, url in items]))
    downloads = tuple(
        Download(name=name, version=version, url=url, size=size)
        for (name, version, url), size in zip(items, sizes, strict=True)
    )
    return downloads, _downloaded(done.stdout)


def install_command(python: str, arguments: Sequence[str]) -> tuple[str, ...]:
    """The argument vector of ``pip install ARGUMENTS`` in ``python``, wheels only."""
    return (python, "-m", "pip", "install", NO_BUILD, *arguments)


def uninstall_command(python: str, names: Sequence[str]) -> tuple[str, ...]:
    """The argument vector of ``pip uninstall -y NAMES`` in ``python``."""
    return (python, "-m", "pip", "uninstall", "-y", *names)


def _downloaded(output: str) -> int:
    """The bytes of pip's ``Downloading NAME (N MB)`` lines (cached files print none)."""
    return sum(int(float(m.group(1)) * _UNITS[m.group(2)]) for m in _DOWNLOADING.finditer(output))


@dataclass(frozen=True)
class NetworkSettings:
    """What of pip's configuration decides how its index is reached: the proxy and the CA
    bundle (``None`` where pip uses its defaults)."""

    proxy: str | None = None
    cert: str | None = None


_CONFIG_LINE = re.compile(r"^(?P<section>[^.\s]+|:env:)\.(?P<key>proxy|cert)='(?P<value>.*)'$")
# NOTE: pip's own order: a PIP_* variable wins over the [install] section, which wins over
# [global]; `pip config list` prints the merged value of each key once.
_SECTION_ORDER = (":env:", "install", "global")


@functools.lru_cache(maxsize=8)
def network_settings(python: str) -> NetworkSettings:
    """The proxy and CA bundle ``python``'s pip would use, from ``pip config list`` (its
    files and ``PIP_*`` variables): the size requests go the way pip's downloads go, so a
    proxy or a company CA named only in pip.conf does not leave every size unknown. Empty
    settings when pip cannot say (an old pip, no pip)."""
    try:
        done = subprocess.run(
            pip_argv(python, "config", "list"), capture_output=True, text=True,
            env=_pip_environ(), stdin=subprocess.DEVNULL, timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return NetworkSettings()
    found: dict[tuple[str, str], str] = {}
    for line in done.stdout.splitlines():
        if (match := _CONFIG_LINE.match(line.strip())) is not None:
            found[(match["section"], match["key"])] = match["value"]

    def first(key: str) -> str | None:
        return next((found[s, key] for s in _SECTION_ORDER if found.get((s, key))), None)

    return NetworkSettings(proxy=first("proxy"), cert=first("cert"))


def size_opener(settings: NetworkSettings) -> urllib.request.OpenerDirector:
    """A URL opener that asks through pip's proxy and trusts pip's CA bundle; without them,
    the standard library's defaults (the ``*_proxy`` variables, the system CAs)."""
    handlers: list[urllib.request.BaseHandler] = []
    if settings.proxy:
        # NOTE: pip takes a proxy without a scheme ("proxy.corp:3128") as http://.
        proxy = settings.proxy if "://" in settings.proxy else f"http://{settings.proxy}"
        handlers.append(urllib.request.ProxyHandler({"http": proxy, "https": proxy}))
    if settings.cert:
        try:
            context = ssl.create_default_context(cafile=settings.cert)
        except (OSError, ssl.SSLError):
            context = None  # NOTE: pip would fail on it too; the sizes then come out unknown
        if context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=context))
    return urllib.request.build_opener(*handlers)


def file_size(url: str, opener: urllib.request.OpenerDirector | None = None) -> int | None:
    """The size of the file at ``url``: a local file's, else the index's ``Content-Length``
    asked through ``opener`` (``None`` when the index does not say or cannot be asked)."""
    parsed = urlparse(url)
    if parsed.scheme == "file":
        try:
            return Path(unquote(parsed.path)).stat().st_size
        except OSError:
            return None
    if parsed.scheme not in ("http", "https"):
        return None
    request = urllib.request.Request(url, method="HEAD")
    try:
        opened = (opener or urllib.request.build_opener()).open(request, timeout=_HEAD_TIMEOUT_S)
        with opened as response:
            length = response.headers.get("Content-Length")
    except (OSError, ValueError):
        return None
    return int(length) if length and length.isdigit() else None


@dataclass
class PipRun:
    """One pip command as it ran."""

    returncode: int | None = None
    downloaded_bytes: int = 0
    output: list[str] = field(default_factory=list)
    seconds: float = 0.0
    stop_requested: bool = False
    """A first Ctrl-C came while it ran: it was let finish, and nothing after it may run."""

    @property
    def last_error(self) -> str:
        """pip's last error line (or its last line)."""
        return _last_error("\n".join(self.output))


def _read(stream: object, run: PipRun) -> None:
    for line in stream:  # type: ignore[attr-defined]
        run.output.append(line.rstrip("\n"))
        run.downloaded_bytes += _downloaded(line)


def _stop(process: subprocess.Popen[str]) -> None:
    """End pip and everything it started (its own session): SIGTERM, then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, _STOP_GRACE_S), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run_pip(python: str, arguments: Sequence[str], *, notify: Notify) -> PipRun:
    """Run ``python -m pip ARGUMENTS`` to its end and return what happened.

    A first ``KeyboardInterrupt`` is absorbed: pip finishes this command and the result says
    ``stop_requested``. A second one, or ``Terminated``, ends pip's session and propagates."""
    run = PipRun()
    started = time.monotonic()
    process = subprocess.Popen(
        pip_argv(python, *arguments), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, text=True, env=_pip_environ(), start_new_session=True,
    )  # fmt: skip
    reader = threading.Thread(target=_read, args=(process.stdout, run), daemon=True)
    reader.start()
    try:
        while True:
            try:
                run.returncode = process.wait()
                break
            except KeyboardInterrupt:
                if run.stop_requested:
                    raise
                run.stop_requested = True
                notify("interrupt: letting this pip step finish, then stopping (Ctrl-C again "
                       "stops pip now, leaving this step half-done)")  # fmt: skip
    except BaseException:
        _stop(process)
        raise
    finally:
        reader.join(timeout=5)
        run.seconds = time.monotonic() - started
    return run


_INSTALLED = """
import json
from importlib import metadata
seen = {}
for dist in metadata.distributions():
    name = dist.metadata["Name"]
    if not name:
        continue
    key = name.lower().replace("_", "-").replace(".", "-")
    if key in seen:
        continue  # NOTE: the first on sys.path is the one Python imports
    source = None
    text = dist.read_text("direct_url.json")
    if text:
        try:
            source = json.loads(text).get("url")
        except ValueError:
            source = None
    seen[key] = {"name": name, "version": dist.version, "source": source}
print(json.dumps(sorted(seen.values(), key=lambda d: d["name"].lower())))
"""


def installed(python: str) -> tuple[Distribution, ...]:
    """Every distribution ``python`` sees (the first of each name on ``sys.path``), with the
    URL or file it came from where pip recorded one. Read by the standard library in the
    examined interpreter; nothing is imported from the packages themselves."""
    try:
        done = subprocess.run(
            [python, "-c", _WITHOUT_CURRENT_DIRECTORY + _INSTALLED], capture_output=True,
            text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PipError(f"{python}: cannot list its distributions ({exc})") from None
    if done.returncode != 0:
        raise PipError(f"{python}: cannot list its distributions: {_last_error(done.stderr)}")
    try:
        return tuple(Distribution(**item) for item in json.loads(done.stdout))
    except (ValueError, TypeError, RecursionError) as exc:
        raise PipError(f"{python}: its list of distributions is not readable ({exc})") from None
