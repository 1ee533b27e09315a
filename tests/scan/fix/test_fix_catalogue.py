"""The catalogue of fixes is the codemods: each declares its id, what it rewrites and the names
it rewrites, and the rules that ask for a fix match exactly the names its codemod rewrites (a
name matched but not rewritten would be labelled "mechanical" and left alone; a name rewritten
but not matched would never be reported)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ipex_doctor.knowledge import code_rules
from ipex_doctor.scan.fix.codemods.registry import CODEMODS, FIX_CATALOGUE, codemods_in

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


def test_the_codemods_run_in_the_order_they_declare() -> None:
    """``CODEMODS`` is every codemod class, ordered by its ``ORDER`` then its fix id, and
    ``ipex-side-effect-import`` runs last (it must see what the others left)."""
    order = sorted(CODEMODS.values(), key=lambda codemod: (codemod.ORDER, codemod.FIX_ID))
    assert list(CODEMODS.values()) == order
    assert list(CODEMODS)[-1] == "ipex-side-effect-import"


def _package(root: Path, modules: dict[str, str]) -> None:
    root.mkdir()
    (root / "__init__.py").write_text("")
    for name, text in modules.items():
        (root / f"{name}.py").write_text(textwrap.dedent(text))


def test_a_new_codemod_is_its_class_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A codemod class in a new module of the package is in the catalogue with no list to
    edit; a class imported from another module is not counted twice, nor a base without id."""
    _package(
        tmp_path / "some_codemods",
        {
            "first": """\
                from ipex_doctor.scan.fix.codemods.base import NameCodemod

                class Family(NameCodemod):
                    pass

                class Later(Family):
                    FIX_ID = "later"

                class Sooner(NameCodemod):
                    FIX_ID = "sooner"
                    ORDER = 1
                """,
            "second": """\
                from ipex_doctor.scan.fix.codemods.base import Codemod
                from some_codemods.first import Later

                class Alike(Codemod):
                    FIX_ID = "alike"
                """,
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = codemods_in("some_codemods")
    assert list(found) == ["sooner", "alike", "later"]
    assert found["later"].__module__ == "some_codemods.first"


def test_two_codemods_of_one_fix_id_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package(
        tmp_path / "twice_codemods",
        {
            name: f"""\
                from ipex_doctor.scan.fix.codemods.base import Codemod

                class {name.title()}(Codemod):
                    FIX_ID = "same"
                """
            for name in ("one", "two")
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RuntimeError, match="two codemods declare the fix id same"):
        codemods_in("twice_codemods")
