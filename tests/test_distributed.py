"""check --distributed under torchrun: 4 CPU ranks with gloo, one rank in another environment.

Ranks 0-2 examine torch 2.13.0+cpu with PyPI torchvision 0.28.0; rank 3 examines torch 2.13.0+cpu
with IPEX 2.8.0. Rank 0 must write one fleet report naming rank 3 as the outlier, with the
collective check's correctness and bandwidth.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, TESTS, doctor_env, real_env

pytestmark = pytest.mark.envs


def test_four_cpu_ranks_with_an_outlier(tmp_path: Path) -> None:
    """One fleet report from rank 0: per-rank findings, rank 3 the outlier, collectives pass."""
    usual, odd = real_env("torch213-tv028"), real_env("torch213-ipex28")
    torchrun = str(Path(usual).parent / "torchrun")
    out = tmp_path / "fleet.json"
    done = subprocess.run(
        [torchrun, "--standalone", "--nproc-per-node", "4", "--no-python", sys.executable,
         str(TESTS / "assets" / "distributed_rank.py"), str(out), usual, odd],
        capture_output=True, text=True, env=doctor_env(), timeout=600, check=False,
    )  # fmt: skip
    # NOTE: rank 0 exits 1 (the fleet has failing findings), which torchrun reports as a failed job.
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stderr.count("report sent to rank 0") == 3
    report = json.loads(out.read_text())
    jsonschema.validate(report, json.loads((REPO / "docs" / "report.schema.json").read_text()))
    assert report["command"] == "fleet" and report["complete"] is True
    outliers = [f for f in report["findings"] if f["id"] == "fleet-outlier"]
    assert len(outliers) == 1 and outliers[0]["device"].endswith(":rank3")
    assert "intel-extension-for-pytorch: 2.8.0" in outliers[0]["evidence"]["summary"]
    collectives = next(f for f in report["findings"] if f["id"] == "fleet-collectives")
    ranks = collectives["evidence"]["data"]["ranks"]
    assert collectives["status"] == "pass" and len(ranks) == 4
    assert all(r["backend"] == "gloo" and r["all_reduce_ok"] and r["all_gather_ok"] for r in ranks)
    assert all(r["busbw_gbps"] > 0 for r in ranks)
    nodes = next(f for f in report["findings"] if f["id"] == "fleet-summary")["evidence"]["data"][
        "nodes"
    ]
    assert len(nodes) == 4
    broken = {
        f["device"].split("/")[0]
        for f in report["findings"]
        if f["id"] == "torchvision-broken" and f["status"] == "fail"
    }
    assert len(broken) == 3
