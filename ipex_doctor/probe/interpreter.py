"""Identify the interpreter to examine (``--python``) and read its installed packages.

The doctor never imports torch. It asks the target interpreter only for ``sys`` facts (a tiny
handshake script that also runs on Python 2, so an old interpreter gets a clear message), then
reads package metadata from the target's ``sys.path`` in its own process with
``importlib.metadata``: this works even when torch in the target is broken beyond importing.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ipex_doctor.errors import InterpreterError
from ipex_doctor.model.environment import Interpreter, Package
from ipex_doctor.model.versions import build_variant
from ipex_doctor.probe import spawn

if TYPE_CHECKING:
    from importlib import metadata
    from importlib.metadata._meta import SimplePath

HANDSHAKE_TIMEOUT_S = 30.0
MIN_TARGET_PYTHON = (3, 8)

# NOTE: written for Python 2.7 and 3.x alike: an old interpreter must still be able to say
# what it is, so the doctor can refuse it by name instead of failing on a syntax error.
# Its JSON is written by hand and its implementation read from ``sys.implementation``, not
# with ``json`` and ``platform``: their imports (``re``, ``enum`` and the like) were half of
# the handshake's CPU in a torch environment (25 ms against 13 ms on the 2-core EPYC), and the
# probes start only at its answer. ``text`` escapes as ``json.dumps`` does by default (ASCII
# out, astral characters as surrogate pairs, the lone surrogate of a byte that is not UTF-8
# escaped alone), so ``json.loads`` reads back the very strings; ``platform`` still names an
# implementation ``sys.implementation`` does not (or a Python 2 without it).
_HANDSHAKE = r"""
import sys
sys.path[:] = [p for p in sys.path if p != ""]  # -c: nothing imported from the current directory
def text(value):
    if value is None:
        return "null"
    out = []
    for char in value:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 | (code >> 10), 0xDC00 | (code & 0x3FF)))
        elif char == '"' or char == "\\":
            out.append("\\" + char)
        elif code < 0x20 or code > 0x7E:
            out.append("\\u%04x" % code)
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
try:
    implementation = {"cpython": "CPython", "pypy": "PyPy", "ironpython": "IronPython",
                      "jython": "Jython"}[sys.implementation.name]
except (AttributeError, KeyError):
    import platform
    implementation = platform.python_implementation()
out = [
  ("nonce", text(sys.argv[1])),
  ("executable", text(sys.executable)),
  ("version", "[%d, %d, %d]" % tuple(sys.version_info[:3])),
  ("version_text", text(sys.version.split()[0])),
  ("implementation", text(implementation)),
  ("prefix", text(sys.prefix)),
  ("base_prefix", text(getattr(sys, "base_prefix", getattr(sys, "real_prefix", sys.prefix)))),
  ("path", "[" + ", ".join([text(p) for p in sys.path if p]) + "]"),
]
sys.stdout.write("IPEX-DOCTOR-HANDSHAKE {" + ", ".join(['"%s": %s' % pair for pair in out]) + "}\n")
"""

PACKAGES_OF_INTEREST = frozenset(
    {
        "torch",
        "torchvision",
        "torchaudio",
        "intel-extension-for-pytorch",
        "oneccl-bind-pt",
        "triton",
        "pytorch-triton-xpu",
        "intel-sycl-rt",
        "intel-cmplr-lib-rt",
        "intel-cmplr-lib-ur",
        "intel-cmplr-lic-rt",
        "intel-opencl-rt",
        "intel-openmp",
        "intel-pti",
        "dpcpp-cpp-rt",
        "mkl",
        "mkl-dpcpp",
        "tbb",
        "tcmlib",
        "umf",
        "impi-rt",
        "oneccl",
        "oneccl-devel",
        "numpy",
    }
)
_PREFIXES_OF_INTEREST = ("onemkl-", "intel-", "oneccl", "mkl-")


@dataclass(frozen=True)
class Target:
    """An interpreter that answered the handshake, and where it looks for packages."""

    interpreter: Interpreter
    sys_path: tuple[str, ...]
    version_info: tuple[int, int, int]


def normalize_name(name: str) -> str:
    """PEP 503 normalised distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _describe(python: str) -> str:
    return f"--python {python}"


