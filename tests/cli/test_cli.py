"""The command line as a user meets it: real processes, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, doctor_env, make_fake_env, run_doctor

HEAVY = ("torch", "intel_extension_for_pytorch", "torchvision")
PICTURES = ("ipex_doctor.reporting.formats.html", "ipex_doctor.reporting.formats.svg")


LIGHT_FORBIDDEN = (
    *HEAVY, *PICTURES,
    "rich",  # NOTE: the light commands print plain text with click.echo; rich is the console report's
    "yaml", "jsonschema",  # the knowledge base comes from its cache once validated
    "ipex_doctor.reporting.formats.console", "ipex_doctor.model.findings",
    "ipex_doctor.probe.spawn", "ipex_doctor.runs.runner", "ipex_doctor.app.diagnosis",
    "ipex_doctor.app.endings",  # NOTE: only a command that raised needs it
)  # fmt: skip
"""What no light command may import (a name stands for its submodules too)."""
MATCHER = "ipex_doctor.knowledge.explain"
DOT_HALF = "RuntimeError: \"dot\" not implemented for 'Half'"
CODE_RULES = "ipex_doctor.knowledge.code_rules"


@pytest.mark.parametrize(
    ("args", "also_forbidden"),
    [
        (["--help"], ("ipex_doctor.knowledge", "ipex_doctor.reporting", "packaging")),
        (["kb", "list"], (MATCHER,)),
        (["kb", "show", "dot-half"], (MATCHER, CODE_RULES)),
        (["kb", "show", "sanity-train"], (MATCHER, CODE_RULES)),  # a built-in finding
        (["kb", "show", "ipex-import"], (MATCHER,)),  # a code rule of scan
        (["explain", "could not create a primitive descriptor for an inner product"],
         (CODE_RULES, "ipex_doctor.verdicts", "ipex_doctor.probe", "ipex_doctor.runs",
          "ipex_doctor.reporting.saved_reports", "ipex_doctor.app.replay",
          "ipex_doctor.app.code_scan", "ipex_doctor.app.repair")),
        (["repro", "--list"], (MATCHER, CODE_RULES)),
    ],
)  # fmt: skip
def test_light_commands_import_only_what_they_use(
    args: list[str], also_forbidden: tuple[str, ...], tmp_path: Path
) -> None:
    """Each light command imports no torch, IPEX or torchvision, nor the HTML and chart code,
    rich, YAML or the diagnosis, nor what that command does not use (--help: nothing of the
    knowledge base or the reports; the kb commands: not explain's matcher), checked with -X
    importtime so an indirect import counts too; the second run, from the knowledge base's
    cache, is the one held."""
    imported = _imported(args, tmp_path)
    imported = _imported(args, tmp_path)
    assert "ipex_doctor.cli" in imported
    assert not _under(imported, (*LIGHT_FORBIDDEN, *also_forbidden))


@pytest.mark.parametrize(
    "args",
    [["kb", "validate"], ["report", str(REPO / "tests/assets/reports/cpu-reference-check.json")]],
)
def test_reading_commands_never_import_torch(args: list[str], tmp_path: Path) -> None:
    """kb validate (YAML by design) and report re-render: no torch, nor the chart code."""
    imported = _imported(args, tmp_path)
    assert "ipex_doctor.cli" in imported and not _under(imported, HEAVY + PICTURES)


def test_the_import_check_sees_what_a_command_imports(tmp_path: Path) -> None:
    """The other side of the tests above: the matcher, YAML and code rules do show up where
    they are used (a first run, before the cache holds the knowledge base)."""
    imported = _imported(["explain", "operator torchvision::nms does not exist"], tmp_path)
    assert {MATCHER, "yaml", "packaging.version"} <= imported
    assert _under(imported, ("ipex_doctor.knowledge",)) == {
        name for name in imported if name.startswith("ipex_doctor.knowledge")
    }
    assert CODE_RULES in _imported(["kb", "list"], tmp_path)
    # NOTE: explain's use case is loaded through importlib (as_request), which importtime misses
    assert "ipex_doctor.app.explanation" in _imported(["explain", DOT_HALF], tmp_path)


_LIST_MODULES_AT_EXIT = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('| ' + '\\n| '.join(sys.modules), file=sys.stderr))\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)
"""Run the doctor as ``-m`` does and list every loaded module at exit, one per line, as the
-X importtime log does: that log misses a module loaded through ``importlib`` (as the target
of ``as_request`` is), though not what that module itself imports."""


def _imported(args: list[str], cache_home: Path) -> set[str]:
    """The modules ``ipex-doctor ARGS`` imported: its -X importtime log, and every module loaded
    when it exits."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _LIST_MODULES_AT_EXIT, *args],
        capture_output=True,
        text=True,
        env=doctor_env({"XDG_CACHE_HOME": str(cache_home)}),
        check=False,
    )
    # NOTE: this truncated message (without "forward propagation primitive") matches no
    # entry but is oneDNN's own wording, so explain names its layer and exits 4; every other
    # command exits 0, report included: the recorded run's worst finding is a warning, which
    # the default gate (--fail-on fail) lets pass.
    expected = 4 if args[0] == "explain" and "primitive" in args[-1] else 0
    assert done.returncode == expected, done.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}


