"""The corpus of real IPEX removals (tests/assets/scan_removals.yaml) and the script that scores
scan against it (benchmarks/scan_removals.py).

The corpus is data that later measurements depend on: its split must stay the one its seed
draws (a project moved into the development part would let rules be written from what is meant
to be held out), and every key line must be well formed. The script's scoring is exercised on a
real git repository made here: a removal commit, a tree checked out of it, a real scan.
"""

from __future__ import annotations

import importlib.util
import random
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from conftest import REPO

CORPUS = REPO / "tests" / "assets" / "scan_removals.yaml"
DATA: dict[str, Any] = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
SHA = re.compile(r"[0-9a-f]{40}")


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "scan_removals", REPO / "benchmarks" / "scan_removals.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["scan_removals"] = module
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()


def _drawn(names: list[str], split: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(development, held out) as ``split``'s seed draws them from ``names``."""
    order = sorted(names, key=str.lower)
    random.Random(split["seed"]).shuffle(order)
    assert split["development"] == len(order) // 2
    return set(order[: split["development"]]), set(order[split["development"] :])


def test_the_parts_are_the_ones_the_seeds_draw() -> None:
    second = DATA["second_split"]["projects"]
    third = DATA["third_split"]["projects"]
    fourth = DATA["fourth_split"]["projects"]
    fifth = DATA["fifth_split"]["projects"]
    sixth = DATA["sixth_split"]["projects"]
    seventh = DATA["seventh_split"]["projects"]
    eighth = DATA["eighth_split"]["projects"]
    ninth = DATA["ninth_split"]["projects"]
    tenth = DATA["tenth_split"]["projects"]
    eleventh = DATA["eleventh_split"]["projects"]
    twelfth = DATA["twelfth_split"]["projects"]
    later = set(second) | set(third) | set(fourth) | set(fifth) | set(sixth) | set(seventh)
    later |= set(eighth) | set(ninth) | set(tenth) | set(eleventh) | set(twelfth)
    first = [p["project"] for p in DATA["projects"] if p["project"] not in later]
    parts = {p["project"]: p["part"] for p in DATA["projects"]}
    assert later <= set(parts)
    # NOTE: no project in two collections
    collections = (second, third, fourth, fifth, sixth, seventh, eighth, ninth, tenth, eleventh)
    collections += (twelfth,)
    assert len(later) == sum(map(len, collections))

    # NOTE: each drawn collection's held-out part was measured once and then joined the
    # development part; the record of which projects those were must still be the seed's draw.
    measured = {
        "split": first, "second_split": second, "third_split": third, "fourth_split": fourth,
        "fifth_split": fifth, "sixth_split": sixth, "eighth_split": eighth, "ninth_split": ninth,
        "tenth_split": tenth,
    }  # fmt: skip
    for split, names in measured.items():
        _, held_out = _drawn(names, DATA[split])
        assert set(DATA[split]["joined_development"]) == held_out, split
        assert {parts[name] for name in names} == {"development"}, split

    # NOTE: the seventh has fewer than four projects: a draw would leave one on each side, so
    # the whole collection was kept aside, none drawn into development; measured once, all of it
    # joined development.
    assert len(seventh) < 4 and DATA["seventh_split"]["development"] == 0
    assert seventh == sorted(seventh, key=str.lower)
    assert DATA["seventh_split"]["joined_development"] == seventh
    assert {parts[name] for name in seventh} == {"development"}

    # NOTE: the eleventh, like the seventh, has fewer than four projects: all kept aside, none
    # drawn into development; measured once, all of it joined development.
    assert len(eleventh) < 4 and DATA["eleventh_split"]["development"] == 0
    assert eleventh == sorted(eleventh, key=str.lower)
    assert DATA["eleventh_split"]["joined_development"] == eleventh
    assert {parts[name] for name in eleventh} == {"development"}

    # NOTE: the twelfth, like the seventh and eleventh, has fewer than four projects: all kept
    # aside, none drawn into development; measured once, all of it joined development.
    assert len(twelfth) < 4 and DATA["twelfth_split"]["development"] == 0
    assert twelfth == sorted(twelfth, key=str.lower)
    assert DATA["twelfth_split"]["joined_development"] == twelfth
    assert {parts[name] for name in twelfth} == {"development"}


def test_every_case_names_its_commits_and_every_key_line_is_well_formed() -> None:
    names = [p["project"] for p in DATA["projects"]]
    assert len(names) == len(set(names)) >= 46
    for project in DATA["projects"]:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", project["project"])
        assert project["what"] and project["cases"]
        for case in project["cases"]:
            assert SHA.fullmatch(case["before"]) and SHA.fullmatch(case["after"])
            assert case["removal"] and all(SHA.fullmatch(c) for c in case["removal"])
            assert case["removal"][-1] == case["after"]
            assert case["title"]
            places = [(k.path, k.line) for k in map(SCRIPT.parse_key_line, case["key"])]
            assert len(places) == len(set(places)), project["project"]
    cases = SCRIPT.load_cases(CORPUS)
    # NOTE: every collection measured so far has joined development; a new one brings a
    # held-out part again. No other part exists.
    assert "development" in {c.part for c in cases} <= {"development", "held-out"}
    assert all(c.key for c in cases)


@pytest.mark.parametrize(
    "raw",
    [
        "a.py:3:import:import intel_extension_for_pytorch",  # no space after the kind
        "a.py:3:imports: import intel_extension_for_pytorch",  # not a kind
        "a.py:three:import: import intel_extension_for_pytorch",
    ],
)
def test_a_malformed_key_line_is_refused(raw: str) -> None:
    with pytest.raises(ValueError):
        SCRIPT.parse_key_line(raw)


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def test_a_removal_is_scored_from_a_real_clone_and_a_real_scan(tmp_path: Path) -> None:
    repos = tmp_path / "repos"
    clone = repos / "someone+project"
    clone.mkdir(parents=True)
    _git(clone, "init", "-q")
    before = _commit(
        clone,
        {
            "app.py": "import torch\nimport intel_extension_for_pytorch as ipex\nprint('hi')\n",
            "tools.py": "import intel_extension_for_pytorch\n",
            "stays.py": "import intel_extension_for_pytorch\n",
        },
        "before",
    )
    after = _commit(clone, {"app.py": "import torch\n", "tools.py": "import os\n"}, "move off IPEX")
    key = (
        SCRIPT.KeyLine("app.py", 2, "import", "import intel_extension_for_pytorch as ipex"),
        SCRIPT.KeyLine("app.py", 3, "call", "print('hi')"),
    )
    case = SCRIPT.Case("someone/project", "development", before, after, "move off IPEX", key)

    outcome = SCRIPT.measure(case, repos, docs=False, python=None)

    assert outcome.problems == []
    assert [k.line for k in outcome.found] == [2]
    assert [k.line for k in outcome.missed] == [3]
    where = {(f["path"], f["where"]) for f in outcome.outside}
    assert ("tools.py", "removed, not keyed") in where
    assert ("stays.py", "kept by the maintainers") in where
    assert outcome.files_seen == 3


def test_the_before_tree_is_exported_as_a_checkout_with_its_index(tmp_path: Path) -> None:
    """A maintainer's checkout has an index: a file it tracks that ``.gitignore`` names
    (``/*.txt``) is scanned, and the export's ``.git/index`` holds the commit's paths."""
    from ipex_doctor.scan.read.git_index import read_index

    repos = tmp_path / "repos"
    clone = repos / "someone+project"
    clone.mkdir(parents=True)
    _git(clone, "init", "-q")
    files = {".gitignore": "/*.txt\n", "requirements.txt": "intel_extension_for_pytorch\n"}
    for name, text in files.items():
        (clone / name).write_text(text, encoding="utf-8")
    _git(clone, "add", "-f", *files)
    _git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "before")
    before = _git(clone, "rev-parse", "HEAD")
    after = _commit(clone, {"app.py": ""}, "after")
    tree = tmp_path / "tree"
    tree.mkdir()
    assert SCRIPT.export_tree(clone / ".git", before, tree) == []
    assert read_index(tree / ".git" / "index") == set(files)

    case = SCRIPT.Case("someone/project", "development", before, after, "t", ())
    outcome = SCRIPT.measure(case, repos, docs=False, python=None)
    assert outcome.problems == []
    assert ("requirements.txt", "kept by the maintainers") in {
        (f["path"], f["where"]) for f in outcome.outside
    }


