"""``fix.splice`` rewrites calls as text where LibCST's outcome is certain: it gives LibCST's
outcome, byte for byte and record for record, or declines.

``fix_spliced`` (the splices alone, on the whole module) is held to ``fix_whole_module``
(LibCST on the whole module), and ``fix_source`` (splices where they answer, LibCST
elsewhere) to ``fix_with_libcst`` (the same without splices), on generated modules that mix
every call the splices rewrite with what could make a call mean something else (``torch``
bound elsewhere, rebound, shadowed by a parameter, a ``global``, a comprehension; aliases
from imports; nested functions and classes; decorators; the same text in strings and
comments; calls over several lines, in parentheses, after a backslash, sharing a line with
``;``; LF, CRLF and CR; a BOM; tabs; identifiers beyond ASCII), and on every sample of the
fixes' tests. Where the splices must answer (a module of nothing else), they do.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fix_chunks import UNITS
from test_fix_slice import SAMPLES, padded

from ipex_doctor.scan.fix import splice
from ipex_doctor.scan.fix.codemods.base import BARE_GENERATOR
from ipex_doctor.scan.fix.codemods.registry import FIX_IDS
from ipex_doctor.scan.fix.rewrite import (
    FixOutcome,
    fix_source,
    fix_source_in_place,
    fix_spliced,
    fix_whole_module,
    fix_with_libcst,
)
from ipex_doctor.scan.fix.verbatim import (
    fix_python,
    join_lines,
    lay_in_place,
    lay_with_libcst,
    lf_text,
    split_lines,
)

SPLICED = (
    "def step_{n}(model, x):\n    with torch.xpu.amp.autocast():\n        return model(x)\n",
    "def args_{n}(x):\n    with torch.xpu.amp.autocast(True, torch.float16):\n        return x\n",
    "def kw_{n}(x):\n    with torch.xpu.amp.autocast(enabled=False, cache_enabled=False):\n"
    "        return x\n",
    "def three_{n}(x):\n    return torch.xpu.amp.autocast(True, torch.float16, False)\n",
    "def spaced_{n}(x):\n    return torch.xpu.amp.autocast( dtype = torch.float16 ,)\n",
    "def trailing_{n}(x):\n    return torch.xpu.amp.autocast(False,)\n",
    "scaler_{n} = torch.xpu.amp.GradScaler()\n",
    "def scaler_{n}():\n    return torch.xpu.amp.GradScaler(init_scale=2.0**16, enabled=True)\n",
    "def cpu_{n}(x):\n    with torch.cpu.amp.autocast(dtype=torch.bfloat16):\n        return x\n",
    "def mode_{n}():\n    return torch.xpu.amp.autocast_mode.autocast()\n",
    "@torch.xpu.amp.autocast()\ndef decorated_{n}():\n    pass\n",
    "class Holder{n}:\n    ctx = torch.xpu.amp.autocast()\n\n    def method(self):\n"
    "        def inner():\n            return torch.xpu.amp.GradScaler(1.0)\n        return inner\n",
    "a_{n} = 1; b_{n} = torch.xpu.amp.autocast(False); c_{n} = 2\n",
    "text_{n} = 'torch.xpu.amp.autocast()'  # torch.xpu.amp.autocast() in a comment\n",
    'doc_{n} = """\ntorch.xpu.amp.autocast()\n"""\n',
    "def tabs_{n}(x):\n\twith torch.xpu.amp.autocast():\n\t\treturn x\n",
    "def größe_{n}(μ):\n    return torch.xpu.amp.autocast(dtype=μ), 'ä'\n",
    "def unicode_arg_{n}():\n    return torch.xpu.amp.autocast(dtype='é'), 'ü'\n",
    "lambda_{n} = lambda: torch.xpu.amp.autocast()\n",
    "def starred_{n}(*a):\n    return torch.xpu.amp.autocast(*a)\n",
    "def unknown_{n}():\n    return torch.xpu.amp.autocast(device_type='xpu')\n",
    "def device_{n}():\n    return torch.xpu.amp.GradScaler(device='xpu')\n",
    "dtype_{n} = torch.xpu.get_autocast_xpu_dtype()\n",
    "def state_{n}():\n    torch.xpu.set_autocast_xpu_enabled(True)\n"
    "    return torch.xpu.amp.is_autocast_xpu_enabled()\n",
    "def state_dtype_{n}():\n    torch.xpu.set_autocast_xpu_dtype(dtype=torch.float16)\n",
    "bad_state_{n} = torch.xpu.get_autocast_xpu_dtype(1), torch.xpu.set_autocast_xpu_dtype(x=1)\n",
    "def quiet_{n}(x):\n    # with this and that\n    with torch.xpu.amp.autocast():\n"
    "        return x and x\n",
    "def nested_call_{n}():\n    return f(torch.xpu.amp.autocast(), g(torch.xpu.amp.GradScaler()))\n",
)
"""Top-level statements whose calls the splices rewrite or refuse (or whose text only looks
so)."""

TRICKY = (
    "def multi_{n}():\n    return torch.xpu.amp.autocast(\n        dtype=torch.float16,\n    )\n",
    "def wrapped_{n}():\n    return (\n        torch.xpu.amp.autocast())\n",
    "def continued_{n}():\n    x = \\\n        torch.xpu.amp.autocast()\n    return x\n",
    "def commented_{n}():\n    return torch.xpu.amp.autocast(  # why\n    )\n",
    "def parens_{n}():\n    return (torch.xpu.amp.autocast)()\n",
    "def spaced_chain_{n}():\n    return torch.xpu .amp.autocast()\n",
    "def not_called_{n}():\n    return torch.xpu.amp.autocast\n",
    "def inside_{n}():\n    return torch.xpu.amp.autocast(dtype=torch.xpu.amp.GradScaler())\n",
    "def param_{n}(torch):\n    return torch.xpu.amp.autocast()\n",
    "def local_{n}():\n    torch = other\n    return torch.xpu.amp.autocast()\n",
    "def glob_{n}():\n    global torch\n    return torch.xpu.amp.autocast()\n",
    "listed_{n} = [torch.xpu.amp.autocast() for torch in range(3)]\n",
    "def local_import_{n}():\n    import torch\n    return torch.xpu.amp.autocast()\n",
    "import torch as t\n",
    "import torch.xpu\n",
    "import intel_extension_for_pytorch as ipex\n",
    "from torch.xpu import amp\n",
    "from os import *\n",
    "from torch.xpu.amp import *\nwith autocast():\n    pass\n",
    "import torch\n",
    "if flag:\n    import torch\n",
    "def uses_t_{n}():\n    return t.xpu.amp.autocast()\n",
    "def uses_amp_{n}():\n    return amp.autocast()\n",
    "def with_and_{n}():\n    with a() and b():\n        pass\n",
    "def with_and_parens_{n}():\n    with (a() and b()) as c, d:\n        pass\n",
    "def with_and_names_{n}():\n    with a and b:\n        pass\n",
    "dist.init_process_group(backend='ccl')\n",
    "class torch:\n    pass\n",
    "del torch\n",
)
"""Top-level statements after which the splices must decline, or answer as LibCST does."""

AS_WRITTEN = (
    "try:\n    pass\nexcept E : x_{n} = torch.xpu.amp.autocast()\n",
    "try:\n    pass\nexcept E :\n    x_{n} = torch.xpu.amp.autocast()\n",
    "def trailing_space_{n}(x):  \n    with torch.xpu.amp.autocast():   \n        return x \n",
    "x_{n} = 1\n\x0c\ndef after_feed_{n}():\n    return torch.xpu.amp.autocast()\n",
    "if flag:\n    pass\nelse: y_{n} = torch.xpu.amp.autocast()\n",
    "items_{n} = [\n    torch.xpu.amp.autocast(),\n    torch.xpu.amp.GradScaler(),\n]\n",
    "call_{n} = f(\n    torch.xpu.amp.autocast())\n",
)
"""Statements LibCST does not print back as written (on a rewritten line or near one):
``fix.verbatim`` writes the original lines back, so the splices are held to its output."""

HEADS = (
    "import torch\n",
    '"""Doc."""\nimport torch\n',
    "\ufeffimport torch\n",
    "# -*- coding: utf-8 -*-\nimport os, torch\n",
    "x = torch.xpu.amp.autocast()\nimport torch\n",
    "",
)


@st.composite
def modules(draw: st.DrawFn, *, tricky: bool = True) -> str:
    """A head, then statements drawn from ``SPLICED`` with (when ``tricky``) up to two from
    ``TRICKY`` and the chunks' units among them, with one line ending throughout."""
    head = draw(st.sampled_from(HEADS if tricky else HEADS[:2]))
    units = [SPLICED[pick] for pick in draw(st.lists(st.integers(0, len(SPLICED) - 1),
                                                     min_size=1, max_size=10))]  # fmt: skip
    others = TRICKY + UNITS
    for pick in draw(st.lists(st.integers(0, len(others) - 1), max_size=2 if tricky else 0)):
        units.insert(draw(st.integers(0, len(units))), others[pick])
    body = "".join(unit.format(n=n) for n, unit in enumerate(units))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return (head + body).replace("\n", newline)


