"""The scan parses only the statements its rules can read: its outcome is the whole module's.

The differential tests hold ``read_python`` (which parses the statements that spell a word the
rules read, and those the names they bind reach: ``match.python.statements``) to ``read_python(...,
whole=True)`` (``ast`` on the whole module), with the shipped rules and the tests' sample
rules: every sample of ``test_fix`` padded with statements no rule reads, and modules
generated from tricky pieces (decorators, ``if __name__`` blocks, multi-line strings, line
continuations, ``;``, aliases bound in one statement and used in another, ``global``, ``del``,
rebinding, probes and their flags, escapes and implicit concatenation, identifiers beyond
ASCII) in LF, CRLF and CR, with and without a BOM. Each also checks that something really was
left out, so that the comparison is not of two whole parses.
"""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path
from textwrap import dedent

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from scan_rules import SAMPLE, scan, write

# NOTE: the fix tests' samples (and their padding) are this test's corpus
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fix"))
from test_fix import CASES, KITCHEN_SINK, REFUSALS  # noqa: E402
from test_fix_slice import FILLERS, padded  # noqa: E402

from ipex_doctor.knowledge import code_rules  # noqa: E402
from ipex_doctor.model.code import FileKind  # noqa: E402
from ipex_doctor.scan.engine import _match_order  # noqa: E402
from ipex_doctor.scan.match.python.statements import (  # noqa: E402
    module_bindings,
    parse_relevant,
    relevant_words,
    select_relevant,
)
from ipex_doctor.scan.match.ruleset import RuleSet  # noqa: E402
from ipex_doctor.scan.match.triggers import Probe  # noqa: E402
from ipex_doctor.scan.read.discovery import Candidate  # noqa: E402
from ipex_doctor.scan.read.source import Hit, decode_python, split_lines  # noqa: E402
from ipex_doctor.scan.readers import (  # noqa: E402
    STATEMENTS_FROM_BYTES,
    LateBindingRefused,
    Outcome,
    _inert,
    _read_runs,
    read_python,
)

SHIPPED = RuleSet(code_rules.load())
SAMPLED = RuleSet(SAMPLE)


def outcomes(data: bytes, rules: RuleSet) -> tuple[Outcome, Outcome]:
    """The outcome of reading ``data`` as ``m.py`` statement by statement, and whole."""
    candidate = Candidate(Path("m.py"), "m.py", FileKind.PYTHON, len(data))
    return (
        read_python(candidate, data, rules, whole=False),
        read_python(candidate, data, rules, whole=True),
    )


def kept(data: bytes, rules: RuleSet) -> tuple[int, int]:
    """How many top-level statements the scan parses of ``data``, and how many it has."""
    text = decode_python(data)
    words = relevant_words(rules.prefilter(FileKind.PYTHON, python=True), Probe(data))
    return len(parse_relevant(text, words).body), len(ast.parse(text).body)


def assert_same(data: bytes, *, cut: bool = True) -> None:
    """Both readings agree under both rule sets; with ``cut``, the shipped rules' reading
    left a statement out."""
    for rules in (SHIPPED, SAMPLED):
        by_statement, whole = outcomes(data, rules)
        assert by_statement == whole, data.decode("utf-8", "replace")
    if cut:
        parsed, total = kept(data, SHIPPED)
        assert parsed < total


SAMPLES = sorted(
    {dedent(source) for _, source, _ in CASES.values()}
    | {dedent(source) for _, source, _, _ in REFUSALS.values()}
    | {KITCHEN_SINK}
)


@pytest.mark.parametrize("source", SAMPLES)
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_fix_sample_padded_reads_as_the_whole_module(source: str, newline: str) -> None:
    text = padded(source).replace("\r\n", "\n").replace("\n", newline)
    assert_same(text.encode("utf-8"))


