"""report: replay a saved report, re-judged against the current knowledge base.

The XPU fixture is constructed from published issue data (see assets/reports/README.md), not
recorded on Intel hardware: no Intel GPU exists on this project's machines.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import REPO, run_doctor

FIXTURE = REPO / "tests" / "assets" / "reports" / "xpu-ipex2120-arc-a770.json"


def _findings(stdout: str) -> dict[str, dict[str, object]]:
    return {f["id"]: f for f in json.loads(stdout)["findings"]}


def test_replay_of_xpu_report() -> None:
    """A maintainer without the hardware sees the verdicts: grad-mode and dot-half affected."""
    done = run_doctor("report", str(FIXTURE), "--json", "-")
    assert done.returncode == 1
    found = _findings(done.stdout)
    assert (found["grad-mode-divergence"]["verdict"], found["grad-mode-divergence"]["status"]) == (
        "affected",
        "fail",
    )
    assert found["dot-half"]["verdict"] == "affected"
    assert found["xpu-no-fp64"]["verdict"] == "affected"
    assert found["bf16-prepack-isa"]["verdict"] == "not-applicable"  # an XPU build does not prepack


def test_rejudged_against_a_new_knowledge_base(tmp_path: Path) -> None:
    """If the KB learns that 2.1.20 is outside the range, the same observation is a regression."""
    overlay = tmp_path / "kb.yaml"
    overlay.write_text(
        "schema_version: 1\nissues:\n  - id: grad-mode-divergence\n    title: moved range\n"
        "    kind: known-issue\n    severity: error\n    summary: s\n    remediation: r\n"
        "    repro: grad-mode-divergence\n    devices: [xpu]\n    affected:\n"
        '      - package: intel-extension-for-pytorch\n        variant: xpu\n        introduced: "2.1.10"\n'
        '        fixed: "2.1.20"\n    references:\n      - url: https://example.org/x\n'
    )
    done = run_doctor("report", str(FIXTURE), "--kb", str(overlay), "--json", "-")
    assert _findings(done.stdout)["grad-mode-divergence"]["verdict"] == "regression"
    recorded = run_doctor(
        "report", str(FIXTURE), "--kb", str(overlay), "--as-recorded", "--json", "-"
    )
    assert _findings(recorded.stdout)["grad-mode-divergence"]["verdict"] == "affected"


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    """A report from a newer doctor is refused with a clear message, exit 2."""
    data = json.loads(FIXTURE.read_text())
    data["schema_version"] = "2.0"
    path = tmp_path / "new.json"
    path.write_text(json.dumps(data))
    done = run_doctor("report", str(path))
    assert done.returncode == 2 and "written by a newer ipex-doctor" in done.stderr


def test_garbage_is_refused(tmp_path: Path) -> None:
    """Not JSON, not a report, or missing: one line, exit 2, no traceback."""
    cases = {
        "notjson.json": "{oops",
        "list.json": "[1, 2]",
        "partial.json": '{"schema_version": "1.0"}',
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        done = run_doctor("report", str(path))
        assert done.returncode == 2 and "Traceback" not in done.stderr, (name, done.stderr)
    assert run_doctor("report", str(tmp_path / "missing.json")).returncode == 2


def test_replay_keeps_what_is_not_a_verdict(tmp_path: Path) -> None:
    """A scan's summary (what was read, what was skipped) survives the replay unchanged; only
    the verdicts are judged again."""
    (tmp_path / "train.py").write_text(
        "import intel_extension_for_pytorch as ipex\nmodel = ipex.optimize(model)\n"
    )
    saved = tmp_path / "scan.json"
    scanned = run_doctor("scan", str(tmp_path / "train.py"), "--json", str(saved))
    assert scanned.returncode in (0, 1), scanned.stderr
    recorded = json.loads(saved.read_text())
    assert recorded["scan"] is not None
    done = run_doctor("report", str(saved), "--json", "-")
    replayed = json.loads(done.stdout)
    assert replayed["scan"] == recorded["scan"]
    assert {f["id"] for f in replayed["findings"]} == {f["id"] for f in recorded["findings"]}