def inspect(python: str, *, env: dict[str, str] | None = None) -> Target:
    """Run the handshake in ``python``; raise ``InterpreterError`` when it is not usable."""
    handshake = Handshake(python, env=env)
    try:
        return handshake.target()
    finally:
        handshake.end()


class Handshake:
    """The handshake of ``python``, started now and answered later (``target``), so the doctor
    works while the interpreter starts: ``inspect`` is ``Handshake(...).target()``.

    What refuses ``python`` before anything is run (not found, a directory, not executable,
    cannot be started) is raised by ``target`` as well, as every other refusal, so a caller
    that checks its own inputs between the start and the answer still says its own errors
    first. ``end`` kills and reaps a handshake not answered yet (an interrupt, an error)."""

    def __init__(self, python: str, *, env: dict[str, str] | None = None) -> None:
        self._label = _describe(python)
        self._nonce = os.urandom(8).hex()  # NOTE: what secrets.token_hex does (see reaper.tag)
        self._child: spawn.Running | None = None
        self._refusal: InterpreterError | None = None
        self._target: Target | None = None
        self._resolved = Path(python)
        try:
            self._resolved = _usable_path(python, self._label)
            self._child = spawn.Running(
                [str(self._resolved), "-c", _HANDSHAKE, self._nonce],
                timeout=HANDSHAKE_TIMEOUT_S,
                env=env,
            )
        except InterpreterError as refusal:
            self._refusal = refusal
        except OSError as exc:
            self._refusal = InterpreterError(f"{self._label}: could not be started: {exc.strerror}")

    def wait(self) -> None:
        """Wait until the handshake's interpreter has exited (or its time is up) without reading
        its answer; ``end``, from another thread, ends the wait."""
        if self._child is not None:
            self._child.wait_exit()

    def end(self) -> None:
        """Kill and reap the handshake's interpreter unless it was answered."""
        if self._child is not None:
            self._child.end()

    def target(self) -> Target:
        """The interpreter, once it answered (waited for); ``InterpreterError`` when it is not
        usable."""
        if self._target is None:
            if self._refusal is not None:
                raise self._refusal
            assert self._child is not None
            self._target = _answered(self._child.finish(), self._nonce, self._label, self._resolved)
        return self._target


def _usable_path(python: str, label: str) -> Path:
    """``python`` resolved on ``PATH`` when it names no directory, else made absolute;
    ``InterpreterError`` when nothing there can be run."""
    # NOTE: absolute, not Path(python): Path("./python3") is "python3", which the start of the
    # child would look up on PATH, running another interpreter than the one the user named.
    resolved = Path(os.path.abspath(python))
    if os.sep not in python:
        from shutil import which

        found = which(python)
        if found is None:
            raise InterpreterError(f"{label}: not found on PATH", tip="give the full path")
        resolved = Path(found)
    if not resolved.exists():
        raise InterpreterError(
            f"{label}: no such file", tip="point --python at an interpreter, e.g. .venv/bin/python"
        )
    if resolved.is_dir():
        raise InterpreterError(
            f"{label}: is a directory",
            tip=f"did you mean {resolved / 'bin' / 'python'}?",
        )
    if not os.access(resolved, os.X_OK):
        raise InterpreterError(f"{label}: is not executable")
    return resolved


