"""Where a fatal signal struck, read from what a real dying interpreter wrote.

Each test starts a real interpreter with faulthandler on (as the worker does), lets a module
of a package on its path die by a real signal, and reads its real stderr.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

from ipex_doctor.probe import fatal_signal

_SEGFAULT = "import ctypes\nctypes.string_at(0)\n"
_STDLIB = (sysconfig.get_path("stdlib"),)


def _die(root: Path, package: dict[str, str], run: str) -> subprocess.CompletedProcess[str]:
    """Write ``package`` (``{relative path: source}``) under ``root`` and run ``run`` with
    ``root`` on the path and faulthandler enabled, as the worker runs an import."""
    for relative, source in package.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    script = f"import faulthandler, sys\nfaulthandler.enable(all_threads=True)\n{run}\n"
    return subprocess.run(
        [sys.executable, "-I", "-c", script],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": ""},
    )


def test_a_segfault_in_a_function_of_a_submodule_names_module_frame_and_package(
    tmp_path: Path,
) -> None:
    """The frame that counts is the package's, not the standard library's ctypes that carried
    out its call; module and package are import names, the frame is relative to its root."""
    code = {
        "fakelib/__init__.py": "from fakelib import core\n",
        "fakelib/core.py": "def check():\n    " + _SEGFAULT.replace("\n", "\n    ") + "\ncheck()\n",
    }
    done = _die(tmp_path, code, f"sys.path.insert(0, {str(tmp_path)!r})\nimport fakelib")
    assert done.returncode == -11, done.stderr
    fatal = fatal_signal.read("SIGSEGV", done.stderr, (), [str(tmp_path)], _STDLIB)
    assert fatal.signal == "SIGSEGV"
    assert fatal.module == "fakelib.core" and fatal.package == "fakelib"
    assert fatal.frame == "fakelib/core.py:3 in check"
    assert fatal.library is None and fatal.loading_library is False
    # NOTE: the stack is kept whole, innermost first: ctypes' own frame, then the caller's
    places = [frame.rsplit(" in ", 1)[-1] for frame in fatal.stack]
    assert places.index("string_at") < places.index("check") < places.index("<module>")
    assert "in fakelib (fakelib/core.py:3 in check)" == fatal_signal.describe(fatal)


def test_the_library_loaded_last_is_named_and_a_crash_after_it_is_not_its_load(
    tmp_path: Path,
) -> None:
    """The worker reports each native library before it loads; a crash in Python code after
    the load names the library as the one loaded last, not as the one that was loading."""
    code = {"fakelib/__init__.py": _SEGFAULT}
    done = _die(tmp_path, code, f"sys.path.insert(0, {str(tmp_path)!r})\nimport fakelib")
    library = str(tmp_path / "fakelib" / "_native.so")
    # NOTE: the standard library's extension loaded after it says nothing of the cause
    stdlib_extension = str(Path(_STDLIB[0]) / "lib-dynload" / "mmap.cpython-311.so")
    loaded = [library, stdlib_extension]
    fatal = fatal_signal.read("SIGSEGV", done.stderr, loaded, [str(tmp_path)], _STDLIB)
    assert fatal.library == "fakelib/_native.so" and fatal.loading_library is False
    assert fatal.package == "fakelib"
    assert "the native library loaded last: fakelib/_native.so" in fatal_signal.describe(fatal)


def test_an_abort_keeps_what_was_printed_before_it_out_of_the_stack(tmp_path: Path) -> None:
    """SIGABRT's reason is printed just before it; the stack (30 and more lines) is cut out of
    the text a short tail keeps, its first line stays."""
    code = {"fakelib/__init__.py": "import os\nprint('OMP: Error #15: two runtimes', flush=True)\nos.abort()\n"}  # fmt: skip
    done = _die(tmp_path, code, f"sys.path.insert(0, {str(tmp_path)!r})\nimport fakelib")
    assert done.returncode == -6, done.stderr
    kept = fatal_signal.without_stack(done.stderr)
    assert kept.rstrip().endswith("Fatal Python error: Aborted")
    assert 'File "' not in kept
    fatal = fatal_signal.read("SIGABRT", done.stderr, (), [str(tmp_path)])
    assert fatal.module == "fakelib" and fatal.frame == "fakelib/__init__.py:3 in <module>"


def test_without_a_dump_only_the_signal_is_known() -> None:
    """A process that wrote nothing (SIGKILL, a faulthandler that never ran): the signal alone,
    and nothing invented."""
    fatal = fatal_signal.read("SIGKILL", "some unrelated output\n")
    assert (fatal.signal, fatal.module, fatal.frame, fatal.package) == ("SIGKILL", None, None, None)
    assert fatal.stack == () and fatal_signal.describe(fatal) == ""
    assert fatal_signal.without_stack("printed\n") == "printed\n"