PIECES = (
    "import intel_extension_for_pytorch as ipex\n",
    "import torch\n",
    "from torch.xpu import amp\n",
    "from torch.xpu import amp as xamp; y = 1\n",
    "accel = torch.xpu\n",
    "def uses_accel(m):\n    return accel.amp.autocast()\n",
    "with xamp.autocast():\n    pass\n",
    "model = ipex.optimize(model, dtype=torch.bfloat16)\n",
    "@decorate(ipex)\ndef decorated():\n    pass\n",
    "@decorate\ndef decorated_plain():\n    return amp.autocast()\n",
    "if __name__ == '__main__':\n    main()\nelse:\n    ipex.optimize(m)\n",
    "DOC = '''multi\nline ipex.optimize(m)\n'''\n",
    "total = 1 + \\\n    2\n",
    "value = ipex.\\\n    optimize(m)\n",
    "def lazy():\n    global ipex2\n    import intel_extension_for_pytorch as ipex2\n",
    "ipex2.optimize(m)\n",
    "del ipex\n",
    "ipex = None\n",
    "def shadow(ipex):\n    return ipex.optimize(m)\n",
    "HAS_IPEX = importlib.util.find_spec('intel_extension_for_pytorch') is not None\n",
    "import importlib.util\n",
    "if HAS_IPEX:\n    model = prepare(model)\n",
    "try:\n    import intel_extension_for_pytorch\n    OK = True\nexcept ImportError:\n"
    "    OK = False\n",
    "if OK:\n    go()\n",
    "dist.init_process_group(backend='c\\x63l')\n",
    "dist.init_process_group(backend='c' 'cl')\n",
    "import torch.distributed as dist\n",
    "pip = ['pip', 'install', 'intel-extension-' 'for-pytorch']\n",
    "ｔｏｒｃｈ.xpu.amp.autocast()\n",
    "__all__ = ['ipex']\n",
    "g = globals()\n",
    "net = net.half(); sn = torch.nn.utils.spectral_norm(layer)\n",
    "with torch.cpu.amp.autocast() and torch.no_grad():\n    pass\n",
    "class Holder:\n    accel = torch.xpu\n    def run(self):\n        return accel.amp\n",
    "for ipex in range(3):\n    pass\n",
    "[amp for amp in range(2)]\n",
    "# a comment about ipex\n",
    "    # an indented comment\n",
    "\n",
    "def autocast_{n}(model, x):\n    with torch.xpu.amp.autocast():\n        return model(x)\n",
    "def rebinds_{n}(torch):\n    return torch.xpu.amp.autocast()\n",
    "def lazy_torch_{n}():\n    global torch\n    import torch\n",
    "def hides_{n}():\n    torch = None\n    return torch.xpu.amp.autocast()\n",
    "import torch as t{n}\n",
    "amp_{n} = t0.xpu.amp\n",
    "with amp_0.autocast():\n    pass\n",
    "def outer_{n}():\n    from torch.xpu import amp as inner\n"
    "    def nested():\n        nonlocal inner\n        return inner.autocast()\n    return nested\n",
    "fn_{n} = lambda m: torch.xpu.amp.autocast(m)\n",
    "def local_alias_{n}():\n    a = torch.xpu.amp\n    return a.autocast()\n",
    "class Model{n}:\n    amp = torch.xpu.amp\n    def run(self):\n        return amp.autocast()\n",
    "ipex.optimize(model, dtype=torch.bfloat16)\n",
    "dist.init_process_group('ccl')\n",
    "torch.compile(model, backend='ipex')\n",
    "with torch.cpu.amp.autocast() and torch.no_grad():\n    pass\n",
    "try:\n    import oneccl_bindings_for_pytorch\nexcept ImportError:\n    pass\n",
    "cmd = ['pip', 'install', 'intel-extension-for-pytorch']\n",
    "class Engine{n}:\n    def __init__(self):\n        self.ipex = ipex\n"
    "        self.amp: object = torch.xpu.amp\n    def run(self, m):\n"
    "        return self.ipex.optimize(m), self.amp.autocast()\n",
    "class Late{n}:\n    def go(self):\n        return self.accel.amp.autocast()\n"
    "    def bind(self):\n        self.accel = torch.xpu\n",
    "def via_{n}(config):\n    return config.ipex.optimize(m), config.ipex, args.ipex.on\n",
)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.sampled_from(PIECES + FILLERS), min_size=1, max_size=14),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
    st.sampled_from([1, 40, 200]),
)
def test_generated_modules_read_as_the_whole_module(
    pieces: list[str], newline: str, bom: bool, run_size: int
) -> None:
    """By statement, and by statement in runs of ``run_size`` (see ``assert_same_in_runs``)."""
    text = "".join(p.format(n=n) for n, p in enumerate(pieces))
    try:
        ast.parse(text)
    except SyntaxError:
        return  # NOTE: an indented comment first; a syntax error is the next test's subject
    data = ("\ufeff" if bom else "").encode() + text.replace("\n", newline).encode("utf-8")
    assert_same(data, cut=False)
    assert_same_in_runs(data, run_size, runs=False)


