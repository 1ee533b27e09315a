"""The structural patterns: with-and, half-spectral-norm, optimize-bf16, ccl-backend."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from scan_rules import in_code, rule

from ipex_doctor.errors import KnowledgeBaseError
from ipex_doctor.knowledge import code_rules
from ipex_doctor.knowledge.code_rules import CodeRules
from ipex_doctor.scan import scan_paths
from ipex_doctor.scan.match.patterns import PATTERNS


def _pattern(pattern: str, source: str, tmp_path: Path) -> list[tuple[int, str, str]]:
    """(line, symbol, matched text) of ``pattern``'s matches in ``source``."""
    rules = CodeRules((rule(pattern, pattern=pattern),))
    matches = in_code(textwrap.dedent(source), rules, tmp=tmp_path)
    return [
        (
            m.location.line,
            m.symbol,
            m.snippet[m.location.column : m.location.end_column]
            if not m.location.end_line
            else m.snippet[m.location.column :],
        )
        for m in matches
    ]


def test_with_and_of_calls(tmp_path: Path) -> None:
    """``with A() and B():`` (also async, parenthesised, continued over lines) enters only B;
    two items, a non-call operand and ``or`` are other things."""
    source = """
        import torch
        with torch.cpu.amp.autocast() and torch.no_grad():
            pass
        async def f():
            async with lock() and other():
                pass
        with (
            torch.no_grad() and
            torch.enable_grad()
        ):
            pass
        with a() \\
                and b():
            pass
        with torch.no_grad(), torch.cpu.amp.autocast():
            pass
        with flag and torch.no_grad():
            pass
        x = a() and b()
    """
    assert _pattern("with-and", source, tmp_path) == [
        (
            3,
            "torch.cpu.amp.autocast() and torch.no_grad()",
            "torch.cpu.amp.autocast() and torch.no_grad()",
        ),
        (6, "lock() and other()", "lock() and other()"),
        (9, "torch.no_grad() and torch.enable_grad()", "torch.no_grad() and"),
        (13, "a() and b()", "a() \\"),
    ]


def test_half_spectral_norm_needs_both(tmp_path: Path) -> None:
    """Reported at each half conversion, and only in a module that applies spectral_norm."""
    source = """
        import torch
        from torch.nn.utils import parametrizations as P
        net = P.spectral_norm(torch.nn.Linear(2, 2))
        net = net.half()
        net.to("xpu", torch.float16)
        net.to(dtype=torch.half)
        net.to(torch.bfloat16)
        net.float()
    """
    assert _pattern("half-spectral-norm", source, tmp_path) == [
        (5, "torch.nn.utils.parametrizations.spectral_norm + .half()", ".half()"),
        (
            6,
            "torch.nn.utils.parametrizations.spectral_norm + .to(torch.float16)",
            '.to("xpu", torch.float16)',
        ),
        (
            7,
            "torch.nn.utils.parametrizations.spectral_norm + .to(torch.half)",
            ".to(dtype=torch.half)",
        ),
    ]
    assert _pattern("half-spectral-norm", "import torch\nm = m.half()\n", tmp_path / "no") == []


def test_optimize_bf16(tmp_path: Path) -> None:
    """ipex.optimize / torch.xpu.optimize with a bfloat16 dtype, as keyword or 2nd argument."""
    source = """
        import torch
        import intel_extension_for_pytorch as ipex
        from torch import bfloat16 as bf16
        ipex.optimize(model, dtype=torch.bfloat16)
        ipex.optimize(model, bf16, optimizer=opt)
        torch.xpu.optimize(model, dtype=torch.bfloat16)
        ipex.optimize(model, dtype=torch.float32)
        ipex.optimize(model)
        other.optimize(model, dtype=torch.bfloat16)
    """
    assert [line for line, _, _ in _pattern("optimize-bf16", source, tmp_path)] == [5, 6, 7]


def test_ccl_backend(tmp_path: Path) -> None:
    """``backend="ccl"`` in any call; ``"ccl"`` first to init_process_group; not "xccl"."""
    source = """
        import torch.distributed as dist
        dist.init_process_group(backend="ccl", rank=0)
        dist.init_process_group('ccl')
        dist.new_group(backend="ccl")
        dist.init_process_group(backend="xccl")
        print("ccl")
    """
    assert [line for line, _, _ in _pattern("ccl-backend", source, tmp_path)] == [3, 4, 5]


def test_an_unknown_pattern_is_a_knowledge_base_error(tmp_path: Path) -> None:
    """A rule naming a pattern the scanner lacks is refused with the known ones listed."""
    rules = CodeRules((rule("bad", pattern="no-such-pattern"),))
    with pytest.raises(KnowledgeBaseError, match="unknown pattern 'no-such-pattern'.*with-and"):
        scan_paths([tmp_path], rules)


@pytest.mark.parametrize("with_a_file", [False, True])
def test_a_bad_rule_is_refused_before_anything_is_read_even_in_a_tree_with_nothing_to_read(
    tmp_path: Path, with_a_file: bool
) -> None:
    """The rule set is built only once a file is to be read, yet an unknown pattern or an
    invalid regex is refused whatever the tree holds (an empty tree read nothing and let both
    through, with exit 0)."""
    if with_a_file:
        (tmp_path / "train.py").write_text("import intel_extension_for_pytorch\n", "utf-8")
    with pytest.raises(KnowledgeBaseError, match="invalid regex '\\('"):
        scan_paths([tmp_path], CodeRules((rule("bad", text=["("]),)))
    with pytest.raises(KnowledgeBaseError, match="unknown pattern 'no-such-pattern'"):
        scan_paths([tmp_path], CodeRules((rule("bad", pattern="no-such-pattern"),)))


def test_the_scanner_implements_the_patterns_the_rules_may_name() -> None:
    """The loader's list of pattern ids and the scanner's implementations agree."""
    assert set(PATTERNS) == set(code_rules.PATTERNS)
