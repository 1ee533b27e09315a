"""The comparison with a baseline (``model.baseline``) is built only by a run that compares: a
report read back names it in ``Report.baseline`` and gets it whole, and a scan never builds it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import TESTS, doctor_env, fresh_interpreter_prints

from ipex_doctor.model.findings import Report
from ipex_doctor.verdicts import baseline

RECORDED = TESTS / "assets" / "reports" / "cpu-reference-check.json"


def test_a_report_with_a_baseline_is_read_back_whole_in_a_fresh_interpreter(
    tmp_path: Path,
) -> None:
    """``Report.from_dict`` of a saved report that holds a comparison, in an interpreter that
    never imported ``model.baseline``, imports it then and gives back every field, typed (the
    deltas dataclasses, a reason not compared its enum): the same JSON again."""
    data = json.loads(RECORDED.read_text(encoding="utf-8"))
    for finding in data["findings"]:
        if finding["id"] == "sanity-throughput":
            finding["evidence"]["data"]["train_amp"] *= 0.5  # NOTE: a regression to compare
    report = Report.from_dict(data)
    compared = baseline.attach(report, Report.from_dict(json.loads(RECORDED.read_text())), "b")
    assert compared.baseline is not None and compared.baseline.throughput
    saved = tmp_path / "compared.json"
    saved.write_text(json.dumps(compared.to_dict()), encoding="utf-8")
    probe = (
        "import json, sys\n"
        "from ipex_doctor.model.findings import Report\n"
        "print('ipex_doctor.model.baseline' in sys.modules)\n"
        f"data = json.loads(open({str(saved)!r}, encoding='utf-8').read())\n"
        "back = Report.from_dict(data)\n"
        "print(type(back.baseline).__name__, type(back.baseline.throughput[0]).__name__,\n"
        "    back.to_dict() == data)\n"
    )
    assert fresh_interpreter_prints(probe) == ["False", "BaselineComparison ThroughputDelta True"]


# NOTE: whether any module the whole command loaded holds the comparison's model, at its exit
_BUILT = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('| built:', any(hasattr(module, 'BaselineComparison')"
    " for module in list(sys.modules.values())), file=sys.stderr))\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)


def test_a_scan_never_builds_the_comparison_with_a_baseline(tmp_path: Path) -> None:
    """Its four dataclasses and enum (about 7 ms of CPU to build) were built by every scan,
    with the report's model, though only ``check --baseline`` makes one."""
    (tmp_path / "train.py").write_text("import intel_extension_for_pytorch\n", encoding="utf-8")
    env = {**doctor_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", _BUILT, "scan", str(tmp_path), "--no-cache", "--json", "-"],
        capture_output=True, text=True, env=env, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["baseline"] is None
    assert [line for line in done.stderr.splitlines() if line.startswith("| built")] == [
        "| built: False"
    ]
