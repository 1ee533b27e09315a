"""The byte prefilter: triggers derived from the rules decide which files are parsed; files
too large, binary or undecodable are skipped with the reason."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scan_rules import SAMPLE, found, rule, scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.model.code import FileKind
from ipex_doctor.scan import DEFAULT_MAX_FILE_BYTES, grep_pattern, trigger_words
from ipex_doctor.scan.match.patterns import _maybe_with_and
from ipex_doctor.scan.match.ruleset import EMBEDDING_PYTHON, RuleSet
from ipex_doctor.scan.match.triggers import (
    FOLDED_TO_ASCII,
    Prefilter,
    Probe,
    Trigger,
    Words,
    _containing,
    minimal,
    name_trigger,
    spellings,
)


def test_trigger_words_come_from_the_rules() -> None:
    """What every file is searched for first comes from the rules: anchors inside the
    triggers' words (never the package a name starts with), and folded or unanchored words."""
    assert trigger_words(SAMPLE) == (
        "autocast",
        "ccl",
        "extension",
        "ipex:",
        "optimize",
        "pytorch",
        "qconv2d_pointwise",
        "spectral_norm",
        "with",
        "xpu",
    )
    rules = CodeRules((rule("one", symbols=["pkg.sub.*"]), rule("two", symbols=["pkg.other"])))
    assert trigger_words(rules) == ("other", "sub")
    assert "with[[:space:](" in grep_pattern(SAMPLE)


@pytest.mark.parametrize("rules", [SAMPLE, None], ids=["sample", "shipped"])
def test_anchors_cover_every_trigger_of_every_reader(rules: CodeRules | None) -> None:
    """Each plain trigger belongs to exactly one anchor, which is inside one of its words (for
    the sample rules and for the shipped ``code_rules.yaml``)."""
    ruleset = RuleSet(code_rules.load() if rules is None else rules)
    for kind in FileKind:
        for python in (False, True):
            prefilter = ruleset.prefilter(kind, python=python)
            anchored = [t for _, covered in prefilter.anchors for t in covered]
            assert sorted(anchored + list(prefilter.direct)) == sorted(prefilter.triggers)
            for anchor, covered in prefilter.anchors:
                assert all(any(anchor in word for word in t.words) for t in covered)
                assert b"torch" != anchor


@pytest.mark.parametrize("rules", [SAMPLE, None], ids=["sample", "shipped"])
def test_the_gate_spares_only_triggers_that_need_it(rules: CodeRules | None) -> None:
    """A file without the gate word (``torch`` for the shipped rules) searches the anchors of
    the other triggers only: each of those is covered there, and every trigger left out has
    the gate inside one of its words, so it could not hold anyway."""
    ruleset = RuleSet(code_rules.load() if rules is None else rules)
    if rules is None:
        assert ruleset.prefilter(FileKind.PYTHON, python=True).gate == b"torch"
    for kind in FileKind:
        for python in (False, True):
            prefilter = ruleset.prefilter(kind, python=python)
            if prefilter.gate is None:
                assert prefilter.ungated == prefilter.anchors
                continue
            plain = [t for _, covered in prefilter.anchors for t in covered]
            spared = [t for _, covered in prefilter.ungated for t in covered]
            assert sorted(spared) == sorted(
                t for t in plain if not any(prefilter.gate in w for w in t.words)
            )


def test_the_gate_is_kept_where_it_spares_anchors_not_by_a_count_of_triggers() -> None:
    """Four names under torch need four anchors; two rules' six setting names need two
    (``IPEX``, ``OPTS``): torch is in fewer than half of the triggers, yet it is the gate, as
    it spares a file without it two anchor searches more than its own. A gate that would spare
    no more than its own search is none."""
    under_torch = [name_trigger(f"torch.{n}", whole=True) for n in ("xpu", "amp", "compile", "jit")]
    settings = [
        Trigger((f"{p}_{n}".encode(),)) for p in ("IPEX", "OPTS") for n in ("A1", "B2", "C3")
    ]
    prefilter = Prefilter([*under_torch, *settings])
    assert (len(prefilter.anchors), prefilter.gate, len(prefilter.ungated)) == (6, b"torch", 2)
    assert Prefilter([*under_torch[:1], *settings]).gate is None