def _under(imported: set[str], names: tuple[str, ...]) -> set[str]:
    """The modules of ``imported`` that are one of ``names`` or inside one of them."""
    return {m for m in imported if any(m == n or m.startswith(n + ".") for n in names)}


def test_the_html_code_is_imported_when_html_is_asked_for(tmp_path: Path) -> None:
    """The other side of the light-commands test: the import log does show the chart code."""
    recorded = REPO / "tests/assets/reports/cpu-reference-check.json"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ipex_doctor", "report", str(recorded),
         "-q", "--html", str(tmp_path / "r.html")],
        capture_output=True, text=True, env=doctor_env(), check=False,
    )  # fmt: skip
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert set(PICTURES) <= imported and (tmp_path / "r.html").stat().st_size > 10_000


def test_version() -> None:
    """--version prints the version."""
    from ipex_doctor import __version__

    done = run_doctor("--version")
    assert done.returncode == 0 and __version__ in done.stdout


def test_unknown_option_is_usage_error() -> None:
    """A bad option exits 2 with Click's usage message."""
    done = run_doctor("check", "--no-such-option")
    assert done.returncode == 2 and "No such option" in done.stderr


def test_kb_show_unknown_id_suggests() -> None:
    """An unknown id exits 2 with a one-line error and close matches."""
    done = run_doctor("kb", "show", "dot-hlaf")
    assert done.returncode == 2
    assert done.stderr.startswith(
        "ipex-doctor: error: no knowledge-base entry or code rule 'dot-hlaf'"
    )
    assert "dot-half" in done.stderr and "Traceback" not in done.stderr


def test_kb_show_prints_versions_and_references() -> None:
    """kb show gives the range, the fix version, the workaround and the references."""
    done = run_doctor("kb", "show", "dot-half")
    assert done.returncode == 0
    assert "fixed in 2.3.110" in done.stdout and "issues/673" in done.stdout
    assert "autocast" in done.stdout


def test_kb_show_explains_the_id_of_a_scan_finding(tmp_path: Path) -> None:
    """Every id a scan reports can be looked up with kb show (text and JSON), and kb list
    lists the code rules with kind 'code'."""
    (tmp_path / "train.py").write_text(
        "import intel_extension_for_pytorch as ipex\n"
        "model = ipex.optimize(model, dtype=torch.bfloat16)\n"
        "with torch.cpu.amp.autocast():\n    pass\n"
    )
    scan = json.loads(run_doctor("scan", str(tmp_path), "--json", "-").stdout)
    reported = {f["id"] for f in scan["findings"] if f["kind"] == "code"}
    assert len(reported) >= 2
    for rule_id in reported:
        shown = run_doctor("kb", "show", rule_id)
        assert shown.returncode == 0 and shown.stdout.startswith(f"{rule_id}: "), shown.stderr
        assert "kind code (scan rule)" in shown.stdout and "replacement: " in shown.stdout
        as_json = json.loads(run_doctor("kb", "show", rule_id, "--json").stdout)
        assert (as_json["id"], as_json["kind"]) == (rule_id, "code")
    listed = {e["id"]: e["kind"] for e in json.loads(run_doctor("kb", "list", "--json").stdout)}
    assert all(listed[rule_id] == "code" for rule_id in reported)
    near = run_doctor("kb", "show", "ipex-imprt")
    assert near.returncode == 2 and "did you mean ipex-import" in near.stderr


def test_kb_list_json() -> None:
    """kb list --json is machine-readable."""
    done = run_doctor("kb", "list", "--json")
    entries = json.loads(done.stdout)
    assert {"dot-half", "bf16-linear"} <= {e["id"] for e in entries}


def test_kb_validate_malformed_file(tmp_path: Path) -> None:
    """kb validate on a malformed file exits 2 and names the file and line."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: 1\nissues:\n  - id: x-y\n    title: [unclosed\n")
    done = run_doctor("kb", "validate", str(bad))
    assert done.returncode == 2
    assert f"{bad}:" in done.stderr and "malformed YAML" in done.stderr
    assert "Traceback" not in done.stderr


def test_kb_validate_reports_every_file(tmp_path: Path) -> None:
    """Valid files say ok, invalid ones an error, and the exit code is 2 if any failed."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: 2\nissues: []\n")
    good = REPO / "known_issues.yaml"
    done = run_doctor("kb", "validate", str(good), str(bad))
    assert done.returncode == 2
    assert f"ok: {good}" in done.stdout and "bad.yaml" in done.stderr