def test_a_run_bound_late_that_binds_the_unbound_alias_is_read_first() -> None:
    """``ipex = None`` after ``ipex.optimize(m)`` binds the alias, read whole: the run that
    spells no import (bound late, ``read_late``) must not leave the first run's alias judged
    unbound (a draw of the property test above that once failed)."""
    data = b"model = ipex.optimize(model, dtype=torch.bfloat16)\nipex = None\n"
    assert_same(data, cut=False)
    assert_same_in_runs(data, 1, runs=False)


def test_a_padded_module_is_really_cut() -> None:
    """What the generated modules compare is a cut module, not two whole ones."""
    data = padded("import intel_extension_for_pytorch as ipex\nipex.optimize(m)\n").encode()
    parsed, total = kept(data, SHIPPED)
    assert 2 <= parsed < total


def test_a_syntax_error_in_a_statement_the_rules_read_skips_the_file() -> None:
    """The reason and line are ``ast``'s on the whole module, as before."""
    data = padded("import intel_extension_for_pytorch as ipex\nipex.optimize(m) +\n").encode()
    by_statement, whole = outcomes(data, SHIPPED)
    assert by_statement == whole
    assert by_statement.matches == []
    assert "does not parse as Python 3: invalid syntax at line" in by_statement.skipped[0].reason


def test_a_syntax_error_far_from_the_ipex_lines_is_not_seen() -> None:
    """A statement that spells nothing the rules read is not parsed (``match.python.statements``):
    its syntax error does not hide the findings elsewhere in the file (``ast`` on the whole
    module skips the file)."""
    source = "import intel_extension_for_pytorch\n\n" + 'print "plain"\n' + "x = 1\n"
    by_statement, whole = outcomes(source.encode(), SHIPPED)
    assert [m.rule_id for m in by_statement.matches] == ["ipex-import"]
    assert by_statement.skipped == []
    assert whole.matches == []
    assert "does not parse as Python 3" in whole.skipped[0].reason


def test_a_module_that_cannot_be_split_is_parsed_whole() -> None:
    data = b"import intel_extension_for_pytorch\nx = (1,\n"
    by_statement, whole = outcomes(data, SHIPPED)
    assert by_statement == whole
    assert "does not parse as Python 3" in by_statement.skipped[0].reason


@pytest.mark.parametrize(
    ("statement", "names"),
    [
        ("import a.b as c, d.e\n", {"c", "d"}),
        ("from m import (x as y, z)\n", {"y", "z"}),
        ("def f():\n    global g\n    import h as g\n    local = 1\n", {"f", "g", "local"}),
        ("class C:\n    attribute = torch.xpu\n", {"C", "attribute"}),
        ("if c:\n    a = 1\nelse:\n    b: int = 2\n", {"a", "b"}),
        ("try:\n    import q\nexcept ImportError:\n    FLAG = False\n", {"q", "FLAG"}),
        ("x, y = 1, 2\n", set()),
        ("value = (w := 3)\n", {"value"}),
    ],
)
def test_module_bindings_are_what_another_statement_can_read(
    statement: str, names: set[str]
) -> None:
    """Imports and definitions at module level, ``global`` names, plain assignments anywhere
    (a probe's flag is known by its name); a tuple target or a walrus only hides a name."""
    assert module_bindings(ast.parse(statement).body[0]) == names


