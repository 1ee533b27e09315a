"""What ``scan`` loads before its examination of the interpreter starts: the handshake, a
spawned interpreter, runs while the use case and the scanner are imported, so nothing imports
them before it (a light module of the ``scan`` package no longer loads the whole package), and
the probes start at its answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import doctor_env, fresh_interpreter_prints

from ipex_doctor.probe import proc_table

_ENGINE = "ipex_doctor.scan.engine"

_USE_CASE = "ipex_doctor.app.code_scan"

# NOTE: an audit hook hears every process the doctor starts (the first is the handshake): which
# thread starts it, and whether the scanner and the use case were imported by then.
_SPAWNS = (
    "import runpy, sys, threading\n"
    "def heard(event, args):\n"
    "    if event == 'subprocess.Popen':\n"
    "        print('| spawn', threading.current_thread().name,"
    f" {_ENGINE!r} in sys.modules, {_USE_CASE!r} in sys.modules, file=sys.stderr)\n"
    "sys.addaudithook(heard)\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)


def test_the_handshake_starts_before_the_use_case_is_imported(tmp_path: Path) -> None:
    """The handshake starts before the use case (``code_scan``) and the scanner are imported,
    and the two probes are started by the examination's own thread, at the handshake's
    answer, not where the use case first asks for them (after its knowledge base, rules and
    gate). Before, the handshake waited for the use case's import, and the probes for the
    ask."""
    (tmp_path / "train.py").write_text("import intel_extension_for_pytorch\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _SPAWNS, "scan", str(tmp_path), "--no-cache", "-q"],
        capture_output=True, text=True, env=doctor_env(), check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]  # NOTE: a warning, under the gate
    spawns = [line.split()[2:] for line in done.stderr.splitlines() if line.startswith("| spawn")]
    assert len(spawns) == 3, done.stderr[-2000:]  # NOTE: the handshake, then the two probes
    assert spawns[0] == ["MainThread", "False", "False"]
    assert [thread for thread, *_ in spawns[1:]] == ["ipex-doctor-probes-start"] * 2
    assert "intel_extension_for_pytorch" in done.stdout


def test_a_light_module_of_the_scan_package_does_not_load_the_scanner() -> None:
    """``scan.fix.quoting`` (the report's) and ``scan.read.kinds`` (the use case's) alone; the
    package's own names are still there, each the object of its module."""
    probe = (
        "import sys\n"
        "import ipex_doctor.scan.fix.quoting, ipex_doctor.scan.read.kinds\n"
        f"print({_ENGINE!r} in sys.modules)\n"
        "import ipex_doctor.scan as scan\n"
        "from ipex_doctor.scan.engine import scan_paths\n"
        "from ipex_doctor.scan.read.discovery import ScanError\n"
        "from ipex_doctor.scan.match.ruleset import grep_pattern\n"
        "print(scan.scan_paths is scan_paths, scan.ScanError is ScanError,"
        " scan.grep_pattern is grep_pattern, sorted(scan.__all__) == sorted(scan._HOMES))\n"
        "try:\n"
        "    scan.no_such_name\n"
        "except AttributeError as error:\n"
        "    print(error)\n"
    )
    assert fresh_interpreter_prints(probe) == [
        "False",
        "True True True True",
        "module 'ipex_doctor.scan' has no attribute 'no_such_name'",
    ]