@pytest.mark.parametrize(
    "text",
    [
        "import intel_extension_for_pytorch as ipex\n",
        "from optimum.intel import IPEXModel\n",
        "subprocess.run(['ipexrun', 'train.py'])\n",
        "dist.init_process_group('ccl')\n",
        "with a() and b():\n    pass\n",
        "USE_IPEX = True\n",
        "x = torch.xpu.amp.autocast\n",
        "import json\n",
        "from torch import nn\n",
    ],
)
def test_the_gate_never_changes_what_is_admitted(text: str) -> None:
    """With the gate and without it (every anchor searched), the same files are admitted."""
    ruleset = RuleSet(code_rules.load())
    prefilter = ruleset.prefilter(FileKind.PYTHON, python=True)
    data = text.encode()
    gated = prefilter.admits(Probe(data))
    everything = prefilter.always or any(
        Probe(data).holds(trigger) for trigger in prefilter.triggers
    )
    assert gated == everything


def test_a_part_every_llm_project_spells_is_no_anchor() -> None:
    """ipex-llm's four spellings share ``llm``, which would cover them all with one anchor, but
    nearly every file of an LLM project holds it (``vllm``): the rarer parts anchor them, and
    ``bigdl.llm``'s package (a name's root, never an anchor otherwise) anchors it. The shipped
    rules' floor lists no more of a vLLM-based tree than the IPEX words do."""
    spelled = [Trigger((word,)) for word in (b"ipex-llm", b"ipex_llm", b"bigdl-llm", b"bigdl_llm")]
    module = name_trigger("bigdl.llm", whole=True)
    anchors = {anchor for anchor, _ in Prefilter([*spelled, module]).anchors}
    assert b"llm" not in anchors and b"bigdl" in anchors
    assert Prefilter([Trigger((b"llm",))]).anchors[0][0] == b"llm"  # nothing else to take
    assert "llm" not in grep_pattern(code_rules.load()).split("|")


def test_a_name_trigger_needs_every_component() -> None:
    """Resolution only follows written names: every component of a resolved name is in the
    file; the package a name starts with is marked (it is never an anchor)."""
    assert name_trigger("torch.xpu.amp.autocast") == Trigger(
        (b"autocast", b"xpu", b"amp", b"torch"), roots=(b"torch",)
    )
    assert name_trigger("intel_extension_for_pytorch.*") == Trigger(
        (b"intel_extension_for_pytorch",)
    )
    # "ccl" is inside "oneccl": the longer one implies it
    assert name_trigger("oneccl.ccl").words == (b"oneccl",)


def test_a_rule_name_needs_every_component_as_a_whole_identifier() -> None:
    """A ``symbols`` or ``imports`` name of a rule is written as names: each component must
    occur on its own, not inside a longer identifier (``optimize`` of ``optimize_model``); a
    word inside another is then a condition of its own (``ccl`` beside ``oneccl``)."""
    assert name_trigger("torch.xpu.optimize", whole=True) == Trigger(
        (b"optimize", b"xpu", b"torch"), roots=(b"torch",), whole=True
    )
    assert name_trigger("oneccl.ccl", whole=True).words == (b"ccl", b"oneccl")
    trigger = name_trigger("torch.xpu.optimize", whole=True)
    inside = b"import torch\nfrom ipex_llm import optimize_model\nif is_xpu_available(): pass\n"
    assert Probe(inside).holds(name_trigger("torch.xpu.optimize"))
    assert not Probe(inside).holds(trigger)
    assert Probe(inside + b"torch.xpu.optimize(model)").holds(trigger)
    assert Probe(b"optimize_model(xpu) or torch.optimize").holds(trigger)  # a later whole one
    assert Probe(b'torch;device="xpu";o.optimize').holds(trigger)  # quotes, ends: borders


