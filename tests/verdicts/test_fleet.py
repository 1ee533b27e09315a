"""merge: several nodes' reports into one fleet report that names the outliers."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from conftest import REPO, run_doctor

FIXTURE = REPO / "tests" / "assets" / "reports" / "xpu-ipex2120-arc-a770.json"
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())


def _nodes(tmp_path: Path, count: int = 4) -> list[Path]:
    """``count`` copies of the constructed XPU report; the last one has another torch and driver."""
    paths = []
    for index in range(count):
        data = json.loads(FIXTURE.read_text())
        if index == count - 1:
            for package in data["environment"]["packages"]:
                if package["name"] == "torch":
                    package["version"] = "2.1.0"
            data["environment"]["runtime"]["devices"][0]["driver_version"] = "1.3.26918"
        path = tmp_path / f"node{index}.json"
        path.write_text(json.dumps(data))
        paths.append(path)
    return paths


def test_merge_names_the_outlier(tmp_path: Path) -> None:
    """The node with another torch and driver is the one outlier, with both differences."""
    done = run_doctor("merge", *map(str, _nodes(tmp_path)), "--json", "-")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    jsonschema.validate(report, SCHEMA)
    assert report["command"] == "fleet"
    outliers = [f for f in report["findings"] if f["id"] == "fleet-outlier"]
    assert [f["device"] for f in outliers] == ["node3"]
    summary = outliers[0]["evidence"]["summary"]
    assert "package torch: 2.1.0" in summary and "device driver" in summary
    nodes = next(f for f in report["findings"] if f["id"] == "fleet-summary")["evidence"]["data"][
        "nodes"
    ]
    assert set(nodes) == {"node0", "node1", "node2", "node3"}
    devices = {f["device"] for f in report["findings"] if f["id"] == "grad-mode-divergence"}
    assert devices == {"node0/xpu:0", "node1/xpu:0", "node2/xpu:0", "node3/xpu:0"}


def test_merge_matrix_and_gate(tmp_path: Path) -> None:
    """The console shows the finding x node matrix; the gate applies to the fleet report."""
    paths = list(map(str, _nodes(tmp_path)))
    done = run_doctor("merge", *paths)
    assert "Finding x node" in done.stdout and "node0  node1  node2  node3" in done.stdout
    ignored = run_doctor(
        "merge", *paths, "--fail-on", "never", "--ignore", "fleet-outlier=node3 is being reimaged"
    )
    assert ignored.returncode == 0


def test_identical_nodes_have_no_outlier(tmp_path: Path) -> None:
    """Three identical nodes: no fleet-outlier finding."""
    data = FIXTURE.read_text()
    paths = []
    for index in range(3):
        path = tmp_path / f"same{index}.json"
        path.write_text(data)
        paths.append(str(path))
    report = json.loads(run_doctor("merge", *paths, "--json", "-").stdout)
    assert not [f for f in report["findings"] if f["id"] == "fleet-outlier"]


def test_merge_refuses_garbage(tmp_path: Path) -> None:
    """A file that is not a report: exit 2, one line."""
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    done = run_doctor("merge", str(FIXTURE), str(bad))
    assert done.returncode == 2 and "not JSON" in done.stderr
