"""``fix`` and ``fix --undo`` on hostile input: forged reports and snapshots, real processes, a
real environment (a hard-linked copy of ``bare``) and a real local index.

Each case checks what the product guarantees: no traceback, one clear line saying what was
refused (an error, or the manual step that says why fix does not run it), the documented exit
code, the environment's ``pip freeze --all`` unchanged, and no marker file. The marker is what
would be left if anything ran that a file asked for: a forged interpreter, an sdist's
``setup.py`` (pip runs it even to read the metadata), a source directory's.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from subprocess import CompletedProcess

import forged
import pytest
from conftest import REPO, copy_env, doctor_env, freeze, real_env, run_doctor
from pipindex import LocalIndex, build_sdist, build_wheel, serve

pytestmark = pytest.mark.envs

BUILDS = {"PIP_NO_BUILD_ISOLATION": "0"}
"""pip builds with the environment's own setuptools (no isolated build environment fetched
from an index): a build that is attempted surely runs the setup.py that writes the marker."""
UNREACHABLE = {"PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
               "PIP_FIND_LINKS": "", "PIP_RETRIES": "0", "PIP_TIMEOUT": "5", **BUILDS}  # fmt: skip
"""pip's configuration where no index serves anything: only a file's own index could."""
NEVER = "fix never removes or replaces ipex-doctor, pip, setuptools, wheel"


@dataclass
class Victim:
    """The environment a forged file aims at, as it was before, and the marker to watch."""

    python: str
    before: list[str]
    marker: Path

    def plant_marker_on_start(self) -> None:
        """From now on, any start of this interpreter writes the marker (a ``.pth`` line)."""
        (site,) = Path(self.python).parent.parent.glob("lib/python*/site-packages")
        (site / "zz_marker.pth").write_text(
            f"import pathlib; pathlib.Path({str(self.marker)!r}).touch()\n"
        )


@pytest.fixture
def victim(tmp_path: Path) -> Victim:
    python = copy_env(real_env("bare"), tmp_path / "env")
    return Victim(python, freeze(python), tmp_path / "marker")


@pytest.fixture
def sdist_index(tmp_path: Path, victim: Victim) -> Iterator[LocalIndex]:
    """An index that serves torchaudio 1.0.0 only as an sdist whose setup.py writes the marker."""
    files = tmp_path / "files"
    files.mkdir()
    sdist = build_sdist(files, "torchaudio", "1.0.0", victim.marker)
    with serve(files, {}, files={"torchaudio": sdist}) as served:
        yield served


def _harmless(victim: Victim, done: CompletedProcess[str], code: int, said: str) -> None:
    """The run ended with ``code``, said ``said`` on one line, left no traceback, no marker,
    and the environment exactly as it was."""
    output = done.stdout + done.stderr
    assert done.returncode == code, output[-3000:]
    assert "Traceback" not in output and "internal error" not in output
    assert [line for line in output.splitlines() if said in line], (said, output[-3000:])
    assert not victim.marker.exists(), "something the file named ran"
    assert freeze(victim.python) == victim.before


def _refused(victim: Victim, done: CompletedProcess[str], said: str) -> None:
    """Refused before anything ran: exit 2, and stderr is that one line."""
    _harmless(victim, done, 2, said)
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("ipex-doctor: error: ")


def _script(tmp_path: Path, victim: Victim) -> str:
    """An executable shell script posing as an interpreter: it writes the marker, then runs
    the real one."""
    script = tmp_path / "bin" / "python"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\ntouch {victim.marker}\nexec {victim.python} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


# -- what a file names as the interpreter ------------------------------------------------------


@pytest.mark.parametrize("yes", [(), ("--yes",)], ids=["asked", "yes"])
def test_a_report_whose_interpreter_is_a_script_is_refused_never_run(
    tmp_path: Path, victim: Victim, yes: tuple[str, ...]
) -> None:
    """The report says it examined a script (which is never ``sys.executable``): refused in
    one line before anything runs, with ``--yes`` too. Before, planning ran it, twice."""
    script = _script(tmp_path, victim)
    saved = forged.saved_report(tmp_path, victim.python,
                                [forged.action(script, "install", "torchaudio==1.0.0")],
                                interpreter=script)  # fmt: skip
    done = run_doctor("fix", "--report", str(saved), *yes, cwd=tmp_path)
    _refused(victim, done, f"its interpreter {script} is a script, not a Python interpreter")


@pytest.mark.parametrize("yes", [(), ("--yes",)], ids=["asked", "yes"])
def test_a_snapshot_whose_interpreter_is_a_script_is_refused_never_run(
    tmp_path: Path, victim: Victim, yes: tuple[str, ...]
) -> None:
    script = _script(tmp_path, victim)
    snapshot = forged.snapshot(tmp_path / "s.json", victim.python)
    data = json.loads(snapshot.read_text())
    snapshot.write_text(json.dumps({**data, "python": script}))
    done = run_doctor("fix", "--undo", str(snapshot), *yes, cwd=tmp_path)
    _refused(victim, done, f"its interpreter {script} is a script, not a Python interpreter")


def test_the_interpreter_a_report_names_runs_only_once_approved(
    tmp_path: Path, victim: Victim
) -> None:
    """A real interpreter named only by the report: planning shows the plan as the report has
    it and asks; unanswered (no terminal, no --yes), nothing runs it. With --yes, given on
    purpose, it runs."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    build_wheel(wheels, "torchaudio", "1.0.0")
    offline = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    saved = forged.saved_report(tmp_path, victim.python,
                                [forged.action(victim.python, "install", "torchaudio==1.0.0")])  # fmt: skip
    victim.plant_marker_on_start()
    done = run_doctor("fix", "--report", str(saved), extra_env=offline, cwd=tmp_path)
    _harmless(victim, done, 1, f"{victim.python} was not run (a saved file names it)")
    assert "as the saved file proposes them, not resolved" in done.stdout
    assert f"{victim.python} -m pip install --only-binary=:all: torchaudio==1.0.0" in done.stdout
    victim.marker.unlink()  # NOTE: freeze itself started the interpreter
    approved = run_doctor("fix", "--report", str(saved), "--yes", extra_env=offline, cwd=tmp_path)
    assert approved.returncode == 1, approved.stderr[-3000:]  # torch is still missing
    assert victim.marker.exists() and "torchaudio==1.0.0" in freeze(victim.python)


