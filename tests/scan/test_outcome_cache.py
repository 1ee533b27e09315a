"""The outcome cache: a file unchanged since the last scan is not read again, and a change
of any kind (content, rules, the file's identity) is read; a damaged or unwritable cache is
only a miss."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from scan_rules import SAMPLE, rule, write

from ipex_doctor.knowledge import cache as knowledge_cache
from ipex_doctor.knowledge import code_rules
from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import CodeLocation, CodeMatch, ScanResult
from ipex_doctor.scan import one_file, outcome_cache, readers
from ipex_doctor.scan.engine import scan_paths
from ipex_doctor.scan.match import ruleset

TREE = {
    "train.py": "import torch\nwith torch.xpu.amp.autocast():\n    pass\n",
    "plain.py": "import json\nprint(json.dumps({}))\n",
    "requirements.txt": "torch==2.8.0\n",
    "broken.py": "def f(:\n    pass  # torch.xpu.amp\n",
}


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # NOTE: the seal's key
    return cache


def kept_data(kept: Path) -> Any:
    """The outcomes a cache file holds, its seal checked."""
    body = knowledge_cache.unseal_text(kept.read_text())
    assert body is not None, "the cache file does not unseal"
    return json.loads(body)


def rewrite(kept: Path, data: Any) -> None:
    """``data`` as the cache file, sealed as the doctor seals it (this user's own word)."""
    kept.write_text(knowledge_cache.seal_text(json.dumps(data)))


class Reads:
    """Counts the files the engine reads (its one reader of a candidate)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real = one_file.read_file

        def counted(candidate: Any, *args: Any) -> Any:
            self.paths.append(candidate.display)
            return real(candidate, *args)

        monkeypatch.setattr(one_file, "read_file", counted)


def scan_tree(root: Path, rules: CodeRules = SAMPLE, cache: bool = True) -> ScanResult:
    return scan_paths([root], rules, cache=cache)


def scanned_once(tmp_path: Path, own_cache: Path) -> tuple[Path, ScanResult, Path]:
    """``TREE`` written, scanned without the cache (the result expected of every scan) and
    with it: the root, that result, the cache file the second scan wrote."""
    root = write(tmp_path / "project", TREE)
    expected = scan_tree(root, cache=False)
    scan_tree(root)
    (kept,) = (own_cache / "ipex-doctor" / "scan").glob("*.json")
    return root, expected, kept


def test_an_unchanged_tree_is_not_read_again_and_gives_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    write(root, TREE)
    first = scan_tree(root)
    assert first.matches and first.skipped  # a match and a file that does not parse
    reads = Reads(monkeypatch)
    second = scan_tree(root)
    assert reads.paths == []
    assert second == first == scan_tree(root, cache=False)


def test_an_edit_that_keeps_size_and_modification_time_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    write(root, TREE)
    target = root / "plain.py"
    before = scan_tree(root)
    stat = target.stat()
    time.sleep(0.01)  # NOTE: so the status-change time moves even on a coarse clock
    same_size = "import torch\ntorch.xpu.amp.GradScaler()\n"[: stat.st_size].ljust(stat.st_size)
    target.write_text(same_size)
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # what a careless tool does
    assert target.stat().st_size == stat.st_size
    assert target.stat().st_mtime_ns == stat.st_mtime_ns
    reads = Reads(monkeypatch)
    after = scan_tree(root)
    assert reads.paths == ["plain.py"]
    assert after == scan_tree(root, cache=False)
    assert {m.location.path for m in after.matches} - {m.location.path for m in before.matches}


def test_other_rules_read_everything_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "project"
    write(root, TREE)
    scan_tree(root)
    more = CodeRules((*SAMPLE.rules, rule("plain-json", symbols=["json.dumps"])))
    reads = Reads(monkeypatch)
    result = scan_tree(root, more)
    assert sorted(reads.paths) == sorted(TREE)
    assert "plain-json" in {m.rule_id for m in result.matches}


def test_a_file_that_could_not_be_read_is_read_next_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    write(root, TREE)
    real = one_file.read_file

    def unreadable(candidate: Any, *args: Any) -> Any:
        if candidate.display == "train.py":
            return readers.skipped(candidate, "cannot be read: Permission denied")._replace(
                lasting=False
            )
        return real(candidate, *args)

    monkeypatch.setattr(one_file, "read_file", unreadable)
    assert "train.py" in {s.path for s in scan_tree(root).skipped}
    monkeypatch.setattr(one_file, "read_file", real)
    reads = Reads(monkeypatch)
    result = scan_tree(root)
    assert reads.paths == ["train.py"]
    assert "train.py" in {m.location.path for m in result.matches}


def test_a_damaged_cache_is_a_miss_and_a_read_only_one_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_cache: Path
) -> None:
    root, expected, kept = scanned_once(tmp_path, own_cache)
    for damage in ("{not json", '{"identity": [], "files": []}', "[]", ""):
        kept.write_text(damage)
        assert scan_tree(root) == expected
    data = kept_data(kept)
    key = next(key for key in data["files"] if key.endswith("\0train.py"))
    data["files"][key] = [7, *data["files"][key]]  # an entry of the wrong shape, sealed
    rewrite(kept, data)
    assert scan_tree(root) == expected
    if os.geteuid() != 0:  # NOTE: root writes into a read-only directory anyway
        kept.parent.chmod(0o500)
        try:
            assert scan_tree(root) == expected
        finally:
            kept.parent.chmod(0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / "train.py"))  # a file, not a directory
    assert scan_tree(root) == expected


def test_at_most_max_files_sets_of_roots_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_cache: Path
) -> None:
    monkeypatch.setattr(outcome_cache, "MAX_FILES", 3)
    for n in range(5):
        root = tmp_path / f"project{n}"
        write(root, {"a.py": "import torch\n"})
        scan_tree(root)
    assert len(list((own_cache / "ipex-doctor" / "scan").glob("*.json"))) == 3


def test_the_scan_result_does_not_depend_on_the_cache_for_a_large_tree(tmp_path: Path) -> None:
    """Workers and the cache together: the third scan (cached) equals the first (read)."""
    root = tmp_path / "project"
    files = {f"pkg{i // 40}/m{i}.py": f"import torch\nx = {i}\n" for i in range(200)}
    write(root, {**files, **TREE})
    first = scan_tree(root)
    assert dataclasses.replace(scan_tree(root), roots=first.roots) == first


def test_a_module_changed_in_any_room_of_scan_is_another_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache is keyed on the code of scan, its rooms included (a matcher changed since
    gives other findings): a module changed in ``read/``, ``match/`` or ``fix/`` changes the
    key. Shown on a copy of the package."""
    package = tmp_path / "scan"
    shutil.copytree(
        Path(outcome_cache.__file__).parent,
        package,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    monkeypatch.setattr(outcome_cache, "__file__", str(package / "outcome_cache.py"))
    stamps = {outcome_cache._package_stamp()}
    for module in ("read/kinds.py", "match/python/names.py", "fix/codemods/base.py"):
        path = package / module
        path.write_text(path.read_text() + "\n# changed\n")
        stamps.add(outcome_cache._package_stamp())
    assert len(stamps) == 4


def test_a_kept_match_comes_back_equal_in_every_field() -> None:
    """The flat form keeps every field of a match and its location (derived from the model:
    a field added there is kept too, or every entry is a miss, which this test shows)."""
    match = CodeMatch(
        rule_id="rule",
        location=CodeLocation("a/b.ipynb", 3, 4, end_line=5, end_column=6, cell=2),
        symbol="torch.xpu.amp.autocast",
        snippet="with torch.xpu.amp.autocast():",
        suppressed="a reason",
        mechanical=True,
        guard="if is_ipex_available():  # line 2",
    )
    defaults = CodeMatch("r", CodeLocation("p", 1), "s", "t")
    for kept in (match, defaults):
        assert outcome_cache._match(json.loads(json.dumps(outcome_cache._flat(kept)))) == kept


@pytest.mark.parametrize(
    "damage",
    [
        lambda flat: flat[:-1],  # a field short
        lambda flat: [*flat, None],  # one too many
        lambda flat: [7, *flat[1:]],  # a number for the rule
        lambda flat: [*flat[:-5], True, *flat[-4:]],  # JSON's true for the line
        lambda flat: [*flat[:-1], "2"],  # text for the cell
        lambda flat: {"rule_id": flat[0]},  # the generic shape of an older format
        lambda flat: [*flat[:-1], ["__import__('os')"]],  # anything else is inert data
    ],
)
def test_a_kept_match_of_another_shape_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_cache: Path, damage: Any
) -> None:
    root, expected, kept = scanned_once(tmp_path, own_cache)
    data = kept_data(kept)
    key = next(key for key in data["files"] if key.endswith("\0train.py"))
    data["files"][key][2] = [damage(flat) for flat in data["files"][key][2]]
    rewrite(kept, data)
    reads = Reads(monkeypatch)
    assert scan_tree(root) == expected
    assert reads.paths == ["train.py"]


def test_an_unchanged_tree_leaves_the_cache_file_as_it_was_but_its_time(
    tmp_path: Path, own_cache: Path
) -> None:
    """A scan where every file is a hit does not write the cache again (its inode stays, as
    ``os.replace`` of a new file would change it) but moves its time, so the sets of roots
    scanned most lately are kept; a change to the tree writes it again."""
    root, _, kept = scanned_once(tmp_path, own_cache)
    os.utime(kept, ns=(0, 0))
    before = kept.stat()
    data = kept.read_bytes()
    scan_tree(root)
    after = kept.stat()
    assert (after.st_ino, kept.read_bytes()) == (before.st_ino, data)
    assert after.st_mtime_ns > before.st_mtime_ns
    (root / "plain.py").unlink()
    scan_tree(root)
    assert kept.stat().st_ino != before.st_ino
    assert not any(key.endswith("\0plain.py") for key in kept_data(kept)["files"])


def test_the_rules_identity_is_the_same_in_every_process_and_holds_every_field() -> None:
    """The cache is keyed on the rules' repr: the same in two interpreters whose string hashes
    differ (no set in it, whose order would change: every scan a miss), naming no object by
    its address, and hiding no field of any dataclass in the rules (an edit there would not
    be a miss)."""
    program = (
        "from pathlib import Path\n"
        "from ipex_doctor.knowledge import code_rules\n"
        "from ipex_doctor.scan import outcome_cache\n"
        "print(outcome_cache._identity([Path('.')], code_rules.load(), 1)[-1])\n"
    )
    printed = {
        subprocess.run(
            [sys.executable, "-c", program],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    (identity,) = printed
    assert "CodeRule(" in identity and " at 0x" not in identity

    def hidden(value: object) -> list[str]:
        if isinstance(value, (tuple, list)):
            return [name for item in value for name in hidden(item)]
        if isinstance(value, (set, frozenset, dict)):
            return [f"a {type(value).__name__}"]
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = dataclasses.fields(value)
            return [f"{type(value).__name__}.{f.name}" for f in fields if not f.repr] + [
                name for f in fields for name in hidden(getattr(value, f.name))
            ]
        return []

    assert hidden(code_rules.load().rules) == []


SHIPPED_TREE = {
    "train.py": (
        "import torch\n"
        "try:\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "except ImportError:\n"
        "    ipex = None\n"
        "if ipex is not None:\n"
        "    model = ipex.optimize(torch.nn.Linear(2, 2), dtype=torch.bfloat16)\n"
        "with torch.xpu.amp.autocast():  # ipex-doctor: ignore[xpu-amp-autocast] kept on purpose\n"
        "    pass\n"
        "dist = torch.distributed\n"
        'dist.init_process_group(backend="ccl")\n'
    ),
    "bare.py": "import torch\nimport intel_extension_for_pytorch\ntorch.xpu.is_available()\n",
    "demo.ipynb": json.dumps(
        {
            "cells": [
                {"cell_type": "code", "source": "!pip install intel-extension-for-pytorch\n"},
                {"cell_type": "code", "source": "import intel_extension_for_pytorch as ipex\n"},
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    ),
    "accelerate.yaml": "compute_environment: LOCAL_MACHINE\nipex_config:\n  ipex: true\n",
    "requirements.txt": "torch==2.8.0\nintel-extension-for-pytorch==2.8.0\n",
    "run.sh": "#!/bin/sh\nipexrun --ninstances 2 train.py\n",
    "broken.py": "import intel_extension_for_pytorch\ndef f(:\n",
}


def test_the_shipped_rules_findings_come_back_from_the_cache_as_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The differential test of the kept form: a tree whose findings use every field of a
    match (a guard, a suppression, a mechanical fix, a notebook's cell, a span of lines) and a
    skip, scanned with the shipped rules: the scan from the cache equals the scan that reads
    every file, and reads none."""
    shipped = code_rules.load()
    root = write(tmp_path / "project", SHIPPED_TREE)
    read = scan_paths([root], shipped)
    assert scan_paths([root], shipped, cache=True) == read
    matches = read.matches
    assert read.skipped and {m.location.path for m in matches} >= set(SHIPPED_TREE) - {"broken.py"}
    assert any(m.guard for m in matches) and any(m.suppressed for m in matches)
    assert any(m.mechanical for m in matches) and any(m.location.cell for m in matches)
    assert any(m.location.end_line > m.location.line for m in matches)
    reads = Reads(monkeypatch)
    assert scan_paths([root], shipped, cache=True) == read
    assert reads.paths == []


def test_a_tree_read_wholly_from_the_cache_compiles_no_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_cache: Path
) -> None:
    """The rules are compiled for the readers (``RuleSet``) only once a file is to be read:
    never where every file comes from the cache, once where one does not."""
    root, expected, _ = scanned_once(tmp_path, own_cache)
    built: list[object] = []
    real = ruleset.RuleSet

    def counted(rules: CodeRules) -> Any:
        built.append(rules)
        return real(rules)

    monkeypatch.setattr(ruleset, "RuleSet", counted)
    assert scan_tree(root) == expected
    assert built == []
    (root / "plain.py").write_text("import torch\ntorch.xpu.amp.GradScaler()\n")
    assert scan_tree(root) == scan_tree(root, cache=False)
    assert len(built) == 2  # the scan with the cache, and the one without