def _answered(done: spawn.Completed, nonce: str, label: str, resolved: Path) -> Target:
    """The ``Target`` the handshake's output describes; ``InterpreterError`` when it timed out,
    did not answer or is too old."""
    if done.timed_out:
        raise InterpreterError(
            f"{label}: did not answer within {HANDSHAKE_TIMEOUT_S:.0f} s",
            tip="is it a Python interpreter? try running it by hand",
        )
    answer = None
    for line in done.stdout.splitlines():
        if line.startswith("IPEX-DOCTOR-HANDSHAKE "):
            try:
                answer = json.loads(line.split(" ", 1)[1])
            except ValueError:
                answer = None
    if not isinstance(answer, dict) or answer.get("nonce") != nonce:
        stderr = done.stderr.strip().splitlines()
        said = f" (it said: {stderr[-1][:200]})" if stderr else ""
        raise InterpreterError(
            f"{label}: is not a usable Python interpreter: it did not answer the handshake{said}",
            tip="point --python at the python of the environment to examine",
        )
    version = tuple(int(x) for x in answer["version"])
    if version < MIN_TARGET_PYTHON:
        wanted = ".".join(map(str, MIN_TARGET_PYTHON))
        raise InterpreterError(
            f"{label}: is Python {answer['version_text']}; ipex-doctor examines Python {wanted} "
            "or newer (no PyTorch release supports older ones)"
        )
    interpreter = Interpreter(
        executable=str(answer["executable"] or resolved),
        version=str(answer["version_text"]),
        implementation=str(answer["implementation"]),
        prefix=str(answer["prefix"]),
        virtualenv=answer["prefix"] != answer["base_prefix"],
    )
    return Target(
        interpreter=interpreter,
        sys_path=tuple(str(p) for p in answer["path"]),
        version_info=(version[0], version[1], version[2]),
    )


def _of_interest(name: str) -> bool:
    return name in PACKAGES_OF_INTEREST or name.startswith(_PREFIXES_OF_INTEREST)


class InstalledDistribution(Protocol):
    """What the examination reads of a distribution: ``importlib.metadata.Distribution``'s
    ``version``, ``requires``, ``files`` and ``locate_file``, as either reading gives them."""

    @property
    def version(self) -> str: ...

    @property
    def requires(self) -> list[str] | None: ...

    @property
    def files(self) -> list[metadata.PackagePath] | None: ...

    def locate_file(self, path: str | os.PathLike[str]) -> SimplePath: ...


def distributions(
    sys_path: Sequence[str], wanted: Callable[[str], bool]
) -> Iterator[tuple[str, InstalledDistribution]]:
    """The distributions on ``sys_path`` whose normalised name ``wanted`` accepts, in import
    order, each with that name (from its metadata, as before; a distribution whose metadata
    cannot be read is left out).

    NOTE: by hand around ``importlib.metadata`` because reading every distribution's METADATA
    (an e-mail parse each) cost as much as the rest of the examination in a scan: the name the
    metadata directory spells (``torch-2.8.0.dist-info``, ``foo.egg-info``) decides first, as
    ``importlib.metadata.distribution(name)`` itself looks a name up, and only those whose
    directory name is wanted are read. A directory of another form is read as before. Where
    no directory on ``sys_path`` can be wanted (``_may_hold``: a pre-commit hook's
    interpreter, without torch), ``importlib.metadata`` is not even imported, nor where every
    wanted directory is plain (``_plain``: a torch environment as pip writes it).
    """
    plain = _plain(sys_path, wanted)
    if plain is not None:
        yield from plain
        return
    if not _may_hold(sys_path, wanted):
        return
    from importlib import metadata

    for dist in metadata.distributions(path=list(sys_path)):
        spelled = _directory_name(dist)
        if spelled is not None and not wanted(spelled):
            continue
        try:
            name = normalize_name(dist.metadata["Name"] or "")
        except (KeyError, OSError, ValueError):
            continue  # NOTE: a half-removed package has a dist-info without METADATA
        if name and wanted(name):
            yield name, dist


