"""``fix_source`` reads a slice of a large module: the slice's outcome is the whole module's.

The differential tests pad every sample of ``test_fix`` with statements no fix reads (plain
and compound statements, decorators, comments at column 0 and indented, multi-line strings),
between its own statements, and hold ``fix_sliced`` (which must really leave something out)
to ``fix_whole_module``: same text, same records at the same lines, with LF, CRLF and CR
line breaks. The lexical split (``top_level``) is tested on its own on what Python's
tokenizer would make of the text.
"""

from __future__ import annotations

import ast
import io
import tokenize
from textwrap import dedent

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fix import CASES, KITCHEN_SINK, REFUSALS

from ipex_doctor.scan.fix import slice as fix_slice
from ipex_doctor.scan.fix.codemods.registry import CODEMODS, FIX_IDS
from ipex_doctor.scan.fix.rewrite import fix_sliced, fix_source, fix_whole_module
from ipex_doctor.scan.read.top_level import top_level

FILLERS = (
    "_FILLER_{n} = {{'k': ('{n}', 'v')}}\n",
    "\n# a comment at column 0\ndef _filler_{n}(a, b):\n    '''Doc.'''\n    return a + b  # sum\n"
    "    # an indented comment after the block\n\n",
    "class _Filler{n}:\n    value = [\n        1,\n    ]\n\n\n",
    "@decorator_{n}\ndef _decorated_{n}():\n    pass\n",
    "_s{n} = '''multi\nline'''; _t{n} = 2\n",
    "if _cond_{n}:\n    _x = 1\nelse:\n    _x = 2\n# after\n",
    "_f{n} = [\n    1,\n    2,\n]  # a list\n\n",
    "def _ws_{n}():\n    pass\n    \n\n",
)


def padded(source: str) -> str:
    """``source`` with filler statements before, between and after its top-level statements
    (never before a ``from __future__`` import, which must stay first)."""
    statements = top_level(source)
    assert statements is not None, source
    pieces: list[str] = []
    pos = 0
    for n, statement in enumerate(statements):
        if not source.startswith("from __future__", statement.start):
            pieces.append(source[pos : statement.start])
            pieces.append(FILLERS[n % len(FILLERS)].format(n=n))
            pieces.append(FILLERS[(n + 3) % len(FILLERS)].format(n=f"{n}b"))
            pos = statement.start
    pieces.append(source[pos:])
    if not source.endswith(("\n", "\r")):
        pieces.append("\n")
    pieces.extend(filler.format(n=f"end{n}") for n, filler in enumerate(FILLERS))
    return "".join(pieces)


SAMPLES: dict[str, tuple[str, frozenset[str]]] = {
    **{f"case {name}": (dedent(before), frozenset({fix_id})) for name, (fix_id, before, _) in CASES.items()},
    **{f"refusal {name}": (source, frozenset({fix_id})) for name, (fix_id, source, _, _) in REFUSALS.items()},
    "kitchen sink": (KITCHEN_SINK, FIX_IDS),
    "lines after an earlier fix": (
        "from torch.xpu.amp import autocast\nimport torch\nimport intel_extension_for_pytorch\n\n"
        "with autocast():\n    pass\nwith a() and b():\n    pass\n",
        FIX_IDS,
    ),
    "import torch added before its first use at import": (
        "import intel_extension_for_pytorch as ipex\nfree = ipex.xpu.mem_get_info()\n",
        FIX_IDS,
    ),
    "a comment above a removed import": (
        '"""Doc."""\nimport os\n\n# IPEX for its side effect\nimport intel_extension_for_pytorch\n'
        "x = os.getcwd()\n",
        FIX_IDS,
    ),
}  # fmt: skip


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("sample", list(SAMPLES))
def test_the_slice_gives_the_whole_modules_outcome(sample: str, newline: str) -> None:
    """Padded with statements no fix reads, each sample is really cut (the slice leaves
    something out) and fixed as the whole module is: same text, records and lines; with the
    sample's own fix and with every fix."""
    source, own = SAMPLES[sample]
    module = padded(source).replace("\r\n", "\n").replace("\n", newline)
    for ids in (own, FIX_IDS):
        sliced = fix_sliced(module, ids)
        assert sliced is not None, "the padded module was not cut"
        assert sliced == fix_whole_module(module, ids)
        assert fix_source(module, ids) == sliced
        if sliced.changed:
            ast.parse(sliced.source)
            assert fix_source(sliced.source, ids).source == sliced.source


