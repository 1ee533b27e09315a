"""docs/reliability.md is generated from the current fault tests (tools/fault_matrix.py)."""

from __future__ import annotations

import importlib.util

from conftest import REPO


def test_fault_matrix_is_current() -> None:
    """The document names the hash of tests/runs/test_faults.py: regenerate it when they change."""
    spec = importlib.util.spec_from_file_location(
        "fault_matrix", REPO / "tools" / "fault_matrix.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = (REPO / "docs" / "reliability.md").read_text()
    assert f"Source hash: `{module.digest()}`" in text, "run: python tools/fault_matrix.py"
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) >= 15  # header + every recorded fault