def test_the_interpreter_a_snapshot_names_runs_only_once_approved(
    tmp_path: Path, victim: Victim
) -> None:
    snapshot = forged.snapshot(tmp_path / "s.json", victim.python)
    victim.plant_marker_on_start()
    done = run_doctor("fix", "--undo", str(snapshot), cwd=tmp_path)
    _harmless(victim, done, 1, f"{victim.python} was not run (a saved file names it)")
    victim.marker.unlink()
    # NOTE: hand-made, so from elsewhere: --trust-snapshot says the user read it.
    approved = run_doctor("fix", "--undo", str(snapshot), "--yes", "--trust-snapshot", cwd=tmp_path)
    assert approved.returncode == 0, approved.stderr[-3000:]  # the set is the snapshot's
    assert victim.marker.exists()


@pytest.mark.parametrize("yes", [(), ("--yes",)], ids=["asked", "yes"])
def test_an_interpreter_path_a_question_could_not_show_as_it_is_is_refused(
    tmp_path: Path, victim: Victim, yes: tuple[str, ...]
) -> None:
    """The report names a real interpreter (a hard link to the victim's) at a path holding an
    escape sequence and a carriage return: at a terminal, "Run PATH ...?" would show another
    interpreter than the one that runs. Refused in one line, the path quoted, nothing run,
    with --yes too. Before, the question and the plan showed the path raw."""
    venv = tmp_path / "x\x1b[2K\r\x1b[1A" / "usr"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python3"
    os.link(os.path.realpath(victim.python), python)
    # NOTE: a venv of its own, so any start of the linked interpreter leaves its marker.
    shutil.copy(Path(victim.python).parent.parent / "pyvenv.cfg", venv / "pyvenv.cfg")
    (site,) = Path(victim.python).parent.parent.glob("lib/python*/site-packages")
    ours = venv / site.relative_to(site.parent.parent.parent)
    ours.mkdir(parents=True)
    (ours / "zz_marker.pth").write_text(f"import pathlib; pathlib.Path({str(victim.marker)!r}).touch()\n")  # fmt: skip
    saved = forged.saved_report(tmp_path, victim.python,
                                [forged.action(str(python), "install", "torchaudio==1.0.0")],
                                interpreter=str(python))  # fmt: skip
    done = run_doctor("fix", "--report", str(saved), *yes, cwd=tmp_path)
    _refused(victim, done, '/usr/bin/python3" holds characters no message shows as they are')
    assert "\x1b" not in done.stdout + done.stderr and done.stdout == ""
    assert f"{tmp_path}/x\\033[2K\\r\\033[1A/usr/bin/python3" in done.stderr


