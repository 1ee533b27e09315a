"""The catalogue of fixes is the codemods: each declares its id, what it rewrites and the names
it rewrites, and the rules that ask for a fix match exactly the names its codemod rewrites (a
name matched but not rewritten would be labelled "mechanical" and left alone; a name rewritten
but not matched would never be reported)."""

from __future__ import annotations

import pytest

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.fix.codemods.registry import CODEMODS, FIX_CATALOGUE

SHIPPED = code_rules.load(known_fixes=FIX_CATALOGUE)


def test_every_codemod_declares_its_id_and_what_it_rewrites() -> None:
    assert set(FIX_CATALOGUE) == set(CODEMODS)
    for fix_id, codemod in CODEMODS.items():
        assert codemod.FIX_ID == fix_id and codemod.DESCRIPTION.strip(), fix_id


@pytest.mark.parametrize(
    "fix_id", sorted(f for f, codemod in CODEMODS.items() if codemod().targets())
)
def test_the_rules_match_exactly_what_the_codemod_rewrites(fix_id: str) -> None:
    matched = {s for r in SHIPPED.rules if r.fix == fix_id for s in r.match.symbols}
    assert matched == set(CODEMODS[fix_id]().targets())
