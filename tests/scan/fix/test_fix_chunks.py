"""``fix_source`` reads a large module in chunks: the chunks' outcome is the whole module's.

``fix_chunked`` (any chunk size) is held to ``fix_whole_module``: same text, same records at
the same lines, or ``None`` (the module is then fixed whole), on the samples of ``test_fix``
padded as ``test_fix_slice`` pads them, on generated modules that mix what could make a chunk
read a name otherwise than the whole module does (an alias bound in one statement and used in
another, ``global``, ``del`` and rebinding, decorators, nested functions and classes, ``if
__name__`` blocks, ``try``/``except ImportError`` guards, statements sharing a line, comments
between statements, LF, CRLF and CR), and on modules where the chunks must answer (not
``None``). ``verbatim``'s tracing of touching regions apart is held to tracing them together.
"""

from __future__ import annotations

import ast

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fix_slice import SAMPLES, padded
from test_verbatim import _UNIT, NEW, OLD

from ipex_doctor.scan.fix import chunks as fix_chunks
from ipex_doctor.scan.fix.codemods.registry import FIX_IDS
from ipex_doctor.scan.fix.rewrite import fix_chunked, fix_whole_module
from ipex_doctor.scan.fix.verbatim import fix_python

STEP = "def step_{n}(model, x):\n    with torch.xpu.amp.autocast():\n        return model(x)\n"

UNITS = (
    STEP,
    "\n\n",
    "# a comment between statements\n",
    "@torch.xpu.amp.autocast()\ndef decorated_{n}():\n    pass\n",
    "class Nested{n}:\n    def method(self):\n        def inner():\n"
    "            return torch.xpu.amp.autocast(dtype=torch.float16)\n        return inner\n",
    "if __name__ == '__main__':\n    with torch.xpu.amp.autocast(enabled=False):\n        main()\n",
    "try:\n    import intel_extension_for_pytorch as ipex\nexcept ImportError:\n    ipex = None\n",
    "a_{n} = 1; b_{n} = torch.xpu.amp.autocast(False); c_{n} = 2\n",
    "def rebinds_{n}():\n    global torch\n    torch = None\n",
    "def rebinds_autocast_{n}():\n    global autocast\n    autocast = None\n",
    "del autocast\n",
    "autocast = torch.xpu.amp.autocast\n",
    "from torch.xpu.amp import autocast\n",
    "from torch.xpu.amp import autocast as ac\n",
    "with autocast():\n    pass\n",
    "def uses_alias_{n}():\n    with ac(dtype=torch.float16):\n        pass\n",
    "torch = make_torch()\n",
    "scaler_{n} = torch.xpu.amp.GradScaler()\n",
    "dtype_{n} = torch.xpu.get_autocast_xpu_dtype()\n",
    "with a() and b():\n    pass\n",
    "def uses_ipex_{n}():\n    return ipex.optimize(model)\n",
    "__all__ = ['step']\n",
    "value_{n} = globals()['autocast']\n",
    "dist.init_process_group(backend='ccl')\n",
    "def shadow_{n}(torch):\n    return torch.xpu.amp.autocast()\n",
    "lambda_{n} = lambda: torch.xpu.amp.autocast()\n",
    "names_{n} = [torch for torch in range(3)]\n",
    "if flag:\n    import torch as t\n",
    "def walrus_{n}():\n    return (autocast := 1)\n",
    "for torch in []:\n    pass\n",
    "x_{n} = (1,\n# a comment inside brackets\n     2)\n",
)
"""Top-level statements, each valid whatever surrounds it."""


@st.composite
def modules(draw: st.DrawFn) -> str:
    """``import torch`` (sometimes IPEX too), then statements drawn from ``UNITS``, mostly
    ``STEP`` (the dense shape), with one line ending throughout."""
    head = draw(st.sampled_from(["import torch\n", "import torch\nimport intel_extension_for_pytorch\n",
                                 '"""Doc."""\nimport torch\n']))  # fmt: skip
    picks = draw(st.lists(st.one_of(st.just(0), st.integers(0, len(UNITS) - 1)), max_size=16))
    body = "".join(UNITS[pick].format(n=n) for n, pick in enumerate(picks))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return (head + body).replace("\n", newline)


@settings(max_examples=examples(80), deadline=None)
@given(modules(), st.integers(1, 400))
def test_chunks_give_the_whole_modules_outcome(module: str, chunk_bytes: int) -> None:
    """Whatever is chunked gives the whole module's text and records, at the same lines."""
    chunked = fix_chunked(module, FIX_IDS, chunk_bytes)
    if chunked is not None:
        assert chunked == fix_whole_module(module, FIX_IDS)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("sample", list(SAMPLES))
def test_the_fixes_samples_chunked_give_the_whole_modules_outcome(
    sample: str, newline: str
) -> None:
    """Each sample of the fixes' tests, padded with other statements, chunked small."""
    source, own = SAMPLES[sample]
    module = padded(source).replace("\r\n", "\n").replace("\n", newline)
    for ids in (own, FIX_IDS):
        chunked = fix_chunked(module, ids, 64)
        if chunked is not None:
            assert chunked == fix_whole_module(module, ids)


