"""Every byte outside the rewritten lines survives ``scan --fix``: line endings (LF, CRLF, CR,
mixed), a byte-order mark, form feeds and trailing whitespace, and what LibCST itself does not
print back as it read it. Property-based over generated files, and the reported cases, on
real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ipex_doctor.scan.fix.files import _diff_lines, fix_file
from ipex_doctor.scan.fix.verbatim import (
    changed_regions,
    fix_python,
    join_lines,
    lf_text,
    split_lines,
    trace,
)

OLD = "with torch.xpu.amp.autocast():"
NEW = 'with torch.amp.autocast("xpu", dtype=torch.bfloat16, cache_enabled=True):'

_ENDING = st.sampled_from(["\n", "\r\n", "\r"])
_TRAILING = st.sampled_from(["", " ", "\t", "  \t", "\x0c", " \x0c "])
# NOTE: whole statements (each a list of lines), valid at module level whatever surrounds
# them; some are printed back differently by LibCST itself (the space before an except
# clause's colon, a form feed before a statement).
_UNIT = st.sampled_from(
    [
        ["x = 1"],
        ["# a comment"],
        [""],
        ["   "],
        ["\x0c"],
        ["\x0cy = 2"],
        ["z = (1,", "     2)"],
        ["if x:", "    pass"],
        ["try:", "    pass", "except (ValueError) :", "    pass"],
        ['s = """', "text\x0c", '"""'],
        ["def f():", "    return 1"],
        ["w = 1 + \\", "    2"],
        ["class C:", "\x0c", "    a = 1"],
        ["@staticmethod", "def g():", "    pass"],
    ]
)


@st.composite
def _files(draw: st.DrawFn) -> str:
    """Python source: ``import torch``, statements with any line endings and trailing
    whitespace, and one autocast statement to rewrite somewhere among them."""
    units = draw(st.lists(_UNIT, max_size=12))
    units.insert(draw(st.integers(0, len(units))), [OLD, "    y = model(x)"])
    lines = [line for unit in [["import torch"], *units] for line in unit]
    text = ""
    for line in lines:
        trailing = draw(_TRAILING) if line.strip() and not line.endswith("\\") else ""
        text += line + trailing + draw(_ENDING)
    return text if draw(st.booleans()) else text.rstrip("\r\n")


@settings(max_examples=examples(150), deadline=None)
@given(_files())
def test_every_byte_outside_the_rewritten_line_is_kept(text: str) -> None:
    """Whatever the endings, form feeds and trailing whitespace around it, only the rewritten
    text changes; every other byte, the rewritten line's own ending included, is kept."""
    outcome = fix_python(text, {"autocast-xpu"})
    assert outcome.changed, outcome.refusals
    assert outcome.source == text.replace(OLD, NEW)
    assert fix_python(outcome.source, {"autocast-xpu"}).source == outcome.source


@settings(max_examples=examples(100), deadline=None)
@given(st.text(alphabet="ab\r\n\x0c", max_size=30))
def test_lines_split_as_python_reads_them_and_join_back(text: str) -> None:
    """Only CRLF, CR and LF end a line (a form feed does not); joined, the lines are the text."""
    lines = split_lines(text)
    assert join_lines(lines) == text
    assert all("\n" not in body and "\r" not in body for body, _ in lines)
    assert all(ending for _, ending in lines[:-1])


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet="ab\r\n\x0c\x1c\x85\u2028", max_size=30))
def test_the_diffs_lines_are_pythons(text: str) -> None:
    """The diff's lines (``\\n`` read in C where the text has no ``\\r``) are Python's
    lines, each shown ending in ``\\n`` (``\\r\\n`` kept), never broken at a form feed or
    a Unicode line separator."""
    expected = [
        body + ("\r\n" if ending == "\r\n" else "\n" if ending else "")
        for body, ending in split_lines(text)
    ]
    assert _diff_lines(text) == expected
    assert _diff_lines(text.replace("\r", "")) == [
        body + ("\n" if ending else "") for body, ending in split_lines(text.replace("\r", ""))
    ]


def test_a_roundtrip_that_loses_a_line_places_nothing() -> None:
    """Lines are placed by position only when LibCST printed every original line back."""
    original = split_lines("a\nb\n")
    assert trace(original, "a\n", "a\n") is None
    traced = trace(original, "a\nb\n", "a\nc\n")
    assert traced is not None and traced.lines == (("a", "\n"), ("c", "\n"))
    assert traced.origins == (0, None)


