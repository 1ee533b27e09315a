"""``scan_paths`` as a whole: roots, counts, order, determinism, the JSON round trip, and a
scan that never imports torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scan_rules import SAMPLE, found, scan, write

from ipex_doctor.model.code import FileKind, ScanResult
from ipex_doctor.model.codec import from_json, to_json
from ipex_doctor.scan import scan_paths
from ipex_doctor.scan.engine import JUDGE_AFTER_S, Projection

PROJECT = {
    "train.py": (
        "import torch\n"
        "import intel_extension_for_pytorch as ipex\n"
        "model, opt = ipex.optimize(model, dtype=torch.bfloat16)\n"
        "with torch.cpu.amp.autocast() and torch.no_grad():\n"
        "    out = model(x)\n"
    ),
    "dist/launch.py": "import torch.distributed as dist\ndist.init_process_group(backend='ccl')\n",
    "requirements.txt": "intel-extension-for-pytorch==2.8.0\n",
    "docs/conf.py": "project = 'ipex'\n",
    "README.md": "ipex.optimize everywhere\n",
}


def test_a_project_scan(tmp_path: Path) -> None:
    """Matches sorted by path, line, column (then the end, then the rule); counts of candidates
    and of parsed files (docs/conf.py has no trigger word)."""
    write(tmp_path, PROJECT)
    result = scan(tmp_path)
    assert found(result) == [
        ("dist/launch.py", 2, "ccl-backend", 'backend="ccl"'),
        ("requirements.txt", 1, "pip-ipex", "intel-extension-for-pytorch"),
        ("train.py", 2, "ipex-import", "intel_extension_for_pytorch"),
        ("train.py", 3, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
        (
            "train.py",
            3,
            "optimize-bf16",
            "intel_extension_for_pytorch.optimize(dtype=torch.bfloat16)",
        ),
        ("train.py", 4, "cpu-autocast", "torch.cpu.amp.autocast"),
        ("train.py", 4, "with-and", "torch.cpu.amp.autocast() and torch.no_grad()"),
    ]
    assert (result.files_seen, result.files_parsed) == (4, 3)
    assert result.roots == (tmp_path.as_posix(),)


def test_the_default_root_is_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No roots: ``.``; paths stay relative to it."""
    write(tmp_path, PROJECT)
    monkeypatch.chdir(tmp_path)
    result = scan_paths([], SAMPLE)
    assert result.roots == (".",)
    assert found(result) == found(scan(tmp_path))


def test_several_roots_and_excludes(tmp_path: Path) -> None:
    """Each file is relative to its own root; a file under two roots is scanned once."""
    write(tmp_path, PROJECT)
    result = scan_paths([tmp_path / "dist", tmp_path], SAMPLE, exclude=["requirements*.txt"])
    assert [m.location.path for m in result.matches] == [
        "launch.py",
        "train.py",
        "train.py",
        "train.py",
        "train.py",
        "train.py",
    ]


def test_the_result_is_deterministic_and_round_trips(tmp_path: Path) -> None:
    """Two scans give equal results, whatever order the files were written in; JSON and back."""
    write(tmp_path / "one", PROJECT)
    write(tmp_path / "two", dict(reversed(list(PROJECT.items()))))
    first, second = scan(tmp_path / "one"), scan(tmp_path / "two")
    assert first.matches == second.matches
    assert from_json(ScanResult, json.loads(json.dumps(to_json(first)))) == first


