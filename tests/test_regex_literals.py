"""The required literals of a text rule's regex, held to ``re`` itself: every string that
matches must contain those of one alternative (hypothesis generates the matching strings)."""

from __future__ import annotations

import re

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipex_doctor.regex_literals import required_literals

EXPRESSIONS = [
    r"intel[-_]extension[-_]for[-_]pytorch",
    r"^\s*ipex:\s*true\b",
    r"(?i)Intel_Extension_For_PyTorch",
    r"pip3? install\s+.*oneccl[-_]bind[-_]pt",
    r"torch==2\.\d+\.\d+\+xpu",
    r"use_ipex\s*[:=]\s*(true|1)",
    r"colou?r_scheme",
    r"ab+c{2,3}d{0,2}efg",
    r"lit{2}eral\{x}",
    r"a{,2}bcd",
    r"ipex(?:_cpu)?_latest",
    r"[]x]ipexx\.y",
    r"(?i:ipex)_config_value",
    r"xpu.*?ccl(?:_bindings)+",
    r"\\server\\share",
    r"(?i)\b(?:setvars|oneapi-vars)\.(?:sh|bat)\b",
    r"ipexrun|intel_extension_for_pytorch\.cpu\.launch",
    r"(?P<tool>accelerate|torchrun)\s+launch\s+--ipex",
    r"(?:ab|cd)(?:ef|gh)(?:ij|kl)(?:mn|op)xyz",
    r"(?i)(?<!_)(?-i:\bDEVICE_LOST\b)",
    r"(?i)\bComputeCpp\b|(?-i:\bCOMPUTECPP_[A-Z0-9_]{2,60}\b)",
    r"(?s:ipex.)_value(?m:$)",
    r"(?-i:Zero)(?i:ipex)_value",
    r"(?i)(?-i:[Ss][Yy][Cc][Ll])_error\b",
    r"\bfrom install of (?:intel-(?:opencl|igc-(?:core|cm))|lib(?:ze|igc)|level-zero|ocloc"
    r"|gmmlib|compute-runtime)-\d|\bcannot install both (?:intel-(?:opencl|igc)|lib(?:ze"
    r"|igc)|level-zero|ocloc|gmmlib|compute-runtime)-\d",
    r"[Ss]ycl_[Ee]rror",
    r"(?i)[Ss]?y[Cc]{2}l_[Ee]rror",
    r"caf\u00e9_ipex\x27s|\N{LATIN SMALL LETTER E WITH ACUTE}tude",
    r"\b(fail(s|ed)? to load|(can ?not|unable to) (load|find|open)|error loading)\W{1,6}\S{0,20}"
    r"\.dll\b|\.dll\W{0,3}(was |is )?(not found|missing|could not be (found|loaded))",
    r"\b(intelocl|task_executor|cpu_device)(32|64)(_emu)?\.dll\b|\blib(intelocl|cpu_device)\.so",
]


