"""Where an interpreter was when a fatal signal ended it: read from what it wrote as it died.

The worker enables ``faulthandler`` (standard library, made for this): on SIGSEGV, SIGFPE,
SIGABRT, SIGBUS and SIGILL it writes the Python stack of every thread to stderr before the
signal ends the process::

    Fatal Python error: Illegal instruction

    Current thread 0x00007f... (most recent call first):
      File ".../site-packages/numpy/__init__.py", line 822 in _sanity_check
      File "<frozen importlib._bootstrap>", line 241 in _call_with_frames_removed
      ...

and, during its imports, the worker reports each native library before it is loaded (an
``{"event": "loading", "library": PATH}`` record). ``read`` turns both into a ``FatalSignal``:
the module whose code ran, its frame, the library loaded last and whether the process died
loading it. The text is parsed by hand because nothing else writes this format; its lines
have kept this shape since Python 3.3.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ipex_doctor.model.environment import FatalSignal

_HEADER = "Fatal Python error: "
_THREAD = re.compile(r"^(Current thread|Thread) 0x[0-9a-fA-F]+")
_FRAME = re.compile(r'^\s+File "(?P<path>[^"]*)", line (?P<line>\d+) in (?P<name>.+?)\s*$')
_PACKAGE_DIRS = ("site-packages", "dist-packages")
_STACK_LIMIT = 30
# NOTE: the innermost frames when a native library is being loaded: importlib creating an
# extension module, or ctypes opening a library (CDLL.__init__ in ctypes/__init__.py).
_LOADING_FRAMES = {("<frozen importlib._bootstrap_external>", "create_module")}


def _is_import_machinery(path: str) -> bool:
    return path.startswith("<frozen importlib")


def _is_ctypes_load(path: str, name: str) -> bool:
    return path.replace("\\", "/").endswith("ctypes/__init__.py") and name == "__init__"


def _frames(stderr: str) -> list[tuple[str, int, str]]:
    """The frames of the thread that died (innermost first), from the last dump in ``stderr``.

    The current thread's frames when it has any; else the first thread's that has (a native
    thread with no Python frame died while the main thread was importing)."""
    start = stderr.rfind(_HEADER)
    if start < 0:
        return []
    threads: list[tuple[bool, list[tuple[str, int, str]]]] = []
    for line in stderr[start:].splitlines()[1:]:
        thread = _THREAD.match(line)
        if thread:
            threads.append((thread.group(1) == "Current thread", []))
            continue
        frame = _FRAME.match(line)
        if frame and threads:
            threads[-1][1].append((frame["path"], int(frame["line"]), frame["name"]))
    current = [frames for is_current, frames in threads if is_current and frames]
    others = [frames for _, frames in threads if frames]
    return (current or others or [[]])[0]


def _short(path: str, roots: Sequence[str]) -> str:
    """``path`` from its package's directory on (``numpy/__init__.py``): below the longest of
    ``roots`` (the interpreter's ``sys.path``) that holds it, else below a ``site-packages``
    directory, else as it is."""
    slashed = path.replace("\\", "/")
    holding = [r.rstrip("/") + "/" for r in roots if r and slashed.startswith(r.rstrip("/") + "/")]
    if holding:
        return slashed[len(max(holding, key=len)) :]
    parts = slashed.split("/")
    for index in range(len(parts) - 1, -1, -1):
        if parts[index] in _PACKAGE_DIRS and index + 1 < len(parts):
            return "/".join(parts[index + 1 :])
    return path


def _module_of(path: str, roots: Sequence[str]) -> str:
    """The dotted module a source or library file is (``numpy``, ``torch._C``): from the
    package directory on, else the file's own name (its directory's for an ``__init__``)."""
    short = _short(path, roots)
    if short == path:
        # NOTE: outside every root: the file's name, or its directory's for an __init__
        tail = path.replace("\\", "/").split("/")[-2:]
        short = "/".join(tail if tail[-1].startswith("__init__.") else tail[-1:])
    parts = short.split("/")
    parts[-1] = parts[-1].split(".", 1)[0]  # NOTE: "_C.cpython-311-x86_64-linux-gnu.so" is _C
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _package_of(path: str, roots: Sequence[str]) -> str | None:
    short = _short(path, roots)
    if short == path:
        return None
    top = short.split("/", 1)[0]
    return top.split(".", 1)[0] or None


def _under(path: str, directories: Sequence[str]) -> bool:
    slashed = path.replace("\\", "/")
    return any(
        d and slashed.startswith(d.replace("\\", "/").rstrip("/") + "/") for d in directories
    )


def read(
    signal: str,
    stderr: str,
    libraries: Sequence[str] = (),
    roots: Sequence[str] = (),
    carriers: Sequence[str] = (),
) -> FatalSignal:
    """The ``FatalSignal`` of a process that ``signal`` killed, from its ``stderr``, the
    native ``libraries`` it reported loading during the import (in order), its ``sys.path``
    (``roots``), which names modules and packages by their import names, and the directories
    whose code only carries out what a caller asked (``carriers``: the standard library, the
    worker). The frame that counts is the innermost outside the import machinery and the
    carriers (``ctypes.string_at`` only does what a package's code asked for), unless every
    frame is there; the library that counts is the one it died loading, else the last one
    loaded outside the carriers (the standard library's ``mmap`` says nothing)."""
    frames = _frames(stderr)
    outside = [(p, n, f) for p, n, f in frames if not _is_import_machinery(p)]
    outside = [frame for frame in outside if not _under(frame[0], carriers)] or outside
    innermost = []
    for path, _, name in frames:
        innermost.append((path, name))
        if not _is_import_machinery(path):
            break
    loading = bool(libraries) and any(
        place in _LOADING_FRAMES or _is_ctypes_load(*place) for place in innermost
    )
    own = [lib for lib in libraries if not _under(lib, carriers)]
    library = libraries[-1] if loading else (own[-1] if own else None)
    running = outside[0] if outside else None
    module = None if running is None else _module_of(running[0], roots)
    frame = None
    if running is not None:
        frame = f"{_short(running[0], roots)}:{running[1]} in {running[2]}"
    package = None
    if loading and library:
        package = _package_of(library, roots)
    elif running is not None and module is not None:
        package = _package_of(running[0], roots) or module.split(".", 1)[0]
    stack = tuple(f"{p}:{n} in {f}" for p, n, f in frames[:_STACK_LIMIT])
    return FatalSignal(
        signal=signal,
        module=module,
        frame=frame,
        library=None if library is None else _short(library, roots),
        loading_library=loading,
        package=package,
        stack=stack,
    )


def without_stack(stderr: str) -> str:
    """``stderr`` up to faulthandler's dump and its first line (``Fatal Python error: ...``):
    what the process printed before it died, which the stack's 30 and more lines would push
    out of a short tail (an abort's reason is printed just before it)."""
    start = stderr.rfind(_HEADER)
    if start < 0:
        return stderr
    return stderr[:start] + stderr[start:].split("\n", 1)[0]


def describe(fatal: FatalSignal) -> str:
    """Where it died, in words: ``in numpy (numpy/__init__.py:822 in _sanity_check; the
    native library loaded last: numpy/linalg/_umath_linalg...so)``; "" when nothing is known."""
    library = fatal.library
    if fatal.loading_library and library:
        where = f"while loading the native library {library}"
        if fatal.frame:
            where += f" (imported from {fatal.frame})"
        return where
    parts = []
    if fatal.frame:
        parts.append(fatal.frame)
    if library:
        parts.append(f"the native library loaded last: {library}")
    if fatal.package or fatal.module:
        return f"in {fatal.package or fatal.module}" + (f" ({'; '.join(parts)})" if parts else "")
    return f"({'; '.join(parts)})" if parts else ""
