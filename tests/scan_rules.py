"""Shared helpers of the scanner's tests: rules built by hand, small trees written to disk.

The rules here are samples written for the tests (``code_rules.yaml`` is the real set): one
of each kind the scanner reads, named after what they match so a failing assertion reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ipex_doctor.knowledge.code_rules import CodeRule, CodeRules, RuleMatch
from ipex_doctor.model.code import CodeMatch, FileKind, ScanResult
from ipex_doctor.model.terms import Severity
from ipex_doctor.scan import scan_paths

PYTHON_KINDS = (FileKind.PYTHON, FileKind.NOTEBOOK, FileKind.SETUP)
TEXT_KINDS = (
    FileKind.REQUIREMENTS,
    FileKind.DOCKERFILE,
    FileKind.SHELL,
    FileKind.SETUP,
    FileKind.PYPROJECT,
    FileKind.CONDA,
)


def rule(
    rule_id: str,
    *,
    symbols: Sequence[str] = (),
    imports: Sequence[str] = (),
    pattern: str | None = None,
    text: Sequence[str] = (),
    applies_to: Sequence[FileKind] = PYTHON_KINDS,
) -> CodeRule:
    """A rule matching what is given, for ``applies_to``."""
    return CodeRule(
        id=rule_id,
        title=rule_id,
        severity=Severity.WARNING,
        match=RuleMatch(
            symbols=tuple(symbols), imports=tuple(imports), pattern=pattern, text=tuple(text)
        ),
        why="a test rule",
        replacement="none",
        applies_to=tuple(applies_to),
    )


SAMPLE = CodeRules(
    (
        rule("ipex-import", imports=["intel_extension_for_pytorch"]),
        rule("ipex-api", symbols=["intel_extension_for_pytorch.*"]),
        rule("ipex-optimize", symbols=["intel_extension_for_pytorch.optimize"]),
        rule("xpu-amp", symbols=["torch.xpu.amp.*"]),
        rule("xpu-amp-module", symbols=["torch.xpu.amp"]),
        rule("cpu-autocast", symbols=["torch.cpu.amp.autocast"]),
        rule("qconv", symbols=["torch.ops.torch_ipex.qconv2d_pointwise"]),
        rule("ccl-import", imports=["oneccl_bindings_for_pytorch"]),
        rule("with-and", pattern="with-and"),
        rule("half-spectral-norm", pattern="half-spectral-norm"),
        rule("optimize-bf16", pattern="optimize-bf16"),
        rule("ccl-backend", pattern="ccl-backend"),
        rule("pip-ipex", text=[r"intel[-_]extension[-_]for[-_]pytorch"], applies_to=TEXT_KINDS),
        rule("accelerate-ipex", text=[r"^\s*ipex:\s*true\b"], applies_to=[FileKind.CONFIG]),
    )
)
"""One rule of each kind the scanner reads."""


GIT_WORK_TREE = {".git/HEAD": "ref: refs/heads/main\n"}
"""Files that make a tree a git work tree with nothing tracked (a ``.git`` without an index, as
``git init`` leaves it): its ``.gitignore`` files apply to every file (``discovery``: outside a
work tree none does)."""


def write(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``files`` (relative POSIX path -> text or bytes) under ``root``; ``root``."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def scan(root: Path, rules: CodeRules = SAMPLE, **options: object) -> ScanResult:
    """``scan_paths`` of ``root`` alone."""
    return scan_paths([root], rules, **options)  # type: ignore[arg-type]


def found(result: ScanResult) -> list[tuple[str, int, str, str]]:
    """The matches as (path, line, rule id, symbol), in the result's order."""
    return [(m.location.path, m.location.line, m.rule_id, m.symbol) for m in result.matches]


def places_of(root: Path, rules: CodeRules, rule_id: str) -> list[tuple[str, int]]:
    """(path, line) of each match of ``rule_id`` in a scan of ``root`` with documents read, in
    the result's order."""
    result = scan(root, rules, docs=True)
    return [(path, line) for path, line, rule, _ in found(result) if rule == rule_id]


def in_code(source: str, rules: CodeRules = SAMPLE, *, tmp: Path) -> list[CodeMatch]:
    """The matches of ``rules`` in one Python file holding ``source``."""
    write(tmp, {"code.py": source})
    return list(scan(tmp, rules).matches)
