"""Run the doctor as an unprivileged user, for the tests of what the kernel lets a user write.

CI runs as root, and root may write any file: a test of "a file you may not write is left
alone" must run the doctor as someone else. Here that is the system user ``USER``, made when it
is absent (``useradd --system``) and reused otherwise, and switched to with ``setpriv`` (real
and effective uid and gid, no supplementary groups, no capabilities left: a non-root uid drops
them), else ``runuser``.

That user must be able to read an interpreter and the doctor's code: the dev venv's own
interpreter and packages may sit below a directory only root may enter (``/root`` is 0700 on
the project's machines). So the doctor's package, its data files and the files of every
distribution it depends on (read from their ``RECORD``, the dependencies followed from the
doctor's own metadata) are linked (hard links where the file system allows, else copied) into
a world-readable directory, put on ``PYTHONPATH`` for an interpreter of the same Python version
the user may run: the dev interpreter itself if it can, else the system's
``/usr/bin/python3.X``.

Not root: the doctor already runs as an unprivileged user (itself); what needs another user's
file is skipped, with the reason.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

USER = "ipex-doctor-test"
REPO = Path(__file__).resolve().parent.parent
_DATA = ("known_issues.yaml", "code_rules.yaml", "checks", "docs/report.schema.json")
_CHECK = (
    "import os, sys, ipex_doctor.cli; "
    f"assert sys.version_info[:2] == {tuple(sys.version_info[:2])}; "
    "assert os.access(os.__file__, os.R_OK)"
)


@dataclass(frozen=True)
class Someone:
    """A user the doctor can be run as: its ids, and the command that starts the doctor."""

    uid: int
    gid: int
    prefix: tuple[str, ...]
    """The command that runs what follows as this user (empty: this process's user)."""
    python: str
    pythonpath: str

    @property
    def is_other(self) -> bool:
        """Whether this is another user than the one running the tests."""
        return bool(self.prefix)

    def command(self, *args: str) -> list[str]:
        """``python -m ipex_doctor ARGS`` as this user."""
        return [*self.prefix, self.python, "-m", "ipex_doctor", *args]

    def env(self, home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment of a doctor run as this user: a home of its own, the code on the
        path, wide colourless output."""
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("XDG_", "PYTHON", "VIRTUAL_ENV"))
        }
        env.update(
            HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), COLUMNS="200", NO_COLOR="1",
            TERM="dumb", PYTHONPATH=self.pythonpath, PYTHONNOUSERSITE="1",
        )  # fmt: skip
        env.update(extra or {})
        return env

    def home(self, base: Path) -> Path:
        """A home directory for this user under ``base`` (which the user can reach)."""
        home = base / "home"
        home.mkdir(mode=0o700)
        os.chown(home, self.uid, self.gid)
        return home


def someone(base: Path) -> Someone | str:
    """A user to run the doctor as, unprivileged (see the module docstring), with its code
    under ``base``; or why there is none (the reason to skip with)."""
    if os.geteuid() != 0:
        path = os.pathsep.join(p for p in sys.path if p)
        return Someone(os.getuid(), os.getgid(), (), sys.executable, path)
    try:
        user = pwd.getpwnam(USER)
    except KeyError:
        made = subprocess.run(
            ["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
             "--shell", "/usr/sbin/nologin", USER],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        try:
            user = pwd.getpwnam(USER)
        except KeyError:
            return f"no unprivileged user {USER} and useradd failed: {made.stderr.strip()}"
    prefix = _switcher(user.pw_uid, user.pw_gid)
    if prefix is None:
        return "neither setpriv nor runuser is installed to run the doctor as another user"
    base.chmod(0o755)
    pythonpath = os.pathsep.join(str(p) for p in _readable_code(base / "code"))
    for python in _interpreters():
        done = subprocess.run(
            [*prefix, python, "-c", _CHECK],
            capture_output=True, text=True, check=False, cwd="/",
            env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": pythonpath, "HOME": "/"},
        )  # fmt: skip
        if done.returncode == 0:
            return Someone(user.pw_uid, user.pw_gid, tuple(prefix), python, pythonpath)
    return f"no Python {sys.version_info.major}.{sys.version_info.minor} that {USER} may run"


def _switcher(uid: int, gid: int) -> list[str] | None:
    if shutil.which("setpriv"):
        return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
    if shutil.which("runuser"):
        return ["runuser", "-u", USER, "--"]
    return None


def _interpreters() -> list[str]:
    """Interpreters of this Python version, the system's first: one below a directory the
    user may not read may still start, but without its own standard library."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = [f"/usr/bin/{version}", shutil.which(version), os.path.realpath(sys.executable)]
    return list(dict.fromkeys(p for p in found if p and os.path.isfile(p)))


def _readable_code(into: Path) -> Sequence[Path]:
    """The doctor (package and data files) and its dependencies' files, world-readable under
    ``into``: the directories to put on ``PYTHONPATH``."""
    source, site = into / "src", into / "site"
    _link_tree(REPO / "ipex_doctor", source / "ipex_doctor")
    for name in _DATA:
        _link_tree(REPO / name, source / name)
    for dist in _dependencies("ipex-doctor"):
        base = Path(str(dist.locate_file("")))
        for file in dist.files or ():
            path = Path(str(dist.locate_file(file)))
            if path.is_file() and ".." not in file.parts:
                _link(path, site / path.relative_to(base))
    for directory in (into, *[d for d in into.rglob("*") if d.is_dir()]):
        directory.chmod(0o755)
    return source, site


def _dependencies(name: str) -> list[metadata.Distribution]:
    """The distributions ``name`` needs to run (no extras), transitively."""
    seen: dict[str, metadata.Distribution] = {}
    todo = [name]
    while todo:
        current = todo.pop()
        dist = metadata.distribution(current)
        key = dist.metadata["Name"].lower()
        if key in seen:
            continue
        if current != name:
            seen[key] = dist
        for text in dist.requires or ():
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return list(seen.values())


def _link_tree(source: Path, target: Path) -> None:
    if source.is_file():
        _link(source, target)
        return
    for path in source.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            _link(path, target / path.relative_to(source))


def _link(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
    if not os.stat(target).st_mode & 0o004:
        shutil.copy2(source, target.with_name(target.name + ".tmp"))
        os.replace(target.with_name(target.name + ".tmp"), target)
        target.chmod(0o644)


def world_readable_dir(prefix: str) -> Path:
    """A new directory that every user can reach (pytest's own temporary directories are
    private to the user running the tests)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path
