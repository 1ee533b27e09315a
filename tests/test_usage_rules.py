"""Usage rules are data checked on a mapping of parsed values, with no command line parser:
the CLI only adapts its context to them (tests/cli/test_options.py shows it does)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import doctor_env

from ipex_doctor.usage_rules import Refuse, first_broken, unknown_names

TOGETHER = Refuse("fix", "choose one", with_any=("diff",))
NEEDS = Refuse("yes", "--yes needs --undo", without=("undo",))
ALWAYS = Refuse(None, "name one", without=("names", "list_only"))


def test_a_rule_with_any_is_broken_only_when_both_are_given() -> None:
    assert TOGETHER.broken({"fix": True, "diff": True})
    assert not TOGETHER.broken({"fix": True, "diff": False})
    assert not TOGETHER.broken({"fix": False, "diff": True})
    assert not TOGETHER.broken({"fix": True})  # a name the mapping lacks is not given


def test_a_rule_without_is_broken_when_none_of_its_names_is_given() -> None:
    assert NEEDS.broken({"yes": True, "undo": None})
    assert not NEEDS.broken({"yes": True, "undo": "record.json"})
    assert not NEEDS.broken({"yes": False, "undo": None})
    assert ALWAYS.broken({"names": (), "list_only": False})
    assert not ALWAYS.broken({"names": ("all",), "list_only": False})


def test_empty_values_are_not_given() -> None:
    """A flag left out, an empty repeatable option, a count of 0, an empty string, ``None``."""
    for empty in (None, False, (), "", 0):
        assert not TOGETHER.broken({"fix": True, "diff": empty}), empty
    for value in (True, ("x",), "x", 1):
        assert TOGETHER.broken({"fix": True, "diff": value}), value


def test_the_first_broken_rule_in_order_is_the_one_said() -> None:
    rules = (TOGETHER, NEEDS, ALWAYS)
    given = {"fix": True, "diff": True, "yes": True}
    assert first_broken(rules, given) is TOGETHER
    assert first_broken(rules[1:], given) is NEEDS
    assert first_broken(rules, {"names": ("x",), "undo": "r"}) is None


def test_unknown_names_are_those_no_parameter_has() -> None:
    assert TOGETHER.names() == {"fix", "diff"} and ALWAYS.names() == {"names", "list_only"}
    assert unknown_names((TOGETHER, NEEDS), ["fix", "diff", "yes", "undo"]) == set()
    assert unknown_names((TOGETHER, NEEDS), ["fix", "dif", "yes"]) == {"diff", "undo"}


def test_the_rules_need_no_command_line_parser() -> None:
    """Importing the rules imports neither Click nor any other part of the doctor."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys, json, ipex_doctor.usage_rules; print(json.dumps("
         "sorted(m for m in sys.modules if m.startswith(('click', 'ipex_doctor')))))"],
        capture_output=True, text=True, env=doctor_env(), check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == ["ipex_doctor", "ipex_doctor.usage_rules"]