@st.composite
def written_modules(draw: st.DrawFn) -> str:
    """``modules`` with up to two statements of ``AS_WRITTEN`` among them."""
    lines = draw(modules()).splitlines(keepends=True)
    newline = next((line[len(line.rstrip("\r\n")) :] for line in lines), "\n") or "\n"
    for pick in draw(st.lists(st.integers(0, len(AS_WRITTEN) - 1), min_size=1, max_size=2)):
        unit = AS_WRITTEN[pick].format(n=900 + pick).replace("\n", newline)
        lines.append(unit)
    return "".join(lines)


def _whole_or_declined(module: str) -> bool:
    spliced = fix_spliced(module, FIX_IDS)
    if spliced is None:
        return False
    assert spliced == fix_whole_module(module, FIX_IDS)
    return True


@settings(max_examples=examples(150), deadline=None)
@given(modules())
def test_the_splices_give_libcsts_outcome_or_decline(module: str) -> None:
    """Text, records and their lines are LibCST's on the whole module, or the splices decline;
    ``fix_source`` (splices, else LibCST) gives what LibCST alone gives."""
    _whole_or_declined(module)
    assert fix_source(module, FIX_IDS) == fix_with_libcst(module, FIX_IDS)


@settings(max_examples=examples(60), deadline=None)
@given(modules(tricky=False))
def test_a_module_of_calls_alone_is_spliced(module: str) -> None:
    """Where every call is one the splices take, they answer (not ``None``) and as LibCST."""
    assert _whole_or_declined(module)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("sample", list(SAMPLES))