@pytest.mark.parametrize(
    ("data", "whole"),
    [
        (b"xpu", True),
        (b"(xpu)", True),
        (b"xpu_amp", False),
        (b"torch_xpu", False),
        (b"xpu2", False),
        (b"Xxpu", False),
        ("\u00e9xpu\u00e9".encode(), True),  # NOTE: beyond ASCII is a border: let through
        (b"xpu_ xpu1 _xpu .xpu", True),
    ],
)
def test_probe_finds_whole_identifiers(data: bytes, whole: bool) -> None:
    """No ASCII letter, digit or underscore just before or after: a whole identifier."""
    probe = Probe(data)
    assert probe.has_identifier(b"xpu") is whole
    assert probe.has(b"xpu")


def test_minimal_drops_implied_triggers_only() -> None:
    """A trigger whose words contain another's adds nothing to ``any`` (case-folded when the
    other is folded); one with a ``confirm`` implies nothing."""
    a, ab, c = Trigger((b"a",)), Trigger((b"a", b"bb")), Trigger((b"c",), folded=True)
    big_c = Trigger((b"xC",))
    checked = Trigger((b"a",), confirm=lambda data: True)
    assert minimal([ab, a, c, a, big_c]) == (a, c)
    assert minimal([checked, ab]) == (checked, ab)
    # whole identifiers: implied only by a trigger that asks for the same words whole
    whole_a, whole_ab = Trigger((b"a",), whole=True), Trigger((b"a", b"bb"), whole=True)
    whole_xa = Trigger((b"xa",), whole=True)
    assert minimal([whole_ab, whole_a]) == (whole_a,)
    assert minimal([ab, whole_a]) == (ab, whole_a)
    assert minimal([whole_xa, whole_a]) == (whole_xa, whole_a)
    assert minimal([whole_ab, a]) == (a,)


_WORDS = st.sampled_from([b"a", b"ab", b"b", b"xab", b"Ab", b"ccl", b"oneccl", b"x_y", b""])
_CHECK = lambda data: True  # noqa: E731 - one confirm, shared, so that triggers can be equal
_TRIGGERS = st.lists(
    st.builds(
        Trigger,
        st.lists(_WORDS, max_size=3).map(tuple),
        folded=st.booleans(),
        confirm=st.sampled_from([None, None, None, _CHECK]),
        whole=st.booleans(),
    ),
    max_size=12,
)


def _minimal_by_definition(triggers: list[Trigger]) -> tuple[Trigger, ...]:
    """``minimal``'s contract, pair by pair: a trigger goes when another implies it (and is
    not equivalent to it and later)."""
    unique = list(dict.fromkeys(triggers))

    def implies(a: Trigger, b: Trigger) -> bool:
        if b.confirm is not None or (a.folded and not b.folded):
            return False
        if b.whole:
            return a.whole and all(word in a.words for word in b.words)
        haystack = b"\0".join(a.words)
        haystack = haystack.lower() if b.folded else haystack
        return all(word in haystack for word in b.words)

    return tuple(
        a
        for i, a in enumerate(unique)
        if not any(
            j != i and implies(a, b) and not (j > i and implies(b, a)) for j, b in enumerate(unique)
        )
    )


@settings(max_examples=examples(400))
@given(_TRIGGERS)
def test_minimal_is_its_definition(triggers: list[Trigger]) -> None:
    """``minimal`` tries only the triggers that can be implied (looked up by their first
    word), and keeps exactly what trying every pair keeps, in the same order."""
    assert minimal(triggers) == _minimal_by_definition(triggers)