def test_with_standard_input_closed_the_question_is_answered_no(
    tmp_path: Path, victim: Victim
) -> None:
    """fd 0 closed (``0<&-``, as some launchers start a job): the question of the report's
    interpreter is answered no, nothing runs, exit 1. Before: exit 3 (sys.stdin is None)."""
    saved = forged.saved_report(tmp_path, victim.python,
                                [forged.action(victim.python, "install", "torchaudio==1.0.0")])  # fmt: skip
    victim.plant_marker_on_start()
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", "fix", "--report", str(saved)],
        capture_output=True, text=True, timeout=600, env=doctor_env(), cwd=tmp_path,
        preexec_fn=lambda: os.close(0), check=False,
    )  # fmt: skip
    _harmless(victim, done, 1, f"{victim.python} was not run (a saved file names it)")


def _limited_memory() -> None:
    """Run in the child: 4 GiB of address space, so a reader without a bound fails fast
    (MemoryError, exit 3) instead of taking the machine's memory."""
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


@pytest.mark.parametrize("option", ["--report", "--undo"])
def test_a_saved_file_that_never_ends_or_never_opens_is_one_line(
    tmp_path: Path, option: str
) -> None:
    """/dev/zero (its size says 0, its bytes never end) is refused once past the limit, and a
    FIFO no one writes reads as empty (not JSON) instead of waiting for a writer. Before: the
    reader took every byte /dev/zero gave (MemoryError, exit 3, under a memory limit), and
    the FIFO's open waited forever."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, said in (("/dev/zero", "/dev/zero: larger than "), (str(fifo), f"{fifo}:1: not JSON")):  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "ipex_doctor", "fix", option, path, "--yes"],
            capture_output=True, text=True, timeout=300, env=doctor_env(), cwd=tmp_path,
            stdin=subprocess.DEVNULL, preexec_fn=_limited_memory, check=False,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr[-2000:]
        assert done.stderr.startswith(f"ipex-doctor: error: {said}"), done.stderr[-2000:]
        assert len(done.stderr.splitlines()) == 1


def test_a_report_on_a_pipe_that_is_written_is_read(tmp_path: Path, victim: Victim) -> None:
    """A pipe with a writer (``--report <(...)``) is still read as it comes."""
    saved = forged.saved_report(tmp_path, victim.python,
                                [forged.action(victim.python, "install", "torchaudio==1.0.0")])  # fmt: skip
    reader, writer = os.pipe()
    with subprocess.Popen(
        [sys.executable, "-m", "ipex_doctor", "fix", "--report", f"/dev/fd/{reader}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=doctor_env(),
        cwd=tmp_path, stdin=subprocess.DEVNULL, pass_fds=(reader,),
    ) as process:  # fmt: skip
        os.close(reader)
        with os.fdopen(writer, "wb") as pipe:
            pipe.write(saved.read_bytes())
        out, err = process.communicate(timeout=600)
    _harmless(victim, subprocess.CompletedProcess([], process.returncode, out, err), 1,
              f"{victim.python} was not run (a saved file names it)")  # fmt: skip


# -- what a report's remedy says -------------------------------------------------------------


@pytest.mark.parametrize("legacy", [False, True], ids=["actions", "commands-1.7"])
def test_an_index_the_report_names_is_advice_and_its_sdist_is_never_built(
    tmp_path: Path, victim: Victim, sdist_index: LocalIndex, legacy: bool
) -> None:
    """``--index-url http://127.0.0.1:PORT/simple`` in the remedy (typed, or the shell text of
    an old report): not an index the knowledge base knows, so the step is a manual one and
    pip never hears of that index; its sdist's setup.py never runs."""
    remedy = forged.action(victim.python, "install", "torchaudio==1.0.0", index_url=sdist_index.url)
    saved = forged.saved_report(tmp_path, victim.python, [remedy], legacy=legacy)
    done = run_doctor("fix", "--report", str(saved), "--python", victim.python, "--yes",
                      extra_env=UNREACHABLE, cwd=tmp_path)  # fmt: skip
    _harmless(victim, done, 1, f"not run by fix: the index {sdist_index.url} is not one")
    assert "Plan: nothing pip can apply here." in done.stdout