@pytest.mark.parametrize(
    ("regex", "expected"),
    [
        (r"intel[-_]extension[-_]for[-_]pytorch", [("extension", "pytorch", "intel", "for")]),
        (r"^\s*ipex:\s*true\b", [("ipex:", "true")]),
        (r"(?i)Intel_Extension_For_PyTorch", [("intel_extension_for_pytorch",)]),
        (r"torch==2\.\d+\.\d+\+xpu", [("torch==2.", "+xpu")]),
        (r"colou?r_scheme", [("r_scheme", "colo")]),
        (r"ab+c{2,3}d{0,2}efg", [("efg",)]),
        (r"lit{2}eral\{x}", [("eral{x}", "lit")]),
        (r"\\server\\share", [("\\server\\share",)]),
        (
            r"(?i)\b(?:setvars|oneapi-vars)\.(?:sh|bat)\b",
            [("setvars",), ("oneapi-vars",)],  # "bat" too is no more than "setvars" alone
        ),
        (
            r"ipexrun|intel_extension_for_pytorch\.cpu\.launch",
            [("ipexrun",), ("intel_extension_for_pytorch.cpu.launch",)],
        ),
        (r"(?P<tool>accelerate|torch)\s+launch", [("accelerate", "launch"), ("launch", "torch")]),
        (r"(?i:ipex)_config_value", [("_config_value",)]),
        (r"(?:x|y)+_config", [("_config",)]),
        (r"(?:ipex_)?value", [("value",)]),
        (r"(?i)(?<!_)(?-i:\bDEVICE_LOST\b)", [("device_lost",)]),
        (
            r"(?i)\bComputeCpp\b|(?-i:\bCOMPUTECPP_[A-Z0-9_]{2,60}\b)",
            [("computecpp",), ("computecpp_",)],
        ),
        (r"(?s:ipex.)_value(?m:$)", [("_value", "ipex")]),
        (r"(?-i:Zero)(?i:ipex)_value", [("_value", "Zero")]),
        (r"(?i)(?-i:[Ss][Yy][Cc][Ll])_error\b", [("_error", "sycl")]),
        (r"[Ss]ycl_[Ee]rror", [("ycl_", "rror")]),
        (r"(?i)[Ss]?ycl_[Ee]rror", [("ycl_error",)]),
        # beyond the reader: no prefilter, every line is matched
        (r"ipex|xp", None),
        (r"(?x) ipex # verbose", None),
        (r"\x69pex_value", [("pex_value",)]),
        (r"caf\u00e9_ipex", [("_ipex", "caf")]),
        (r"\N{LATIN SMALL LETTER E WITH ACUTE}_ipex\x2", None),
        (
            r"\b(fail(s|ed)? to load|(can ?not|unable to) (load|find|open)|error loading)\W{1,6}"
            r"\S{0,200}\.dll\b|\.dll\W{0,3}(was |is )?(not found|missing|could not be (found|loaded))",
            [(".dll",)],  # nine ways, all holding ".dll"
        ),
        (
            r"\bfrom install of (?:intel-(?:opencl|igc-(?:core|cm))|lib(?:ze|igc)|level-zero|ocloc"
            r"|gmmlib|compute-runtime)-\d|\bcannot install both (?:intel-(?:opencl|igc)|lib(?:ze"
            r"|igc)|level-zero|ocloc|gmmlib|compute-runtime)-\d",
            # seven ways in each branch: the first's kept, the second's merged into what all hold
            [
                ("from install of ", "intel-", "opencl"),
                ("from install of ", "intel-", "igc-"),
                ("from install of ", "lib"),
                ("from install of ", "level-zero"),
                ("from install of ", "ocloc"),
                ("from install of ", "gmmlib"),
                ("from install of ", "compute-runtime"),
                ("cannot install both ",),
            ],  # fmt: skip
        ),
        (r"\1ipex_value", None),
        (r"ab", None),
        (r"(?:ab|cd)(?:ef|gh)(?:ij|kl)(?:mn|op)xyz", [("xyz",)]),
    ],
)
def test_literals_of_known_expressions(regex: str, expected: list[tuple[str, ...]] | None) -> None:
    """Runs outside classes and optional atoms, per alternative; ``None`` when unsure."""
    literals = required_literals(regex)
    assert (None if literals is None else list(literals.alternatives)) == expected


@pytest.mark.parametrize("regex", EXPRESSIONS)
@settings(max_examples=examples(30), suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_every_match_contains_an_alternative(regex: str, data: st.DataObject) -> None:
    """Whatever ``re`` matches contains all literals of one alternative (folded when the
    regex is)."""
    literals = required_literals(regex)
    text = data.draw(st.from_regex(re.compile(regex), fullmatch=False))
    matched = re.search(regex, text)
    assert matched is not None
    if literals is not None:
        haystack = matched.group(0).lower() if literals.folded else matched.group(0)
        assert any(all(w in haystack for w in words) for words in literals.alternatives)