@settings(max_examples=examples(500), deadline=None)
@example(  # the pass reports "ab" and hides the anchor "bc", whose trigger holds
    triggers=[Trigger((b"ab", b"y")), Trigger((b"bc",))], data=b"abc"
)
@example(  # a folded trigger's empty word: a witness spelling the pass does not search for
    triggers=[Trigger((b"a",)), Trigger((b"ab", b""), folded=True), Trigger((b"b",))], data=b""
)
@example(  # the gate ("b") is no word of the pass: the anchor "ccl" alone leads
    triggers=[Trigger((b"ab", b"b")), Trigger((b"b", b"xab")), Trigger((b"b", b"ccl"))],
    data=b"xab ccl",
)
@given(
    triggers=_TRIGGERS,
    data=st.lists(
        st.sampled_from([b"a", b"b", b"x", b"A", b"c", b"l", b"one", b"_", b"y", b" "]),
        max_size=16,
    ).map(b"".join),
)
def test_the_prefilter_admits_exactly_what_its_triggers_hold(
    triggers: list[Trigger], data: bytes
) -> None:
    """Led by its one pass's report (only the anchors it found, or may have hidden, tried; no
    gate), the prefilter admits a file exactly where one of its triggers holds: words inside
    others, overlapping, in either case, whole or not, with a check of their own."""
    prefilter = Prefilter(triggers)
    expected = prefilter.always or any(Probe(data).holds(t) for t in triggers)
    assert prefilter.admits(Probe(data)) == expected


@settings(max_examples=examples(400))
@given(st.lists(_WORDS, max_size=6), st.lists(st.lists(_WORDS, max_size=3), min_size=1))
def test_the_texts_a_word_is_inside_are_found_by_one_walk(
    words: list[bytes], texts: list[list[bytes]]
) -> None:
    """The anchors' and the gate's counts come from one walk of the joined texts per word:
    for each word, exactly the texts it is inside (never one it only spans into)."""
    joined = [b"\0".join(text) for text in texts]
    assert _containing(words, joined) == {
        word: {i for i, text in enumerate(joined) if word in text} for word in words
    }


def test_the_shipped_rules_prefilters_are_those_of_the_definition() -> None:
    """Every reader's triggers of the shipped rules, minimal by the definition."""
    ruleset = RuleSet(code_rules.load())
    for kind in FileKind:
        for python in (False, True):
            prefilter = ruleset.prefilter(kind, python=python)
            triggers = list(ruleset._python_triggers.get(kind, ())) if python else []
            if kind in EMBEDDING_PYTHON and not python:
                # a here-document's Python is read by the Python rules (python_documents)
                triggers.extend(ruleset._python_triggers.get(FileKind.PYTHON, ()))
            shell = kind in (FileKind.NOTEBOOK, FileKind.CI)
            for text_kind in (kind, FileKind.SHELL) if shell else (kind,):
                for text_rule in ruleset._text.get(text_kind, ()):
                    triggers.extend(
                        t for _, regex_triggers in text_rule.regexes for t in regex_triggers
                    )
            assert prefilter.triggers == _minimal_by_definition(triggers), (kind, python)


def test_probe_searches_each_word_once_and_folds_as_re_does() -> None:
    """A folded trigger compares lowered bytes, with the four non-ASCII characters that re
    takes for ASCII letters (asked of re for every code point) mapped to them."""
    probe = Probe("Intel Extension caf\u00e9".encode())
    assert probe.holds(Trigger((b"extension",), folded=True))
    assert not probe.holds(Trigger((b"extension",)))
    assert Probe("\u212aeep".encode()).holds(Trigger((b"keep",), folded=True))
    assert not Probe("caf\u00e9".encode()).holds(Trigger((b"ipex",), folded=True))
    assert not Probe(b"x").holds(Trigger((b"x",), confirm=lambda data: False))
    letters = re.compile("(?i)[a-z]")
    beyond = {
        chr(code): chr(code).lower() if chr(code).lower().isascii() else None
        for code in range(128, sys.maxunicode + 1)
        if letters.fullmatch(chr(code))
    }
    assert set(beyond) == set(FOLDED_TO_ASCII)
    for char, letter in FOLDED_TO_ASCII.items():
        assert re.fullmatch(f"(?i){letter}", char)


