"""``KeptBytes``: the Python files' bytes as a scan first read them, given back in place of a
second read, within a budget; and a scan that reads each Python file once where a flag set
from a probe in one module is asked in another (the judgement that read every Python file of
the tree a second time)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scan_rules import write

from ipex_doctor.scan.read.kept_bytes import KeptBytes


def test_kept_bytes_are_given_back_in_place_of_the_file_within_the_budget(
    tmp_path: Path,
) -> None:
    """What was kept comes back as it was read, though the file changed since; a file past the
    budget is not kept, and is read from disk; a path kept once keeps its first bytes."""
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_bytes(b"import torch\n")
    second.write_bytes(b"x = 1\n" * 4)
    kept = KeptBytes(budget=20)
    kept.keep(first, b"import torch\n")
    kept.keep(second, b"x = 1\n" * 4)  # 24 bytes: past the 20 of the budget with the first
    kept.keep(first, b"something else\n")
    first.write_bytes(b"import intel_extension_for_pytorch\n")
    second.write_bytes(b"y = 2\n")
    assert kept.get(first) == kept.read(first) == b"import torch\n"
    assert kept.get(second) is None
    assert kept.read(second) == b"y = 2\n"


UTILS = """\
import torch
try:
    import intel_extension_for_pytorch as ipex
    ipex_xpu = ipex if ipex._C._has_xpu() else None
except ImportError:
    ipex_xpu = None
"""
OPS = """\
import torch
from ..utils import ipex_xpu

if ipex_xpu and torch.__version__ >= (2, 7):
    pass
"""
# NOTE: run in a process of its own: an audit hook cannot be removed once added
# NOTE: only the tree's files count: the doctor's own modules, imported lazily during the scan,
# are opened as source where no bytecode was written (a fresh clone)
COUNT_OPENS = """
import collections, json, os, sys
from pathlib import Path
from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan import scan_paths

root = sys.argv[1]
opened = collections.Counter()

def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith(root + os.sep):
        opened[Path(args[0]).relative_to(root).as_posix()] += 1

rules = code_rules.load()
sys.addaudithook(hook)
result = scan_paths([Path(sys.argv[1])], rules)
print(json.dumps({
    "opened": opened,
    "found": [[m.location.path, m.location.line, m.rule_id] for m in result.matches],
}))
"""


def test_a_scan_reads_each_python_file_once_where_a_flag_crosses_modules(
    tmp_path: Path,
) -> None:
    """bitsandbytes' shape (``backends/utils.py`` sets ``ipex_xpu`` from a probe,
    ``backends/xpu/ops.py`` imports and asks it) among plain torch modules: the flag asked in
    ops.py is found, and no Python file of the tree was opened twice."""
    files = {
        "pkg/backends/utils.py": UTILS,
        "pkg/backends/xpu/ops.py": OPS,
        **{f"pkg/models/m{n}.py": f"import torch\nx{n} = torch.ones({n})\n" for n in range(20)},
    }
    write(tmp_path, files)
    run = subprocess.run(
        [sys.executable, "-c", COUNT_OPENS, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert ["pkg/backends/xpu/ops.py", 4, "ipex-probe"] in report["found"]
    assert report["opened"] == dict.fromkeys(files, 1)