def test_the_fixes_samples_give_libcsts_outcome(sample: str, newline: str) -> None:
    """Each sample of the fixes' tests, as written and padded, with its own fix and with
    every fix: the splices answer as LibCST or decline."""
    source, own = SAMPLES[sample]
    for module in (source, padded(source)):
        module = module.replace("\r\n", "\n").replace("\n", newline)
        for ids in (own, FIX_IDS):
            spliced = fix_spliced(module, ids)
            if spliced is not None:
                assert spliced == fix_whole_module(module, ids)
            assert fix_source(module, ids) == fix_with_libcst(module, ids)


DENSE = "import torch\n" + "".join(SPLICED[0].format(n=n) for n in range(50))


def test_the_dense_shape_is_spliced_and_parses() -> None:
    """The benchmark's dense shape: every call rewritten as text, the result is Python."""
    spliced = fix_spliced(DENSE, FIX_IDS)
    assert spliced is not None
    assert spliced == fix_whole_module(DENSE, FIX_IDS)
    assert len(spliced.rewrites) == 50
    ast.parse(spliced.source)


@pytest.mark.parametrize(
    "statement",
    [
        "def param(torch):\n    return torch.xpu.amp.autocast()\n",
        "def local():\n    torch = other\n    return torch.xpu.amp.autocast()\n",
        "listed = [torch.xpu.amp.autocast() for torch in range(3)]\n",
    ],
)
def test_the_differential_catches_a_splice_that_ignores_shadowing(
    statement: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With its reading of what binds ``torch`` switched off, the splices rewrite a call where
    ``torch`` is not the module, and the comparison above sees it differ from LibCST: the
    differential tests can fail."""
    module = "import torch\n" + statement + DENSE.removeprefix("import torch\n")
    assert fix_spliced(module, FIX_IDS) is None
    monkeypatch.setattr(splice, "_binds_torch", lambda node: False)
    broken = fix_spliced(module, FIX_IDS)
    assert broken is not None
    assert broken != fix_whole_module(module, FIX_IDS)


@settings(max_examples=examples(100), deadline=None)
@given(written_modules())
def test_what_is_written_is_what_libcst_gives(module: str) -> None:
    """What ``scan --fix`` writes (``fix_python``: the original lines, LibCST's print of the
    rewritten ones) is the same with the splices and without, around lines LibCST does not
    print back as written (a space before ``except``'s colon, a form feed's line, trailing
    spaces, a clause or a bracket that does not parse alone)."""
    spliced = fix_python(module.lstrip("\ufeff"), FIX_IDS)
    assert spliced == fix_python(module.lstrip("\ufeff"), FIX_IDS, splice=False)


def test_a_rewritten_line_libcst_prints_otherwise_declines() -> None:
    """``except E : x = ...`` comes back from LibCST as ``except E: x = ...``: the splices
    leave that module to LibCST; trailing spaces come back as written and are spliced."""
    declined = "import torch\n" + AS_WRITTEN[0].format(n=0)
    assert fix_spliced(declined, FIX_IDS) is None
    spliced = "import torch\n" + AS_WRITTEN[2].format(n=0)
    assert fix_spliced(spliced, FIX_IDS) is not None


# -- the splices' outcomes laid over the original lines without LibCST ---------------------

Lay = Callable[[str, FixOutcome], "FixOutcome | None"]


def _laid_alike(module: str, fix_ids: Collection[str], lay: Lay = lay_in_place) -> bool:
    """Whether the splices answer for ``module`` (text after its byte-order mark, as
    ``fix_bytes`` gives it) and change it; if so, ``lay`` and LibCST's lay-over (what
    ``fix_python`` wrote for every outcome before) write the same text and records."""
    text = module.removeprefix("\ufeff")
    outcome, in_place = fix_source_in_place(lf_text(split_lines(text)), fix_ids)
    if not in_place or not outcome.changed:
        return False
    assert lay(text, outcome) == lay_with_libcst(text, outcome)
    return True


@st.composite
def _mixed_endings(draw: st.DrawFn) -> str:
    """A module of ``written_modules``, each line ending as drawn (LF, CRLF or CR)."""
    lines = split_lines(draw(written_modules()))
    return "".join(
        text + (draw(st.sampled_from(["\n", "\r\n", "\r"])) if ending else "")
        for text, ending in lines
    )


@settings(max_examples=examples(150), deadline=None)
@given(st.one_of(written_modules(), _mixed_endings()))
def test_a_spliced_outcome_is_laid_over_the_lines_as_libcst_lays_it(module: str) -> None:
    """The generated modules (every call the splices rewrite or refuse, what makes them
    decline, lines LibCST prints otherwise; LF, CRLF, CR, mixed): where the splices answer,
    ``lay_in_place`` writes what tracing through LibCST writes."""
    _laid_alike(module, FIX_IDS)


@settings(max_examples=examples(40), deadline=None)
@given(modules(tricky=False))
def test_a_module_of_spliced_calls_alone_is_laid_in_place(module: str) -> None:
    """Where every statement is one the splices take (and one at least is rewritten), they
    answer, so the comparison above is made (it is not vacuous)."""
    newline = "\r\n" if "\r\n" in module else "\r" if "\r" in module else "\n"
    assert _laid_alike(module + SPLICED[0].format(n="last").replace("\n", newline), FIX_IDS)


def test_the_fixes_samples_are_laid_over_the_lines_as_libcst_lays_them() -> None:
    """Every sample of the fixes' tests, as written and padded, in LF, CRLF and CR, with its
    own fix and with every fix; the splices answer for some of them."""
    answered = 0
    for source, own in SAMPLES.values():
        for module in (source, padded(source)):
            for newline in ("\n", "\r\n", "\r"):
                written = module.replace("\r\n", "\n").replace("\n", newline)
                for ids in (own, FIX_IDS):
                    answered += _laid_alike(written, ids)
    assert answered >= 10


def _endings_lost(text: str, outcome: FixOutcome) -> FixOutcome:
    """A broken lay-over: the outcome as it stands (every line ending ``\\n``)."""
    return outcome


def _rewritten_lines_end_in_lf(text: str, outcome: FixOutcome) -> FixOutcome | None:
    """A broken lay-over: a rewritten line ends with ``\\n``, not its original ending."""
    laid = lay_in_place(text, outcome)
    assert laid is not None
    broken = [
        line if line[0] == old else (line[0], "\n")
        for line, (old, _) in zip(split_lines(laid.source), split_lines(text), strict=True)
    ]
    return FixOutcome(join_lines(broken), True, outcome.rewrites, outcome.refusals)


def _last_ending_lost(text: str, outcome: FixOutcome) -> FixOutcome | None:
    """A broken lay-over: the last line loses its ending."""
    laid = lay_in_place(text, outcome)
    assert laid is not None
    return FixOutcome(laid.source.rstrip("\r\n"), True, outcome.rewrites, outcome.refusals)


@pytest.mark.parametrize(
    ("broken", "newline"),
    [
        (_endings_lost, "\r\n"),
        (_endings_lost, "\r"),
        (_rewritten_lines_end_in_lf, "\r\n"),
        (_rewritten_lines_end_in_lf, "\r"),
        (_last_ending_lost, "\n"),
    ],
)
def test_the_comparison_catches_a_broken_lay_over(broken: Lay, newline: str) -> None:
    """A lay-over that loses an original line ending differs from LibCST's: the comparison
    above can fail."""
    module = "import torch\n" + "".join(s.format(n=n) for n, s in enumerate(SPLICED[:3]))
    module = module.replace("\n", newline)
    assert _laid_alike(module, FIX_IDS)
    with pytest.raises(AssertionError):
        _laid_alike(module, FIX_IDS, broken)


def test_an_outcome_that_moves_lines_is_not_laid_in_place() -> None:
    """``lay_in_place`` answers only for an outcome with the original's lines (the splices
    never give another); ``fix_python`` then traces it through LibCST."""
    text = "import torch\r\nx = 1\r\n"
    moved = FixOutcome("import torch\n\nx = 1\n", True)
    assert lay_in_place(text, moved) is None
    assert lay_in_place(text.replace("\r\n", "\n"), moved) is None


@pytest.mark.parametrize(
    "head",
    ["import ｔｏｒｃｈ\n", "import os, ｔｏｒｃｈ\n", "import 𝐭orch\n"],
)
def test_an_import_that_spells_torch_otherwise_declines(head: str) -> None:
    """``ast`` reads ``import ｔｏｒｃｈ`` as ``import torch`` (names are NFKC-normalised);
    LibCST's scopes take the name as written and bind no ``torch``, so LibCST leaves the
    calls below alone: the splices decline rather than rewrite them (before, they did)."""
    module = head + DENSE.removeprefix("import torch\n")
    assert fix_whole_module(module, FIX_IDS).rewrites == ()
    assert fix_spliced(module, FIX_IDS) is None
    assert fix_source(module, FIX_IDS) == fix_with_libcst(module, FIX_IDS)


@pytest.mark.parametrize(
    "call",
    [
        "torch.xpu.amp.autocast(x for x in y)",
        "torch.cpu.amp.autocast(x for x in y)",
        "torch.xpu.amp.GradScaler(x for x in y)",
        "torch.xpu.set_autocast_xpu_dtype(x for x in y)",
        "torch.xpu.amp.autocast_mode.autocast(x for x in y)",
    ],
)
def test_a_bare_generator_argument_is_refused_alike(call: str) -> None:
    """``f(x for x in y)`` needs parentheses once the edit adds or names an argument: the
    call is refused with a sentence, the same with and without the splices, and the file's
    other calls are still rewritten (before: the splices raised ``SyntaxError`` and the
    whole file was left alone as a bug in the doctor)."""
    module = f"import torch\ny = {call}\n" + DENSE.removeprefix("import torch\n")
    outcome = fix_source(module, FIX_IDS)
    assert outcome == fix_with_libcst(module, FIX_IDS)
    assert [r.reason for r in outcome.refusals] == [BARE_GENERATOR]
    assert len(outcome.rewrites) == 50
    assert f"y = {call}\n" in outcome.source
    ast.parse(outcome.source)
