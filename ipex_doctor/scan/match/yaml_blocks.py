"""A YAML key whose value is a block: a finding on the key spans the block.

A text rule reads one line at a time. In YAML, a key that ends its line (``ipex_config:``) holds
the lines indented below it (``  ipex: false``): what the finding asks to remove or change is
the key with its block, and a finding that ends on the key's line would tell the reader to
leave the block behind (a config accelerate then refuses for its unknown key either way). No
YAML parser is needed for this: the block is the run of lines indented deeper than the key
(blank and comment lines inside it included), as YAML's own block rules define it, and a line
that is not deeper ends it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ipex_doctor.scan.read.source import Hit

YAML_SUFFIXES = (".yml", ".yaml")

_BLOCK_KEY = re.compile(r"^(?P<indent>[ ]*)[\"']?[\w.-]+[\"']?[ ]*:[ ]*(?:#.*)?$")
"""A mapping key with nothing after its colon but a comment: its value is the block below (a
key that opens a list item, ``- key:``, is left alone: its siblings share its block's depth)."""


def spanning_blocks(hits: Sequence[Hit], lines: Sequence[str]) -> list[Hit]:
    """``hits`` of a YAML file, each hit on a block key ending where the block ends."""
    spanned: list[Hit] = []
    for hit in hits:
        key = _BLOCK_KEY.match(lines[hit.line - 1]) if hit.line <= len(lines) else None
        if key is None:
            spanned.append(hit)
            continue
        depth = len(key.group("indent"))
        last = hit.line
        for number in range(hit.line + 1, len(lines) + 1):
            text = lines[number - 1]
            stripped = text.lstrip(" ")
            if not stripped or stripped.startswith("#"):
                continue
            if len(text) - len(stripped) <= depth:
                break
            last = number
        if last == hit.line:
            spanned.append(hit)
        else:
            spanned.append(hit._replace(end_line=last, end_column=len(lines[last - 1])))
    return spanned
