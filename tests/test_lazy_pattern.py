"""A module's regex compiled at its first use (``lazy_pattern.LazyPattern``): the same regex and
the same answers as ``re.compile`` of its text, every one in the package compiles, and a scan
compiles only those its files reach."""

from __future__ import annotations

import dataclasses
import importlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO, doctor_env

from ipex_doctor.lazy_pattern import LazyPattern

PACKAGE = REPO / "ipex_doctor"


def _lazy_patterns() -> Iterator[tuple[str, LazyPattern[str] | LazyPattern[bytes]]]:
    """Every ``LazyPattern`` a module of the package holds (each module whose source makes
    one): a module's name, a dict's value or a dataclass's field of one (``shell_lines``'
    variable grammars)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "lazy_pattern.py" or "LazyPattern(" not in path.read_text("utf-8"):
            continue
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for attribute, value in vars(importlib.import_module(name)).items():
            for item in value.values() if isinstance(value, dict) else [value]:
                fields = (
                    [getattr(item, field.name) for field in dataclasses.fields(item)]
                    if dataclasses.is_dataclass(item) and not isinstance(item, type)
                    else [item]
                )
                for one in fields:
                    if isinstance(one, LazyPattern):
                        yield f"{name}.{attribute}", one


def test_every_lazy_pattern_of_the_package_compiles_as_its_text_does() -> None:
    """Each one compiles to a regex of its text: a text that does not compile would fail at
    its first use, deep in a scan, so this is where it fails first."""
    found = list(_lazy_patterns())
    assert len(found) >= 39, found  # NOTE: the shell, document and write-target readers'
    for name, lazy in found:
        assert lazy.compiled().pattern == lazy.text, name


@pytest.mark.parametrize("flags", [0, re.IGNORECASE | re.VERBOSE])
def test_a_lazy_pattern_answers_as_the_compiled_one(flags: int) -> None:
    """``search``, ``match``, ``fullmatch``, ``finditer``, ``findall`` and ``sub`` (with ``pos``
    and ``endpos`` where ``re`` takes them), before and after the first use, give what
    ``re.compile(text, flags)`` gives."""
    text = r"(?P<word> [a-z]+ ) = (\d+)"
    subject = "Alpha=1 beta=22; GAMMA=333"
    eager = re.compile(text, flags)
    for _ in range(2):  # NOTE: the first use compiles; the second goes to the compiled one
        lazy = LazyPattern(text, flags)
        for round_ in range(2):
            assert _answers(lazy, subject) == _answers(eager, subject), round_
    assert lazy.compiled().flags == eager.flags and lazy.compiled().pattern == eager.pattern


def _answers(pattern: re.Pattern[str] | LazyPattern[str], subject: str) -> list[object]:
    def span(found: re.Match[str] | None) -> object:
        return None if found is None else (found.span(), found.groups())

    return [
        span(pattern.search(subject)),
        span(pattern.search(subject, 8)),
        span(pattern.match(subject)),
        span(pattern.match(subject, 8, 15)),
        span(pattern.fullmatch(subject, 8, 15)),
        span(pattern.fullmatch(subject)),
        [span(found) for found in pattern.finditer(subject)],
        [span(found) for found in pattern.finditer(subject, 1, 20)],
        pattern.findall(subject),
        pattern.findall(subject, 8),
        pattern.sub("<>", subject),
        pattern.sub(lambda found: found.group(2), subject, 1),
    ]


def test_after_its_first_use_a_lazy_pattern_is_the_compiled_one() -> None:
    """Compiled once, at the first call of any of its methods; every later call is the
    compiled pattern's own bound method (no wrapper left on the scan's path)."""
    lazy = LazyPattern(r"ab+")
    assert "search" not in vars(lazy)
    assert lazy.findall("abbb ab") == ["abbb", "ab"]
    compiled = re.compile(r"ab+")
    for method in ("search", "match", "fullmatch", "finditer", "findall", "sub"):
        bound = getattr(lazy, method)
        assert bound.__self__ is compiled, method  # NOTE: re's cache: the same object
        assert bound.__name__ == method


def test_a_bad_text_fails_at_its_first_use_with_re_s_error() -> None:
    lazy = LazyPattern(r"(unclosed")
    with pytest.raises(re.error, match="missing \\)"):
        lazy.search("x")


# NOTE: which of the shell readers' regexes a whole scan compiled, heard at the command's exit
_COMPILED = (
    "import atexit, runpy, sys\n"
    "def heard():\n"
    "    from ipex_doctor.lazy_pattern import LazyPattern\n"
    "    module = sys.modules.get('ipex_doctor.scan.match.shell_lines')\n"
    "    names = [n for n, v in vars(module).items() if isinstance(v, LazyPattern)]\n"
    "    done = [n for n in names if 'search' in vars(getattr(module, n))]\n"
    "    print('| lazy:', len(names), 'compiled:', *sorted(done), file=sys.stderr)\n"
    "atexit.register(heard)\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)


def _heard(tree: Path, tmp_path: Path) -> tuple[str, str]:
    env = {**doctor_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", _COMPILED, "scan", str(tree), "--no-cache", "-q", "--fail-on", "never"],
        capture_output=True, text=True, env=env, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("| lazy:")]
    assert len(lines) == 1, done.stderr[-2000:]
    return lines[0], done.stdout


def test_a_scan_compiles_only_the_shell_regexes_its_files_reach(tmp_path: Path) -> None:
    """A POSIX script that installs IPEX and writes no file compiles none of the PowerShell,
    batch, redirect or heredoc regexes (each compiled at every scan's import before); a
    PowerShell script compiles PowerShell's, and each script's finding is there."""
    posix = tmp_path / "posix"
    posix.mkdir()
    (posix / "setup.sh").write_text(
        "#!/bin/sh\npip install intel-extension-for-pytorch==2.8.0\n", encoding="utf-8"
    )
    heard, report = _heard(posix, tmp_path)
    assert heard.startswith("| lazy: ") and int(heard.split()[2]) >= 17
    compiled = heard.split("compiled:")[1].split()
    assert not [name for name in compiled if name.startswith(("_PS_", "_BATCH_"))], heard
    assert "_POSIX_REDIRECT" not in compiled and "_DOCUMENT_READER" not in compiled, heard
    assert "setup.sh" in report

    windows = tmp_path / "windows"
    windows.mkdir()
    (windows / "setup.ps1").write_text(
        "pip install intel-extension-for-pytorch==2.8.0 > install.log\n", encoding="utf-8"
    )
    heard, report = _heard(windows, tmp_path)
    assert [name for name in heard.split("compiled:")[1].split() if name.startswith("_PS_")]
    assert "setup.ps1" in report
