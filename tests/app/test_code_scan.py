"""``scan`` end to end, as a user runs it: real files, a real examined interpreter (fake venvs
with real package metadata), every format, the gate, --fix and --diff, SARIF validated against
the official OASIS schema."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, make_fake_env, run_doctor

SARIF_SCHEMA = REPO / "tests" / "assets" / "sarif" / "sarif-schema-2.1.0.json"
REPORT_SCHEMA = REPO / "docs" / "report.schema.json"

TRAIN = """\
import torch
import intel_extension_for_pytorch as ipex

model = torch.nn.Linear(4, 4)
with torch.xpu.amp.autocast(dtype=torch.bfloat16):  # the old spelling
    y = model(torch.randn(2, 4))
with torch.cpu.amp.autocast() and torch.no_grad():
    pass
print("ipex.optimize is only mentioned in this string")  # ipex.optimize(model)
print(torch.xpu.has_fp64_dtype())  # ipex-doctor: ignore[xpu-has-fp64-dtype] guarded by our CI
"""


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "train.py").write_text(TRAIN)
    (root / "requirements.txt").write_text("torch==2.8.0\nintel-extension-for-pytorch==2.8.0\n")
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / ".venv" / "hidden.py").write_text("import intel_extension_for_pytorch\n")
    return root


def _torch_only(tmp_path: Path) -> str:
    return make_fake_env(tmp_path / "torch-only", {"torch": ("2.8.0", "")})


def _with_ipex(tmp_path: Path) -> str:
    return make_fake_env(
        tmp_path / "with-ipex",
        {"torch": ("2.8.0", ""), "intel_extension_for_pytorch": ("2.8.0+cpu", "")},
    )


def _scan(*args: str) -> tuple[int, dict[str, object], str]:
    done = run_doctor("scan", *args, "--json", "-")
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def _statuses(report: dict[str, object]) -> dict[str, str]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return {f"{f['id']}@{f['location']['line']}": f["status"] for f in findings}


def test_the_verdict_names_the_line_and_the_environment(tmp_path: Path) -> None:
    """Without IPEX the IPEX-only API fails; with the CPU build of IPEX the XPU-only one still
    fails; strings and comments are not calls; the venv is not read; suppression is a skip."""
    project = _project(tmp_path / "project")
    code, report, _ = _scan(str(project), "--python", _torch_only(tmp_path))
    assert code == 1
    statuses = _statuses(report)
    assert statuses["xpu-amp-autocast@5"] == "fail"
    assert statuses["ipex-import@2"] == "fail"
    assert statuses["with-and@7"] == "fail"
    assert statuses["xpu-has-fp64-dtype@10"] == "skip"
    assert not any(key.endswith("@9") for key in statuses), statuses  # the string, the comment
    findings = {f["id"]: f for f in report["findings"]}  # type: ignore[union-attr]
    autocast = findings["xpu-amp-autocast"]
    assert autocast["location"]["path"] == "train.py"
    assert "train.py:5" in autocast["evidence"]["summary"]
    assert "IPEX is not installed" in autocast["evidence"]["summary"]
    assert findings["xpu-has-fp64-dtype"]["evidence"]["data"]["suppressed"] == "guarded by our CI"
    paths = {f["location"]["path"] for f in report["findings"]}  # type: ignore[union-attr]
    assert paths == {"train.py", "requirements.txt"}
    assert report["scan"]["files_seen"] >= 2  # type: ignore[index]

    _, with_ipex, _ = _scan(str(project), "--python", _with_ipex(tmp_path))
    statuses = _statuses(with_ipex)
    assert statuses["ipex-import@2"] == "warn"  # works today, breaks once IPEX goes
    assert statuses["xpu-amp-autocast@5"] == "fail"  # the CPU build of IPEX lacks torch.xpu.amp
    summary = next(f for f in with_ipex["findings"] if f["id"] == "xpu-amp-autocast")  # type: ignore[union-attr]
    assert "CPU build" in summary["evidence"]["summary"]


def test_sarif_is_valid_against_the_official_schema(tmp_path: Path) -> None:
    """The SARIF log validates against the OASIS 2.1.0 schema (errata 01), carries the rules
    with help and links, 1-based columns, the suppression in source, and fixes for the
    mechanical rewrites."""
    project = _project(tmp_path / "project")
    sarif = tmp_path / "scan.sarif"
    done = run_doctor(
        "scan", str(project), "--python", _torch_only(tmp_path), "--sarif", str(sarif)
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    log = json.loads(sarif.read_text())
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    run = log["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert {"xpu-amp-autocast", "with-and", "ipex-import"} <= set(rules)
    assert all(r["helpUri"].startswith("https://") and r["help"]["text"] for r in rules.values())
    results = {r["ruleId"]: r for r in run["results"]}
    autocast = results["xpu-amp-autocast"]
    region = autocast["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 5 and region["startColumn"] == 6
    assert autocast["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "train.py"
    assert results["xpu-has-fp64-dtype"]["suppressions"][0]["kind"] == "inSource"
    assert run["results"][0]["ruleIndex"] == list(rules).index(run["results"][0]["ruleId"])


def test_fix_reports_name_the_rewritten_files_and_validate(tmp_path: Path) -> None:
    """After --fix the JSON report (valid against docs/report.schema.json) names each file
    rewritten with the SHA-256 of its bytes before and after and the undo record; the SARIF
    log (valid against the OASIS schema) lists it as a modified artifact with the same hash."""
    project = _project(tmp_path / "project")
    before = hashlib.sha256((project / "train.py").read_bytes()).hexdigest()
    sarif, report = tmp_path / "scan.sarif", tmp_path / "scan.json"
    done = run_doctor(
        "scan", str(project), "--python", _torch_only(tmp_path), "--fix", "-q",
        "--sarif", str(sarif), "--json", str(report),
        extra_env={"XDG_STATE_HOME": str(tmp_path / "state")},
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    after = hashlib.sha256((project / "train.py").read_bytes()).hexdigest()
    document = json.loads(report.read_text())
    jsonschema.Draft202012Validator(json.loads(REPORT_SCHEMA.read_text())).validate(document)
    fix = document["scan"]["fix"]
    assert fix["rewritten"] == [
        {"path": "train.py", "rewrites": 3, "sha256_before": before, "sha256_after": after}
    ]
    assert Path(fix["undo_record"]).is_file() and fix["left_alone"] == []
    log = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    assert log["runs"][0]["artifacts"] == [
        {"location": {"uri": "train.py", "uriBaseId": "%SRCROOT%"}, "roles": ["modified"],
         "hashes": {"sha-256": after}}
    ]  # fmt: skip
    assert f"Rewrote 1 file (to undo: ipex-doctor scan --undo {fix['undo_record']})" in done.stdout


def test_diff_writes_nothing_and_fix_leaves_what_is_not_mechanical(tmp_path: Path) -> None:
    """--diff shows the rewrite and writes nothing; --fix rewrites atomically (mode kept), the
    file still parses, a second --fix changes nothing, and the report shows what is left."""
    project = _project(tmp_path / "project")
    train = project / "train.py"
    train.chmod(0o640)
    python = _torch_only(tmp_path)
    before = train.read_text()
    done = run_doctor("scan", str(project), "--python", python, "--diff", "-q")
    assert "+with torch.amp.autocast(" in done.stderr and train.read_text() == before
    fixed = run_doctor("scan", str(project), "--python", python, "--fix", "--json", "-")
    assert "Traceback" not in fixed.stderr, fixed.stderr
    after = train.read_text()
    assert after != before and (train.stat().st_mode & 0o777) == 0o640
    compile(after, "train.py", "exec")
    assert 'torch.amp.autocast("xpu"' in after and "# the old spelling" in after
    assert 'with torch.amp.autocast("cpu"' in after and "), torch.no_grad():" in after
    left = {f["id"] for f in json.loads(fixed.stdout)["findings"]}
    assert "xpu-amp-autocast" not in left and "with-and" not in left
    assert "xpu-has-fp64-dtype" in left  # suppressed: not rewritten
    again = run_doctor("scan", str(project), "--python", python, "--fix", "-q")
    assert train.read_text() == after, again.stderr


def test_what_fix_leaves_alone_is_said_in_sentences(tmp_path: Path) -> None:
    """A place a fix refuses and a file it cannot read as UTF-8 are each one line saying
    where and why (no record's repr, no reason said twice); a file name with a newline is
    quoted, so it cannot break the line."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "latin.py").write_bytes(
        b"# coding: latin-1\n# caf\xe9\nimport torch\nwith torch.xpu.amp.autocast():\n    pass\n"
    )
    (project / "odd\nname.py").write_text(
        "import torch\nkw = {}\nwith torch.xpu.amp.autocast(**kw):\n    pass\n"
    )
    done = run_doctor(
        "scan", str(project), "--python", _torch_only(tmp_path), "--fix", "-q",
        extra_env={"XDG_STATE_HOME": str(tmp_path / "state")},
    )  # fmt: skip
    assert "Traceback" not in done.stderr and "Refusal(" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("left alone")]
    assert lines == [
        "left alone: latin.py: not UTF-8 text (invalid continuation byte)",
        'left alone: "odd\\nname.py", line 3: autocast-xpu was not applied: arguments passed '
        "with * or ** cannot be mapped onto torch.amp.autocast's parameters, nor its defaults "
        "pinned: rewrite by hand",
    ]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--fix", "--diff"], "choose one"),
        (["/no/such/dir"], "does not exist"),
        (["--exclude", "[z-a]"], "exclude"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], said: str) -> None:
    (tmp_path / "a.py").write_text("import torch\n")
    done = run_doctor("scan", *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr


def test_unparsable_files_are_skipped_with_the_reason(tmp_path: Path) -> None:
    """Python 2, a binary with a .py name and a notebook that is not JSON: skipped, said why."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "old.py").write_text("import intel_extension_for_pytorch\nprint 'hello'\n")
    (project / "blob.py").write_bytes(b"\x00\x01intel_extension_for_pytorch\x00")
    (project / "nb.ipynb").write_text("{ not json intel_extension_for_pytorch")
    code, report, _ = _scan(str(project), "--python", _torch_only(tmp_path))
    skipped = {s["path"]: s["reason"] for s in report["scan"]["skipped"]}  # type: ignore[index]
    assert set(skipped) == {"old.py", "blob.py", "nb.ipynb"}, skipped
    assert code == 0 and report["findings"] == []


def test_a_scan_of_this_repository_reports_nothing() -> None:
    """Its policy file leaves out what names IPEX on purpose; the two deliberate uses left are
    suppressed inline, with their reasons."""
    done = run_doctor("scan", "--json", "-", "-q", cwd=REPO)
    assert done.returncode == 0, done.stderr
    findings = json.loads(done.stdout)["findings"]
    assert all(f["status"] == "skip" and f["evidence"]["data"]["suppressed"] for f in findings)


def test_check_code_adds_the_code_findings_judged_against_the_probed_environment(
    tmp_path: Path,
) -> None:
    """``check --code PATH``: the environment's findings and the code's, in one report, the
    code judged against the environment the check examined."""
    from conftest import FAKE_TORCH_OK

    project = _project(tmp_path / "project")
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", FAKE_TORCH_OK)})
    done = run_doctor(
        "check", "--python", python, "--skip-sanity", "--code", str(project), "--json", "-", "-q"
    )
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    kinds = {f["kind"] for f in report["findings"]}
    assert {"environment", "code"} <= kinds
    autocast = next(f for f in report["findings"] if f["id"] == "xpu-amp-autocast")
    assert (
        autocast["status"] == "fail" and "IPEX is not installed" in autocast["evidence"]["summary"]
    )
    assert report["scan"]["files_seen"] >= 2
    assert done.returncode == 1
