"""What ``scan --fix`` changed (``model.fix_summary``) is built only by a fix: a report read back
names it in ``Report.fix`` and gets it whole, and a scan without ``--fix`` never builds it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import doctor_env, fresh_interpreter_prints

from ipex_doctor.model.code import SkippedFile
from ipex_doctor.model.findings import Command, Report, ScanSummary
from ipex_doctor.model.fix_summary import FixSummary, RewrittenFile


def test_a_report_with_a_fix_summary_is_read_back_whole_in_a_fresh_interpreter(
    tmp_path: Path,
) -> None:
    """``Report.from_dict`` of a saved report that holds a fix summary, in an interpreter that
    never imported ``model.fix_summary``, imports it then and gives back every field, typed:
    the same JSON again."""
    from builders import make_env

    fix = FixSummary(
        (RewrittenFile("a.py", 2, "0" * 64, "f" * 64),),
        (SkippedFile("b.py", "edited since the scan"),),
        "/tmp/record.json",
    )
    scanned = ScanSummary(("/src",), 3, 2, fix=fix)
    report = Report("0.1.0", "2026-01-01T00:00:00Z", Command.SCAN, make_env({}), (), scan=scanned)
    saved = tmp_path / "fixed.json"
    saved.write_text(json.dumps(report.to_dict()), encoding="utf-8")
    probe = (
        "import json, sys\n"
        "from ipex_doctor.model.findings import Report\n"
        "print('ipex_doctor.model.fix_summary' in sys.modules)\n"
        f"data = json.loads(open({str(saved)!r}, encoding='utf-8').read())\n"
        "back = Report.from_dict(data)\n"
        "fix = back.scan.fix\n"
        "print(type(fix).__name__, type(fix.rewritten[0]).__name__,\n"
        "    type(fix.left_alone[0]).__name__, back.to_dict() == data)\n"
    )
    assert fresh_interpreter_prints(probe) == ["False", "FixSummary RewrittenFile SkippedFile True"]


# NOTE: whether any module the whole command loaded holds the fix's model, at its exit
_BUILT = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('| built:', any(hasattr(module, 'FixSummary')"
    " for module in list(sys.modules.values())), file=sys.stderr))\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)


def test_a_scan_without_fix_never_builds_the_fix_summary(tmp_path: Path) -> None:
    """Its two dataclasses were built by every scan, with the scan's model, though only
    ``scan --fix`` makes one."""
    (tmp_path / "train.py").write_text("import intel_extension_for_pytorch\n", encoding="utf-8")
    env = {**doctor_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", _BUILT, "scan", str(tmp_path), "--no-cache", "--json", "-"],
        capture_output=True, text=True, env=env, check=False, stdin=subprocess.DEVNULL,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["scan"]["fix"] is None
    assert [line for line in done.stderr.splitlines() if line.startswith("| built")] == [
        "| built: False"
    ]
