"""Inline suppression: ``# ipex-doctor: ignore[RULE] reason`` on the line or alone above it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from scan_rules import scan, write

from ipex_doctor.scan.read.suppressions import NO_REASON, suppression


def test_python_suppressions(tmp_path: Path) -> None:
    """Same line, a comment line above, several ids, no reason; another rule is not suppressed;
    a trailing comment does not reach the next line."""
    source = textwrap.dedent(
        """\
        import torch
        import intel_extension_for_pytorch as ipex  # ipex-doctor: ignore[ipex-import] CPU build only
        # ipex-doctor: ignore[xpu-amp, cpu-autocast] -- moving to torch.amp in #12
        torch.xpu.amp.autocast()
        torch.cpu.amp.autocast()  # ipex-doctor: ignore[xpu-amp]
        x = 1  # ipex-doctor: ignore[ipex-optimize] a trailing comment reaches no further
        ipex.optimize(m)
        ipex.optimize(n)  # ipex-doctor: ignore[ipex-optimize]
        """
    )
    write(tmp_path, {"a.py": source})
    assert [(m.location.line, m.rule_id, m.suppressed) for m in scan(tmp_path).matches] == [
        (2, "ipex-import", "CPU build only"),
        (4, "xpu-amp", "moving to torch.amp in #12"),
        (5, "cpu-autocast", None),
        (7, "ipex-optimize", None),
        (8, "ipex-optimize", NO_REASON),
    ]


def test_text_file_suppressions(tmp_path: Path) -> None:
    """The same comment after ``#`` in requirements and Dockerfiles."""
    write(
        tmp_path,
        {
            "requirements.txt": "intel-extension-for-pytorch==2.8  # ipex-doctor: ignore[pip-ipex]: pinned\n",
            "Dockerfile": "# ipex-doctor: ignore[pip-ipex] the CPU image\nRUN pip install intel-extension-for-pytorch\n",
        },
    )
    assert [(m.location.path, m.suppressed) for m in scan(tmp_path).matches] == [
        ("Dockerfile", "the CPU image"),
        ("requirements.txt", "pinned"),
    ]


@pytest.mark.parametrize(
    ("lines", "line", "rule_id", "expected"),
    [
        (["x  # ipex-doctor: ignore[a,b] why"], 1, "b", "why"),
        (["x  #ipex-doctor:ignore[a]\u2014 em dash"], 1, "a", "em dash"),
        (["x  # ipex-doctor: ignore[ab] why"], 1, "a", None),
        (["x  # ipex-doctor: ignore[a] why", "y"], 2, "a", None),
        (["    # ipex-doctor: ignore[a]", "y"], 2, "a", NO_REASON),
        (["# ipex-doctor: ignore[a] above", "y  # ipex-doctor: ignore[a] here"], 2, "a", "here"),
        (["x  # ipex-doctor: ignore a"], 1, "a", None),
    ],
)
def test_suppression_reading(
    lines: list[str], line: int, rule_id: str, expected: str | None
) -> None:
    """Ids are exact; the line's own comment wins over the one above."""
    assert suppression(lines, line, rule_id) == expected
