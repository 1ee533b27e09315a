"""Build the real environments the tests examine through ``--python``.

    python tests/testenvs.py [NAME ...]      build (or reuse) and print NAME=PYTHON lines

Every recipe is reproducible from PyPI alone: by default each ``pip install`` runs with
``--isolated``, which ignores the user's pip configuration and ``PIP_*`` variables (a local
wheel directory or a mirror named there), so the environments are the ones any fresh machine
gets. ``IPEX_DOCTOR_TEST_PIP=config`` builds with the machine's own pip configuration instead;
the recipes pin only versions PyPI serves, so both resolve to the same files, and the tests
assert nothing that depends on which build of a package was served.

Each environment is a venv under ``$IPEX_DOCTOR_TEST_ENVS`` (default
``~/.cache/ipex-doctor/test-envs``), named after its recipe's hash so a changed recipe builds a
new one. A ``.complete`` marker is written last: a build interrupted half-way is removed and
redone, never reused.

An existing reference environment is reused instead of building a second 6.8 GB copy:
``IPEX_DOCTOR_REFERENCE_PYTHON=PATH`` names its interpreter (its torch, torchvision and IPEX
versions must be the recipe's, or the build stops with a one-line error); unset, the README's
``.venv-ref`` at the top of this repository is reused when its versions match (an empty value
turns the reuse off).

Disk: the torch environments share one torch 2.8.0 (with its CUDA wheels): after a build,
files identical to one in another environment are replaced by hard links to it, so the second
and later copies cost about 0.3 GB each instead of 6.8 GB. pip's own cache keeps the downloaded
wheels (about 3.5 GB), which the README's first command fills anyway.

The recipes:
- ``bare``: a venv with no torch;
- ``reference``: torch 2.8.0, torchvision 0.23.0, IPEX 2.8.0 (about 95 s and 6.8 GB);
- ``ipex27-torch28``: the same torch with IPEX 2.7.0, which does not pin torch, so pip installs
  it silently and IPEX then refuses to load (a real major.minor mismatch);
- ``tv022-ipex28``: torch 2.8.0 and IPEX 2.8.0 with torchvision 0.22.0 (built for torch 2.7):
  a real broken torchvision (``operator torchvision::nms does not exist``), which IPEX's own
  import then trips over;
- ``torch28-only``: torch 2.8.0 and nothing else, the upstream-torch setup (no torchvision, no
  IPEX); its worker starts fastest, so the fault-injection tests run there;
- ``tv021-torch28``: torch 2.8.0 with torchvision 0.21.0 (built for torch 2.6) and no IPEX: a
  torchvision two lines behind, whose fix is one torchvision install;
- ``ipex28-torch29``: torch 2.9.0 with IPEX 2.8.0, the last IPEX, left beside a torch no IPEX
  supports: its fix is an uninstall (``fix`` exercises both kinds of step on these);
- ``ipex28-torch27``: IPEX 2.8.0 one line ahead of torch 2.7.0 (IPEX refuses to load); its
  torch 2.7.0 brings CUDA 12.6 wheels of its own, so it shares little with the others (about
  4 GB more);
- ``rt-matched``: the oneAPI runtime wheels of 2025.3.1 and no torch: libsycl, the Unified
  Runtime loader and its adapters, and Intel's OpenCL CPU runtime (a real OpenCL CPU device);
- ``rt-old-loader``: the same with intel-cmplr-lib-ur 2025.0.4 installed over it: libsycl.so.8
  needs ``LIBUR_LOADER_0.12``, the loader defines up to 0.10, loading fails for real.

The runtime wheels install into the environment's ``lib/`` (not site-packages) and ship each
library three times (``.so``, ``.so.N``, ``.so.N.M``): those files are hard-linked too, to each
other and across environments (measured: rt-matched 743 MB instead of 1.3 GB, rt-old-loader
78 MB beside it).
"""

from __future__ import annotations

import filecmp
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from collections.abc import Iterator
from pathlib import Path

RUNTIME_SET = ("intel-sycl-rt==2025.3.1", "intel-opencl-rt==2025.3.1")
"""One matching set of the oneAPI runtime wheels (pulls intel-cmplr-lib-ur, -lib-rt, umf, tbb)."""