def _plain(
    sys_path: Sequence[str], wanted: Callable[[str], bool]
) -> list[tuple[str, InstalledDistribution]] | None:
    """What ``distributions`` gives, read without ``importlib.metadata``; ``None`` where
    anything is not plain, and ``importlib.metadata`` must decide.

    NOTE: in a torch environment the import of ``importlib.metadata`` (the e-mail parser, zip
    and csv modules, their regular expressions) cost more of a small project's scan than
    reading the few METADATA files it finds (about 0.03 s of the doctor's CPU on a quiet
    Xeon). So the finder's walk is done here as it does it (each entry's children in listing
    order, grouped by the name their directory spells; ``_may_hold``'s cases aside), and the
    headers of a wanted directory's ``METADATA`` (else ``PKG-INFO``) are read as the e-mail
    parser reads them (``_headers``). A file of another form (a folded or odd header line, no
    file, no version, a file that is not UTF-8, requirements in ``requires.txt``) sends the
    whole reading back to ``importlib.metadata``. The files a wheel installed (its RECORD)
    are still read by ``importlib.metadata``, where they are asked for."""
    listings = _path_listings(sys_path)
    if listings is None:
        return None
    read: list[tuple[str, InstalledDistribution]] = []
    for entry, children in listings:
        groups: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                stem = low.rpartition(".")[0].partition("-")[0]
                groups.setdefault(normalize_name(stem), []).append(child)
        for child in (child for group in groups.values() for child in group):
            spelled = _spelled_name(child)
            if spelled is None:
                return None
            if not wanted(spelled):
                continue
            dist = _PlainDistribution.read(Path(entry, child))
            if dist is None:
                return None
            name = normalize_name(dist.name or "")
            if name and wanted(name):
                read.append((name, dist))
    return read