# NOTE: what the whole command imported, heard at its exit (after the report is written)
_IMPORTED = (
    "import atexit, runpy, sys\n"
    "watched = ('pathspec', 'tempfile', 'ipex_doctor.model.repair', 'ipex_doctor.model.remedy',"
    " 'secrets', 'pkgutil', 'hashlib', 'psutil')\n"
    "atexit.register(lambda: print('| imported:', *[m for m in watched if m in sys.modules],"
    " file=sys.stderr))\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)


def test_what_a_scan_of_a_small_project_leaves_unimported(tmp_path: Path) -> None:
    """A scan of a tree with a ``.gitignore`` imports pathspec the first time only: the next
    decides every path with the kept union of its patterns, as none matches there. Neither
    imports the repair's model, ``secrets`` or ``pkgutil`` (the command's request is found by
    its module and name; none of them is a scan's), nor psutil where ``/proc`` lists a
    process's children and the memory (the reaper's sweeps and the host's facts read them
    there; its import cost about 20 ms of CPU). Neither imports ``tempfile``, not even the
    first, which makes the user's cache key and keeps the values it derived (it came with
    ``ctypes.util`` and the report's writer before, in every scan; then with each cache
    written); neither imports ``hashlib``, which loads OpenSSL (the derived values' key is
    the interpreter's own BLAKE2b, and only ``--fix`` hashes files)."""
    tree = tmp_path / "tree"
    (tree / ".git").mkdir(parents=True)  # a checkout: its .gitignore applies
    (tree / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    (tree / "train.py").write_text("import intel_extension_for_pytorch\n", encoding="utf-8")
    env = {
        **doctor_env(),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_STATE_HOME": str(tmp_path / "state"),  # NOTE: the first run makes the cache key
    }
    heard = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", _IMPORTED, "scan", str(tree), "--no-cache", "-q", "--json", "-"],
            capture_output=True, text=True, env=env, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        assert "intel_extension_for_pytorch" in done.stdout
        heard.append([line for line in done.stderr.splitlines() if line.startswith("| imported")])
    listed = proc_table.children(os.getpid()) is not None and proc_table.memory_bytes() is not None
    psutil = [] if listed else ["psutil"]  # NOTE: elsewhere the reaper and host ask psutil
    assert heard == [
        [" ".join(["| imported:", "pathspec", *psutil])],
        [" ".join(["| imported:", *psutil])],
    ]


# NOTE: what reads a file and what reads across files, heard at the command's exit
_READING = (
    "ipex_doctor.scan.one_file",
    "ipex_doctor.scan.readers",
    "ipex_doctor.scan.match.ruleset",
    "ipex_doctor.scan.match.patterns",
    "ipex_doctor.scan.match.shell_lines",
    "ipex_doctor.scan.match.project_flags",
    "ipex_doctor.scan.match.own_extras",
)
_READING_IMPORTED = (
    "import atexit, runpy, sys\n"
    f"watched = {_READING!r}\n"
    "atexit.register(lambda: print('| imported:', *[m for m in watched if m in sys.modules],"
    " file=sys.stderr))\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)


def test_a_scan_of_an_unchanged_tree_imports_no_reader(tmp_path: Path) -> None:
    """Where every file is an outcome-cache hit and no finding reads across files (a
    pre-commit hook's unchanged tree), the scan imports neither the readers and matchers nor
    the rule set's building nor the readings across files, and reports what the first scan
    read; a file edited since is read, with all of them imported again, and its finding is
    there."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "train.py").write_text("import intel_extension_for_pytorch\n", encoding="utf-8")
    (tree / "requirements.txt").write_text("intel-extension-for-pytorch==2.8.0\n", encoding="utf-8")
    env = {**doctor_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def scanned() -> tuple[str, list[str]]:
        done = subprocess.run(
            [sys.executable, "-c", _READING_IMPORTED, "scan", str(tree), "-q", "--json", "-", "--fail-on", "never"],
            capture_output=True, text=True, env=env, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        heard = [line for line in done.stderr.splitlines() if line.startswith("| imported")]
        return json.dumps(json.loads(done.stdout)["findings"], sort_keys=True), heard

    first, imported_first = scanned()
    second, imported_second = scanned()
    assert imported_first == [" ".join(["| imported:", *_READING])]
    assert imported_second == ["| imported:"]
    assert second == first and "intel_extension_for_pytorch" in first
    (tree / "train.py").write_text("import torch\nwith torch.xpu.amp.autocast():\n    pass\n", encoding="utf-8")  # fmt: skip
    third, imported_third = scanned()
    assert imported_third == imported_first
    assert "xpu-amp-autocast" in third and third != first