def test_check_with_invalid_overlay_is_config_error(tmp_path: Path) -> None:
    """check --kb with an invalid overlay exits 2 before probing anything."""
    bad = tmp_path / "site.yaml"
    bad.write_text("schema_version: 1\nissues:\n  - id: Bad_Id\n")
    done = run_doctor("check", "--kb", str(bad))
    assert done.returncode == 2 and "site.yaml:3" in done.stderr


def test_python_missing(tmp_path: Path) -> None:
    """--python that does not exist: exit 2, one line."""
    done = run_doctor("env", "--python", str(tmp_path / "nope" / "python"))
    assert done.returncode == 2
    assert "no such file" in done.stderr and "Traceback" not in done.stderr


def test_python_is_directory(tmp_path: Path) -> None:
    """--python pointing at a venv directory suggests its bin/python."""
    done = run_doctor("env", "--python", str(tmp_path))
    assert done.returncode == 2 and "is a directory" in done.stderr and "bin/python" in done.stderr


def test_python_not_executable(tmp_path: Path) -> None:
    """--python pointing at a plain file: exit 2."""
    path = tmp_path / "python"
    path.write_text("")
    done = run_doctor("env", "--python", str(path))
    assert done.returncode == 2 and "not executable" in done.stderr


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "python"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_python_that_is_not_python(tmp_path: Path) -> None:
    """A shell script that prints fake JSON does not pass the handshake."""
    fake = _script(
        tmp_path, 'echo \'IPEX-DOCTOR-HANDSHAKE {"nonce": "x", "version": [3, 11, 0]}\'\n'
    )
    done = run_doctor("env", "--python", fake)
    assert done.returncode == 2 and "not a usable Python interpreter" in done.stderr


def test_python2_is_refused_by_name(tmp_path: Path) -> None:
    """An interpreter that says it is Python 2.7 is refused with its version."""
    fake = _script(
        tmp_path,
        'echo "IPEX-DOCTOR-HANDSHAKE {\\"nonce\\": \\"$3\\", \\"version\\": [2, 7, 18], '
        '\\"version_text\\": \\"2.7.18\\", \\"executable\\": \\"/usr/bin/python2\\", '
        '\\"implementation\\": \\"CPython\\", \\"prefix\\": \\"/usr\\", \\"base_prefix\\": \\"/usr\\", '
        '\\"path\\": []}"\n',
    )
    done = run_doctor("env", "--python", fake)
    assert done.returncode == 2 and "is Python 2.7.18" in done.stderr


def test_bare_environment(tmp_path: Path) -> None:
    """A venv without torch: finding torch-missing, exit 1, human text on stderr with --json -."""
    python = make_fake_env(tmp_path / "bare", {})
    done = run_doctor("check", "--python", python, "--json", "-")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    finding = next(f for f in report["findings"] if f["id"] == "torch-missing")
    assert finding["status"] == "fail" and finding["remediation"]
    assert "PyTorch is not installed" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [["DIR", "--json"], ["--json", "-q", "DIR"], ["DIR", "--json", "-"], ["--json", "-", "DIR"]],
)
def test_json_alone_writes_the_report_to_stdout(tmp_path: Path, args: list[str]) -> None:
    """``--json`` with no PATH (last, or followed by another option) writes to stdout, as
    ``--json -`` does (explain's ``--json`` prints JSON; a bare one here was a usage error)."""
    (tmp_path / "train.py").write_text("import intel_extension_for_pytorch as ipex\n")
    # NOTE: --fail-on never: the verdict depends on the examined interpreter (the test's own),
    # the exit code must not
    paths = [str(tmp_path) if a == "DIR" else a for a in args]
    done = run_doctor("scan", *paths, "--no-cache", "--fail-on", "never")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["command"] == "scan"
    assert [f["id"] for f in report["findings"] if f["kind"] == "code"] == ["ipex-import"]
    assert "Traceback" not in done.stderr


def test_unwritable_json_path(tmp_path: Path) -> None:
    """An output path in a missing directory: exit 2, one line, nothing half-written."""
    python = make_fake_env(tmp_path / "bare", {})
    done = run_doctor("env", "--python", python, "--json", str(tmp_path / "no" / "r.json"))
    assert done.returncode == 2 and "does not exist" in done.stderr
    assert "Traceback" not in done.stderr


