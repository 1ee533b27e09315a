"""A finding on a YAML key whose value is a block spans the block: huggingface/peft's example
accelerate config (real, trimmed), whose ``ipex_config:`` block its maintainers removed whole
once accelerate refused the key."""

from __future__ import annotations

from pathlib import Path

from scan_rules import scan, write

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.match.yaml_blocks import spanning_blocks
from ipex_doctor.scan.read.source import Hit

SHIPPED = code_rules.load()

PEFT_CONFIG = (
    "compute_environment: LOCAL_MACHINE\n"
    "debug: false\n"
    "distributed_type: MULTI_XPU\n"
    "gpu_ids: all\n"
    "ipex_config:\n"
    "  ipex: false\n"
    "\n"
    "  # a comment inside the block\n"
    "  use_xpu: true\n"
    "machine_rank: 0\n"
)


def _spans(root: Path) -> list[tuple[str, int, int, str]]:
    result = scan(root, SHIPPED)
    return [
        (m.location.path, m.location.line, m.location.end_line or m.location.line, m.rule_id)
        for m in result.matches
    ]


def test_a_block_key_s_finding_spans_its_block(tmp_path: Path) -> None:
    write(tmp_path, {"examples/int8_training/config.yaml": PEFT_CONFIG})
    assert _spans(tmp_path) == [
        ("examples/int8_training/config.yaml", 5, 9, "accelerate-ipex-config"),
    ]


def test_a_key_with_a_value_and_a_list_item_stay_one_line(tmp_path: Path) -> None:
    """``ipex: true`` holds its value on its line; a ``- key:`` list item shares its depth with
    its siblings, so what follows is not its block; a file that is not YAML has no blocks."""
    write(
        tmp_path,
        {"a.yaml": "ipex: true\n  stray: 1\n", "c.toml": "ipex_config:\n  ipex = true\n"},
    )
    assert _spans(tmp_path) == [
        ("a.yaml", 1, 1, "accelerate-ipex-config"),
        ("c.toml", 1, 1, "accelerate-ipex-config"),
        ("c.toml", 2, 2, "accelerate-ipex-config"),
    ]
    item = Hit("r", "ipex_config:", 2, 2, 2, 14)
    assert spanning_blocks([item], ["items:", "- ipex_config:", "  other: 1"]) == [item]