SAMPLE = "import torch\nwith torch.xpu.amp.autocast():\n    pass\n"


@pytest.mark.parametrize(
    ("before", "after", "fix_id"),
    [
        pytest.param(
            SAMPLE.replace("\n", "\r").encode(),
            SAMPLE.replace(OLD, NEW).replace("\n", "\r").encode(),
            "autocast-xpu",
            id="CR line endings keep the last one",
        ),
        pytest.param(
            b"import torch\n\x0c\nimport intel_extension_for_pytorch\nx = 1\n",
            b"import torch\n\x0c\nx = 1\n",
            "ipex-side-effect-import",
            id="a page break above a removed import stays",
        ),
        pytest.param(
            b"import torch\nimport intel_extension_for_pytorch\n\x0cx = 1\n",
            b"import torch\n\x0cx = 1\n",
            "ipex-side-effect-import",
            id="a page break before the next statement stays",
        ),
        pytest.param(
            b"\xef\xbb\xbfimport torch \r\n" + OLD.encode() + b"\n    pass\t\r"
            b"try:\r\n    pass\r\nexcept (ValueError) :\n    pass",
            b"\xef\xbb\xbfimport torch \r\n" + NEW.encode() + b"\n    pass\t\r"
            b"try:\r\n    pass\r\nexcept (ValueError) :\n    pass",
            "autocast-xpu",
            id="BOM, mixed endings, trailing whitespace, what LibCST prints otherwise",
        ),
    ],
)
def test_the_reported_cases_on_real_files(
    tmp_path: Path, before: bytes, after: bytes, fix_id: str
) -> None:
    """The cases of the report, written to a file and fixed as scan --fix fixes it."""
    path = tmp_path / "train.py"
    path.write_bytes(before)
    fixed = fix_file(path, {fix_id}, write=True)
    assert fixed.changed and path.read_bytes() == after


def test_each_change_is_traced_over_the_statements_around_it_only() -> None:
    """Two rewrites far apart are two regions of whole statements; the statements between
    (here one LibCST cannot even read) are never given to LibCST, and stay byte for byte."""
    between = 'print "a Python 2 statement LibCST refuses"\r\nTABLE = [\x0c1,\r\n 2]   \r\n'
    text = (
        "import torch\r\n# leading comment\r\n" + OLD + "\r\n    pass\r\n" + between + OLD
        + "\r\n    pass\r\n"
    )  # fmt: skip
    outcome = fix_python(text, {"autocast-xpu"})
    assert outcome.changed, outcome.refusals
    assert outcome.source == text.replace(OLD, NEW)
    normalised = lf_text(split_lines(text))
    fixed = split_lines(text.replace(OLD, NEW).replace("\r\n", "\n"))
    assert changed_regions(normalised, split_lines(normalised), fixed) == [
        (1, 4, 1, 4),
        (7, 9, 7, 9),
    ]


@pytest.mark.parametrize(
    ("before", "after", "regions"),
    [
        ("a = 1\nb = 2\nc = 3\n", "a = 1\nB = 2\nc = 3\n", [(1, 2, 1, 2)]),
        # a change in the lines between two statements takes both
        ("a = 1\n# x\nb = 2\n", "a = 1\n# y\nb = 2\n", [(0, 3, 0, 3)]),
        # an inserted line takes the statements on both sides
        ("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 2\nx = 0\nc = 3\n", [(1, 3, 1, 4)]),
        # a removed statement with its leading comment; the last line has no line break
        ("a = 1\n# about b\nb = 2\nc = 3", "a = 1\nc = 3", [(0, 3, 0, 1)]),
        ("def f():\n    pass\n\n   ", "def f():\n    pass\n   ", [(0, 4, 0, 3)]),
    ],
)
def test_changed_regions_are_whole_statements(
    before: str, after: str, regions: list[tuple[int, int, int, int]]
) -> None:
    assert changed_regions(before, split_lines(before), split_lines(after)) == regions


def test_a_text_libcst_prints_otherwise_without_a_rewrite_is_unchanged() -> None:
    """LibCST prints ``except E :`` as ``except E:``; where nothing is rewritten (a use that
    is only refused), the original lines are written back, so the text is not changed (no
    write, no record of a change)."""
    text = "import torch\ntry:\n    pass\nexcept E :\n    pass\nx = torch.xpu.amp.autocast\n"
    outcome = fix_python(text, {"autocast-xpu"})
    assert outcome.refusals
    assert not outcome.rewrites
    assert outcome.source == text
    assert not outcome.changed
