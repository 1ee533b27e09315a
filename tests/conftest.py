"""Shared helpers: run the doctor as a real process, and build real (small) environments.

Two kinds of environments are examined through ``--python``:
- the real ones of ``tests/testenvs.py`` (torch 2.8 + IPEX 2.8, torch 2.13 + IPEX 2.8, ...),
  built by ``make test`` before pytest runs (marker ``envs``);
- tiny fake ones made here: a venv without pip whose site-packages hold a stand-in ``torch``
  (with real dist-info metadata) that misbehaves on import, e.g. segfaults or hangs. They let
  the failure paths run for real in a second.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import tempfile
import textwrap
import venv
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
sys.path.insert(0, str(TESTS))

import testenvs  # noqa: E402
from hypothesis import settings  # noqa: E402

if TYPE_CHECKING:
    from unprivileged import Someone

# NOTE: the property tests run the same examples on every run of the suite (derandomize: a
# seed from each test's own code): a CI run must not pass or fail by the luck of its draw.
# Looking for new counterexamples is a job of its own, `make fuzz`: fresh random draws and
# IPEX_DOCTOR_FUZZ times the examples of each test; what it finds becomes an explicit case.
# The profile is loaded here, before any test module builds its @settings on top of it.
FUZZ = int(os.environ.get("IPEX_DOCTOR_FUZZ", "0") or 0)
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("fuzz", derandomize=False)
settings.load_profile("fuzz" if FUZZ else "repeatable")


def examples(count: int) -> int:
    """The number of examples a property test draws: ``count``, times IPEX_DOCTOR_FUZZ under
    ``make fuzz``."""
    return count * max(FUZZ, 1)


# NOTE: a test run leaves the user's home alone. The doctor keeps its caches under
# $XDG_CACHE_HOME/ipex-doctor (default ~/.cache): the knowledge-base cache, the crash log; and
# the programs the tests start (pip, git, Chromium, torch) write under $HOME. So every test,
# in-process or in a child (which inherits os.environ), gets a temporary HOME with its cache
# directory ($XDG_CACHE_HOME) inside. This happens at import, before any test module loads the
# knowledge base at import. What lives in the real home and must still be found is resolved
# first, from the real HOME: the test environments (reused, never rebuilt: IPEX_DOCTOR_TEST_ENVS
# is set for the children that build or list them too), pip's download cache and its user
# configuration (a mirror or wheel directory named there), git's global configuration
# (safe.directory for a checkout another user owns) and Python's user site-packages (a
# reference interpreter may keep torch there).
REAL_HOME = Path.home()
"""The home directory of the user running the tests, which no test may write to."""
REAL_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or REAL_HOME / ".cache")
"""The cache directory of the user running the tests, which no doctor run may touch."""


def _first_file(*candidates: Path) -> str | None:
    return next((str(path) for path in candidates if path.is_file()), None)


def _keep_from_the_real_home() -> dict[str, str]:
    """The variables that point the tests' children at what they need from the real home."""
    config = Path(os.environ.get("XDG_CONFIG_HOME") or REAL_HOME / ".config")
    kept = {
        "IPEX_DOCTOR_TEST_ENVS": str(testenvs.root()),
        "PIP_CACHE_DIR": str(REAL_CACHE / "pip"),
        "PYTHONUSERBASE": site.getuserbase(),
    }
    # NOTE: pip reads ~/.config/pip/pip.conf, else the older ~/.pip/pip.conf; git reads
    # ~/.gitconfig, else ~/.config/git/config. Each variable names one file, so the one each
    # program would read first.
    pip_config = _first_file(config / "pip" / "pip.conf", REAL_HOME / ".pip" / "pip.conf")
    git_config = _first_file(REAL_HOME / ".gitconfig", config / "git" / "config")
    if pip_config:
        kept["PIP_CONFIG_FILE"] = pip_config
    if git_config:
        kept["GIT_CONFIG_GLOBAL"] = git_config
    # NOTE: the user's own settings win (IPEX_DOCTOR_TEST_ENVS is read by testenvs.root()).
    return {name: os.environ.get(name) or value for name, value in kept.items()}


os.environ.update(_keep_from_the_real_home())
TEST_HOME = Path(tempfile.mkdtemp(prefix="ipex-doctor-test-home-"))
"""The home directory ($HOME) of every test and every process the tests start, removed at
the end."""
TEST_CACHE = TEST_HOME / ".cache"
"""The cache directory of every doctor the tests run ($XDG_CACHE_HOME)."""
TEST_CACHE.mkdir()
os.environ["HOME"] = str(TEST_HOME)
os.environ["XDG_CACHE_HOME"] = str(TEST_CACHE)
# NOTE: the other per-user directories default to the temporary home too, even where the user
# moved them (Chromium keeps its profile under XDG_CONFIG_HOME).
for _name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ.pop(_name, None)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the tests' home directory (and the cache directory in it)."""
    shutil.rmtree(TEST_HOME, ignore_errors=True)


def doctor_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment the doctor runs with in tests: wide, colourless output."""
    env = dict(os.environ)
    env.update({"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"})
    env.pop("PYTHONPATH", None)
    if extra:
        env.update(extra)
    return env


def run_doctor(
    *args: str,
    extra_env: Mapping[str, str] | None = None,
    timeout: float = 600,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ipex_doctor ARGS`` as a real process and return its outcome."""
    return subprocess.run(
        [sys.executable, "-m", "ipex_doctor", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=doctor_env(extra_env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        check=False,
    )


# NOTE: a shell runs background jobs (`make test &`) with SIGINT ignored, and Python installs
# no KeyboardInterrupt handler for a signal it inherits as ignored. A doctor that a test means
# to interrupt is started through this exec, which gives it the default SIGINT a terminal does.
_WITH_DEFAULT_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, '-m', 'ipex_doctor', *sys.argv[1:]])"
)