def test_json_write_is_atomic_and_replaces(tmp_path: Path) -> None:
    """The report replaces an earlier one whole; no temporary files are left behind."""
    python = make_fake_env(tmp_path / "bare", {})
    target = tmp_path / "out" / "report.json"
    target.parent.mkdir()
    target.write_text("previous report")
    done = run_doctor("env", "--python", python, "--json", str(target))
    assert done.returncode == 1
    assert json.loads(target.read_text())["command"] == "env"
    assert os.listdir(target.parent) == ["report.json"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_full_disk_is_a_clear_error(tmp_path: Path) -> None:
    """Writing the report to /dev/full fails with one line, exit 2."""
    python = make_fake_env(tmp_path / "bare", {})
    done = run_doctor("env", "--python", python, "--json", "/dev/full")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "cannot write report" in done.stderr


@pytest.mark.parametrize("typed", ["DOT-HALF", "dot_half", " Dot-Half "])
def test_kb_show_ignores_case_and_underscores(typed: str) -> None:
    """An id typed in another case or with underscores finds its entry."""
    done = run_doctor("kb", "show", typed)
    assert done.returncode == 0 and done.stdout.startswith("dot-half:"), done.stderr


def test_kb_show_suggests_across_case() -> None:
    """A misspelled id in capitals still gets the close match."""
    done = run_doctor("kb", "show", "DOT-HLAF")
    assert done.returncode == 2 and "did you mean dot-half?" in done.stderr


def test_kb_validate_reports_every_error_with_its_line(tmp_path: Path) -> None:
    """Every error of a file, each with its line, not only the first; then exit 2."""
    entry = (
        "  - id: {id}\n    title: t\n    kind: environment\n    severity: {severity}\n"
        "    summary: s\n    remediation: r\n    references: [{{url: 'https://example.org'}}]\n"
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "schema_version: 1\nissues:\n"
        + entry.format(id="first-entry", severity="catastrophic")
        + entry.format(id="second-entry", severity="error").replace(
            "    references", "    symptoms: ['(unclosed']\n    references"
        )
        + entry.format(id="second-entry", severity="error")
    )
    done = run_doctor("kb", "validate", str(bad))
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("ipex-doctor: error:")]
    assert len(errors) == 3, done.stderr
    assert f"{bad}:6:" in errors[0] and "severity" in errors[0]
    assert f"{bad}:16:" in errors[1] and "invalid regular expression" in errors[1]
    assert f"{bad}:18:" in errors[2] and "duplicate id" in errors[2]


@pytest.mark.parametrize("how", ["argument", "stdin", "file"])
def test_explain_with_empty_input_is_a_usage_error(tmp_path: Path, how: str) -> None:
    """Nothing to explain is a usage error (exit 2), not "no match"."""
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    args = {
        "argument": ["explain", ""],
        "stdin": ["explain", "-"],
        "file": ["explain", "--file", str(empty)],
    }
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", *args[how]],
        input="\n", capture_output=True, text=True, env=doctor_env(), check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "is empty" in done.stderr, done.stderr


# NOTE: the child first takes Python's own Ctrl-C handler, as an interpreter started from a
# terminal has it: one started under a shell's background job inherits SIGINT ignored, and
# then no Ctrl-C reaches it at all (the test failed only when the suite ran in the background).
_SIGNAL_WHILE_LOADING = """
import os, runpy, signal, sys

signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
SIGNAL = getattr(signal, sys.argv[1])

class Sender:
    def find_spec(self, name, path, target=None):
        if name == "ipex_doctor.cli.commands":
            os.kill(os.getpid(), SIGNAL)
        return None


sys.meta_path.insert(0, Sender())
sys.argv = ["ipex-doctor", "kb", "list"]
runpy.run_module("ipex_doctor", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize(
    ("signal_name", "code", "line"),
    [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated (SIGTERM)")],
)
def test_a_signal_while_the_commands_load_ends_with_its_code_without_a_traceback(
    signal_name: str, code: int, line: str
) -> None:
    """A real SIGINT or SIGTERM, delivered while ``python -m ipex_doctor`` imports its commands
    (half a second on a busy machine, so a Ctrl-C soon after Enter, or a CI job cancelled at
    once, lands there): one line and exit 130 / 143, as any interrupt, never a traceback and
    never death by the signal without a word (before: a ``KeyboardInterrupt`` traceback; for
    SIGTERM, death by the signal, returncode -15, before a use case installed its handler)."""
    done = subprocess.run(
        [sys.executable, "-c", _SIGNAL_WHILE_LOADING, signal_name], capture_output=True,
        text=True, timeout=120, stdin=subprocess.DEVNULL, env=doctor_env(), check=False,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == code, done.stderr
    assert done.stderr.strip() == f"ipex-doctor: error: {line}"