# Each step is one `pip install` argument list, run in order.
RECIPES: dict[str, list[list[str]]] = {
    "bare": [],
    "reference": [["torch==2.8.0", "torchvision==0.23.0", "intel-extension-for-pytorch==2.8.0"]],
    "ipex27-torch28": [
        ["torch==2.8.0", "torchvision==0.23.0", "intel-extension-for-pytorch==2.7.0"],
    ],
    # NOTE: --no-deps keeps pip from "fixing" the pair by installing torch 2.7.
    "tv022-ipex28": [
        ["torch==2.8.0", "intel-extension-for-pytorch==2.8.0"],
        ["--no-deps", "torchvision==0.22.0"],
        ["numpy", "pillow"],
    ],
    "torch28-only": [["torch==2.8.0"]],
    # NOTE: --no-deps again: torchvision 0.21.0 pins torch 2.6.0.
    "tv021-torch28": [["torch==2.8.0"], ["--no-deps", "torchvision==0.21.0"], ["numpy", "pillow"]],
    # NOTE: IPEX 2.8.0 does not pin torch either; --no-deps keeps the choice explicit.
    "ipex28-torch29": [
        ["torch==2.9.0"],
        ["--no-deps", "intel-extension-for-pytorch==2.8.0"],
        ["numpy", "packaging", "psutil"],
    ],
    # NOTE: IPEX one line ahead: 2.8.0 beside torch 2.7.0 (--no-deps, as above).
    "ipex28-torch27": [
        ["torch==2.7.0"],
        ["--no-deps", "intel-extension-for-pytorch==2.8.0"],
        ["numpy", "packaging", "psutil"],
    ],
    # The oneAPI runtime wheels alone (no torch): the runtime rungs on real libraries.
    "rt-matched": [[*RUNTIME_SET]],
    # NOTE: pip warns that intel-sycl-rt 2025.3.1 requires intel-cmplr-lib-ur==2025.3.1: that
    # disagreement is the point (its libsycl.so.8 needs LIBUR_LOADER_0.12; 2025.0.4 gives 0.10).
    "rt-old-loader": [[*RUNTIME_SET], ["intel-cmplr-lib-ur==2025.0.4"]],
}
NOTES = {
    "tv022-ipex28": "torchvision 0.22.0 goes next to torch 2.8.0 on purpose: pip's resolver "
    "complains about the pair, as it should",
    "tv021-torch28": "torchvision 0.21.0 goes next to torch 2.8.0 on purpose: pip's resolver "
    "complains about the pair, as it should",
    "rt-old-loader": "intel-cmplr-lib-ur 2025.0.4 goes under intel-sycl-rt 2025.3.1 on purpose "
    "(a loader too old for its libsycl): pip's resolver complains, as it should",
}
"""Why a recipe breaks a pin on purpose: said before it builds, and on each line of pip's
resolver complaint about it, so a reader of `make test` knows which ERROR lines are expected.
Every recipe whose environment fails `pip check` has one (a test holds the list to that)."""

RESOLVER_COMPLAINT = re.compile(
    r"^ERROR: pip's dependency resolver does not currently take into account"
    r"|^\S+ \S+ requires \S.*, but you have \S.* which is incompatible\.$"
)
"""The lines pip's resolver prints about an installed distribution whose requirement the
environment does not meet (its heading, then one line per conflict)."""

# The distributions (and versions) an existing environment must have to stand in for a recipe.
REFERENCE_PINS = {"torch": "2.8.0", "torchvision": "0.23.0", "intel-extension-for-pytorch": "2.8.0"}
REFERENCE_VARIABLE = "IPEX_DOCTOR_REFERENCE_PYTHON"
PIP_MODE_VARIABLE = "IPEX_DOCTOR_TEST_PIP"

# Files smaller than this are not worth a hard link (the CUDA libraries are hundreds of MB).
_LINK_MIN_BYTES = 256 * 1024


class EnvBuildError(Exception):
    """A test environment cannot be built or reused; the message says why and what to do."""


def pip_mode() -> str:
    """``isolated`` (PyPI alone, the default) or ``config`` (the machine's pip configuration)."""
    mode = os.environ.get(PIP_MODE_VARIABLE, "isolated")
    if mode not in ("isolated", "config"):
        raise EnvBuildError(f"{PIP_MODE_VARIABLE}={mode!r}: expected 'isolated' or 'config'")
    return mode