def test_only_files_with_a_trigger_are_parsed(tmp_path: Path) -> None:
    """A file without any trigger word is not parsed, even when it is not valid Python (so it
    is not reported as skipped either); one with a trigger word is."""
    write(
        tmp_path,
        {
            "plain.py": "import os\nprint(os.sep)\n",
            "py2_plain.py": 'print "hello"\n',
            "uses.py": "import torch\ntorch.xpu.amp.autocast()\n",
            "mentions.py": "# intel_extension_for_pytorch is retired\n",
        },
    )
    result = scan(tmp_path)
    assert (result.files_seen, result.files_parsed) == (4, 2)
    assert found(result) == [("uses.py", 2, "xpu-amp", "torch.xpu.amp.autocast")]
    assert result.skipped == ()


def test_names_only_inside_longer_identifiers_are_not_parsed(tmp_path: Path) -> None:
    """LLM libraries spell ``optimize``, ``xpu`` and ``amp`` in most files, inside their own
    names (``optimize_model``, ``is_xpu_available``, ``amp_dtype``) and in strings: no rule's
    name is used there, so the file is not parsed (not even its syntax error is reported); the
    same names used as names are. A structural pattern's names likewise (``optimize-bf16``).
    (ipex-llm's own names are found now: ``ipex-llm-import``.)"""
    near = (
        "import torch\nfrom llm_tools import optimize_model\n"
        "def f(is_xpu_available, amp_dtype):\n    return optimize_model\n"
        "m = optimize_model(m, dtype=torch.bfloat16).halfway\n"
    )
    write(
        tmp_path,
        {
            "near.py": near,
            "near_py2.py": near + 'print "done"\n',
            "uses.py": "import torch\nfrom torch.xpu import amp\nwith amp.autocast(): pass\n",
        },
    )
    rules = code_rules.load()
    result = scan(tmp_path, rules)
    assert (result.files_seen, result.files_parsed, result.skipped) == (3, 1, ())
    assert {m.location.path for m in result.matches} == {"uses.py"}


def _every_shipped_name_used() -> dict[str, str]:
    """For each ``symbols`` and ``imports`` name of the shipped rules, a module using it the
    ways resolution follows: written out, through an aliased import, through ``from``."""
    rules = code_rules.load()
    names = {n for r in rules.rules for n in (*r.match.symbols, *r.match.imports)}
    files: dict[str, str] = {}
    for number, dotted in enumerate(sorted(names)):
        name = dotted.removesuffix(".*") + (".helper" if dotted.endswith(".*") else "")
        package, _, last = name.rpartition(".")
        top = name.split(".")[0]
        forms = [f"import {name}\nprint({name})\n"]
        if package:
            forms.append(f"import {package} as p\nprint(p.{last}(x))\n")
            forms.append(f"from {package} import {last} as v\nv()\n")
            forms.append(f"import {top}\nq = {name}\nq()\n")
        for form, text in enumerate(forms):
            files[f"m{number}_{form}.py"] = text
    return files


def test_the_prefilter_admits_every_use_of_every_shipped_name(tmp_path: Path) -> None:
    """Soundness of the triggers: each module using a shipped rule's name (in each form that
    resolution follows) is parsed, and its findings are those of a reader that parses every
    file (the shipped rules, with a prefilter that admits all; the name written out is always
    found)."""
    from ipex_doctor.scan.read.discovery import Candidate
    from ipex_doctor.scan.readers import read_python

    class Unfiltered(RuleSet):
        def prefilter(self, kind: FileKind, *, python: bool) -> Prefilter:
            real = super().prefilter(kind, python=python)
            return Prefilter([Trigger(())]) if real else real

    files = _every_shipped_name_used()
    write(tmp_path, files)
    rules = code_rules.load()
    filtered, everything = RuleSet(rules), Unfiltered(rules)
    for name in sorted(files):
        path = tmp_path / name
        candidate = Candidate(path, name, FileKind.PYTHON, path.stat().st_size)
        data = path.read_bytes()
        admitted = read_python(candidate, data, filtered)
        reference = read_python(candidate, data, everything)
        assert admitted.parsed, name
        assert admitted.matches == reference.matches, name
        if name.endswith("_0.py"):  # NOTE: an ``imports`` name used as an attribute is no match
            assert reference.matches, name