_HEADER_LINE = re.compile(r"[\x21-\x39\x3b-\x7e]+:")
"""A header's first line, as the e-mail parser knows one (its field name, then a colon)."""
_OTHER_LINE_BREAKS = frozenset("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
"""What ``str.splitlines`` breaks a line at besides a newline (some readers of e-mail too)."""
_READ_HEADERS = ("name", "version", "requires-dist")


class _PlainDistribution:
    """A distribution whose metadata was read by hand (``_plain``): its ``Name``, ``Version``
    and ``Requires-Dist`` headers as ``importlib.metadata`` gives them; its files through
    ``importlib.metadata``, imported only where they are asked for."""

    def __init__(
        self, path: Path, name: str | None, version: str, requires: list[str] | None
    ) -> None:
        self._path, self.name, self._version, self._requires = path, name, version, requires

    @classmethod
    def read(cls, directory: Path) -> _PlainDistribution | None:
        """The distribution in ``directory``; ``None`` where its metadata is not plain."""
        for filename in ("METADATA", "PKG-INFO"):
            try:
                text = (directory / filename).read_text(encoding="utf-8")
            except FileNotFoundError:
                continue
            except (OSError, ValueError):
                return None
            if text:
                break
        else:
            return None
        headers = _headers(text.partition("\n\n")[0])
        if headers is None or not headers.get("version"):
            return None
        requires = headers.get("requires-dist")
        if requires is None and (directory / "requires.txt").exists():
            return None
        name = headers.get("name")
        return cls(directory, name[0] if name else None, headers["version"][0], requires)

    @property
    def version(self) -> str:
        return self._version

    @property
    def requires(self) -> list[str] | None:
        return None if self._requires is None else list(self._requires)

    @property
    def files(self) -> list[metadata.PackagePath] | None:
        return self._read().files

    def locate_file(self, path: str | os.PathLike[str]) -> SimplePath:
        return self._read().locate_file(path)

    def _read(self) -> metadata.Distribution:
        from importlib import metadata

        return metadata.PathDistribution(self._path)


def _headers(head: str) -> dict[str, list[str]] | None:
    """The values of each of ``_READ_HEADERS`` in ``head`` (the lines before the first blank
    one), in order, as the e-mail parser gives them (the field's name in any case, the value
    after the colon less the spaces and tabs it begins with); ``None`` where a line is of
    another form than a plain header, or one of those is folded."""
    found: dict[str, list[str]] = {}
    last = ""
    for line in head.split("\n"):
        if not line:
            break  # NOTE: a head that began with the blank line
        if not _OTHER_LINE_BREAKS.isdisjoint(line) or line.startswith("From "):
            return None
        if line[0] in " \t":
            if last in _READ_HEADERS:
                return None  # NOTE: a folded value
            continue
        if not _HEADER_LINE.match(line):
            return None
        field, _, value = line.partition(":")
        last = field.lower()
        if last in _READ_HEADERS:
            found.setdefault(last, []).append(value.lstrip(" \t"))
    return found


def _path_listings(sys_path: Sequence[str]) -> list[tuple[str, list[str]]] | None:
    """Each entry of ``sys_path`` with its children, where the path's finder of distributions
    looks (the current directory for ``""``; an entry it cannot list lists nothing, as the
    finder's does); ``None`` where that walk cannot be done by hand: a finder of distributions
    besides the path's, or a zip file or ``.egg`` on the path."""
    import sys
    from importlib.machinery import PathFinder

    finders = [f for f in sys.meta_path if getattr(f, "find_distributions", None) is not None]
    if finders != [PathFinder]:
        return None
    listings: list[tuple[str, list[str]]] = []
    for entry in sys_path:
        root = entry or "."
        if root.lower().endswith(".egg"):
            return None
        try:
            listings.append((entry, os.listdir(root)))
        except NotADirectoryError:
            return None
        except OSError:
            continue  # NOTE: as the finder, which lists nothing where it cannot list
    return listings


def _may_hold(sys_path: Sequence[str], wanted: Callable[[str], bool]) -> bool:
    """Whether ``importlib.metadata.distributions(path=sys_path)`` may give a distribution
    that ``distributions`` reads: one whose directory name is wanted or of another form.

    NOTE: by hand, to spare the import of ``importlib.metadata`` (with the e-mail parser, zip
    and csv modules it loads: about 30 ms of a scan's CPU) where it would find nothing. It
    looks where that finder does, for what it takes: each entry's children (the current
    directory for ``""``) whose names end, in any case, with ``.dist-info`` or ``.egg-info``.
    What it does not look into (a zip file or ``.egg`` on the path, or a finder of
    distributions besides the path's) answers yes, and the finder decides."""
    listings = _path_listings(sys_path)
    if listings is None:
        return True
    for _entry, children in listings:
        for child in children:
            if child.lower().endswith((".dist-info", ".egg-info")):
                spelled = _spelled_name(child)
                if spelled is None or wanted(spelled):
                    return True
    return False


def _directory_name(dist: metadata.Distribution) -> str | None:
    """The normalised name the metadata directory of ``dist`` spells, ``None`` when it is not a
    ``NAME[-VERSION...].dist-info`` / ``.egg-info`` directory."""
    path = getattr(dist, "_path", None)
    return _spelled_name(Path(str(path)).name if path is not None else "")


def _spelled_name(stem: str) -> str | None:
    """The normalised name a metadata directory's name ``stem`` spells (``_directory_name``)."""
    for suffix in (".dist-info", ".egg-info"):
        if stem.endswith(suffix) and len(stem) > len(suffix):
            return normalize_name(stem.removesuffix(suffix).partition("-")[0])
    return None


def installed_packages(sys_path: tuple[str, ...]) -> tuple[Package, ...]:
    """The distributions of interest on ``sys_path``; the first of a name wins, as for imports."""
    found: dict[str, Package] = {}
    for name, dist in distributions(sys_path, _of_interest):
        try:
            version = dist.version
        except (KeyError, OSError, ValueError):
            continue
        if not version or name in found:
            continue
        location = str(getattr(dist, "_path", "")) or ""
        site = str(Path(location).parent) if location else ""
        labelled = version
        if name == "intel-extension-for-pytorch" and site:
            labelled = _ipex_labelled_version(Path(site)) or version
        found[name] = Package(
            name=name, version=version, variant=build_variant(labelled), location=site
        )
    return tuple(sorted(found.values(), key=lambda p: p.name))


_IPEX_VERSION_LINE = re.compile(r"^__version__\s*=\s*[\"']([^\"']+)[\"']", re.MULTILINE)


def _ipex_labelled_version(site: Path) -> str | None:
    """IPEX's own version with its build label (``2.8.0+cpu``), read from ``_version.py``.

    PyPI forbids local labels, so the metadata of a PyPI IPEX says ``2.8.0``; the generated
    ``_version.py`` says ``2.8.0+cpu``. Reading it as text avoids importing IPEX (and torch).
    """
    try:
        text = (site / "intel_extension_for_pytorch" / "_version.py").read_text(
            encoding="utf-8", errors="replace"
        )
    except OSError:
        return None
    match = _IPEX_VERSION_LINE.search(text)
    return match.group(1) if match else None