def test_planning_never_builds_an_sdist_even_from_the_users_own_index(
    tmp_path: Path, victim: Victim, sdist_index: LocalIndex
) -> None:
    """A sanctioned remedy, and the user's own pip configuration points at an index that has
    the package only as an sdist: planning takes wheels only, so pip finds nothing to install
    (exit 2, nothing changed) and the sdist is never built."""
    remedy = forged.action(victim.python, "install", "torchaudio==1.0.0")
    saved = forged.saved_report(tmp_path, victim.python, [remedy])
    done = run_doctor("fix", "--report", str(saved), "--python", victim.python, "--yes",
                      extra_env={**forged.pip_env(sdist_index.url), **BUILDS}, cwd=tmp_path)  # fmt: skip
    _harmless(victim, done, 2, "nothing was changed")
    assert "pip found no version at all" in done.stderr


@pytest.mark.parametrize(
    ("verb", "requirement", "legacy"),
    [("uninstall", "pip", False), ("uninstall", "pip", True), ("uninstall", "setuptools", False),
     ("install", "pip==22.0.4", True), ("install", "setuptools==65.5.0", False)],
)  # fmt: skip
def test_a_report_never_makes_fix_remove_or_replace_pip_or_setuptools(
    tmp_path: Path, victim: Victim, legacy: bool, verb: str, requirement: str
) -> None:
    remedy = forged.action(victim.python, verb, requirement)
    saved = forged.saved_report(tmp_path, victim.python, [remedy], legacy=legacy)
    done = run_doctor("fix", "--report", str(saved), "--python", victim.python, "--yes",
                      extra_env=UNREACHABLE, cwd=tmp_path)  # fmt: skip
    name = requirement.split("==")[0]
    _harmless(victim, done, 1, f"not run by fix: fix never removes or replaces {name}")


def test_a_remedy_whose_resolution_would_replace_setuptools_is_advice(
    tmp_path: Path, victim: Victim
) -> None:
    """torchaudio is a package fix may touch, but this one depends on setuptools 99.0.0: the
    dry run says so, and the step becomes a manual one; nothing is installed."""
    files = tmp_path / "files"
    files.mkdir()
    dependent = build_wheel(files, "torchaudio", "1.0.0", requires=["setuptools==99.0.0"])
    newer = build_wheel(files, "setuptools", "99.0.0")
    remedy = forged.action(victim.python, "install", "torchaudio==1.0.0")
    saved = forged.saved_report(tmp_path, victim.python, [remedy])
    with serve(files, {}, files={"torchaudio": dependent, "setuptools": newer}) as index:
        done = run_doctor("fix", "--report", str(saved), "--python", victim.python, "--yes",
                          extra_env=forged.pip_env(index.url), cwd=tmp_path)  # fmt: skip
    _harmless(victim, done, 1, "pip would install setuptools 99.0.0 with it; " + NEVER)


# -- what a snapshot records -----------------------------------------------------------------


@pytest.mark.parametrize("yes", [(), ("--yes",)], ids=["asked", "yes"])
@pytest.mark.parametrize("name", ["--find-links=http://127.0.0.1:9/", "torchaudio==1.0.0 -e ."])
def test_a_snapshot_name_that_is_no_name_is_refused(
    tmp_path: Path, victim: Victim, yes: tuple[str, ...], name: str
) -> None:
    """A "name" that pip would read as an option (or a requirement with more in it): the
    snapshot is refused in one line, before its interpreter runs."""
    extra = {"name": name, "version": "1.0.0", "source": None}
    snapshot = forged.snapshot(tmp_path / "s.json", victim.python, lambda d: d.append(extra))
    done = run_doctor("fix", "--undo", str(snapshot), *yes, extra_env=UNREACHABLE, cwd=tmp_path)
    _refused(victim, done, f"not a snapshot ipex-doctor wrote ({name!r} is not a distribution name)")  # fmt: skip


