"""A scan quotes the user's lines, and its reports travel (a SARIF upload to code scanning, a
JUnit artifact, a Markdown report pasted into an issue): no report may carry a credential the
scanned lines hold. Real ``scan`` and ``report`` processes on a project whose IPEX lines hold
an index URL's password, a GitLab token, a Hugging Face token and a GitHub token; each
finding is still there, its line masked in place (its columns still index it)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_doctor

SECRETS = (
    "glpat-abcdefghijklmnopqrstu",
    "hunter22secret",
    "hf_abcdefghijklmnopqrstuvwxyz12",
    "ghp_abcdefghijklmnopqrstuvwxyz0123",
)
FILES = {
    "Dockerfile": (
        "FROM python:3.11\n"
        "RUN pip install --extra-index-url https://__token__:glpat-abcdefghijklmnopqrstu@gl.example"
        "/api/v4/projects/1/packages/pypi/simple intel_extension_for_pytorch\n"
    ),
    "app.py": (
        "import subprocess\n"
        'subprocess.run(["pip", "install", "--index-url", "https://me:hunter22secret@idx.example/simple",'
        ' "intel-extension-for-pytorch"])\n'
        "import intel_extension_for_pytorch as ipex  # hf_abcdefghijklmnopqrstuvwxyz12\n"
    ),
    "requirements.txt": (
        "intel-extension-for-pytorch==2.3.0\n"
        "--index-url https://pytorch-extension.intel.com/release-whl/stable/xpu/us/"
        " ghp_abcdefghijklmnopqrstuvwxyz0123\n"
    ),
}  # fmt: skip


def _project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "project"
    project.mkdir()
    for name, text in FILES.items():
        (project / name).write_text(text, encoding="utf-8")
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return project, env


def _leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret[4:] in text or secret in text]


def test_no_report_of_a_scan_quotes_a_secret(tmp_path: Path) -> None:
    project, env = _project(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    reports = {kind: out / f"scan.{kind}" for kind in ("json", "sarif", "md", "html", "xml")}
    done = run_doctor(
        "scan", str(project), "--fail-on", "never", "--json", str(reports["json"]),
        "--sarif", str(reports["sarif"]), "--markdown", str(reports["md"]),
        "--html", str(reports["html"]), "--junit-xml", str(reports["xml"]), "-v", extra_env=env,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert _leaks(done.stdout + done.stderr) == []
    for kind, path in reports.items():
        assert _leaks(path.read_text(encoding="utf-8")) == [], kind

    findings = json.loads(reports["json"].read_text(encoding="utf-8"))["findings"]
    quoted = [f for f in findings if f.get("location")]
    # one finding per IPEX line: the two lines with a token in their code, and three more
    assert {(f["location"]["path"], f["location"]["line"]) for f in quoted} >= {
        ("Dockerfile", 2), ("app.py", 2), ("app.py", 3), ("requirements.txt", 1),
        ("requirements.txt", 2),
    }  # fmt: skip
    for finding in quoted:
        lines = FILES[finding["location"]["path"]].splitlines()
        line = lines[finding["location"]["line"] - 1]
        assert len(finding["snippet"]) == len(line)  # masked in place: the columns hold
        # and what was found is shown, at its columns, as it is in the file
        start, end = finding["location"]["column"], finding["location"]["end_column"]
        assert end > start and finding["snippet"][start:end] == line[start:end]
        assert any(name in line[start:end] for name in ("intel", "ipex")), line[start:end]
    masked = {f["location"]["path"]: f["snippet"] for f in quoted}
    assert masked["Dockerfile"].startswith(
        "RUN pip install --extra-index-url https://__token__:***************************@gl.example"
    )
    assert "intel_extension_for_pytorch" in masked["Dockerfile"]  # what was found stays shown


def test_a_saved_report_that_quotes_a_secret_is_masked_when_rendered(tmp_path: Path) -> None:
    """A report saved by an older doctor (or edited) quotes the line whole: replaying it,
    in every format, masks it as a new scan would."""
    project, env = _project(tmp_path)
    saved = tmp_path / "saved.json"
    done = run_doctor(
        "scan", str(project), "--fail-on", "never", "--json", str(saved), "-q", extra_env=env
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(saved.read_text(encoding="utf-8"))
    for finding in report["findings"]:
        if finding.get("location"):
            lines = FILES[finding["location"]["path"]].splitlines()
            finding["snippet"] = lines[finding["location"]["line"] - 1]
    assert _leaks(json.dumps(report))  # the forged report holds them
    saved.write_text(json.dumps(report), encoding="utf-8")

    md = tmp_path / "replayed.md"
    replayed = run_doctor(
        "report", str(saved), "--as-recorded", "--fail-on", "never", "-v", "--json", "-",
        "--markdown", str(md), extra_env=env,
    )  # fmt: skip
    assert replayed.returncode == 0 and "Traceback" not in replayed.stderr, replayed.stderr
    assert _leaks(replayed.stdout + replayed.stderr + md.read_text(encoding="utf-8")) == []
    snippets = [f["snippet"] for f in json.loads(replayed.stdout)["findings"] if f.get("snippet")]
    assert any("https://me:**************@idx.example" in s for s in snippets)