def root() -> Path:
    """Where the environments live: ``$IPEX_DOCTOR_TEST_ENVS``, else under ``~/.cache``.

    Read from ``HOME`` on every call: a test run replaces ``HOME`` with a temporary one, so
    conftest resolves this first, from the real home, and exports it as the variable."""
    default = Path.home() / ".cache" / "ipex-doctor" / "test-envs"
    return Path(os.environ.get("IPEX_DOCTOR_TEST_ENVS", default))


def env_dir(name: str) -> Path:
    """The directory of environment ``name`` for its current recipe and pip mode."""
    recipe = json.dumps([sys.version_info[:2], pip_mode(), RECIPES[name]])
    digest = hashlib.sha256(recipe.encode()).hexdigest()[:10]
    return root() / f"{name}-{digest}"


_REPO_REFERENCE = Path(__file__).resolve().parent.parent / ".venv-ref" / "bin" / "python"


@functools.cache
def _reused_reference() -> Path | None:
    """The reference interpreter to reuse: the variable's, else a matching ``.venv-ref``."""
    value = os.environ.get(REFERENCE_VARIABLE)
    if value is not None:
        return Path(value).absolute() if value else None
    if _REPO_REFERENCE.exists():
        try:
            check_reused_reference(_REPO_REFERENCE)
        except EnvBuildError as why:
            print(f"[testenvs] not reusing {_REPO_REFERENCE}: {why}", file=sys.stderr)
            return None
        return _REPO_REFERENCE
    return None


def python_of(name: str) -> Path:
    """The interpreter of environment ``name`` (it may not be built yet)."""
    reused = _reused_reference()
    if name == "reference" and reused is not None:
        return reused
    return env_dir(name) / "bin" / "python"


def is_built(name: str) -> bool:
    """Whether environment ``name`` was built completely (or is a reused, checked reference)."""
    if name == "reference" and _reused_reference() is not None:
        return python_of(name).exists()
    return (env_dir(name) / ".complete").exists()


def installed_versions(python: Path, names: list[str]) -> dict[str, str | None]:
    """The installed version of each distribution in ``python``'s environment (None: absent)."""
    code = (
        "import json, sys\nfrom importlib import metadata\nout = {}\n"
        "for n in sys.argv[1:]:\n"
        "    try: out[n] = metadata.version(n)\n"
        "    except metadata.PackageNotFoundError: out[n] = None\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [str(python), "-c", code, *names], capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise EnvBuildError(f"{python} does not run: {done.stderr.strip()[-300:]}")
    versions: dict[str, str | None] = json.loads(done.stdout)
    return versions


def check_reused_reference(python: Path) -> None:
    """Refuse a reused reference environment whose versions are not the recipe's."""
    if not python.exists():
        raise EnvBuildError(f"{python}: no such interpreter")
    found = installed_versions(python, list(REFERENCE_PINS))
    wrong = [
        f"{name} {found[name] or 'missing'} (want {want})"
        for name, want in REFERENCE_PINS.items()
        if (found[name] or "").split("+")[0] != want
    ]
    if wrong:
        raise EnvBuildError(f"{python} is not the reference stack: {'; '.join(wrong)}")


def _site_packages(prefix: Path) -> Iterator[Path]:
    yield from prefix.glob("lib/python*/site-packages")


def _peer_prefixes(exclude: Path) -> list[Path]:
    peers = [p for p in root().glob("*") if (p / ".complete").exists() and p != exclude]
    reused = _reused_reference()
    if reused is not None:
        peers.append(reused.parent.parent)
    return peers


def link_identical_files(target: Path) -> int:
    """Replace large files of ``target`` by hard links to identical ones in the other environments.

    Only files at the same path inside site-packages (or directly in ``lib/``, where the oneAPI
    runtime wheels go), of the same size and the same bytes are linked, so every environment
    still sees exactly what pip installed; then identical copies within ``lib/`` are linked to
    each other. Returns the bytes saved.
    """
    saved = 0
    for peer in _peer_prefixes(target):
        for peer_site in _site_packages(peer):
            for site in _site_packages(target):
                saved += _link_tree(site, peer_site)
        saved += _link_tree(target / "lib", peer / "lib", recursive=False)
    return saved + _link_duplicates(target / "lib")


def _link_duplicates(directory: Path) -> int:
    """Hard-link identical large files directly in ``directory`` to one another."""
    by_size: dict[int, list[Path]] = {}
    for path in sorted(directory.glob("*")):
        if path.is_file() and not path.is_symlink() and path.stat().st_size >= _LINK_MIN_BYTES:
            by_size.setdefault(path.stat().st_size, []).append(path)
    saved = 0
    for paths in by_size.values():
        kept: list[Path] = []
        for path in paths:
            twin = next((k for k in kept if filecmp.cmp(path, k, shallow=False)), None)
            if twin is None:
                kept.append(path)
                continue
            if twin.stat().st_ino == path.stat().st_ino:
                continue
            temporary = path.with_name(path.name + ".link-tmp")
            try:
                os.link(twin, temporary)
            except OSError:
                return saved
            os.replace(temporary, path)
            saved += path.stat().st_size
    return saved


def _link_tree(site: Path, peer_site: Path, *, recursive: bool = True) -> int:
    saved = 0
    for path in site.rglob("*") if recursive else site.glob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        stat = path.stat()
        if stat.st_size < _LINK_MIN_BYTES:
            continue
        twin = peer_site / path.relative_to(site)
        try:
            twin_stat = twin.stat()
        except OSError:
            continue
        if (twin_stat.st_ino, twin_stat.st_dev) == (stat.st_ino, stat.st_dev):
            continue
        if twin_stat.st_size != stat.st_size or not filecmp.cmp(path, twin, shallow=False):
            continue
        temporary = path.with_name(path.name + ".link-tmp")
        try:
            os.link(twin, temporary)
        except OSError:  # another file system, or links not allowed: keep the copy
            return saved
        os.replace(temporary, path)
        saved += stat.st_size
    return saved


def install_step(python: Path, arguments: list[str], *, deliberate: str | None, label: str) -> None:
    """``python -m pip install -qq ARGUMENTS``; raises ``CalledProcessError`` when pip fails.

    pip's resolver complaint (``RESOLVER_COMPLAINT``) about a pin the recipe breaks on purpose
    is printed with the reason (``deliberate``) in front of each of its lines; anything else
    pip says passes through as it is. (pip at -qq prints only warnings and errors, so reading
    its stderr whole before printing it hides no progress.)"""
    command = [str(python), "-m", "pip", "install", "-qq", "--disable-pip-version-check",
               *arguments]  # fmt: skip
    done = subprocess.run(command, stderr=subprocess.PIPE, text=True, check=False)
    for line in done.stderr.splitlines():
        if deliberate and RESOLVER_COMPLAINT.search(line):
            line = f"[testenvs] {label}, expected ({deliberate}): {line}"
        print(line, file=sys.stderr, flush=True)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, command)


