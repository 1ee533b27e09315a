"""``fix --yes`` and ``fix --undo`` on copies of the real broken stacks: green? exact undo?

    python benchmarks/fix_environments.py [--json PATH] [NAME ...]

For each broken environment of tests/testenvs.py (default: all five; they are built first if
missing) on a hard-linked copy: ``pip freeze --all`` before; ``fix --yes`` timed from command
to verdict; a full ``check`` (with the sanity run) after, which must exit 0; ``fix --undo``;
``pip freeze --all`` again, which must equal the first. The plan's download estimate (sizes
from the index) is set against what pip reported fetching, in the install and while planning
(a dry run downloads every wheel it resolves where the index serves no metadata files). The
healthy reference stack is last: its plan must be empty and ``fix --yes`` must leave
``pip freeze`` as it was.

pip runs with this machine's configuration, as a user's would; run it twice to see the
difference pip's cache makes.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
import testenvs  # noqa: E402

BROKEN = ("ipex27-torch28", "ipex28-torch27", "tv022-ipex28", "tv021-torch28", "ipex28-torch29")


def _doctor(*args: str) -> tuple[int, float, str]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "ipex_doctor", *args], capture_output=True, text=True, check=False
    )
    return done.returncode, time.monotonic() - started, done.stderr


def _freeze(python: str) -> list[str]:
    done = subprocess.run(
        [python, "-m", "pip", "freeze", "--all"], capture_output=True, text=True, check=True
    )
    return sorted(done.stdout.splitlines())


def _mb(size: int | None) -> str:
    return "?" if size is None else f"{size / 1e6:.1f}"


def measure(name: str, scratch: Path) -> dict[str, Any]:
    """One environment: fix, check, undo, on a copy under ``scratch``."""
    source = testenvs.build(name).parent.parent
    copy = scratch / name
    subprocess.run(["cp", "-al", str(source), str(copy)], check=True)
    python = str(copy / "bin" / "python")
    before = _freeze(python)
    report = scratch / f"{name}.fix.json"
    fix_code, fix_s, fix_err = _doctor("fix", "--yes", "--python", python, "--json", str(report))
    repair = json.loads(report.read_text())["repair"]
    check_code, check_s, _ = _doctor("check", "--python", python)
    after = _freeze(python)
    undo_code, undo_s, _ = (0, 0.0, "")
    if repair.get("snapshot"):
        undo_code, undo_s, _ = _doctor("fix", "--undo", repair["snapshot"], "--yes")
    restored = _freeze(python)
    fetched = sum(a["downloaded_bytes"] for a in repair["applied"])
    return {
        "env": name,
        "fix_exit": fix_code,
        "verdict": repair["verdict"],
        "steps": [" ".join(s["command"][3:]) for s in repair["planned"]],
        "check_exit_after": check_code,
        "changed": after != before,
        "undo_exit": undo_code,
        "undo_exact": restored == before,
        "estimate_bytes": repair["download_bytes"],
        "install_fetched_bytes": fetched,
        "planning_fetched_bytes": repair["planning_bytes"],
        "fix_seconds": round(fix_s, 1),
        "check_seconds": round(check_s, 1),
        "undo_seconds": round(undo_s, 1),
        "stderr_tail": fix_err[-500:] if fix_code else "",
    }


def main() -> int:
    """Measure every named environment, print the table, write ``--json``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", default=[*BROKEN, "reference"])
    parser.add_argument("--json", dest="json_path", default=None)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="ipex-doctor-fix-bench-"))
    try:
        rows = [measure(name, scratch) for name in args.names]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("| environment | plan | fix exit / verdict | check after | undo exact | "
          "estimate MB | fetched MB (install + planning) | fix s | undo s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['env']} | {'; '.join(r['steps']) or '(empty)'} | {r['fix_exit']} / "
              f"{r['verdict']} | {r['check_exit_after']} | "
              f"{'yes' if r['undo_exact'] else 'NO'} | {_mb(r['estimate_bytes'])} | "
              f"{_mb(r['install_fetched_bytes'])} + {_mb(r['planning_fetched_bytes'])} | "
              f"{r['fix_seconds']} | {r['undo_seconds']} |")  # fmt: skip
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2) + "\n")
    healthy = [r for r in rows if r["env"] == "reference"]
    ok = all(r["fix_exit"] == 0 and r["check_exit_after"] == 0 and r["undo_exact"] for r in rows)
    ok = ok and all(not r["steps"] and not r["changed"] for r in healthy)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
