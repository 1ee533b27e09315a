"""CONTRIBUTING.md stays true: every file and folder it names exists in the tree, and the
steps it gives for a rewrite name what the fix catalogue really reads."""

from __future__ import annotations

import re
from inspect import signature

from conftest import REPO

TEXT = (REPO / "CONTRIBUTING.md").read_text()
PATH = re.compile(r"`((?:[\w.-]+/)+[\w.*<>-]*|[\w-]+\.(?:py|yaml|md|json))`")


def test_every_path_it_names_exists() -> None:
    named = set(PATH.findall(TEXT))
    assert len(named) >= 15, named  # NOTE: the pattern still finds the paths
    missing = []
    for path in named:
        if "<" in path:  # checks/<id with _ for ->.py: a shape, not a file
            continue
        found = list(REPO.glob(path)) if "*" in path else [REPO / path]
        if not found or not all(p.exists() for p in found):
            missing.append(path)
    assert not missing, missing


def test_the_rewrite_steps_name_what_the_catalogue_reads() -> None:
    """A codemod's class attributes the steps name are those of the base class."""
    from ipex_doctor.scan.fix.codemods.base import Codemod, CodemodContext

    for attribute in ("FIX_ID", "DESCRIPTION", "TARGETS", "TRIGGERS", "ORDER"):
        assert f"`{attribute}`" in TEXT and hasattr(Codemod, attribute), attribute
    assert "`plan(ctx)`" in TEXT and hasattr(Codemod, "plan")
    for part in ("names", "records", "imports"):
        assert f"`ctx.{part}`" in TEXT and part in signature(CodemodContext).parameters, part
    assert "`CODEMODS`" in TEXT and "`CASES`" in TEXT and "`REFUSALS`" in TEXT