@pytest.mark.parametrize(
    "source",
    [
        "with (\n    a() and\n    b()\n):\n    pass\n",
        "with a(x,\n       y) and b():\n    pass\n",
        "with a() \\\n        and b():\n    pass\n",
        "async def f():\n    async with a() and b():\n        pass\n",
    ],
)
def test_the_with_and_trigger_admits_every_form_it_claims(source: str, tmp_path: Path) -> None:
    """A multi-line or async ``with A() and B():`` reaches the parser (and is matched)."""
    assert _maybe_with_and(source.encode())
    write(tmp_path, {"w.py": source})
    assert [m.rule_id for m in scan(tmp_path).matches] == ["with-and"]


def test_the_with_and_trigger_leaves_prose_alone() -> None:
    """Prose lines that start with "with" and say "and" (but no call before it), and a with
    statement quoted inside a line, do not reach the parser."""
    prose = textwrap.dedent('''
        """Return the result
        with the cache and the rest (see below).
            with care and attention: prose.
        """
        x = "with a() and b()"
    ''')
    assert not _maybe_with_and(prose.encode())


def test_the_with_and_trigger_reads_past_long_prose_lines() -> None:
    """ipex-llm's benchmark script holds prompts of many kilobytes on one line, "with " many
    times in each, some followed by ") and" on that line: none starts a statement, and a real
    ``with a() and b():`` after them is still found."""
    prompt = 'PROMPT = "' + "she sat with (her) and him, with care and " * 400 + '"\n'
    assert not _maybe_with_and(prompt.encode())
    assert _maybe_with_and((prompt + "with a() and b():\n    pass\n").encode())


def test_a_file_over_the_limit_is_skipped_unread(tmp_path: Path) -> None:
    """A 50 MB generated file is skipped with its size (a sparse file: nothing is written)."""
    big = tmp_path / "generated_pb2.py"
    with big.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    write(tmp_path, {"small.py": "import intel_extension_for_pytorch\n"})
    result = scan(tmp_path)
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("generated_pb2.py", "too large to scan: 50.0 MiB, over the 10 MiB limit")
    ]
    assert found(result) == [("small.py", 1, "ipex-import", "intel_extension_for_pytorch")]
    assert DEFAULT_MAX_FILE_BYTES == 10 * 1024 * 1024


def test_the_limit_is_an_option_and_notebooks_get_ten_times(tmp_path: Path) -> None:
    """``max_file_bytes`` moves the limit; a notebook's outputs make it big, so it gets 10x."""
    notebook = '{"cells": [], "pad": "' + "x" * 3000 + '"}'
    write(tmp_path, {"a.py": "import torch.xpu.amp\n" + "#" * 2000, "n.ipynb": notebook})
    result = scan(tmp_path, max_file_bytes=1000)
    assert [s.path for s in result.skipped] == ["a.py"]
    assert "over the 0.000953674 MiB limit" in result.skipped[0].reason


def test_binary_and_undecodable_files_are_skipped_with_the_reason(tmp_path: Path) -> None:
    """NUL bytes: binary; invalid UTF-8 in a text file with a trigger: not decodable."""
    write(
        tmp_path,
        {
            "blob.py": b"import intel_extension_for_pytorch\x00\x01",
            "requirements.txt": b"intel-extension-for-pytorch\n\xc3\x28\n",
        },
    )
    result = scan(tmp_path)
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("blob.py", "binary (contains NUL bytes)"),
        ("requirements.txt", "cannot be decoded: not valid utf-8 text (byte 0xc3 at offset 28)"),
    ]


