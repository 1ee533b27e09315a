"""The Python reader searches a module only for the structural patterns that can match in it
(``readers.searched_patterns``): the outcome is the one of searching for every pattern.

The differential tests hold ``read_python`` to ``read_python(..., every_pattern=True)`` with
the shipped rules and the tests' sample rules, read whole, by statement and in runs, over the
corpus of the statement tests (their generated modules of tricky pieces, every sample of the
fixes' tests padded, and modules that spell IPEX across many runs) in LF, CRLF and CR. The
boundary: where a word is read without being written (an escape, two literals side by side, a
coding cookie that reads ASCII bytes as other letters, an identifier beyond ASCII), a pattern
can match though its trigger does not hold for the bytes, and every pattern is searched.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_python_statements import (
    FILLERS,
    PIECES,
    SAMPLED,
    SAMPLES,
    SHIPPED,
    in_order,
    ipex_module,
    padded,
)

from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.match.ruleset import RuleSet
from ipex_doctor.scan.match.triggers import Probe
from ipex_doctor.scan.outcome import Outcome
from ipex_doctor.scan.read.discovery import Candidate
from ipex_doctor.scan.read.source import decode_python
from ipex_doctor.scan.readers import read_python, searched_patterns

READINGS = (
    {"whole": True},
    {"whole": False},
    {"whole": False, "run_size": 1},
    {"whole": False, "run_size": 300},
)
"""The ways ``read_python`` reads a module: whole, by statement, in runs of two sizes."""


def read(data: bytes, rules: RuleSet, **how: object) -> Outcome:
    candidate = Candidate(Path("m.py"), "m.py", FileKind.PYTHON, len(data))
    return in_order(read_python(candidate, data, rules, **how))  # type: ignore[arg-type]


def assert_same(data: bytes) -> None:
    """Searching only the patterns that can match gives every reading's outcome, under both
    rule sets."""
    for rules in (SHIPPED, SAMPLED):
        for how in READINGS:
            searched = read(data, rules, **how)
            every = read(data, rules, every_pattern=True, **how)
            assert searched == every, (how, data.decode("utf-8", "replace"))


def searched(data: bytes, rules: RuleSet = SHIPPED) -> frozenset[str] | None:
    python = rules.python(FileKind.PYTHON)
    assert python is not None
    return searched_patterns(python, Probe(data), data, decode_python(data))


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.sampled_from(PIECES + FILLERS), min_size=1, max_size=14),
    st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_generated_modules_give_what_every_pattern_gives(pieces: list[str], newline: str) -> None:
    text = "".join(p.format(n=n) for n, p in enumerate(pieces))
    try:
        ast.parse(text)
    except SyntaxError:
        return
    assert_same(text.replace("\n", newline).encode("utf-8"))


@pytest.mark.parametrize("source", SAMPLES)
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_fix_sample_padded_gives_what_every_pattern_gives(source: str, newline: str) -> None:
    assert_same(padded(source).replace("\r\n", "\n").replace("\n", newline).encode("utf-8"))


@pytest.mark.parametrize("seed", range(8))
def test_modules_that_spell_ipex_give_what_every_pattern_gives(seed: int) -> None:
    assert_same(ipex_module(seed, 120).encode())


def dense(functions: int) -> str:
    """The benchmark's dense shape: a ``torch.xpu.amp.autocast`` in every function, and
    the same after ``scan --fix``."""
    body = "".join(
        f"\n\ndef step_{n}(model, x):\n    with torch.xpu.amp.autocast():\n        return model(x)\n"
        f"\n\ndef fixed_{n}(model, x):\n"
        '    with torch.amp.autocast("xpu", dtype=torch.bfloat16, cache_enabled=True):\n'
        "        return model(x)\n"
        for n in range(functions)
    )
    return "import torch\n" + body


def test_a_dense_module_is_searched_only_for_the_patterns_it_spells() -> None:
    """What the shortcut is for: the dense shape spells no pattern's words, so only the
    probe and the switch (always searched) are looked for, and the outcome is unchanged."""
    data = dense(300).encode()
    python = SHIPPED.python(FileKind.PYTHON)
    assert python is not None
    always = {r for r, p, _ in python.patterns if p.id in ("availability-probe", "ipex-switch")}
    assert searched(data) == always
    assert len(always) < len(python.patterns)
    assert_same(data)
    assert read(data, SHIPPED).matches


WORDS_READ_NOT_WRITTEN = {
    "escape": b"dist.init_process_group(backend='c\\x63l')\n",
    "side by side": b"dist.init_process_group(backend='c' 'cl')\n",
    "continued": b"dist.init_process_group(backend='c\\\ncl')\n",
    "coding cookie": b"# coding: utf-7\n" + b"dist.init_process_group(backend='+AGM-cl')\n",
    "beyond ASCII": "dist.init_process_group(backend='ccl', x='\u00e9')\n".encode(),
}
"""A ``ccl-backend`` finding whose ``"ccl"`` is read, not written (but the last, which is
written and has text beyond ASCII)."""


@pytest.mark.parametrize("name", sorted(WORDS_READ_NOT_WRITTEN))
def test_a_word_read_without_being_written_searches_every_pattern(name: str) -> None:
    call = WORDS_READ_NOT_WRITTEN[name]
    cookie, _, rest = call.partition(b"\n") if call.startswith(b"#") else (b"", b"", call)
    head = (cookie + b"\n" if cookie else b"") + b"import torch.distributed as dist\n"
    data = head + b"import intel_extension_for_pytorch\n" + rest
    assert searched(data) is None
    assert_same(data)
    found = {m.rule_id for m in read(data, SHIPPED).matches}
    assert "ccl-backend" in found
    if name != "beyond ASCII":
        # NOTE: the trigger does not hold for these bytes: a reader that trusted it here
        # would lose the finding (the prefilter admits the file for the IPEX import)
        assert b"'ccl'" not in data and b'"ccl"' not in data


def test_an_ascii_module_written_as_read_is_gated() -> None:
    """The boundary's other side: the same call written out is searched for by its words,
    and a module without them is not searched for ``ccl-backend``."""
    data = b"import torch.distributed as dist\nimport intel_extension_for_pytorch\n"
    with_call = data + b"dist.init_process_group(backend='ccl')\n"
    python = SHIPPED.python(FileKind.PYTHON)
    assert python is not None
    ccl = {r for r, p, _ in python.patterns if p.id == "ccl-backend"}
    assert ccl and ccl <= (searched(with_call) or set())
    assert ccl.isdisjoint(searched(data) or ccl)
    assert_same(with_call)
    assert "ccl-backend" in {m.rule_id for m in read(with_call, SHIPPED).matches}


@pytest.mark.parametrize(
    "source",
    [
        b"import torch\nif args.use_ipex:\n    model = torch.xpu.optimize(model)\n",
        b"import torch\nUSE_IPEX = os.environ.get('USE_IPEX')\nif USE_IPEX:\n"
        b"    torch.xpu.amp.autocast()\n",
    ],
)
def test_a_switch_is_searched_for_without_its_trigger(source: bytes) -> None:
    """The switch's trigger is an IPEX import's (it never makes the prefilter read a file);
    a switch beside another rule's hit is found in a module without it."""
    python = SHIPPED.python(FileKind.PYTHON)
    assert python is not None
    probe = Probe(source)
    switch = [(r, p, n) for r, p, n in python.patterns if p.id == "ipex-switch"]
    assert switch and not any(probe.holds(t) for _, p, n in switch for t in p.triggers(n))
    assert {r for r, _, _ in switch} <= (searched(source) or set())
    assert "ipex-path-switch" in {m.rule_id for m in read(source, SHIPPED).matches}
    assert_same(source)
