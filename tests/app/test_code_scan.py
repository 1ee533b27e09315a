"""``scan`` end to end, as a user runs it: real files, a real examined interpreter (fake venvs
with real package metadata), every format, the gate, --fix and --diff, SARIF validated against
the official OASIS schema."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest
from conftest import REPO, doctor_env, make_fake_env, run_doctor

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


def test_fix_keeps_an_ipex_import_another_module_imports_the_name_of(tmp_path: Path) -> None:
    """``pkg/hw.py`` never uses the ``ipex`` it imports, but ``pkg/model.py`` imports it from
    there: removing it (the unused-import fix) would break that import. --fix leaves it, says
    why in the finding, and still removes the unused import of a module nobody imports from."""
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    hw = "import torch\nimport intel_extension_for_pytorch as ipex\n\nDEVICE = 'xpu'\n"
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "hw.py").write_text(hw)
    (project / "pkg" / "model.py").write_text(
        "from pkg.hw import ipex\n\n\ndef run(m):\n    return ipex.optimize(m)\n"
    )
    (project / "pkg" / "alone.py").write_text(
        "import torch\nimport intel_extension_for_pytorch\n\nx = torch.zeros(1)\n"
    )
    python = _torch_only(tmp_path)
    code, report, _ = _scan(str(project), "--python", python)
    kept = [
        f for f in report["findings"]
        if f["id"] == "ipex-import" and f["location"]["path"] == "pkg/hw.py"
    ]  # fmt: skip
    assert len(kept) == 1 and kept[0]["evidence"]["data"]["imported_by"] == "pkg/model.py:1 (ipex)"
    assert "--fix leaves this import" in kept[0]["remediation"]
    assert "mechanical" not in kept[0]["remediation"]
    fixed = run_doctor("scan", str(project), "--python", python, "--fix", "-q")
    assert "Traceback" not in fixed.stderr, fixed.stderr
    assert (project / "pkg" / "hw.py").read_text() == hw
    assert "intel_extension_for_pytorch" not in (project / "pkg" / "alone.py").read_text()


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


def _unreadable_project(root: Path) -> dict[str, str]:
    """A project of files that each name IPEX and that the scan cannot read, with a word of
    each reason; a file closed to this user only where the test runs unprivileged (root reads
    it anyway)."""
    root.mkdir()
    with (root / "generated.py").open("w") as big:  # 50 MB, over the 10 MiB limit
        big.write("import intel_extension_for_pytorch\n")
        big.write("TABLE = [\n" + "    1234567890,\n" * (50 * 1024 * 1024 // 16) + "]\n")
    (root / "blob.py").write_bytes(b"\x00\x01intel_extension_for_pytorch\x00")
    (root / "latin.py").write_bytes(b"import intel_extension_for_pytorch\nname = '\xe9t\xe9'\n")
    (root / "old.py").write_text("import intel_extension_for_pytorch\nprint 'hello'\n")
    (root / "nb.ipynb").write_text("{ not json intel_extension_for_pytorch")
    reasons = {"generated.py": "too large", "blob.py": "binary", "latin.py": "utf-8",
               "old.py": "Python 3", "nb.ipynb": "not JSON"}  # fmt: skip
    if os.geteuid() != 0:
        locked = root / "locked.py"
        locked.write_text("import intel_extension_for_pytorch\n")
        locked.chmod(0)
        reasons["locked.py"] = "Permission denied"
    return reasons


def test_files_that_cannot_be_read_are_never_silent(tmp_path: Path) -> None:
    """A 50 MB file that imports IPEX, a binary, a file that is not UTF-8, Python 2, a notebook
    that is not JSON (and, unprivileged, a file closed to the user): the console counts them
    and -v names each with why; JSON keeps each in scan.skipped and one scan-unread warning;
    the default gate passes, --fail-on warn fails on it, an ignore with a reason accepts it;
    SARIF carries each as a tool execution notification at the file."""
    reasons = _unreadable_project(tmp_path / "project")
    project, python = str(tmp_path / "project"), _torch_only(tmp_path)
    count = len(reasons)

    done = run_doctor("scan", project, "--python", python, "--no-cache")
    assert done.returncode == 0, done.stderr
    assert f"{count} files could not be read" in done.stdout and "no findings" not in done.stdout
    assert "-v lists each file and why" in done.stdout
    verbose = run_doctor("scan", project, "--python", python, "--no-cache", "-v").stdout
    for name, why in reasons.items():
        line = next(line for line in verbose.splitlines() if line.strip().startswith(name + ":"))
        assert why in line, (name, line)

    code, report, _ = _scan(project, "--python", python, "--no-cache")
    jsonschema.validate(report, json.loads((REPO / "docs" / "report.schema.json").read_text()))
    skipped = {s["path"]: s["reason"] for s in report["scan"]["skipped"]}  # type: ignore[index]
    assert set(skipped) == set(reasons), skipped
    assert all(why in skipped[name] for name, why in reasons.items()), skipped
    findings = report["findings"]
    assert isinstance(findings, list) and [f["id"] for f in findings] == ["scan-unread"]
    assert findings[0]["status"] == "warn" and findings[0]["location"] is None
    assert len(findings[0]["evidence"]["data"]["skipped"]) == count

    gated = run_doctor("scan", project, "--python", python, "--fail-on", "warn", "-q")
    assert gated.returncode == 1 and "scan-unread" in gated.stdout, gated.stdout
    accepted = run_doctor("scan", project, "--python", python, "--fail-on", "warn", "-q",
                          "--ignore", "scan-unread=generated tables, checked by hand")  # fmt: skip
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr

    sarif = tmp_path / "scan.sarif"
    run_doctor("scan", project, "--python", python, "--sarif", str(sarif), "-q")
    log = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is True
    notes = {
        n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: n
        for n in invocation["toolExecutionNotifications"]
    }
    assert set(notes) == set(reasons)
    assert all(n["level"] == "warning" and why in n["message"]["text"]
               for n, why in ((notes[name], why) for name, why in reasons.items()))  # fmt: skip


ODD_NAMES = ("with space.py", "per%cent.py", "hash#tag.py", "what?.py", "colon:first.py",
             "ünïcødé.py", "日本.py", "new\nline.py", "tab\there.py", "bell\x07.py")  # fmt: skip


def test_sarif_uris_are_rfc_3986_relative_references(tmp_path: Path) -> None:
    """Files with spaces, %, #, ?, a colon, non-ASCII and control characters in their names
    (in a directory with one too): each result's URI is a relative reference of unreserved
    characters, / and %XX escapes only, that decodes (UTF-8) to the path the report names."""
    project = tmp_path / "project"
    folder = project / "sub dir#1"
    folder.mkdir(parents=True)
    for name in ODD_NAMES:
        (folder / name).write_text("import torch\nwith torch.xpu.amp.autocast():\n    pass\n")
    sarif = tmp_path / "scan.sarif"
    done = run_doctor("scan", str(project), "--python", _torch_only(tmp_path), "--diff",
                      "--sarif", str(sarif), "-q")  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    log = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    uris = [
        location["artifactLocation"]
        for result in log["runs"][0]["results"]
        for location in [r["physicalLocation"] for r in result["locations"]]
        + [c for fix in result.get("fixes", ()) for c in fix["artifactChanges"]]
    ]
    decoded = {unquote(u["uri"], errors="strict") for u in uris}
    assert decoded == {f"sub dir#1/{name}" for name in ODD_NAMES}
    for location in uris:
        assert re.fullmatch(r"(?:[A-Za-z0-9\-._~/]|%[0-9A-F]{2})+", location["uri"]), location
        assert location["uriBaseId"] == "%SRCROOT%" and not location["uri"].startswith("/")


def test_the_summary_says_how_many_files_were_read(tmp_path: Path) -> None:
    """A scan says how much it read, in the console's summary and under the Markdown counts:
    a scan of the wrong directory (nothing of a kind it reads) or one whose excludes left
    everything out reads "no file read" and what to check, not a bare "no findings"."""
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "model.py").write_text("import torch\n")
    (tree / "run.sh").write_text("python -m pkg.model\n")
    (tree / "notes.bin").write_bytes(b"\x00\x01")  # not a kind scan reads
    for args, said in (([], "2 files read"), (["--exclude", "*"], "no file read (check the "
                       "paths given, scan.exclude and .gitignore)"), (["pkg"], "1 file read")):  # fmt: skip
        done = run_doctor("scan", *args, "--no-cache", cwd=tree)
        assert done.returncode == 0, done.stderr
        summary = next(line for line in done.stdout.splitlines() if line.startswith("Summary: "))
        assert summary.startswith(f"Summary: no findings · {said} · gate "), summary
        markdown = run_doctor("scan", *args, "--no-cache", "--markdown", "-", cwd=tree).stdout
        assert f"\nno findings ({said})\n" in markdown, markdown[:500]


def test_a_scan_of_this_repository_reports_nothing() -> None:
    """Its policy file leaves out what names IPEX on purpose; the deliberate uses left are
    suppressed inline, with their reasons. In a linked worktree (``.git`` is a file) the scan
    says it did not follow it, and nothing else."""
    done = run_doctor("scan", "--json", "-", "-q", cwd=REPO)
    assert done.returncode == 0, done.stderr
    findings = json.loads(done.stdout)["findings"]
    if (REPO / ".git").is_file():
        unread = [f for f in findings if f["id"] == "scan-unread"]
        assert [s["path"] for f in unread for s in f["evidence"]["data"]["skipped"]] == [".git"]
        findings = [f for f in findings if f["id"] != "scan-unread"]
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


def test_each_line_gets_the_first_edit_that_covers_it() -> None:
    """A finding's edit is the first of its file's edits (in order) whose range covers its line,
    an insertion covering only its point: the lookup that replaced a search per finding."""
    from ipex_doctor.app.code_scan import _edits_by_line
    from ipex_doctor.model.code import LineEdit

    insert = LineEdit(start=3, end=2, text="import torch\n")
    replace = LineEdit(start=3, end=5, text="x\n")
    later = LineEdit(start=9, end=9, text="y\n")
    index = _edits_by_line({"a.py": [insert, replace, later], "b.py": []})
    assert index["a.py"] == {3: insert, 4: replace, 5: replace, 9: later}
    assert index["b.py"] == {}


def test_sarif_fixes_land_on_their_lines_past_a_form_feed(tmp_path: Path) -> None:
    """Lines are Python's (``\\r\\n``, ``\\r``, ``\\n``) in the findings and in their SARIF fixes
    alike: past a form feed or a ``\\u2028`` (where ``str.splitlines`` also breaks) each fixable
    finding carries the fix of its own lines, and applying every fix gives what ``--fix``
    writes (before: the edits were a line off, the first finding had none and the second's
    deleted ``keep_me = 1``)."""
    text = (
        "import torch\n\x0c\n# a page break above, a line separator here: \u2028.\n"
        "a = torch.xpu.amp.autocast()\nb = torch.xpu.amp.GradScaler()\nkeep_me = 1\n"
    )
    trees = {}
    for name in ("diffed", "fixed"):
        trees[name] = tmp_path / name
        trees[name].mkdir()
        (trees[name] / "m.py").write_text(text, encoding="utf-8", newline="")
    sarif = tmp_path / "scan.sarif"
    python = _torch_only(tmp_path)
    diffed = run_doctor("scan", str(trees["diffed"]), "--python", python, "--diff", "-q",
                        "--sarif", str(sarif))  # fmt: skip
    fixed = run_doctor("scan", str(trees["fixed"]), "--python", python, "--fix", "-q",
                       extra_env={"XDG_STATE_HOME": str(tmp_path / "state")})  # fmt: skip
    for done, code in ((diffed, 1), (fixed, 0)):
        assert done.returncode == code and "Traceback" not in done.stderr, done.stderr
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"xpu-amp-autocast", "xpu-amp-grad-scaler"}
    replacements = set()
    for result in results:
        line = result["locations"][0]["physicalLocation"]["region"]["startLine"]
        (fix,) = result["fixes"]
        (change,) = fix["artifactChanges"]
        for replacement in change["replacements"]:
            region = replacement["deletedRegion"]
            assert region["startLine"] <= line < region["endLine"]
            replacements.add((region["startLine"], region["endLine"],
                              replacement["insertedContent"]["text"]))  # fmt: skip
    lines = re.split(r"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)", text)
    for start, end, inserted in sorted(replacements, reverse=True):
        lines[start - 1 : end - 1] = [inserted]
    assert "".join(lines) == (trees["fixed"] / "m.py").read_bytes().decode("utf-8")
    assert "".join(lines) != text


_MODULES_AT_EXIT = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('| ' + '\\n| '.join(sys.modules), file=sys.stderr))\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)
_JUDGING = (
    "ipex_doctor.verdicts.judge",
    "ipex_doctor.verdicts.rules",
    "ipex_doctor.verdicts.fatal_imports",
    "ipex_doctor.model.observations",
)


@pytest.mark.parametrize("with_torch", [False, True], ids=["no torch", "torch"])
def test_the_knowledge_base_is_judged_only_where_the_interpreter_has_torch(
    tmp_path: Path, with_torch: bool
) -> None:
    """A scan judges the knowledge base only where the examined interpreter has torch (else
    its matches go by the rules alone): only then are the judging's modules imported (they
    cost a scan without torch about 5 ms of its imports), nor is the baseline's reader imported
    by a scan without --baseline. With torch both happen, and the findings say so; the judging's
    remedies name their pip verb, never the repair's model (``model.repair``: the seven
    dataclasses of what a ``fix`` planned and applied), which a scan imports in neither case."""
    project = _project(tmp_path / "project")
    python = _torch_only(tmp_path) if with_torch else _with_no_torch(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", _MODULES_AT_EXIT, "scan", str(project), "--python", python,
         "--no-cache", "--json", "-"],
        capture_output=True, text=True, env=doctor_env(), check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]
    imported = {line[2:] for line in done.stderr.splitlines() if line.startswith("| ")}
    assert "ipex_doctor.app.code_scan" in imported
    assert ("ipex_doctor.reporting.saved_reports" in imported) is False
    assert {m for m in _JUDGING if m in imported} == (set(_JUDGING) if with_torch else set())
    assert "ipex_doctor.model.repair" not in imported
    report = json.loads(done.stdout)
    summaries = [f["evidence"]["summary"] for f in report["findings"]]
    alone = [s for s in summaries if "judged by the rule alone" in s]
    assert (alone == []) is with_torch, summaries


def _with_no_torch(tmp_path: Path) -> str:
    return make_fake_env(tmp_path / "no-torch", {"numpy": ("2.0.0", "")})


@pytest.mark.parametrize("records", ["none", "finished", "stopped"])
def test_the_fix_journal_is_imported_only_where_a_stopped_run_left_its_record(
    tmp_path: Path, records: str
) -> None:
    """A scan looks for records of stopped ``--fix`` runs with one listing of the records'
    directory; the journal (which reads and checks them) is imported only where a stopped
    run's ``applying`` record is there, and that record is then read (this one is no record:
    the scan says so in a warning, as it always has)."""
    project = _project(tmp_path / "project")
    state = tmp_path / "state"
    fixes = state / "ipex-doctor" / "fixes"
    if records != "none":
        fixes.mkdir(parents=True, mode=0o700)
        (fixes / "fix-20261126T000000Z-0badc0de.json").write_text("{}")
    if records == "stopped":
        (fixes / "fix-20261126T000001Z-0badc0de.applying.json").write_text("not a record")
    done = subprocess.run(
        [sys.executable, "-c", _MODULES_AT_EXIT, "scan", str(project), "--python",
         _with_no_torch(tmp_path), "--no-cache", "-q"],
        capture_output=True, text=True, env=doctor_env({"XDG_STATE_HOME": str(state)}),
        check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    imported = {line[2:] for line in done.stderr.splitlines() if line.startswith("| ")}
    assert "ipex_doctor.app.code_scan" in imported
    stopped = records == "stopped"
    assert ("ipex_doctor.scan.fix.journal" in imported) is stopped
    warned = [line for line in done.stderr.splitlines() if "applying.json" in line]
    assert bool(warned) is stopped and all("warning: " in line for line in warned)