def test_a_scan_never_imports_torch(tmp_path: Path) -> None:
    """The doctor's process reads code; it never imports what the code imports."""
    write(tmp_path, PROJECT)
    tests = Path(__file__).resolve().parents[1]
    code = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1])\n"
        "from scan_rules import SAMPLE\n"
        "from ipex_doctor.scan import scan_paths\n"
        "result = scan_paths([Path(sys.argv[2])], SAMPLE)\n"
        "assert result.matches\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'intel_extension_for_pytorch')))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run(
        [sys.executable, "-c", code, str(tests), str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert out.stdout.strip() == "[]"


def test_a_large_tree_read_by_workers_gives_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the work left is projected to take long, spawned workers read beside this process:
    the result is the one a serial read gives, in the same order, every file counted once."""
    from ipex_doctor.scan import engine

    files: dict[str, str | bytes] = {
        f"pkg{i // 50}/mod{i}.py": f"import torch\nx = {i}\n" for i in range(440)
    }
    files["pkg3/uses.py"] = PROJECT["train.py"]
    files["pkg7/dist.py"] = PROJECT["dist/launch.py"]
    write(tmp_path, files)
    monkeypatch.setattr(engine, "JUDGE_AFTER_S", 0.0)
    monkeypatch.setattr(engine, "HELP_WHEN_LEFT_S", 0.0)  # helpers at the first judgement
    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # one helper, whatever this machine has
    started = []
    real = engine._with_helpers

    def counted(*args: Any) -> Any:
        started.append((sum(len(chunk) for chunk in args[0]), args[1]))
        return real(*args)

    monkeypatch.setattr(engine, "_with_helpers", counted)
    parallel = scan(tmp_path)
    # NOTE: the first file (its kind's set-up) is out of the rate: the first judgement with a
    # rate is the next one, after _JUDGE_EVERY more files; the rest goes to one worker
    assert started == [(len(files) - 1 - engine._JUDGE_EVERY, 1)]
    monkeypatch.setattr(engine, "HELP_WHEN_LEFT_S", float("inf"))  # this process alone
    serial = scan(tmp_path)
    assert len(started) == 1
    assert parallel == serial
    assert parallel.files_seen == len(files)
    assert {m.location.path for m in parallel.matches} == {"pkg3/uses.py", "pkg7/dist.py"}


def test_a_busy_machine_starts_no_workers_for_a_small_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether workers help is projected from the CPU time the read took, not the wall clock:
    a wall clock that runs far ahead of the work (another process on every core) starts no
    worker for a tree whose read costs little."""
    import time as clock

    from ipex_doctor.scan import engine

    write(tmp_path, {f"pkg/mod{i}.py": f"import torch\nx = {i}\n" for i in range(120)})
    monkeypatch.setattr(engine, "JUDGE_AFTER_S", 0.0)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    real_wall = clock.perf_counter
    behind = [0.0]

    def busy_wall() -> float:
        behind[0] += 10.0  # NOTE: every look at the wall clock finds ten seconds gone
        return real_wall() + behind[0]

    monkeypatch.setattr(clock, "perf_counter", busy_wall)
    started: list[int] = []
    monkeypatch.setattr(engine, "_with_helpers", lambda *args: started.append(1) or iter(()))
    result = scan(tmp_path)
    assert started == []
    assert result.files_seen == 120


def test_a_kinds_first_file_is_set_up_and_projects_nothing() -> None:
    """The first file of each kind pays its reader's set-up once per process: however long it
    took, it is left out of the rate, and the rest is projected from the later files alone."""
    slow = 100 * JUDGE_AFTER_S
    projection = Projection(total_bytes=1_000_000)
    projection.add(FileKind.NOTEBOOK, 1_000, slow)
    projection.add(FileKind.PYTHON, 1_000, slow)
    assert projection.rest_s() is None  # only set-up so far: no rate to project from
    projection.add(FileKind.PYTHON, 1_000, JUDGE_AFTER_S)
    rest = projection.rest_s()
    assert rest is not None
    # NOTE: the 997,000 bytes left at the later file's rate, the first files' time in nothing
    assert rest == pytest.approx(JUDGE_AFTER_S / 1_000 * 997_000)
    projection.add(FileKind.NOTEBOOK, 2_000, JUDGE_AFTER_S)
    assert projection.rest_s() == pytest.approx(2 * JUDGE_AFTER_S / 3_000 * 995_000)


def test_the_projection_waits_for_judge_after_s_of_rated_time() -> None:
    """A rate from files that took less than ``JUDGE_AFTER_S`` together projects nothing."""
    projection = Projection(total_bytes=10_000)
    projection.add(FileKind.SHELL, 10, 0.0)
    projection.add(FileKind.SHELL, 10, JUDGE_AFTER_S / 2)
    assert projection.rest_s() is None
    projection.add(FileKind.SHELL, 10, JUDGE_AFTER_S / 2)
    assert projection.rest_s() == pytest.approx(JUDGE_AFTER_S / 20 * 9_970)