def start_doctor(*args: str, extra_env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """Start ``python -m ipex_doctor ARGS`` (same pid) to be signalled; SIGINT as on a terminal."""
    return subprocess.Popen(
        [sys.executable, "-c", _WITH_DEFAULT_SIGINT, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=doctor_env(extra_env),
    )


@pytest.fixture
def doctor() -> Callable[..., subprocess.CompletedProcess[str]]:
    """The ``run_doctor`` helper as a fixture."""
    return run_doctor


def real_env(name: str) -> str:
    """The interpreter of real test environment ``name``; fails (never skips) if it is missing."""
    if not testenvs.is_built(name):
        pytest.fail(
            f"test environment '{name}' is not built: run 'python tests/testenvs.py {name}' "
            "(make test does this first)"
        )
    return str(testenvs.python_of(name))


def copy_env(python: str, into: Path) -> str:
    """A copy of the environment of ``python`` at ``into``, its interpreter returned: hard
    links, so it is quick and costs no disk, and pip replacing files in the copy (it unlinks,
    never rewrites) leaves the original as it was."""
    subprocess.run(["cp", "-al", str(Path(python).parent.parent), str(into)], check=True)
    return str(into / "bin" / "python")


def freeze(python: str) -> list[str]:
    """``pip freeze --all`` of ``python``: the exact set of distributions and versions."""
    done = subprocess.run(
        [python, "-m", "pip", "freeze", "--all"], capture_output=True, text=True, check=True
    )
    return sorted(done.stdout.splitlines())


def _site_packages(root: Path) -> Path:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return root / "lib" / version / "site-packages"


def make_fake_env(root: Path, packages: Mapping[str, tuple[str, str]]) -> str:
    """A venv (no pip) with fake packages: ``{import_name: (version, __init__ source)}``.

    Each package gets real dist-info metadata so the static probe sees it as installed.
    Returns the venv's interpreter.
    """
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root)
    site = _site_packages(root)
    for module, (version, source) in packages.items():
        dist = "intel_extension_for_pytorch" if module == "intel_extension_for_pytorch" else module
        pkg = site / module
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / "__init__.py").write_text(textwrap.dedent(source))
        info = site / f"{dist}-{version}.dist-info"
        info.mkdir(exist_ok=True)
        name = "intel-extension-for-pytorch" if module == "intel_extension_for_pytorch" else module
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        (info / "RECORD").write_text("")
    return str(root / "bin" / "python")


def venv_with_a_site_hook(root: Path) -> tuple[str, Path]:
    """A real venv whose ``.pth`` hook adds a line to a file at every start with ``site`` (as
    real environments' hooks import coverage or a CUDA redirector); its python and that file
    (absent until a start runs the hook; one start may run it twice, through ``lib64``)."""
    python = make_fake_env(root / "venv", {})
    starts = root / "starts"
    (_site_packages(root / "venv") / "hook.pth").write_text(
        f"import pathlib; open({str(starts)!r}, 'a').write('start\\n')\n", encoding="utf-8"
    )
    return python, starts


FAKE_TORCH_OK = """
__version__ = "2.8.0+cpu"
class version:
    cuda = None
    hip = None
    xpu = None
    git_version = "fake"
    debug = False
def get_num_threads():
    return 1
"""

FAKE_TORCH_WORKER = (
    FAKE_TORCH_OK
    + """
# Enough of torch's API for the worker to serve checks (state reset and the device health
# computation), so the runner's own behaviour can be tested in a second without a real torch.
float32 = "float32"
_state = {"grad": True, "dtype": float32, "threads": 1, "deterministic": False}
def set_grad_enabled(on):
    _state["grad"] = on
def get_default_dtype():
    return _state["dtype"]
def set_default_dtype(dtype):
    _state["dtype"] = dtype
def set_num_threads(n):
    _state["threads"] = n
def are_deterministic_algorithms_enabled():
    return _state["deterministic"]
def use_deterministic_algorithms(on):
    _state["deterministic"] = on
def manual_seed(seed):
    return None
class _Tensor:
    def __init__(self, values):
        self.values = list(values)
    def __mul__(self, k):
        return _Tensor(v * k for v in self.values)
    def sum(self):
        return _Tensor([sum(self.values)])
    def item(self):
        return float(self.values[0])
def arange(n, device=None, dtype=None):
    return _Tensor(range(n))
"""
)
"""A stand-in torch that imports instantly and lets the worker run checks on ``cpu``."""


def fresh_interpreter_prints(source: str) -> list[str]:
    """The lines ``source`` prints run in a fresh interpreter of the doctor (what a module
    imports is seen there from nothing imported before)."""
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.splitlines()


@pytest.fixture(scope="session")
def other() -> Iterator[Someone]:
    """An unprivileged user to run the doctor as (``unprivileged``); skipped only where none
    can be had (not root, and no such user)."""
    from unprivileged import someone, world_readable_dir

    base = world_readable_dir("ipex-doctor-unprivileged-")
    found = someone(base)
    if isinstance(found, str):
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(found)
    yield found
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temporary directory the unprivileged user can reach."""
    from unprivileged import world_readable_dir

    path = world_readable_dir("ipex-doctor-hostile-")
    yield path
    shutil.rmtree(path, ignore_errors=True)