def test_a_missing_clone_or_commit_is_said_with_how_to_fetch_it(tmp_path: Path) -> None:
    case = SCRIPT.Case("someone/absent", "development", "0" * 40, "1" * 40, "t", ())
    outcome = SCRIPT.measure(case, tmp_path, docs=False, python=None)
    assert outcome.problems and "git clone https://github.com/someone/absent" in outcome.problems[0]

    clone = tmp_path / "someone+absent"
    clone.mkdir()
    _git(clone, "init", "-q")
    _commit(clone, {"a.py": "x = 1\n"}, "only")
    outcome = SCRIPT.measure(case, tmp_path, docs=False, python=None)
    assert outcome.problems and "lacks commit" in outcome.problems[0]


def test_the_key_draft_classifies_removed_lines_and_lists_what_it_leaves_out(
    tmp_path: Path,
) -> None:
    """tools/draw_removal_key.py, run as the corpus's key procedure runs it, on a real removal:
    Python lines by their syntax tree (an import, a call through its alias, an install string,
    a probe, a guard on a project's own flag), other files by their path; a message and a
    comment that name IPEX are listed as left out, for the reader."""
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    before = _commit(
        repo,
        {
            "app.py": (
                "import importlib.util\n"
                "import intel_extension_for_pytorch as ipex\n"
                "# ipex makes it faster\n"
                'HAS = importlib.util.find_spec("intel_extension_for_pytorch") is not None\n'
                "if args.use_ipex:\n"
                "    model = ipex.optimize(model)\n"
                '    print("using ipex")\n'
                'CMD = "pip install intel-extension-for-pytorch==2.8.10+xpu"\n'
            ),
            ".github/workflows/ci.yml": "run: pip install intel_extension_for_pytorch\n",
        },
        "before",
    )
    after = _commit(
        repo, {"app.py": "model = model\n", ".github/workflows/ci.yml": "run: true\n"}, "off"
    )
    done = subprocess.run(
        [sys.executable, str(REPO / "tools" / "draw_removal_key.py"),
         "--git-dir", str(repo / ".git"), "--before", before, "--after", after],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.splitlines() == [
        ".github/workflows/ci.yml:1:ci: run: pip install intel_extension_for_pytorch",
        "app.py:2:import: import intel_extension_for_pytorch as ipex",
        "# left out app.py:3: # ipex makes it faster",
        'app.py:4:probe: HAS = importlib.util.find_spec("intel_extension_for_pytorch") is not None',
        "app.py:5:guard: if args.use_ipex:",
        "app.py:6:call: model = ipex.optimize(model)",
        '# left out app.py:7: print("using ipex")',
        'app.py:8:string: CMD = "pip install intel-extension-for-pytorch==2.8.10+xpu"',
    ]


def test_the_key_draft_calls_a_windows_installer_s_lines_shell(tmp_path: Path) -> None:
    """A removed line of ``install.ps1`` or ``setup.bat`` is a shell line, as the scan reads it
    (a ``.sh``'s is), not a config's."""
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    install = '& "$PIP" install intel_extension_for_pytorch\n'
    before = _commit(repo, {"install.ps1": install, "setup.bat": install}, "before")
    after = _commit(repo, {"install.ps1": "\n", "setup.bat": "\n"}, "off")
    done = subprocess.run(
        [sys.executable, str(REPO / "tools" / "draw_removal_key.py"),
         "--git-dir", str(repo / ".git"), "--before", before, "--after", after],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.splitlines() == [
        f"install.ps1:1:shell: {install.strip()}",
        f"setup.bat:1:shell: {install.strip()}",
    ]


AUDIT: dict[str, Any] = yaml.safe_load(
    (REPO / "tests" / "assets" / "scan_audit.yaml").read_text(encoding="utf-8")
)


def _audit_adds_up(audit: dict[str, Any]) -> list[str]:
    """Check what every audit must say of itself (each project once, at a full commit; the
    precision sample's and the key's counts are those of their judged lines); its projects."""
    projects = [p["repo"] for p in audit["projects"]]
    assert len(projects) == len(set(projects))
    assert all(SHA.fullmatch(p["commit"]) for p in audit["projects"])
    sample = audit["precision_sample"]
    assert sample["of"] == len(sample["findings"]) == 40
    assert sample["accepted"] == sum(f["verdict"] == "accepted" for f in sample["findings"])
    assert {f["repo"] for f in sample["findings"]} <= set(projects)
    key = audit["key"]
    fixed = [m for m in key["missed"] if m["why"].startswith("fixed:")]
    assert key["found_after"] - key["found_before"] == len(fixed)
    assert key["of"] - key["found_after"] == len(key["missed"]) - len(fixed)
    return projects


def test_the_audit_of_unseen_projects_adds_up_and_is_no_removal_case() -> None:
    """The fourteenth collection's trees scanned at their newest commit (docs/scan.md): every
    project once, at a full commit; the counts say what the judged lines say; and none is a
    case of the removal corpus, whose keys are their maintainers' (a later measurement can use
    neither set for the other)."""
    projects = _audit_adds_up(AUDIT)
    assert len(projects) == 95
    cases = {p["project"].lower() for p in DATA["projects"]}
    assert cases.isdisjoint(p.lower() for p in projects)


FIFTEENTH: dict[str, Any] = yaml.safe_load(
    (REPO / "tests" / "assets" / "scan_audit_fifteenth.yaml").read_text(encoding="utf-8")
)


def test_the_fifteenth_audit_adds_up_and_shares_no_project_with_the_others() -> None:
    """The fifteenth audit (docs/scan.md): 80 drawn, each scanned once at a full commit or
    said why not; the counts say what the judged lines say; and no project of it is one of the
    removal corpus or of the fourteenth audit (it was drawn excluding them)."""
    projects = _audit_adds_up(FIFTEENTH)
    skipped = [p["repo"] for p in FIFTEENTH["not_scanned"]]
    assert len(projects) == FIFTEENTH["counts"]["scanned"]
    assert len(projects) + len(skipped) == FIFTEENTH["counts"]["drawn"] == 80
    assert set(projects) | set(skipped) <= set(FIFTEENTH["drawing"]["candidates_taken"])
    others = {p["project"].lower() for p in DATA["projects"]}
    others |= {p["repo"].lower() for p in AUDIT["projects"]}
    assert others.isdisjoint(p.lower() for p in projects + skipped)


def _drawn_audit_adds_up(
    audit: dict[str, Any], drawn: int | None, *earlier: dict[str, Any]
) -> None:
    """What an audit drawn from the index must say of itself beyond ``_audit_adds_up``: each
    candidate taken (``drawn`` of them, where the plan fixed the number) scanned once or said
    why not; no project of it one of the removal corpus or of an ``earlier`` audit, scanned or
    not; its key's categories adding up to the key."""
    projects = _audit_adds_up(audit)
    skipped = [p["repo"] for p in audit["not_scanned"]]
    assert len(projects) == audit["counts"]["scanned"]
    assert len(projects) + len(skipped) == audit["counts"]["drawn"]
    assert drawn is None or audit["counts"]["drawn"] == drawn
    assert set(projects) | set(skipped) == set(audit["drawing"]["candidates_taken"])
    others = {p["project"].lower() for p in DATA["projects"]}
    for before in earlier:
        others |= {p["repo"].lower() for p in before["projects"]}
        others |= {p["repo"].lower() for p in before.get("not_scanned", ())}
    assert others.isdisjoint(p.lower() for p in projects + skipped)
    categories = audit["key"]["by_category"]
    assert sum(c["of"] for c in categories.values()) == audit["key"]["of"]
    assert sum(c["found"] for c in categories.values()) == audit["key"]["found_before"]


SIXTEENTH: dict[str, Any] = yaml.safe_load(
    (REPO / "tests" / "assets" / "scan_audit_sixteenth.yaml").read_text(encoding="utf-8")
)


def test_the_sixteenth_audit_adds_up_and_shares_no_project_with_the_others() -> None:
    """The sixteenth audit (docs/scan.md): every candidate that survived the exclusions drawn,
    each scanned once at a full commit or said why not; the counts say what the judged lines
    say; and no project of it is one of the removal corpus or of the earlier audits."""
    _drawn_audit_adds_up(SIXTEENTH, None, AUDIT, FIFTEENTH)


SEVENTEENTH: dict[str, Any] = yaml.safe_load(
    (REPO / "tests" / "assets" / "scan_audit_seventeenth.yaml").read_text(encoding="utf-8")
)


def test_the_seventeenth_audit_adds_up_and_shares_no_project_with_the_others() -> None:
    """The seventeenth audit (docs/scan.md): 60 drawn from the candidates that survived the
    exclusions, each scanned once at a full commit or said why not; the counts say what the
    judged lines say; and no project of it is one of the removal corpus or of an earlier audit."""
    _drawn_audit_adds_up(SEVENTEENTH, 60, AUDIT, FIFTEENTH, SIXTEENTH)


EIGHTEENTH: dict[str, Any] = yaml.safe_load(
    (REPO / "tests" / "assets" / "scan_audit_eighteenth.yaml").read_text(encoding="utf-8")
)


def test_the_eighteenth_audit_adds_up_and_shares_no_project_with_the_others() -> None:
    """The eighteenth audit (docs/scan.md): every candidate that survived the exclusions drawn
    (22, fewer than the plan's 60), each scanned once at a full commit or said why not; the
    counts say what the judged lines say; and no project of it is one of the removal corpus or
    of an earlier audit."""
    _drawn_audit_adds_up(EIGHTEENTH, 22, AUDIT, FIFTEENTH, SIXTEENTH, SEVENTEENTH)


NINETEENTH: dict[str, Any] = yaml.safe_load(
    (REPO / "tests" / "assets" / "scan_audit_nineteenth.yaml").read_text(encoding="utf-8")
)


def test_the_nineteenth_audit_adds_up_and_shares_no_project_with_the_others() -> None:
    """The nineteenth audit (docs/scan.md): projects using ipex-llm or IPEX, every candidate
    that survived the exclusions drawn (28, fewer than the plan's 40), each scanned once at a
    full commit or said why not; the counts say what the judged lines say; and no project of it
    is one of the removal corpus or of an earlier audit."""
    _drawn_audit_adds_up(NINETEENTH, 28, AUDIT, FIFTEENTH, SIXTEENTH, SEVENTEENTH, EIGHTEENTH)
