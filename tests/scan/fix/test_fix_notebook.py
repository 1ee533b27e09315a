"""``scan --fix`` on notebooks: cells split and rejoined by position, never by marker text;
a malformed cell left alone with its reason while the others are fixed; IPython syntax, line
endings and every cell a rewrite does not touch kept byte for byte."""

from __future__ import annotations

import json
from typing import Any

from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ipex_doctor.scan.fix.codemods.registry import FIX_IDS
from ipex_doctor.scan.fix.notebook import NOT_A_CELL, NOT_TEXT, fix_notebook
from ipex_doctor.scan.fix.rewrite import FixOutcome

OLD = "with torch.xpu.amp.autocast():"
NEW = 'with torch.amp.autocast("xpu", dtype=torch.bfloat16, cache_enabled=True):'


def _notebook(*sources: Any) -> str:
    """Jupyter's layout for code cells with these sources (a dict: a cell as it is)."""
    cells = [
        source
        if isinstance(source, dict)
        else {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": source}
        for source in sources
    ]  # fmt: skip
    data = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def _sources(outcome: FixOutcome) -> list[Any]:
    return [
        c.get("source") if isinstance(c, dict) else c for c in json.loads(outcome.source)["cells"]
    ]


def test_the_doctors_old_marker_texts_are_only_the_users_lines() -> None:
    """Lines equal to the markers an earlier version wrote into the code to find cells and
    magics again are kept where they are; no line is lost or moved."""
    cell_one = ["import torch\n", "# <ipex-doctor:cell 2>\n", "x = 1\n"]
    cell_two = ["# <ipex-doctor:magic 0>\n", "%time y = 2\n", "# <ipex-doctor:cell 1>\n", OLD + "\n",
                "    pass"]  # fmt: skip
    outcome = fix_notebook(_notebook(cell_one, cell_two), {"autocast-xpu"})
    assert _sources(outcome) == [cell_one, [*cell_two[:3], NEW + "\n", "    pass"]]
    assert [(r.cell, r.line) for r in outcome.rewrites] == [(2, 4)]


def test_a_malformed_cell_is_left_alone_and_the_others_are_fixed() -> None:
    """A cell that is no object, or whose source is a number or holds one, is said with its
    reason; the fixable cell beside it is fixed (no exception)."""
    fixable = ["import torch\n", OLD + "\n", "    pass\n"]
    odd_list = ["x = 1\n", 2]
    text = _notebook(
        {"cell_type": "code", "source": 42}, fixable, odd_list, {"cell_type": "markdown"}
    )
    data = json.loads(text)
    data["cells"].insert(1, "not a cell")
    text = json.dumps(data, indent=1) + "\n"
    outcome = fix_notebook(text, FIX_IDS)
    assert _sources(outcome)[2] == [fixable[0], NEW + "\n", fixable[2]]
    assert json.loads(outcome.source)["cells"][1] == "not a cell"
    assert _sources(outcome)[3] == odd_list
    assert [(r.cell, r.reason) for r in outcome.refusals] == [
        (1, NOT_TEXT), (2, NOT_A_CELL), (4, NOT_TEXT),
    ]  # fmt: skip


def test_a_rewrite_at_the_end_of_a_cell_and_the_start_of_the_next() -> None:
    """An import removed from the last line of one cell, the first line of the next
    rewritten, and ``import torch`` added above: each line lands in its own cell."""
    first = ["%matplotlib inline\n", "from torch.xpu.amp import autocast\n"]
    second = ["with autocast():\n", "    pass\n"]
    outcome = fix_notebook(_notebook(first, second), {"autocast-xpu"})
    assert _sources(outcome) == [
        ["import torch\n", "%matplotlib inline\n"],
        [NEW + "\n", second[1]],
    ]


def test_an_import_added_between_cells_goes_to_the_cell_above() -> None:
    """The ``import torch`` added after the imports of the first cell lands at its end (the
    cell above the one that needs it, which runs first), and that cell keeps its missing last
    line ending."""
    second = ["from torch.xpu.amp import autocast as ac\n", "with ac():\n", "    pass"]
    outcome = fix_notebook(_notebook(["import os"], second), {"autocast-xpu"})
    assert _sources(outcome) == [["import os\n", "import torch"], [NEW + "\n", "    pass"]]


def test_line_endings_page_breaks_and_ipython_syntax_are_kept_by_position() -> None:
    """CRLF endings, a form feed, trailing whitespace, a magic inside a block, ``x = !ls``, a
    help line and a magic's continuation survive; the cell without a rewrite is untouched,
    down to its JSON text."""
    untouched = ["import torch\r\n", "if x:\r\n", "    %time f()\r\n", "files = !ls\r\n",
                 "torch.cuda?\r\n", "%env A=1 \\\n", "  B=2\n", "y = 1 \t"]  # fmt: skip
    rewritten = [OLD + "\r\n", "    pass\t \r\n", "\x0c\r\n", "z = 2"]
    text = _notebook(untouched, rewritten)
    outcome = fix_notebook(text, FIX_IDS)
    assert _sources(outcome) == [untouched, [NEW + "\r\n", *rewritten[1:]]]
    cells = outcome.source.split('"cell_type"')
    assert cells[1] == text.split('"cell_type"')[1]  # the first cell's JSON text, unchanged


_UNIT = st.sampled_from(
    [
        ["x = 1\n"],
        ["# <ipex-doctor:cell 1>\n"],
        ["# <ipex-doctor:magic 0>\n"],
        ["%time y = 2\n"],
        ["!ls -l\n"],
        ["files = !ls\n"],
        ["\n"],
        ["\x0c\n"],
        ["if x:\r\n", "    pass\r\n"],
        ["z = (1,\n", "     2)  \n"],
    ]
)


@st.composite
def _notebooks(draw: st.DrawFn) -> tuple[list[list[str]], int]:
    """Code cells of common lines (markers, magics, shell escapes, page breaks), one of which
    holds an autocast statement to rewrite; and that cell's index."""
    cells = [[["import torch\n"]]]
    cells += [draw(st.lists(_UNIT, max_size=4)) for _ in range(draw(st.integers(0, 4)))]
    target = draw(st.integers(0, len(cells) - 1))
    at = draw(st.integers(1 if target == 0 else 0, len(cells[target])))
    cells[target].insert(at, [OLD + "\n", "    pass\n"])
    flat = [[line for unit in cell for line in unit] for cell in cells]
    cells = [cell for cell in flat if cell]
    return cells, next(i for i, cell in enumerate(cells) if OLD + "\n" in cell)


@settings(max_examples=examples(100), deadline=None)
@given(_notebooks())
def test_every_cell_but_the_rewritten_one_comes_back_as_it_was(
    notebook: tuple[list[list[str]], int],
) -> None:
    """Whatever the cells hold, only the rewritten line changes, in its own cell."""
    cells, target = notebook
    outcome = fix_notebook(_notebook(*cells), {"autocast-xpu"})
    expected = [list(cell) for cell in cells]
    expected[target] = [NEW + "\n" if line == OLD + "\n" else line for line in cells[target]]
    assert _sources(outcome) == expected
    assert [r.cell for r in outcome.rewrites] == [target + 1]