def test_the_cut_leaves_out_the_filler_and_keeps_what_fixes_read() -> None:
    """The slice holds the statements that spell what a fix reads, imports included, one
    placeholder per run of filler, and maps its lines back to the original's."""
    module = padded(KITCHEN_SINK)
    relevant = {word for codemod in CODEMODS.values() for word in codemod.relevant()}
    cut = fix_slice.cut(module, relevant)
    assert cut is not None
    assert "import intel_extension_for_pytorch as ipex" in cut.text
    assert "subprocess.run([" in cut.text
    assert "_filler_2" not in cut.text and cut.runs
    lines = module.splitlines()
    for number, text in enumerate(cut.text.splitlines(), start=1):
        if not text.startswith(fix_slice.PLACEHOLDER):
            assert lines[cut.line(number) - 1] == text, number
    assert cut.splice(cut.text) == module


def test_what_the_slice_leaves_out_is_not_parsed() -> None:
    """A statement no fix reads is copied, not parsed: a Python 2 line there stays as it was
    (the result parses wherever the original did), and the fixes still apply."""
    module = padded("import torch\nwith torch.xpu.amp.autocast():\n    pass\n") + 'print "py2"\n'
    module += FILLERS[0].format(n="last")
    outcome = fix_source(module, {"autocast-xpu"})
    assert outcome.changed and 'print "py2"\n' in outcome.source
    assert 'torch.amp.autocast("xpu"' in outcome.source
    whole = fix_whole_module(module, {"autocast-xpu"})
    assert not whole.changed and "does not parse" in whole.refusals[0].reason


# -- the lexical split ----------------------------------------------------------------------

TRICKY = '''\
#!/usr/bin/env python
"""Doc with a quote \\""" inside."""
import torch  # c
x = 1; y = 2

@dec
# between
def f(a,
      b):
    s = """
def g():
    pass
"""
    return 'it\\'s' + "x\\
y" + r"\\"" + f"{a!r:>{b}}"
# trailing
    # indented comment

if a:
    pass
elif b:
    pass
else:
    pass
z = [1,
2, 3]  # end
w = 1 \\
  + 2
class C: pass
'''


def _starts_by_tokenize(text: str) -> list[int]:
    """The lines where Python's tokenizer starts a top-level statement (the first token of a
    logical line at indentation 0 that does not continue a compound statement)."""
    starts: list[int] = []
    depth = 0
    at_line_start = True
    after_decorator = False
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        ignored = (
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.NL,
            tokenize.COMMENT,
            tokenize.ENDMARKER,
        )
        if token.type in ignored:
            continue
        if token.type == tokenize.NEWLINE:
            at_line_start = True
            continue
        if at_line_start:
            at_line_start = False
            continue_clause = token.string in ("else", "elif", "except", "finally")
            if token.start[1] == 0 and depth == 0 and not after_decorator and not continue_clause:
                starts.append(token.start[0])
            after_decorator = token.start[1] == 0 and token.string == "@"
    return starts


def test_the_split_finds_the_statements_pythons_tokenizer_finds() -> None:
    """Strings (triple, escaped, continued, raw, f-strings), comments, brackets, backslash
    continuations, decorators and else/elif clauses: the statements start where tokenize
    says, each ends with its last logical line, and only comment and blank lines lie
    between."""
    statements = top_level(TRICKY)
    assert statements is not None
    lines = [TRICKY.count("\n", 0, s.start) + 1 for s in statements]
    assert lines == _starts_by_tokenize(TRICKY)
    for this, after in zip(statements, statements[1:], strict=False):
        gap = TRICKY[this.end : after.start]
        assert all(not line.strip() or line.lstrip().startswith("#") for line in gap.splitlines())
    function = next(s for s in statements if TRICKY.startswith("@dec", s.start))
    assert TRICKY[function.start : function.end].endswith('f"{a!r:>{b}}"\n')
    assert function.indented and not any(s.indented for s in statements if s is not function)


@pytest.mark.parametrize(
    "text",
    ["x = '''never closed\n", "x = 'open\n", "x = (1,\n", "x = 1)\n", "    x = 1\n"],
)
def test_what_cannot_be_split_with_confidence_is_not(text: str) -> None:
    """An unterminated string, unbalanced brackets, an indented first line: no split (the
    whole module is fixed then)."""
    assert top_level(text) is None


_PIECES = st.sampled_from(
    [*(f.format(n=7) for f in FILLERS), "import torch\n", "\n", "# c\n", "x = 'a#b'  # c\n",
     "y = (1,\n     2)\n", "async def g():\n    await h()\n", "z = '\\\\'\n"]
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=12), st.sampled_from(["\n", "\r\n"]))
def test_any_sequence_of_statements_splits_as_tokenize_splits_it(
    pieces: list[str], newline: str
) -> None:
    """Random sequences of statements: the split agrees with Python's tokenizer, and the
    statements and gaps put together are the text."""
    text = "".join(pieces).replace("\n", newline)
    statements = top_level(text)
    assert statements is not None
    newlines = [i for i, c in enumerate(text) if c == "\n"]
    lines = [sum(1 for i in newlines if i < s.start) + 1 for s in statements]
    assert lines == _starts_by_tokenize(text)
    assert all(a.end <= b.start for a, b in zip(statements, statements[1:], strict=False))