@pytest.mark.parametrize("kind", ["sdist-file", "sdist-url", "wheel-url", "directory"])
def test_a_snapshot_source_that_is_no_local_wheel_is_a_manual_step_never_built(
    tmp_path: Path, victim: Victim, sdist_index: LocalIndex, kind: str
) -> None:
    """The snapshot says torchaudio came from an sdist (a file or a URL), a wheel on the web,
    or a source directory: the undo names it as a manual step and builds nothing; the set
    then differs from the snapshot's, so exit 1."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "setup.py").write_text(
        f"import pathlib\npathlib.Path({str(victim.marker)!r}).write_text('built')\n"
        "from setuptools import setup\nsetup(name='torchaudio', version='1.0.0')\n"
    )
    served = sdist_index.url.rsplit("/", 1)[0] + "/files/"
    source = {
        "sdist-file": sdist_index.wheels["torchaudio"].as_uri(),
        "sdist-url": served + sdist_index.wheels["torchaudio"].name,
        "wheel-url": served + "torchaudio-1.0.0-py3-none-any.whl",
        "directory": project.as_uri(),
    }[kind]
    extra = {"name": "torchaudio", "version": "1.0.0", "source": source}
    snapshot = forged.snapshot(tmp_path / "s.json", victim.python, lambda d: d.append(extra))
    done = run_doctor("fix", "--undo", str(snapshot), "--yes", "--trust-snapshot",
                      extra_env=UNREACHABLE, cwd=tmp_path)  # fmt: skip
    _harmless(victim, done, 1, "- undo: torchaudio 1.0.0 in the snapshot, absent now")
    assert f"not run by fix: torchaudio 1.0.0 came from {source}" in done.stdout
    assert "not restored: torchaudio 1.0.0 (snapshot)" in done.stderr


@pytest.mark.parametrize("edit", ["without-pip", "without-setuptools", "older-pip"])
def test_an_undo_never_removes_or_replaces_pip_or_setuptools(
    tmp_path: Path, victim: Victim, edit: str
) -> None:
    """A snapshot without pip (or setuptools), or with another pip: the undo would uninstall
    or replace it; it never does, says so, and exits 1 (the set is not the snapshot's)."""
    name = "setuptools" if edit == "without-setuptools" else "pip"

    def change(distributions: list[dict[str, object]]) -> None:
        entry = next(d for d in distributions if d["name"] == name)
        if edit == "older-pip":
            entry["version"] = "22.0.4"
        else:
            distributions.remove(entry)

    snapshot = forged.snapshot(tmp_path / "s.json", victim.python, change)
    done = run_doctor("fix", "--undo", str(snapshot), "--yes", "--trust-snapshot",
                      extra_env=UNREACHABLE, cwd=tmp_path)  # fmt: skip
    _harmless(victim, done, 1, f"not run by fix: {NEVER}")
    assert f"not restored: {name} " in done.stderr


# -- a snapshot from elsewhere ---------------------------------------------------------------


def _wheel_directory(tmp_path: Path) -> dict[str, str]:
    """pip's configuration where only a local directory serves anything: torchaudio 1.0.0."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    build_wheel(wheels, "torchaudio", "1.0.0")
    return {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}


def _adding_torchaudio(tmp_path: Path, victim: Victim) -> Path:
    """A snapshot fix did not write: the victim's set, and torchaudio 1.0.0 (absent now)."""
    extra = {"name": "torchaudio", "version": "1.0.0", "source": None}
    return forged.snapshot(tmp_path / "s.json", victim.python, lambda d: d.append(extra))


def _planned_install(shown: str, victim: Victim) -> bool:
    """The plan shown installs torchaudio 1.0.0 in the victim's interpreter, as its first step."""
    first = f"1. {victim.python} -m pip install "
    return any(line.startswith(first) and line.endswith(" torchaudio==1.0.0") for line in shown.splitlines())  # fmt: skip


def test_a_snapshot_from_elsewhere_is_refused_with_yes_alone(tmp_path: Path, victim: Victim) -> None:  # fmt: skip
    """A snapshot no fix of this user wrote, under --yes off a terminal: refused in one line
    naming the file and what to do, exit 2, before anything runs (its interpreter never
    started, so pip never ran: nothing installed or uninstalled). With --trust-snapshot too,
    the user read it: the undo goes on to its plan as before and installs torchaudio. Before,
    --yes alone installed it."""
    offline = _wheel_directory(tmp_path)
    snapshot = _adding_torchaudio(tmp_path, victim)
    victim.plant_marker_on_start()
    done = run_doctor("fix", "--undo", str(snapshot), "--yes", extra_env=offline, cwd=tmp_path)
    _refused(victim, done, f"{snapshot} is a snapshot from elsewhere (your ipex-doctor fix recorded")  # fmt: skip
    assert "add --trust-snapshot to --yes" in done.stderr
    victim.marker.unlink()  # NOTE: freeze itself started the interpreter
    trusted = run_doctor("fix", "--undo", str(snapshot), "--yes", "--trust-snapshot",
                         extra_env=offline, cwd=tmp_path)  # fmt: skip
    assert trusted.returncode == 0, trusted.stderr[-3000:]
    assert _planned_install(trusted.stdout, victim)
    assert sorted([*victim.before, "torchaudio==1.0.0"]) == freeze(victim.python)


def test_a_snapshot_from_elsewhere_without_yes_shows_its_plan_and_says_so(
    tmp_path: Path, victim: Victim
) -> None:
    """Named with --python (so its pip may plan) and no terminal to answer: the plan is shown
    as for any snapshot, nothing is applied, and the message says the snapshot is from
    elsewhere and how to restore it once read."""
    offline = _wheel_directory(tmp_path)
    snapshot = _adding_torchaudio(tmp_path, victim)
    done = run_doctor("fix", "--undo", str(snapshot), "--python", victim.python,
                      extra_env=offline, cwd=tmp_path)  # fmt: skip
    _harmless(victim, done, 1, f"nothing changed: {snapshot} is a snapshot from elsewhere")
    assert _planned_install(done.stdout, victim)
    assert "restore it with --yes --trust-snapshot" in done.stderr


def _undo_on_a_terminal(tmp_path: Path, snapshot: Path, answers: bytes, *more: str,
                        extra_env: dict[str, str]) -> CompletedProcess[str]:  # fmt: skip
    """``fix --undo SNAPSHOT --yes MORE`` with a terminal as standard input, ``answers`` typed
    ahead (one line a question: a terminal hands a reader one line at a time)."""
    controller, terminal = os.openpty()
    try:
        os.write(controller, answers)
        return subprocess.run(
            [sys.executable, "-m", "ipex_doctor", "fix", "--undo", str(snapshot), "--yes", *more],
            stdin=terminal, capture_output=True, text=True, timeout=300, cwd=tmp_path,
            env=doctor_env(extra_env), check=False,
        )  # fmt: skip
    finally:
        os.close(terminal)
        os.close(controller)


def test_on_a_terminal_yes_does_not_run_the_interpreter_a_snapshot_from_elsewhere_names(
    tmp_path: Path, victim: Victim
) -> None:
    """The first thing an undo does is run the snapshot's interpreter (to read what is
    installed). For a snapshot from elsewhere --yes does not approve that either: the
    question names the interpreter and says where the snapshot is from, and "n" leaves the
    interpreter unstarted (no marker), exit 1. Before, --yes ran it unasked."""
    offline = _wheel_directory(tmp_path)
    snapshot = _adding_torchaudio(tmp_path, victim)
    victim.plant_marker_on_start()
    done = _undo_on_a_terminal(tmp_path, snapshot, b"n\n", extra_env=offline)
    _harmless(victim, done, 1, f"{victim.python} was not run (a saved file names it)")
    question = (f"{snapshot} is a snapshot from elsewhere (your ipex-doctor fix recorded writing "
                f"no snapshot with these bytes (downloaded, another user's, edited since, or older "
                f"than the last 500 fix wrote)). "
                f"Run {victim.python}, the interpreter it names, to compare its distributions "
                "with the snapshot? [y/N]")  # fmt: skip
    assert question in done.stdout
    assert "Apply this plan?" not in done.stdout and "--yes --trust-snapshot" in done.stderr


def test_on_a_terminal_a_snapshot_from_elsewhere_is_asked_about_even_with_yes(
    tmp_path: Path, victim: Victim
) -> None:
    """On a terminal, --yes does not answer for a snapshot from elsewhere: once its
    interpreter is approved ("y"), the plan is shown and its own question says where the
    snapshot is from; "n" leaves everything as it was (exit 1)."""
    offline = _wheel_directory(tmp_path)
    snapshot = _adding_torchaudio(tmp_path, victim)
    done = _undo_on_a_terminal(tmp_path, snapshot, b"y\nn\n", extra_env=offline)
    _harmless(victim, done, 1, f"nothing changed: {snapshot} is a snapshot from elsewhere")
    assert f"{snapshot} is a snapshot from elsewhere (your ipex-doctor fix recorded" in done.stdout
    assert "Apply this plan? [y/N]" in done.stdout and _planned_install(done.stdout, victim)


def test_an_interpreter_the_user_names_too_runs_for_a_snapshot_from_elsewhere(
    tmp_path: Path, victim: Victim
) -> None:
    """--python naming the snapshot's own interpreter is the user's word for it: it runs (to
    plan) without the question, and the plan is still asked about on the terminal."""
    offline = _wheel_directory(tmp_path)
    snapshot = _adding_torchaudio(tmp_path, victim)
    done = _undo_on_a_terminal(tmp_path, snapshot, b"n\n", "--python", victim.python,
                               extra_env=offline)  # fmt: skip
    _harmless(victim, done, 1, f"nothing changed: {snapshot} is a snapshot from elsewhere")
    assert f"Run {victim.python}" not in done.stdout
    assert "Apply this plan? [y/N]" in done.stdout and _planned_install(done.stdout, victim)


def test_a_records_directory_open_to_others_is_refused(tmp_path: Path, victim: Victim) -> None:
    """The directory that vouches for fix's snapshots, open to other users (who could vouch
    for any file there): fix refuses before it writes a snapshot or changes anything, and an
    undo refuses even a snapshot whose record is there. Exit 2, nothing installed."""
    offline = _wheel_directory(tmp_path)
    state = tmp_path / "state"
    records = state / "ipex-doctor" / "fix-snapshots"
    records.mkdir(parents=True)
    records.chmod(0o777)
    env = {**offline, "XDG_STATE_HOME": str(state)}
    saved = forged.saved_report(tmp_path, victim.python,
                                [forged.action(victim.python, "install", "torchaudio==1.0.0")])  # fmt: skip
    fixed = run_doctor("fix", "--report", str(saved), "--python", victim.python, "--yes",
                       extra_env=env, cwd=tmp_path)  # fmt: skip
    _harmless(victim, fixed, 2, f"{records} is open to other users (mode 777)")
    assert f"tip: chmod 700 {records}" in fixed.stderr
    assert not list(tmp_path.glob("*.snapshot.json"))
    snapshot = _adding_torchaudio(tmp_path, victim)
    digest = hashlib.sha256(snapshot.read_bytes()).hexdigest()
    planted = {"format": "ipex-doctor-snapshot-record", "sha256": digest, "snapshot": str(snapshot)}
    (records / f"{digest}.json").write_text(json.dumps(planted))
    undone = run_doctor("fix", "--undo", str(snapshot), "--yes", extra_env=env, cwd=tmp_path)
    _harmless(victim, undone, 2, f"{records} is open to other users (mode 777)")


# -- files beyond the limits, and a blank --python -----------------------------------------------

DEEP = "[" * 100_000 + "]" * 100_000
DIGITS = "1" * 100_000


def _report_text(shape: str) -> str:
    text = (REPO / "tests" / "assets" / "reports" / "xpu-ipex2120-arc-a770.json").read_text()
    return text.replace('"schema_version"', f'"padding": {DEEP if shape == "deep" else DIGITS}, "schema_version"', 1)  # fmt: skip


SAID = {"deep": "nested deeper than 64 levels", "digits": "a number of 100,000 characters"}
FIXTURE = str(REPO / "tests" / "assets" / "reports" / "xpu-ipex2120-arc-a770.json")


@pytest.mark.parametrize("shape", ["deep", "digits"])
@pytest.mark.parametrize(
    "reader",
    [("fix", "--yes", "--report", "{}"), ("report", "{}"), ("merge", "{}"),
     ("report", FIXTURE, "--baseline", "{}"), ("explain", "boom", "--report", "{}")],
    ids=["fix", "report", "merge", "baseline", "explain"],
)  # fmt: skip
def test_a_report_beyond_the_limits_is_one_line_in_every_reader(
    tmp_path: Path, victim: Victim, shape: str, reader: tuple[str, ...]
) -> None:
    """100,000 levels of nesting, or a 100,000-digit number, in a report: every command that
    reads saved reports refuses it in one line, exit 2 (before: a crash, exit 3)."""
    path = tmp_path / "report.json"
    path.write_text(_report_text(shape))
    done = run_doctor(*(word.format(path) for word in reader), cwd=tmp_path)
    _refused(victim, done, f"{path}: {'holds ' if shape == 'digits' else ''}{SAID[shape]}")


@pytest.mark.parametrize("shape", ["deep", "digits"])
def test_a_snapshot_beyond_the_limits_is_one_line(tmp_path: Path, victim: Victim, shape: str) -> None:  # fmt: skip
    snapshot = forged.snapshot(tmp_path / "s.json", victim.python)
    text = snapshot.read_text().replace('"python"', f'"padding": {DEEP if shape == "deep" else DIGITS}, "python"', 1)  # fmt: skip
    snapshot.write_text(text)
    done = run_doctor("fix", "--undo", str(snapshot), "--yes", cwd=tmp_path)
    _refused(victim, done, f"{snapshot}: {'holds ' if shape == 'digits' else ''}{SAID[shape]}")


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
@pytest.mark.parametrize("undo", [False, True], ids=["fix", "undo"])
def test_a_blank_python_is_a_usage_error(tmp_path: Path, victim: Victim, blank: str, undo: bool) -> None:  # fmt: skip
    """``--python ''`` meant the doctor's own interpreter, silently: now one line, exit 2."""
    snapshot = forged.snapshot(tmp_path / "s.json", victim.python) if undo else None
    more = ("--undo", str(snapshot)) if snapshot else ()
    done = run_doctor("fix", "--python", blank, "--yes", *more, cwd=tmp_path)
    _refused(victim, done, f"--python {blank!r} names no interpreter")


# -- the directory fix is started in -------------------------------------------------------------

_SHADOWED = ("json", "runpy", "zipfile", "csv", "email", "tempfile", "pip")
"""Modules the commands fix runs would import: the standard library's first, then pip."""


def _hostile_directory(tmp_path: Path, marker: Path) -> Path:
    """A checkout holding a module of each name in ``_SHADOWED`` that appends its name to the
    marker when imported (a cloned project with a ``json.py`` or a vendored ``pip/``), and a
    wheel directory ``wheels`` serving torchaudio 1.0.0."""
    tree = tmp_path / "checkout"
    tree.mkdir()
    for name in _SHADOWED:
        package = tree / name
        package.mkdir()
        for module in ("__init__.py", "__main__.py"):
            (package / module).write_text(f"open({str(marker)!r}, 'a').write({name!r} + ' ')\n")
    (tree / "wheels").mkdir()
    build_wheel(tree / "wheels", "torchaudio", "1.0.0")
    return tree


def test_nothing_is_imported_from_the_directory_fix_runs_in(tmp_path: Path, victim: Victim) -> None:  # fmt: skip
    """fix plans, applies and undoes from a directory whose modules shadow the standard
    library's and pip: none of them is imported (``python -c``/``-m`` put the current directory
    first on ``sys.path``; before, the plan alone imported the tree's ``json.py`` and stopped
    on what it printed). The working directory is still pip's: a wheel directory named
    relative to it serves the install and the undo."""
    tree = _hostile_directory(tmp_path, victim.marker)
    offline = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "wheels"}
    saved = forged.saved_report(tmp_path, victim.python,
                                [forged.action(victim.python, "install", "torchaudio==1.0.0")])  # fmt: skip
    # NOTE: the test starts the doctor as `python -P -m ipex_doctor`: plain -m would put the
    # tree first on the doctor's own path, which the installed `ipex-doctor` script never does.
    command = [sys.executable, "-P", "-m", "ipex_doctor", "fix", "--report", str(saved), "--yes",
               "--json", str(tmp_path / "fix.json")]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env=doctor_env(offline),
                          cwd=tree, stdin=subprocess.DEVNULL, timeout=600, check=False)  # fmt: skip
    assert not victim.marker.exists(), victim.marker.read_text()
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr  # torch is still missing
    assert "torchaudio==1.0.0" in freeze(victim.python)
    repair = json.loads((tmp_path / "fix.json").read_text())["repair"]
    assert [a["status"] for a in repair["applied"]] == ["applied"]
    undo = [sys.executable, "-P", "-m", "ipex_doctor", "fix", "--undo", repair["snapshot"], "--yes"]
    done = subprocess.run(undo, capture_output=True, text=True, env=doctor_env(offline),
                          cwd=tree, stdin=subprocess.DEVNULL, timeout=600, check=False)  # fmt: skip
    assert not victim.marker.exists(), victim.marker.read_text()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert freeze(victim.python) == victim.before
