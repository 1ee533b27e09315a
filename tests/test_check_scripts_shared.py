"""The block every check script copies stays one block: the same text in every script.

A script in ``checks/`` must run alone (``python checks/dot_half.py``, or mailed with a bug
report), so it cannot import a shared module: ``_cannot_run`` (why it cannot run here), ``main``
(the command line and its exit codes) and the ``__main__`` guard are copied into each script on
purpose. These tests keep the copies identical, naming the script and the function that drifted,
and keep the block marked in each script, at its end, under the comment that points here.
"""

from __future__ import annotations

import ast
import difflib
from collections import Counter
from pathlib import Path

import pytest

from ipex_doctor import resources

SCRIPTS = sorted(resources.path("checks").glob("*.py"))
SHARED = ("_cannot_run", "main", "__main__ guard")
"""What each script carries word for word: two functions and the guard that calls main."""
MARKER = "# ---- shared by every script in checks/ "
"""The first line of the comment that opens the shared block in every script."""


def _shared_nodes(tree: ast.Module) -> dict[str, ast.stmt]:
    """The top-level statements of the shared block, by the names of ``SHARED``."""
    found: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in SHARED:
            found[node.name] = node
        elif isinstance(node, ast.If) and "__name__" in ast.unparse(node.test):
            found["__main__ guard"] = node
    return found


def _shared_sources(path: Path) -> dict[str, str]:
    """The exact source text (comments included) of each part of the shared block."""
    text = path.read_text(encoding="utf-8")
    return {
        name: ast.get_source_segment(text, node, padded=True) or ""
        for name, node in _shared_nodes(ast.parse(text)).items()
    }


def test_there_are_scripts_to_compare() -> None:
    """The comparison below is not vacuous: the shipped scripts are found, and more than one."""
    assert len(SCRIPTS) >= 2
    assert {"dot_half.py", "bf16_linear.py"} <= {p.name for p in SCRIPTS}


@pytest.mark.parametrize("part", SHARED)
def test_every_script_carries_the_same_copy(part: str) -> None:
    """Each part of the shared block has the same source in every script. A drift names the
    script and the part, with its lines against the copy most scripts carry."""
    copies = {path.name: _shared_sources(path).get(part) for path in SCRIPTS}
    missing = sorted(name for name, copy in copies.items() if copy is None)
    assert not missing, f"no {part} in {', '.join(missing)}"
    usual, _count = Counter(copies.values()).most_common(1)[0]
    assert usual is not None
    drifted = []
    for name, copy in copies.items():
        if copy != usual:
            diff = difflib.unified_diff(
                usual.splitlines(), (copy or "").splitlines(),
                f"{part} in most scripts", f"{part} in {name}", lineterm="", n=1,
            )  # fmt: skip
            drifted.append(f"{name}: {part} differs from the other scripts'\n" + "\n".join(diff))
    assert not drifted, "\n\n".join(drifted)


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_the_shared_block_is_marked_and_ends_the_script(path: Path) -> None:
    """Under the marker comment there is the shared block and nothing else, so a reader of
    any script sees where the copy starts and that everything after it is the copy."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    starts = [number for number, line in enumerate(lines, 1) if line.startswith(MARKER)]
    assert len(starts) == 1, f"{path.name}: the marker comment appears {len(starts)} times"
    assert "tests/test_check_scripts_shared.py" in "\n".join(lines[starts[0] - 1 : starts[0] + 6])
    after = [node for node in ast.parse(text).body if node.lineno > starts[0]]
    shared = _shared_nodes(ast.parse(text))
    assert set(shared) == set(SHARED), f"{path.name}: missing {set(SHARED) - set(shared)}"
    assert [ast.dump(n) for n in after] == [ast.dump(n) for n in shared.values()], (
        f"{path.name}: something other than the shared block follows the marker, or a part "
        "of the block stands above it"
    )
