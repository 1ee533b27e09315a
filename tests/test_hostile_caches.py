"""The doctor's caches under ``$XDG_CACHE_HOME/ipex-doctor`` (the knowledge base's, scan's
derived values, scan's outcomes) as an attacker leaves them: a CI cache restored from another
run, or a cache directory another user may write. Real doctor processes on real files.

What a cache holds is taken only from a regular file of this user's that nobody else may
write, within a size: anything else is a miss (the work is done again), never a wait, a crash
or another's word in the report.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import doctor_env

TRAIN = (
    "import torch\nimport intel_extension_for_pytorch as ipex\n"
    "model = ipex.optimize(model)\nx = torch.xpu.amp.autocast()\n"
)
KINDS = ("kb", "scan", "scan-derived")


def _limited_memory() -> None:
    """Run in the child: 4 GiB of address space, so a reader without a bound fails fast
    (MemoryError) instead of taking the machine's memory."""
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def _doctor(cache: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The doctor with ``cache`` as ``XDG_CACHE_HOME``, under a memory limit; a doctor that
    waits on a cache file is stopped at the timeout (the test then fails)."""
    return subprocess.run(
        [sys.executable, "-m", "ipex_doctor", *args], capture_output=True, text=True,
        timeout=240, env=doctor_env({"XDG_CACHE_HOME": str(cache)}), cwd=cwd,
        stdin=subprocess.DEVNULL, preexec_fn=_limited_memory, check=False,
    )  # fmt: skip


def _cached(tmp_path: Path) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """A tree scanned once with an empty cache: the tree, the cache, and the honest outcome
    (every kind of cache file written)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "train.py").write_text(TRAIN)
    cache = tmp_path / "cache"
    honest = _doctor(cache, "scan", ".", "-q", cwd=tree)
    assert honest.returncode == 1 and "xpu-amp-autocast" in honest.stdout, honest.stderr
    for kind in KINDS:
        assert list((cache / "ipex-doctor" / kind).glob("*.json")), kind
    return tree, cache, honest


def _files(cache: Path) -> list[Path]:
    return [path for kind in KINDS for path in (cache / "ipex-doctor" / kind).glob("*.json")]


@pytest.mark.parametrize("plant", ["fifo", "dev-zero"])
def test_a_cache_file_that_never_opens_or_never_ends_is_a_miss(tmp_path: Path, plant: str) -> None:
    """Every cache file swapped for a FIFO no one writes, or a link to /dev/zero: the scan
    and explain do their work again and say what they said before. Before, the FIFO's read
    waited forever, and /dev/zero was read until memory ran out (exit 3, MemoryError)."""
    tree, cache, honest = _cached(tmp_path)
    for path in _files(cache):
        path.unlink()
        if plant == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero")
    again = _doctor(cache, "scan", ".", "-q", cwd=tree)
    assert (again.returncode, again.stdout) == (honest.returncode, honest.stdout), again.stderr
    explained = _doctor(cache, "explain", "RuntimeError: XPU out of memory", cwd=tree)
    assert explained.returncode in (0, 1) and "Traceback" not in explained.stderr, explained.stderr


def _forged(cache: Path) -> Path:
    """The scan's outcome file, its outcomes forged to hold no match: a scan that took them
    would report nothing (a miss that passes the gate)."""
    (path,) = (cache / "ipex-doctor" / "scan").glob("*.json")
    data = json.loads(path.read_text())
    for entry in data["files"].values():
        entry[2] = []
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("whose", ["open-to-others", "another-users"])
def test_outcomes_another_user_could_have_written_are_not_taken(tmp_path: Path, whose: str) -> None:
    """The outcome file forged to hide every finding, and left writable by others (a cache
    directory shared with them) or owned by another user: the tree is read again and the
    findings are reported. Before, the forged outcomes were taken: exit 0, nothing found."""
    if whose == "another-users" and os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    tree, cache, honest = _cached(tmp_path)
    forged = _forged(cache)
    if whose == "open-to-others":
        forged.chmod(0o666)
    else:
        os.chown(forged, 65534, 65534)
    again = _doctor(cache, "scan", ".", "-q", cwd=tree)
    assert (again.returncode, again.stdout) == (honest.returncode, honest.stdout), again.stderr


def test_outcomes_of_this_users_own_cache_are_still_taken(tmp_path: Path) -> None:
    """The same forged file, but this user's own and closed to others, is taken (the cache
    is this user's word): the check above is about who wrote it, not what it says."""
    tree, cache, _ = _cached(tmp_path)
    _forged(cache)
    again = _doctor(cache, "scan", ".", "-q", cwd=tree)
    assert again.returncode == 0 and "xpu-amp-autocast" not in again.stdout, again.stderr