def test_a_large_file_is_read_by_statement_and_a_small_one_whole(tmp_path: Path) -> None:
    """Through the scan: from ``STATEMENTS_FROM_BYTES`` on, a syntax error in a statement the
    rules do not read leaves the findings; in a smaller file, the file is skipped with it."""
    head = "import intel_extension_for_pytorch\n" + 'print "plain"\n'
    table = "".join(f"ROW_{n} = {n}\n" for n in range(STATEMENTS_FROM_BYTES // 10))
    assert len(head + table) >= STATEMENTS_FROM_BYTES
    write(tmp_path, {"large.py": head + table, "small.py": head})
    result = scan(tmp_path, code_rules.load())
    assert [(m.location.path, m.rule_id) for m in result.matches] == [("large.py", "ipex-import")]
    assert [s.path for s in result.skipped] == ["small.py"]


# --- runs ---------------------------------------------------------------------------------------
# A large file's statements are parsed and matched in runs (``readers._read_runs``): the name
# table first, from every run, then each run's facts and matches, one run's trees at a time.
# ``run_size`` forces runs on any file read by statement; the outcome must be the whole
# module's. Each comparison also checks that the file really was read in several runs (the
# reader did not send it to be read whole, ``run_count``).


def run_count(data: bytes, rules: RuleSet, run_size: int) -> int:
    """How many runs ``read_python`` reads ``data`` in at ``run_size``; 0: it reads the module
    whole instead (the reader's own decision: ``_read_runs`` gives ``None``)."""
    text = decode_python(data)
    probe = Probe(data)
    words = relevant_words(rules.prefilter(FileKind.PYTHON, python=True), probe)
    lines = split_lines(text)
    try:
        hits = _read_runs(text, lines, words, rules, FileKind.PYTHON, probe, run_size)
    except LateBindingRefused:
        hits = _read_runs(text, lines, words, rules, FileKind.PYTHON, probe, run_size, defer=False)
    if hits is None:
        return 0
    relevant = select_relevant(text, words, lambda first, body: None, run_size)
    return 0 if relevant is None else sum(1 for _ in relevant.runs(run_size))


def in_order(outcome: Outcome) -> Outcome:
    return outcome._replace(matches=sorted(outcome.matches, key=_match_order))


def assert_same_in_runs(data: bytes, run_size: int, *, runs: bool = True) -> None:
    """Read in runs of ``run_size``, ``data`` gives the whole module's outcome under both rule
    sets, its matches in the order the scan reports them (``engine`` sorts them: runs find
    them in another order); with ``runs``, the sample rules read it in several runs."""
    candidate = Candidate(Path("m.py"), "m.py", FileKind.PYTHON, len(data))
    for rules in (SHIPPED, SAMPLED):
        by_runs = read_python(candidate, data, rules, whole=False, run_size=run_size)
        whole = read_python(candidate, data, rules, whole=True)
        assert in_order(by_runs) == in_order(whole), data.decode("utf-8", "replace")
    if runs:
        assert run_count(data, SAMPLED, run_size) >= 2


@pytest.mark.parametrize("source", SAMPLES)
@pytest.mark.parametrize("run_size", [1, 200])
def test_every_fix_sample_padded_reads_in_runs_as_the_whole_module(
    source: str, run_size: int
) -> None:
    data = padded(source).encode("utf-8")
    assert_same_in_runs(data, run_size, runs=run_count(data, SAMPLED, run_size) > 0)


def dense(functions: int, *, assigned: bool = True) -> str:
    """The dense shape of ``benchmarks/fix_speed.py``, with what makes a run depend on
    another: an alias bound at the top and rebound far down, a function that rebinds it
    ``global``, and (with ``assigned``) a name bound by assignment from an import, at the top
    level and in a function."""
    parts = ["import torch\nimport torch.xpu as accel\nfrom torch.xpu import amp\n"]
    for n in range(functions):
        parts.append(f"\n\ndef step_{n:06d}(model, x):\n    with torch.xpu.amp.autocast():\n"
                     "        return model(x)\n")  # fmt: skip
        if n % 97 == 50:
            parts.append(f"\n\ndef uses_{n}(x):\n    return amp.autocast(), accel.amp.autocast()\n")
            if assigned:
                parts.append(f"\n\ndef local_{n}():\n    a = accel.amp\n    return a.autocast()\n")
        if n % 211 == 100:
            parts.append("\n\ndef late():\n    global amp\n    import torch.cpu.amp as amp\n")
    if assigned:
        parts.append("\nkept = torch.xpu.amp\n\n\ndef last(m):\n    return kept.autocast(m)\n")
    return "".join(parts)


@pytest.mark.parametrize("functions", [40, 400])
@pytest.mark.parametrize("run_size", [1, 300, 2000])
def test_dense_modules_read_in_runs_as_the_whole_module(functions: int, run_size: int) -> None:
    data = dense(functions).encode()
    assert_same_in_runs(data, run_size)
    assert [m.rule_id for m in read_python(
        Candidate(Path("m.py"), "m.py", FileKind.PYTHON, len(data)), data, SAMPLED, whole=False,
        run_size=run_size).matches].count("xpu-amp") > functions  # fmt: skip


# --- runs bound late ------------------------------------------------------------------------
# Where every statement is read, a run that spells no ``import``, ``global`` or ``nonlocal`` is
# parsed once, in the second reading, and bound into the finished table there
# (``NameTable.read_late``); one that binds what the first reading must see is refused there,
# and the module read again as before. Both are held to the two readings (``defer=False``) and
# to the whole module.


def read_runs(data: bytes, rules: RuleSet, run_size: int, *, defer: bool) -> list[Hit] | None:
    text = decode_python(data)
    probe = Probe(data)
    words = relevant_words(rules.prefilter(FileKind.PYTHON, python=True), probe)
    assert words is not None
    lines = split_lines(text)
    return _read_runs(text, lines, words, rules, FileKind.PYTHON, probe, run_size, defer=defer)


def deferred_runs(data: bytes, rules: RuleSet, run_size: int) -> int:
    """How many runs the first reading of ``data`` leaves to the second."""
    text = decode_python(data)
    words = relevant_words(rules.prefilter(FileKind.PYTHON, python=True), Probe(data))
    relevant = select_relevant(text, words, lambda first, body: None, run_size, _inert)
    return 0 if relevant is None else len(relevant.deferred)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("run_size", [1, 300, 2000])
def test_dense_runs_bound_late_give_the_two_readings_hits(newline: str, run_size: int) -> None:
    data = dense(200, assigned=False).replace("\n", newline).encode()
    assert_same_in_runs(data, run_size)
    for rules in (SHIPPED, SAMPLED):
        late = read_runs(data, rules, run_size, defer=True)
        assert late is not None
        assert late == read_runs(data, rules, run_size, defer=False)
    assert deferred_runs(data, SHIPPED, run_size) >= 2
    with pytest.raises(LateBindingRefused):  # NOTE: a function binds a name to an import
        read_runs(dense(200).encode(), SHIPPED, run_size, defer=True)


STEPS = "".join(
    f"def step_{n}(model, x):\n    with torch.xpu.amp.autocast(), amp.autocast():\n"
    f"        return ipex.optimize(model)(x)\n\n\n"
    for n in range(30)
)


@pytest.mark.parametrize("run_size", [1, 300])
@pytest.mark.parametrize(
    ("far_away", "refused"),
    [
        ("ipex = torch.nn if ready else None\n", True),
        ("def shadow(torch):\n    return torch.xpu.amp.autocast()\n", True),
        ("def alias():\n    a = torch.xpu\n    return a.amp.autocast()\n", True),
        ("def table():\n    return {'t': torch}\n", True),
        ("def table():\n    d = dict(t=torch)\n    return d\n", True),
        ("def made():\n    return dict(t=torch)\n\n\nmods = made(torch)\n\n\n"
         "def use():\n    return mods['t'].xpu.amp.autocast()\n", True),
        ("amp = torch.nn if ready else None\n", True),
        ("XMX = hasattr(torch.xpu, 'has_xmx')\n\n\nif XMX:\n    torch.xpu.synchronize()\n", True),
        ("READY = torch.xpu.is_available() and ipex\n", False),
        ("def plain(model, x):\n    y = model(x)\n    return torch.xpu.amp.autocast(y)\n", False),
        ("for step in range(3):\n    torch.xpu.synchronize()\n", False),
        ("class Net(torch.nn.Module):\n    def forward(self, x):\n"
         "        return ipex.optimize(x)\n", False),
    ],
)  # fmt: skip
def test_a_run_bound_late_is_refused_where_it_binds_for_others(
    far_away: str, refused: bool, run_size: int
) -> None:
    """Many runs after IPEX's import, a run that binds a name the module imports, ``torch``,
    a name from an import, a dict's keys, or a probe's flag is refused (the module is read
    again without deferring); one that binds only its own locals is bound late."""
    data = (
        "import torch\nimport intel_extension_for_pytorch as ipex\nfrom torch.xpu import amp\n\n\n"
        f"{STEPS}{far_away}\n\n{STEPS.replace('step_', 'again_')}"
    ).encode()
    assert_same_in_runs(data, run_size)
    assert deferred_runs(data, SHIPPED, run_size) >= 2
    if refused:
        with pytest.raises(LateBindingRefused):
            read_runs(data, SHIPPED, run_size, defer=True)
    for rules in (SHIPPED, SAMPLED):
        try:
            late = read_runs(data, rules, run_size, defer=True)
        except LateBindingRefused:
            assert refused or rules is SAMPLED
            continue
        assert not refused or rules is SAMPLED
        assert late is not None
        assert late == read_runs(data, rules, run_size, defer=False)


@pytest.mark.parametrize("run_size", [1, 300])
@pytest.mark.parametrize(
    ("applied", "in_runs"),
    [
        ("torch.nn.utils.spectral_norm(layer)\n", True),
        (
            "from torch.nn.utils import spectral_norm as sn\n\n\ndef wrap(l):\n    return sn(l)\n",
            True,
        ),
        ("def wrap(l):\n    return torch.nn.utils.parametrizations.spectral_norm(l)\n", True),
        (
            "torch.nn.utils.spectral_norm(a)\ntorch.nn.utils.parametrizations.spectral_norm(b)\n",
            False,
        ),
        ("def spectral_norm(l):\n    return l\n\n\nspectral_norm(layer)\n", True),
    ],
)
def test_half_spectral_norm_reads_every_run(applied: str, in_runs: bool, run_size: int) -> None:
    """``half-spectral-norm`` reports each conversion, in any run, with the spectral norm the
    module applies (``SpectralNorms``), many runs away; two different ones, where the module's
    order names one, send the module to be read whole."""
    filler = "".join(f"def half_{n}(net):\n    return net.to(torch.half)\n\n\n" for n in range(40))
    data = f"import torch\n\n\n{filler}{applied}".encode()
    assert_same_in_runs(data, run_size, runs=False)
    assert (run_count(data, SHIPPED, run_size) >= 2) == in_runs
    found = read_python(
        Candidate(Path("m.py"), "m.py", FileKind.PYTHON, len(data)), data, SHIPPED, whole=False,
        run_size=run_size,
    )  # fmt: skip
    spectral = [m for m in found.matches if m.rule_id == "half-spectral-norm"]
    assert len(spectral) == (0 if "def spectral_norm" in applied else 40)


# --- runs of a module that spells IPEX ----------------------------------------------------------
# Judgements that read statements anywhere in a module: a probe's flags (set in one statement,
# read in another: ``FlagSources`` gathers them in the first reading), the names its imports of
# IPEX bind (``"ipex" in globals()``), whether ``import intel_extension_for_pytorch`` goes (no
# statement may read it: ``RunOf.removals``, decided after the last run) and the spectral norm
# ``half-spectral-norm`` names (``SpectralNorms``). The modules below spread each over many
# runs.

IPEX_ACROSS = (
    "import intel_extension_for_pytorch as ipex\n",
    "import intel_extension_for_pytorch\n",
    "import importlib.util\n",
    "HAS_IPEX_{n} = importlib.util.find_spec('intel_extension_for_pytorch') is not None\n",
    "READY_{n} = HAS_IPEX_0 and fast()\n",
    "GO_{n} = not READY_0\n",
    "if READY_0:\n    model = prepare(model)\n",
    "if GO_0:\n    go()\n",
    "try:\n    import intel_extension_for_pytorch as guarded\n    OK_{n} = True\n"
    "except ImportError:\n    OK_{n} = False\n",
    "if OK_0:\n    torch.xpu.amp.autocast()\n",
    # NOTE: a flag set by the IPEX probe and by CUDA's is a GPU's, not IPEX's (``_mixed``)
    "try:\n    import intel_extension_for_pytorch as probed\n    GPU_{n} = probed.xpu.device_count() > 0\n"
    "except ImportError:\n    GPU_{n} = False\n",
    "GPU_{n} = torch.cuda.is_available()\n",
    "def cuda_{n}():\n    global GPU_0\n    GPU_0 = torch.cuda.is_available()\n",
    "if GPU_0:\n    torch.xpu.synchronize()\n",
    "XMX_{n} = hasattr(torch.xpu, 'has_xmx')\n",
    "if XMX_0:\n    torch.xpu.synchronize()\n",
    "DEFINED_{n} = 'ipex' in globals()\n",
    "if DEFINED_0:\n    ipex.optimize(m)\n",
    "def optimize_{n}(m):\n    return ipex.optimize(m)\n",
    "def plain_{n}(m):\n    return torch.xpu.device_count()\n",
    "def injected_{n}(m):\n    return torch.xpu.has_xmx()\n",
    "from torch.xpu import optimize\n",
    "def compiled_{n}(m):\n    return torch.compile(m, backend='ipex')\n",
    "__all__ = ['step']\n",
    "def dynamic_{n}():\n    return globals()\n",
    "def step_{n}(model, x):\n    with torch.xpu.amp.autocast():\n        return model(x)\n",
    "def lazy_{n}():\n    global ipex\n    import intel_extension_for_pytorch as ipex\n",
    "def shadow_{n}(ipex):\n    return ipex.optimize(m)\n",
    "def quiet_{n}(m):\n    return m(1)\n",
    "SN_{n} = torch.nn.utils.spectral_norm(layer)\n",
    "def halves_{n}(net):\n    return net.to(torch.float16)\n",
)


def ipex_module(seed: int, statements: int) -> str:
    """``import torch`` and ``statements`` pieces of ``IPEX_ACROSS`` and ``FILLERS``, drawn
    from ``seed``: an IPEX import here, its uses, flags and what keeps it far away."""
    draw = random.Random(seed)
    pieces = [draw.choice(IPEX_ACROSS + FILLERS) for _ in range(statements)]
    return "import torch\n" + "".join(p.format(n=n) + "\n" for n, p in enumerate(pieces))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("run_size", [1, 300, 2000])
def test_modules_that_spell_ipex_read_in_runs_as_the_whole_module(seed: int, run_size: int) -> None:
    data = ipex_module(seed, 120).encode()
    assert_same_in_runs(data, run_size)
    assert run_count(data, SHIPPED, run_size) >= 2


@pytest.mark.parametrize("run_size", [1, 300])
@pytest.mark.parametrize(
    ("far_away", "removed"),
    [
        ("def quiet(m):\n    return m(1)\n", True),
        ("def reads(m):\n    return intel_extension_for_pytorch.optimize(m)\n", False),
        # NOTE: the autocast fix rewrites this use first; then nothing keeps the import
        ("def injected(m):\n    return torch.xpu.amp.autocast()\n", True),
        ("def injected(m, kw):\n    return torch.xpu.amp.autocast(**kw)\n", False),
        ("def dynamic():\n    return eval('x')\n", False),
        ("__all__ = ['quiet']\n", False),
        ("def compiled(m):\n    return torch.compile(m, backend='ipex')\n", False),
        ("from torch.xpu import has_xmx\n", False),
    ],
)
def test_whether_the_ipex_import_goes_reads_every_run(
    far_away: str, removed: bool, run_size: int
) -> None:
    """The import is labelled mechanical (``--fix`` removes it) exactly when no statement of
    any run keeps it; what keeps it is many runs away."""
    filler = "".join(
        f"def plain_{n}(m):\n    return torch.xpu.device_count()\n\n" for n in range(60)
    )
    data = f"import torch\nimport intel_extension_for_pytorch\n\n{filler}{far_away}".encode()
    assert_same_in_runs(data, run_size)
    assert run_count(data, SHIPPED, run_size) >= 2
    candidate = Candidate(Path("m.py"), "m.py", FileKind.PYTHON, len(data))
    found = read_python(candidate, data, SHIPPED, whole=False, run_size=run_size)
    labels = [m.mechanical for m in found.matches if m.rule_id == "ipex-import"]
    assert labels == [removed]


@pytest.mark.parametrize("run_size", [1, 300])
@pytest.mark.parametrize("helper_first", [True, False])
def test_a_helper_that_answers_as_a_probe_reads_in_runs_as_the_whole_module(
    run_size: int, helper_first: bool
) -> None:
    """Forge's ``is_intel_xpu()`` guards callers many runs away from its definition, on
    either side: a module that defines such a helper is read whole (``FlagSources``), and the
    guard is the same."""
    flag = (
        "xpu_available = False\n"
        "try:\n"
        "    import intel_extension_for_pytorch as ipex\n"
        "    if torch.xpu.is_available():\n"
        "        xpu_available = True\n"
        "except ImportError:\n"
        "    pass\n\n\n"
    )
    helper = (
        "def is_intel_xpu():\n    if xpu_available:\n        return True\n    return False\n\n\n"
    )
    use = "def load(m):\n    if is_intel_xpu():\n        m = torch.xpu.optimize(m)\n    return m\n\n\n"
    body = "".join(f"def plain_{n}(m):\n    return m(1)\n\n\n" for n in range(60))
    parts = [helper, body, use] if helper_first else [use, body, helper]
    data = ("import torch\n" + flag + "".join(parts)).encode()
    assert_same_in_runs(data, run_size, runs=False)
    candidate = Candidate(Path("m.py"), "m.py", FileKind.PYTHON, len(data))
    found = read_python(candidate, data, SHIPPED, whole=False, run_size=run_size)
    assert [m.guard is not None for m in found.matches if m.rule_id == "xpu-optimize-alias"] == [
        True
    ]


def flag_chain(depth: int) -> str:
    """A flag set from a probe, then ``depth - 1`` flags each set from the one before, in
    reverse order (the last set first): the rounds in the module's order find the chain only
    as deep as they go, and a reading in runs sees another order."""
    steps = ["F0 = importlib.util.find_spec('intel_extension_for_pytorch') is not None\n"]
    steps += [f"F{n} = F{n - 1} and ok()\n" for n in range(1, depth)]
    body = "".join(f"def plain_{n}(m):\n    return m(1)\n\n" for n in range(40))
    uses = f"if F{depth - 1}:\n    torch.xpu.amp.autocast()\n"
    return "import importlib.util\nimport torch\n" + body.join([*reversed(steps), uses])


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_a_chain_of_flags_reads_in_runs_as_deep_as_the_rounds_go(depth: int) -> None:
    """Flags are settled from every run once the names are known (``FlagSources``); a chain
    deeper than the rounds, where the order could decide, is read whole."""
    data = flag_chain(depth).encode()
    for run_size in (1, 300):
        assert_same_in_runs(data, run_size, runs=False)
        assert (run_count(data, SHIPPED, run_size) > 0) == (depth <= 3)