DENSE_CASES = {
    "the dense shape": "import torch\n\n\n" + "\n\n".join(STEP.format(n=n) for n in range(12)),
    "uses far from the import, comments and ; between": (
        '"""Doc."""\nimport torch\n# a comment\n'
        + "".join(f"a_{n} = 1; b_{n} = 2\n{STEP.format(n=n)}# between\n\n" for n in range(8))
    ),
    "nested, decorated, __main__": (
        "import torch\n"
        + "".join(UNITS[k].format(n=n) for n, k in enumerate([0, 3, 4, 5, 0, 24, 25, 0, 3, 4]))
    ),
    "an alias bound by one statement, used by another; a rebinding in a function": (
        "from torch.xpu.amp import autocast as ac\nimport torch\n"
        + "".join(STEP.format(n=n) for n in range(6))
        + "def uses_alias():\n    keep = ac\n    with ac():\n        pass\n"
        + UNITS[9].format(n=98)
        + "".join(STEP.format(n=n) for n in range(6, 12))
    ),
}


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("case", list(DENSE_CASES))
def test_a_module_of_independent_statements_is_really_chunked(case: str, newline: str) -> None:
    """Where no decision reads across statements, the chunks answer (not ``None``), and as
    the whole module does; what is kept in every chunk is the context alone."""
    module = DENSE_CASES[case].replace("\n", newline)
    for chunk_bytes in (250, 500):
        chunked = fix_chunked(module, FIX_IDS, chunk_bytes)
        assert chunked is not None
        assert chunked.changed
        assert chunked == fix_whole_module(module, FIX_IDS)
        ast.parse(chunked.source)


def test_an_import_that_goes_once_its_uses_in_several_chunks_are_rewritten_is_not_chunked() -> None:
    """Whether an import goes reads every use of it: a chunk that sees only its own uses
    would remove it, so the chunks give up and the whole module decides."""
    module = "from torch.xpu.amp import autocast as ac\nimport torch\n" + "".join(
        f"def step_{n}():\n    with ac():\n        pass\n" for n in range(6)
    )
    assert fix_chunked(module, FIX_IDS, 60) is None
    whole = fix_whole_module(module, FIX_IDS)
    assert "from torch.xpu.amp" not in whole.source
    assert whole.source.count("torch.amp.autocast") == 6


def test_a_statement_that_binds_a_name_a_fix_reads_is_in_every_chunk() -> None:
    """``global torch`` in a function, a ``del``, a rebinding by ``for``, a def named as a
    target, ``__all__`` and ``globals()`` make their statements context; plain uses do not."""
    statements = [
        "import torch\n",
        STEP.format(n=1),
        UNITS[8].format(n=2),
        "del autocast\n",
        "for torch in []:\n    pass\n",
        "def autocast():\n    pass\n",
        "__all__ = []\n",
        "v = globals()\n",
        STEP.format(n=3),
        "plain = 1\n",
    ]
    source = "".join(statements)
    split = fix_chunks.split(source, {"torch", "autocast", "xpu"}, 1)
    assert split is not None
    bodies = [chunk.body for chunk in split.chunks]
    assert bodies == [statements[1], statements[8], statements[9]]
    for chunk in split.chunks:
        for statement in statements[:1] + statements[2:8]:
            assert statement in chunk.head + chunk.tail


def test_a_module_that_cannot_be_chunked_with_confidence_is_not() -> None:
    """A statement that does not parse makes ``split`` give up; a context that every chunk
    would repeat at a loss makes ``fix_chunked`` give up."""
    dense = "".join(STEP.format(n=n) for n in range(4))
    assert fix_chunks.split("import torch\nx = (\n" + dense, {"torch"}, 1) is None
    imports = "".join(f"import m{n}\n" for n in range(50))
    assert fix_chunks.split(imports + dense, {"torch"}, 1) is not None
    assert fix_chunked(imports + dense, FIX_IDS, 1) is None
    assert fix_chunks.split("import torch\n" + dense, {"torch"}, 100) is not None


@st.composite
def files_of_many_rewrites(draw: st.DrawFn) -> str:
    """Python source (any line endings, trailing whitespace, form feeds, what LibCST does
    not print back as it read it) with several autocast statements to rewrite, some next to
    each other."""
    units = draw(st.lists(_UNIT, max_size=10))
    for _ in range(draw(st.integers(2, 6))):
        units.insert(draw(st.integers(0, len(units))), [OLD, "    y = model(x)"])
    lines = [line for unit in [["import torch"], *units] for line in unit]
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return "".join(line + ending for line in lines)


@settings(max_examples=examples(100), deadline=None)
@given(files_of_many_rewrites())
def test_touching_regions_traced_apart_give_what_tracing_them_together_gives(text: str) -> None:
    outcome = fix_python(text, {"autocast-xpu"})
    assert outcome.source == text.replace(OLD, NEW)
    assert fix_python(text, {"autocast-xpu"}, region_lines=1) == outcome
