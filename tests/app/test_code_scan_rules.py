"""``scan --rules FILE``: a site's own code rules over the shipped ones, through the real CLI
(a real process, real files): an added rule finds its line, a replaced rule says so and its
words are the ones reported, SARIF names the overlay, and a bad overlay is one line, exit 2,
with nothing scanned."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import doctor_env, run_doctor

SITE_RULES = """\
schema_version: 1
rules:
  - id: site-old-helper
    title: mylib.old_helper is gone from our platform image
    severity: error
    match:
      symbols: [mylib.old_helper]
    why: The platform team removed mylib.old_helper in the 2026 image.
    replacement: mylib.new_helper
    recipe: Call mylib.new_helper with the same arguments.
    references:
      - url: https://example.org/platform/old-helper
  - id: xpu-amp-autocast
    title: Our site forbids torch.xpu.amp.autocast
    severity: error
    match:
      symbols: [torch.xpu.amp.autocast]
    why: The site's words, not the shipped ones.
    replacement: torch.amp.autocast("xpu")
    fix: autocast-xpu
    references:
      - url: https://example.org/platform/autocast
"""

CODE = """\
import torch
from mylib import old_helper

old_helper()
with torch.xpu.amp.autocast():
    pass
"""


def _project(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(CODE)
    rules = tmp_path / "site-rules.yaml"
    rules.write_text(SITE_RULES)
    return project, rules


def _scan(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    done = run_doctor(
        "scan", *args, extra_env={"XDG_CACHE_HOME": str(tmp_path / "cache")}, cwd=tmp_path
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout, done.stderr


def test_an_added_rule_finds_its_line_and_a_replaced_rule_speaks_its_words(
    tmp_path: Path,
) -> None:
    project, rules = _project(tmp_path)
    code, stdout, stderr = _scan(tmp_path, str(project), "--rules", str(rules), "--json", "-")
    assert code == 1
    findings = {f["id"]: f for f in json.loads(stdout)["findings"]}
    added = findings["site-old-helper"]
    assert added["location"]["line"] == 4
    assert added["evidence"]["data"]["rule_source"] == str(rules)
    assert f"(rule from {rules})" in added["evidence"]["summary"]
    replaced = findings["xpu-amp-autocast"]
    assert replaced["title"] == "Our site forbids torch.xpu.amp.autocast"
    assert replaced["evidence"]["data"]["why"] == "The site's words, not the shipped ones."
    assert f"{rules}: rule 'xpu-amp-autocast' replaces the one of " in stderr


def test_without_the_overlay_the_shipped_rules_alone_speak(tmp_path: Path) -> None:
    """The other side: the site rule is the overlay's doing, and the shipped rule has its own
    title and no source."""
    project, _ = _project(tmp_path)
    code, stdout, stderr = _scan(tmp_path, str(project), "--json", "-")
    findings = {f["id"]: f for f in json.loads(stdout)["findings"]}
    assert "site-old-helper" not in findings and "replaces" not in stderr
    assert findings["xpu-amp-autocast"]["title"] != "Our site forbids torch.xpu.amp.autocast"
    assert "rule_source" not in findings["xpu-amp-autocast"]["evidence"]["data"]


def test_sarif_names_the_overlay_rule_and_its_file(tmp_path: Path) -> None:
    project, rules = _project(tmp_path)
    _, stdout, _ = _scan(tmp_path, str(project), "--rules", str(rules), "--sarif", "-", "-q")
    driver = json.loads(stdout)["runs"][0]["tool"]["driver"]
    by_id = {rule["id"]: rule for rule in driver["rules"]}
    assert by_id["site-old-helper"]["properties"]["source"] == str(rules)
    assert by_id["xpu-amp-autocast"]["properties"]["source"] == str(rules)
    assert by_id["site-old-helper"]["shortDescription"]["text"].startswith("mylib.old_helper")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("fix: autocast-xpu", "fix: autocast-xpuu"), "unknown fix 'autocast-xpuu'"),
        (("symbols: [mylib.old_helper]", "symbols: [mylib.old_helper"), "malformed YAML"),
        (("symbols: [mylib.old_helper]", "text: ['([']\n    applies_to: [shell]"),
         "invalid regular expression"),
        (("symbols: [mylib.old_helper]", "text: ['(x+)*y']\n    applies_to: [shell]"),
         "itself quantified"),
        (("symbols: [torch.xpu.amp.autocast]", "symbols: [torch.xpu.amp.autocast, mylib.old]"),
         "fix 'autocast-xpu' does not rewrite mylib.old"),
        (("fix: autocast-xpu", "fix: with-and"),
         "fix 'with-and' matches other code than the shipped rule with that fix"),
    ],
)  # fmt: skip
def test_a_bad_overlay_is_one_line_exit_2_and_nothing_is_scanned(
    tmp_path: Path, change: tuple[str, str], said: str
) -> None:
    project, rules = _project(tmp_path)
    rules.write_text(SITE_RULES.replace(*change))
    code, stdout, stderr = _scan(tmp_path, str(project), "--rules", str(rules), "--json", "-")
    assert code == 2, stderr
    assert stdout == ""  # NOTE: no report: the overlay is refused before anything is read
    errors = [line for line in stderr.splitlines() if line.startswith("ipex-doctor: error:")]
    assert len(errors) == 1 and said in errors[0] and str(rules) in errors[0], stderr
    assert "replaces" not in stderr  # NOTE: nothing said of rules that were never used


def test_a_missing_overlay_is_one_line_exit_2(tmp_path: Path) -> None:
    project, _ = _project(tmp_path)
    missing = tmp_path / "no-such-rules.yaml"
    code, stdout, stderr = _scan(tmp_path, str(project), "--rules", str(missing), "--json", "-")
    assert code == 2 and stdout == ""
    assert stderr.startswith(f"ipex-doctor: error: {missing}: no such code-rules file"), stderr


def test_undo_refuses_rules(tmp_path: Path) -> None:
    """``--rules`` does not apply to ``--undo``: refused, not silently ignored."""
    _, rules = _project(tmp_path)
    code, _, stderr = _scan(tmp_path, "--undo", "record.json", "--rules", str(rules))
    assert code == 2 and "--rules" in stderr and "--undo restores the files" in stderr


# NOTE: how many times the whole command built the knowledge base, at its exit
_LOADS = (
    "import atexit, runpy, sys\n"
    "from ipex_doctor.knowledge import known_issues\n"
    "calls = []\n"
    "load = known_issues.load\n"
    "known_issues.load = lambda *a, **k: calls.append(a) or load(*a, **k)\n"
    "atexit.register(lambda: print('| loads:', len(calls), file=sys.stderr))\n"
    "runpy.run_module('ipex_doctor', run_name='__main__', alter_sys=True)\n"
)


@pytest.mark.parametrize("kb", [False, True], ids=["shipped", "with --kb"])
def test_a_scan_builds_the_knowledge_base_once(tmp_path: Path, kb: bool) -> None:
    """Without ``--kb`` the shipped rules are checked against the ids of the knowledge base the
    scan loaded (the shipped one alone), not a second load of it (about 7 ms of the start);
    with an overlay they are still checked against the shipped ids, which needs its own load."""
    (tmp_path / "train.py").write_text(CODE, encoding="utf-8")
    overlay = tmp_path / "site.yaml"
    overlay.write_text("schema_version: 1\nissues: []\n", encoding="utf-8")
    env = {**doctor_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = ["scan", str(tmp_path / "train.py"), "--no-cache", "--json", "-"]
    done = subprocess.run(
        [sys.executable, "-c", _LOADS, *args, *(["--kb", str(overlay)] if kb else [])],
        capture_output=True, text=True, env=env, check=False, stdin=subprocess.DEVNULL,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]
    assert "xpu-amp-autocast" in {f["id"] for f in json.loads(done.stdout)["findings"]}
    loads = [line for line in done.stderr.splitlines() if line.startswith("| loads")]
    assert loads == [f"| loads: {2 if kb else 1}"]
