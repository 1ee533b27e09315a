"""A check's views (``reporting.formats.check_views``: the sanity run's curves and throughput,
the finding x device matrix) are built only for a report that may show them: a whole scan,
whatever its output, never builds their dataclasses, and the console still shows them for a
check's report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TESTS, doctor_env

from ipex_doctor.model.findings import Report
from ipex_doctor.reporting.formats import console
from ipex_doctor.reporting.formats.check_views import finding_matrix, sanity_views

_REPORTS = sorted((TESTS / "assets" / "reports").glob("*.json"))

# NOTE: whether any module the whole command loaded holds a check's views, at its exit
_BUILT = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('| built:', sorted({name for module in"
    " list(sys.modules.values()) for name in ('SanityView', 'Throughput', 'Curve', 'Matrix')"
    " if hasattr(module, name)}), file=sys.stderr))\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)


@pytest.mark.parametrize("output", [["-q"], [], ["-v"], ["--json", "-"], ["--sarif", "-"]], ids=str)
def test_a_scan_never_builds_a_checks_views(tmp_path: Path, output: list[str]) -> None:
    """Their four dataclasses were built by every console report (about 6 ms of CPU), though a
    scan's report has no sanity run and no finding judged per device."""
    (tmp_path / "train.py").write_text(
        "import intel_extension_for_pytorch as ipex\nmodel = ipex.optimize(model)\n",
        encoding="utf-8",
    )
    env = {**doctor_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", _BUILT, "scan", str(tmp_path), "--no-cache", *output],
        capture_output=True, text=True, env=env, check=False, stdin=subprocess.DEVNULL,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ipex.optimize" in done.stdout  # NOTE: the report was written, its finding in it
    built = [line for line in done.stderr.splitlines() if line.startswith("| built")]
    assert built == ["| built: []"]


@pytest.mark.parametrize("saved", _REPORTS, ids=lambda path: path.name)
def test_the_console_still_shows_a_checks_views(saved: Path) -> None:
    """For each saved check: the console's matrix is the one ``finding_matrix`` makes (none
    where no finding was judged per device, which it no longer asks), and its sanity run shows
    a line per device and path the views hold."""
    report = Report.from_dict(json.loads(saved.read_text(encoding="utf-8")))
    matrix = finding_matrix(report)
    lines = [line.plain for line in console._matrix(report)]
    assert lines == [] if matrix is None else lines[1] == matrix.title
    shown = "\n".join(line.plain for line in console._sanity_lines(report))
    for view in sanity_views(report):
        assert f"  {view.device}  " in shown
        assert all(f"{curve.label} loss " in shown for curve in view.curves)
        assert (view.throughput is None) == ("img/s" not in shown)