def build(name: str) -> Path:
    """Build environment ``name`` unless it is complete already; return its interpreter."""
    if name == "reference" and (reused := _reused_reference()) is not None:
        try:
            check_reused_reference(reused)
        except EnvBuildError as why:
            raise EnvBuildError(
                f"{REFERENCE_VARIABLE}: {why}; set it to an empty value to build one under {root()}"
            ) from None
        return reused
    target = env_dir(name)
    if is_built(name):
        return python_of(name)
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = pip_mode()
    print(f"[testenvs] building {name} in {target} (pip: {mode})", file=sys.stderr, flush=True)
    if name in NOTES:
        print(f"[testenvs] {name}: {NOTES[name]}", file=sys.stderr, flush=True)
    venv.EnvBuilder(with_pip=True, symlinks=True).create(target)
    isolated = ["--isolated"] if mode == "isolated" else []
    for step in RECIPES[name]:
        install_step(python_of(name), [*isolated, *step], deliberate=NOTES.get(name), label=name)
    saved = link_identical_files(target)
    if saved > 100_000_000:
        print(f"[testenvs] {name}: {saved / 1e9:.1f} GB shared with the other environments",
              file=sys.stderr, flush=True)  # fmt: skip
    (target / ".complete").write_text(json.dumps(RECIPES[name]) + "\n")
    return python_of(name)


def main(argv: list[str]) -> int:
    """Build the named environments (all when none is named) and print where they are."""
    names = argv or list(RECIPES)
    unknown = [n for n in names if n not in RECIPES]
    if unknown:
        print(f"unknown environment(s): {', '.join(unknown)}; known: {', '.join(RECIPES)}")
        return 2
    try:
        pip_mode()  # NOTE: a bad value is refused even when nothing needs building
        for name in names:
            print(f"{name}={build(name)}", flush=True)
    except EnvBuildError as error:
        print(f"testenvs: {error}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as error:
        print(f"testenvs: pip failed (exit {error.returncode}): {' '.join(error.cmd)}",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