def test_a_kind_no_rule_reads_is_counted_but_not_opened(tmp_path: Path) -> None:
    """With Python rules only, a requirements list is a candidate (seen) that is never read:
    were it read, its NUL byte would make it a skipped binary. A Dockerfile is read, for the
    Python its ``RUN python3 <<EOF`` may run (``python_documents``)."""
    rules = CodeRules((rule("ipex", imports=["intel_extension_for_pytorch"]),))
    line = b"RUN pip install intel_extension_for_pytorch\x00\n"
    write(tmp_path, {"requirements.txt": line})
    result = scan(tmp_path, rules)
    assert (result.files_seen, result.files_parsed, result.skipped) == (1, 0, ())
    write(tmp_path, {"Dockerfile": line})
    skipped = scan(tmp_path, rules).skipped
    assert [(s.path, s.reason) for s in skipped] == [("Dockerfile", "binary (contains NUL bytes)")]


@settings(max_examples=500, deadline=None)
@example(data=b"abc", words=[b"ab", b"bc"], asked=0)  # "bc" under the "ab" reported first
@example(data=b"xabcx", words=[b"abc", b"b"], asked=1)
@given(
    data=st.binary(max_size=64).map(lambda b: bytes(c % 5 + 97 for c in b)),
    words=st.lists(
        st.binary(min_size=1, max_size=4).map(lambda b: bytes(c % 5 + 97 for c in b)),
        min_size=2,
        max_size=8,
    ),
    asked=st.integers(min_value=0, max_value=8),
)
def test_one_pass_over_the_words_answers_as_a_search_for_each(
    data: bytes, words: list[bytes], asked: int
) -> None:
    """Searching a file for many words at once (``Probe.learn``) gives, for each word, what a
    search for it alone gives: words inside others (``ab``, ``bab``), overlapping and repeated
    matches, words a reader asked for before (a probe is shared by the readers of a file)."""
    probe = Probe(data)
    for word in words[:asked]:
        probe.has(word)
    probe.learn(Words(words))
    assert [probe.has(word) for word in words] == [word in data for word in words]


_FOLDING = ["w", "W", "h", "H", "l", "L", ".", "i", "I", "\u0130", "\u0131", "k", "\u212a", "x"]


@settings(max_examples=examples(500), deadline=None)
@example(text="x.WhL", word=".whl")
@example(text="\u0130\u212a", word="ik")
@given(
    text=st.lists(st.sampled_from(_FOLDING), max_size=24).map("".join),
    word=st.lists(st.sampled_from([".", "w", "h", "l", "i", "k"]), min_size=1, max_size=4).map(
        "".join
    ),
)
def test_a_folded_word_occurs_where_one_of_its_spellings_does(text: str, word: str) -> None:
    """The spellings of a folded word are every byte string its folding reads as the word
    (either case, the characters beyond ASCII that re takes for its letters): one of them
    occurs in the bytes exactly where the folded word does, so a file that holds none of a
    folded trigger's witness spellings is rightly not lowered for it."""
    data = text.encode()
    spelled = spellings(word.encode(), most=4**4)
    assert any(spelling in data for spelling in spelled) == Probe(data).has_folded(word.encode())


@settings(max_examples=examples(300), deadline=None)
@given(text=st.lists(st.sampled_from([*_FOLDING, "/torch", "IPEX", "ipex", ".whl"]), max_size=12))
def test_the_witnesses_never_change_what_is_admitted(text: list[str]) -> None:
    """A prefilter whose folded triggers have witnesses admits what trying each trigger on the
    lowered bytes admits: the wheel trigger of the shipped rules (``.whl``, 8 spellings) alone,
    and beside one whose words all have too many spellings to be a witness (the file is then
    lowered anyway, and no trigger has one)."""
    wheel = Trigger((b"/torch", b"ipex", b".whl"), folded=True)
    unwitnessed = Trigger((b"ipexipex",), folded=True)
    data = "".join(text).encode()
    for triggers, witnessed in (([wheel], [8]), ([wheel, unwitnessed], [0, 0])):
        prefilter = Prefilter(triggers)
        assert [len(w) for w in prefilter.witnesses] == witnessed
        assert prefilter.admits(Probe(data)) == any(Probe(data).holds(t) for t in triggers)
