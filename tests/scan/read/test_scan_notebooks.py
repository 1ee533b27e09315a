"""Notebooks: code cells read as one Python module with IPython syntax taken out, shell lines
read by the SHELL text rules, locations by cell and line within it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scan_rules import scan, write

from ipex_doctor.model.code import CodeMatch
from ipex_doctor.scan.read.notebooks import code_cells


def _notebook(*cells: tuple[str, str], language: str = "python", **extra: Any) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "source": source.splitlines(keepends=True)}
                for kind, source in cells
            ],
            "metadata": {"kernelspec": {"language": language, "name": "k"}},
            "nbformat": 4,
            "nbformat_minor": 5,
            **extra,
        }
    )


def _where(matches: tuple[CodeMatch, ...]) -> list[tuple[int | None, int, int, str, str]]:
    return [
        (m.location.cell, m.location.line, m.location.column, m.rule_id, m.symbol) for m in matches
    ]


def test_cells_share_one_module_and_locate_by_cell_and_line(tmp_path: Path) -> None:
    """An import in cell 2 resolves a use in cell 4; cells count markdown ones too."""
    write(
        tmp_path,
        {
            "train.ipynb": _notebook(
                ("markdown", "# Uses ipex.optimize\n"),
                ("code", "import torch\nimport intel_extension_for_pytorch as ipex\n"),
                ("raw", "ipex.optimize(m)"),
                ("code", "%time x = 1\nmodel = ipex.optimize(model)\nprint('ipex.optimize')\n"),
            )
        },
    )
    result = scan(tmp_path)
    assert _where(result.matches) == [
        (2, 2, 7, "ipex-import", "intel_extension_for_pytorch"),
        (4, 2, 8, "ipex-optimize", "intel_extension_for_pytorch.optimize"),
    ]
    assert result.matches[1].snippet == "model = ipex.optimize(model)"


def test_shell_lines_are_matched_by_shell_text_rules(tmp_path: Path) -> None:
    """``!pip`` and ``%pip`` lines (also ``x = !...``) are shell text; the Python around them
    still parses; a trailing suppression works on them."""
    write(
        tmp_path,
        {
            "setup.ipynb": _notebook(
                (
                    "code",
                    "!pip install intel-extension-for-pytorch\n"
                    "%pip install oneccl_bind_pt intel_extension_for_pytorch==2.8\n"
                    "out = !pip install intel-extension-for-pytorch  # ipex-doctor: ignore[pip-ipex] demo\n"
                    "for i in range(2):\n"
                    "    !echo {i}\n"
                    "%matplotlib inline\n"
                    "torch.xpu?\n"
                    "import torch\n"
                    "torch.xpu.amp.autocast()\n",
                ),
            )
        },
    )
    result = scan(tmp_path)
    assert _where(result.matches) == [
        (1, 1, 13, "pip-ipex", "intel-extension-for-pytorch"),
        (1, 2, 28, "pip-ipex", "intel_extension_for_pytorch"),
        (1, 3, 19, "pip-ipex", "intel-extension-for-pytorch"),
        (1, 9, 0, "xpu-amp", "torch.xpu.amp.autocast"),
    ]
    assert [m.suppressed for m in result.matches] == [None, None, "demo", None]
    assert result.skipped == ()


def test_cell_magics_decide_what_the_cell_is() -> None:
    """%%bash is shell, %%time is Python after its first line, %%html is neither."""
    cells = code_cells(
        json.loads(
            _notebook(
                ("code", "%%bash\npip install intel-extension-for-pytorch\n"),
                ("code", "%%time\nimport torch\n"),
                ("code", "%%html\n<b>import torch</b>\n"),
                ("code", "%%script bash\nls\n"),
            )
        )
    )
    assert [(c.python, [(s.line, s.text) for s in c.shell]) for c in cells] == [
        ("", [(2, "pip install intel-extension-for-pytorch"), (3, "")]),
        ("\nimport torch\n", []),
        ("", []),
        ("", [(2, "ls"), (3, "")]),
    ]


def test_a_cell_that_does_not_parse_is_skipped_alone(tmp_path: Path) -> None:
    """The other cells are still read; the skip names the cell."""
    write(
        tmp_path,
        {
            "n.ipynb": _notebook(
                ("code", "print 'py2'\n"),
                ("code", "import intel_extension_for_pytorch\n"),
            )
        },
    )
    result = scan(tmp_path)
    assert _where(result.matches) == [(2, 1, 7, "ipex-import", "intel_extension_for_pytorch")]
    assert [(s.path, s.reason[:40]) for s in result.skipped] == [
        ("n.ipynb", "cell 1 does not parse as Python 3: Missi")
    ]


def test_what_is_not_a_readable_notebook_is_skipped(tmp_path: Path) -> None:
    """Not JSON, JSON without cells, another kernel's language: one SkippedFile each."""
    write(
        tmp_path,
        {
            "broken.ipynb": '{"cells": [intel_extension_for_pytorch',
            "list.ipynb": "[1, 2]",
            "nocells.ipynb": '{"metadata": {}}',
            "r.ipynb": _notebook(("code", "library(intel_extension_for_pytorch)\n"), language="R"),
        },
    )
    result = scan(tmp_path)
    assert [(s.path, s.reason) for s in result.skipped] == [
        (
            "broken.ipynb",
            "cannot be read as a notebook: not JSON: Expecting value: line 1 column 12 (char 11)",
        ),
        (
            "list.ipynb",
            "cannot be read as a notebook: not a Jupyter notebook (the JSON is not an object)",
        ),
        ("nocells.ipynb", "cannot be read as a notebook: not a Jupyter notebook (no cells)"),
        ("r.ipynb", "cannot be read as a notebook: a r notebook, not Python"),
    ]


def test_nbformat_3_worksheets(tmp_path: Path) -> None:
    """Old notebooks keep cells in worksheets and code under "input"."""
    document = {
        "worksheets": [
            {"cells": [{"cell_type": "code", "input": ["import intel_extension_for_pytorch\n"]}]}
        ],
        "metadata": {},
        "nbformat": 3,
    }
    write(tmp_path, {"old.ipynb": json.dumps(document)})
    assert _where(scan(tmp_path).matches) == [
        (1, 1, 7, "ipex-import", "intel_extension_for_pytorch")
    ]
