"""How much of the IPEX use real maintainers removed ``scan`` finds, and what else it reports.

    python benchmarks/scan_removals.py --repos DIR [--part development|held-out|all]
        [--project OWNER/NAME]... [--docs] [--python PATH] [--json PATH] [--show N]
        [--sample N --seed S] [--check-fix]

Reads ``tests/assets/scan_removals.yaml`` (its header says how the projects were chosen, split
and keyed). For each case it checks the ``before`` tree out of a local clone into a temporary
directory, runs ``ipex-doctor scan --json -`` there (this checkout's doctor, ``--no-cache``,
the gate off, the project's own policy file if it has one, as its maintainer would run it) and
compares the findings with the answer key:

* recall: the key lines found, by kind and by place (code, tests, docs), per case, per project
  and per part. A key line is found when a finding is on it (or spans it); a notebook line when
  a finding in that notebook has its text. ``doc`` lines count only with ``--docs`` (scan
  reads documents only then);
* the findings outside the key, each marked by where it is: on a line the removal also deleted
  (one the key leaves out: a message, a project's own flag...) or on a line the maintainers
  kept (IPEX that stayed, or a false alarm): candidates to read, not verdicts;
* with ``--check-fix``, what ``scan --fix`` does at each finding of a rule that has a fix
  (rewritten by its own fix, refused with a reason, its line rewritten by another finding's
  fix, or left without a reason; a record counts for the finding of its fix id), beside what
  the finding's label says: "mechanical" must be its own rewrite, "scan --fix changes this
  line for ..." another finding's rewrite of its line, and no label neither.

Clones are looked up in DIR as ``OWNER+NAME`` (a clone, a bare repository, or a directory
holding one as ``repo``) or ``OWNER/NAME``. Nothing is downloaded: a missing clone or commit is
named with the command that would fetch it, and the case is left out of the figures (said, not
skipped silently). The held-out part is measured only when asked for by name.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "assets" / "scan_removals.yaml"
KINDS = (
    "import", "call", "reference", "probe", "guard", "string", "requirement", "shell", "ci",
    "config", "notebook", "doc",
)  # fmt: skip
ISSUE_KINDS = tuple(kind for kind in KINDS if kind != "guard")
"""The kinds the issue names; ``guard`` (a project's own switch to its IPEX path) is apart."""
TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*\.py$|_test\.py$|conftest\.py$")
# NOTE: a partial clone would fetch a missing object from its promisor remote; the figures must
# come from what is on this machine, so git is told never to.
GIT_ENV = {**os.environ, "GIT_NO_LAZY_FETCH": "1", "GIT_TERMINAL_PROMPT": "0"}


@dataclass(frozen=True)
class KeyLine:
    """One answer-key line: where it is in the ``before`` tree, its kind, its stripped text."""

    path: str
    line: int
    kind: str
    text: str

    @property
    def place(self) -> str:
        if self.kind == "doc":
            return "docs"
        return "tests" if TEST_PATH.search(self.path) else "code"


@dataclass(frozen=True)
class Case:
    project: str
    part: str
    before: str
    after: str
    title: str
    key: tuple[KeyLine, ...]


@dataclass
class Outcome:
    """What one case's scan found: the key lines found and missed, and its findings."""

    @property
    def outside(self) -> list[dict[str, Any]]:
        """The findings on no key line."""
        return [f for f in self.findings if f["where"] != "key"]

    case: Case
    found: list[KeyLine] = field(default_factory=list)
    missed: list[KeyLine] = field(default_factory=list)
    uncounted: list[KeyLine] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)
    """Every finding with a location: its rule, status, title, remediation, place, snippet, and
    ``where`` it lies: on a key line (``key``), on a line the removal deleted that the key
    leaves out, or on a line the maintainers kept."""
    problems: list[str] = field(default_factory=list)
    fix_check: dict[str, list[str]] = field(default_factory=dict)
    """With ``--check-fix``: each finding of a rule that has a fix, by what ``--fix`` does at
    its line and whether it was labelled mechanical (``labelled, rewritten``...), as
    ``path:line rule``."""
    wall_s: float = 0.0
    files_seen: int = 0
    files_parsed: int = 0


def parse_key_line(raw: str) -> KeyLine:
    """``path:line:kind: text`` -> KeyLine (the text after the kind's ``: ``)."""
    path, line, kind, text = raw.split(":", 3)
    if kind not in KINDS or not text.startswith(" "):
        raise ValueError(f"not a key line (path:line:kind: text): {raw!r}")
    return KeyLine(path, int(line), kind, text[1:])


def load_cases(corpus: Path) -> list[Case]:
    data = yaml.safe_load(corpus.read_text(encoding="utf-8"))
    return [
        Case(
            project["project"], project["part"], case["before"], case["after"], case["title"],
            tuple(parse_key_line(raw) for raw in case["key"]),
        )
        for project in data["projects"]
        for case in project["cases"]
    ]  # fmt: skip


def git(git_dir: Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    kwargs.setdefault("env", GIT_ENV)
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, **kwargs)


def find_clone(repos: Path, project: str) -> Path | None:
    """The git directory of ``project``'s clone under ``repos``, or None."""
    owner, name = project.split("/")
    for base in (repos / f"{owner}+{name}", repos / owner / name):
        for candidate in (base / "repo", base / ".git", base):
            if candidate.is_dir() and git(candidate, "rev-parse", "--git-dir").returncode == 0:
                return candidate
    return None


def export_tree(git_dir: Path, commit: str, dest: Path) -> list[str]:
    """Write ``commit``'s tree under ``dest`` as a maintainer's checkout has it: its files, and
    ``dest/.git/index`` holding that commit (the scan reads a tracked file whatever a
    ``.gitignore`` says, from the index of a ``.git`` directory, which is all it looks at);
    return the paths whose content the clone lacks.

    NOTE: by hand rather than ``git archive``: a snapshot may lack its largest blobs, and archive
    stops at the first missing one, where the scan only needs the rest (what is absent is
    reported).
    """
    listing = git(git_dir, "ls-tree", "-r", "-z", "--full-tree", commit, check=True).stdout
    entries = []
    for item in listing.split(b"\0"):
        if not item:
            continue
        meta, path = item.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode.decode(), sha.decode(), path.decode("utf-8", "surrogateescape")))
    request = "".join(f"{sha}\n" for _, sha, _ in entries).encode()
    out = git(git_dir, "cat-file", "--batch", input=request, check=True).stdout
    missing: list[str] = []
    offset = 0
    for mode, _sha, path in entries:
        end = out.index(b"\n", offset)
        header = out[offset:end].split()
        offset = end + 1
        if header[-1] == b"missing":
            missing.append(path)
            continue
        size = int(header[2])
        content = out[offset : offset + size]
        offset += size + 1
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            target.symlink_to(os.fsdecode(content))
        else:
            target.write_bytes(content)
            if mode == "100755":
                target.chmod(0o755)
    (dest / ".git").mkdir()
    # NOTE: read-tree needs the trees only, never a blob; GIT_INDEX_FILE, not --index-output,
    # since the latter locks the clone's own index and a snapshot may be read-only
    index_env = {**GIT_ENV, "GIT_INDEX_FILE": str(dest / ".git" / "index")}
    git(git_dir, "read-tree", commit, check=True, env=index_env)
    return missing


def removed_lines(git_dir: Path, case: Case) -> set[tuple[str, int]]:
    """Every (path, line) of the ``before`` tree that ``git diff before after`` deletes."""
    diff = git(git_dir, "diff", "-U0", "--no-color", "--no-renames", case.before, case.after)
    removed: set[tuple[str, int]] = set()
    path = None
    old = 0
    for line in diff.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("--- "):
            path = line[6:] if line.startswith("--- a/") else None
        elif line.startswith("+++ "):
            continue
        elif hunk := re.match(r"@@ -(\d+)", line):
            old = int(hunk.group(1))
        elif line.startswith("-") and path is not None:
            removed.add((path, old))
            old += 1
    return removed


def notebook_source(text: str) -> str:
    """The source line a notebook key line (a JSON string of the file) holds."""
    literal = text.rstrip().rstrip(",")
    try:
        value = json.loads(literal)
    except json.JSONDecodeError:
        return literal
    return value.strip() if isinstance(value, str) else literal


def run_scan(tree: Path, docs: bool, python: str | None) -> tuple[dict[str, Any], float]:
    """``ipex-doctor scan --json -`` of ``tree``, from this checkout; the report and its wall
    time."""
    command = [sys.executable, "-m", "ipex_doctor", "scan", ".", "--json", "-", "-q"]
    command += ["--no-cache", "--fail-on", "never"]
    if docs:
        command.append("--docs")
    if python:
        command += ["--python", python]
    with tempfile.TemporaryDirectory(prefix="scan-removals-cache-") as cache:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": cache}
        started = time.perf_counter()
        done = subprocess.run(command, cwd=tree, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"scan exited {done.returncode}: {tail[0]}")
    return json.loads(done.stdout), wall


def judge(case: Case, report: dict[str, Any], removed: set[tuple[str, int]], docs: bool) -> Outcome:
    outcome = Outcome(case)
    findings = [f for f in report["findings"] if f.get("location")]
    spans: dict[str, list[tuple[int, int]]] = collections.defaultdict(list)
    snippets: dict[str, set[str]] = collections.defaultdict(set)
    for finding in findings:
        where = finding["location"]
        last = max(where["line"], where.get("end_line") or 0)
        spans[where["path"]].append((where["line"], last))
        snippets[where["path"]].add((finding.get("snippet") or "").strip())
    for key in case.key:
        if key.kind == "doc" and not docs:
            outcome.uncounted.append(key)
            continue
        if key.kind == "notebook":
            hit = notebook_source(key.text) in snippets[key.path]
        else:
            hit = any(first <= key.line <= last for first, last in spans[key.path])
        (outcome.found if hit else outcome.missed).append(key)
    key_lines = {(k.path, k.line) for k in case.key}
    for finding in findings:
        where = finding["location"]
        snippet = (finding.get("snippet") or "").strip()
        if where.get("cell") is None:
            last = max(where["line"], where.get("end_line") or 0)
            keyed = any((where["path"], n) in key_lines for n in range(where["line"], last + 1))
        else:
            keyed = any(
                k.path == where["path"] and notebook_source(k.text) == snippet for k in case.key
            )
        if keyed:
            lies = "key"
        elif where.get("cell") is None and (where["path"], where["line"]) in removed:
            lies = "removed, not keyed"
        else:
            lies = "kept by the maintainers"
        outcome.findings.append({
            "id": finding["id"], "status": finding["status"], "title": finding.get("title", ""),
            "remediation": finding.get("remediation", ""), "path": where["path"],
            "line": where["line"], "cell": where.get("cell"), "snippet": snippet, "where": lies,
        })  # fmt: skip
    scan = report.get("scan") or {}
    outcome.files_seen = scan.get("files_seen", 0)
    outcome.files_parsed = scan.get("files_parsed", 0)
    return outcome


def add_context(findings: list[dict[str, Any]], tree: Path, around: int = 2) -> None:
    """Give each finding outside a notebook the lines around it, to be read."""
    files: dict[str, list[str]] = {}
    for finding in findings:
        if finding["cell"] is not None:
            continue
        if finding["path"] not in files:
            path = tree / finding["path"]
            text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
            files[finding["path"]] = text.splitlines()
        lines = files[finding["path"]]
        first = max(finding["line"] - around, 1)
        last = min(finding["line"] + around, len(lines))
        finding["context"] = [f"{n}: {lines[n - 1]}" for n in range(first, last + 1)]


def check_key(case: Case, tree: Path) -> list[str]:
    """Key lines whose text is not on that line of the checked-out tree (the corpus drifted)."""
    wrong = []
    for key in case.key:
        try:
            lines = (tree / key.path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as error:
            wrong.append(f"{key.path}:{key.line}: cannot read it ({error.strerror})")
            continue
        if key.line > len(lines) or lines[key.line - 1].strip() != key.text:
            wrong.append(f"{key.path}:{key.line}: the key's text is not on that line")
    return wrong


MECHANICAL = "(mechanical: ipex-doctor scan --fix)"
OTHER_FIX = "ipex-doctor scan --fix changes this line for"
AGREEING = frozenset({
    "labelled, rewritten",
    "unlabelled, refused",
    "labelled for another finding, rewritten for another finding",
    "labelled for another finding, refused, its line rewritten for another finding",
})  # fmt: skip
"""The ``--check-fix`` outcomes where the label says what ``--fix`` does (the rest are listed)."""


def check_fix(outcome: Outcome, tree: Path) -> None:
    """Hold each finding of a rule with a fix to what ``scan --fix`` does at its line (the
    rewrites and refusals of ``fix_file``, written nowhere): a label "mechanical" must be a
    rewrite, and a finding left alone must have a reason (a refusal)."""
    sys.path.insert(0, str(ROOT))
    from ipex_doctor.knowledge import code_rules
    from ipex_doctor.scan.fix.files import fix_file, kind_of
    from ipex_doctor.scan.fix.rewrite import FixError
    from ipex_doctor.scan.read.kinds import rewritten_by_fix

    fixes = {rule.id: rule.fix for rule in code_rules.load().rules if rule.fix}
    by_file: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for finding in outcome.findings:
        if finding["id"] in fixes:
            by_file[finding["path"]].append(finding)
    for path, findings in sorted(by_file.items()):
        file = tree / path
        # NOTE: each record is kept with its fix id: a line another finding's fix rewrites
        # is not this finding's rewrite (two findings on one line, an import another fix
        # removes with the uses it rewrote)
        rewrites: dict[tuple[int, int], set[str]] = collections.defaultdict(set)
        refusals: dict[tuple[int, int], set[str]] = collections.defaultdict(set)
        why = ""
        if not rewritten_by_fix(path) or kind_of(file) is None:
            why = "a kind of file --fix does not rewrite"
        else:
            try:
                done = fix_file(file, sorted({fixes[f["id"]] for f in findings}), write=False)
            except FixError as error:
                why = str(error)
            else:
                for rewrite in done.outcome.rewrites:
                    # NOTE: a fix record numbers cells among all cells, as findings do
                    rewrites[(rewrite.cell or 0, rewrite.line)].add(rewrite.fix_id)
                for refusal in done.outcome.refusals:
                    refusals[(refusal.cell or 0, refusal.line)].add(refusal.fix_id)
                    if not refusal.fix_id:  # the whole file
                        why = refusal.reason
        for finding in findings:
            at = (finding["cell"] or 0, finding["line"])
            own = fixes[finding["id"]]
            outcome.fix_check.setdefault(fix_label(finding["remediation"]) + ", " + (
                "rewritten" if own in rewrites[at]
                else "refused, its line rewritten for another finding"
                if (own in refusals[at] or why) and rewrites[at]
                else "refused" if own in refusals[at] or why
                else "rewritten for another finding" if rewrites[at]
                else "left without a reason"
            ), []).append(f"{path}:{finding['line']} {finding['id']}")  # fmt: skip


def fix_label(remediation: str) -> str:
    """What a finding's remediation says ``--fix`` does at its line: ``labelled`` (its own
    rewrite), ``labelled for another finding`` (its line changes for another finding's
    rewrite), ``unlabelled`` (nothing)."""
    if MECHANICAL in remediation:
        return "labelled"
    return "labelled for another finding" if OTHER_FIX in remediation else "unlabelled"


def measure(
    case: Case, repos: Path, docs: bool, python: str | None, fixes: bool = False
) -> Outcome:
    git_dir = find_clone(repos, case.project)
    if git_dir is None:
        outcome = Outcome(case)
        outcome.problems.append(
            f"no clone of {case.project} under {repos}: "
            f"git clone https://github.com/{case.project} {repos / case.project.replace('/', '+')}"
        )
        return outcome
    for commit in (case.before, case.after):
        if git(git_dir, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
            outcome = Outcome(case)
            outcome.problems.append(
                f"{git_dir} lacks commit {commit}: git --git-dir {git_dir} fetch origin {commit}"
            )
            return outcome
    with tempfile.TemporaryDirectory(prefix="scan-removals-") as temp:
        tree = Path(temp)
        missing = export_tree(git_dir, case.before, tree)
        drift = check_key(case, tree)
        report, wall = run_scan(tree, docs, python)
        outcome = judge(case, report, removed_lines(git_dir, case), docs)
        add_context(outcome.findings, tree)
        if fixes:
            check_fix(outcome, tree)
    outcome.wall_s = wall
    outcome.problems += drift
    if missing:
        outcome.problems.append(
            f"{len(missing)} file(s) absent from the clone, not scanned (e.g. {missing[0]})"
        )
    return outcome


def ratio(found: int, total: int) -> str:
    return f"{found}/{total} ({100 * found / total:.0f} %)" if total else "-"


def tally(outcomes: list[Outcome], attribute: str) -> dict[str, tuple[int, int]]:
    """(found, total) by kind or place over ``outcomes``."""
    counts: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for outcome in outcomes:
        for key in outcome.found:
            counts[getattr(key, attribute)][0] += 1
            counts[getattr(key, attribute)][1] += 1
        for key in outcome.missed:
            counts[getattr(key, attribute)][1] += 1
    return {name: (found, total) for name, (found, total) in counts.items()}


def print_part(name: str, outcomes: list[Outcome], show: int) -> None:
    print(f"\n== {name}: {len({o.case.project for o in outcomes})} projects, {len(outcomes)} cases")
    for outcome in outcomes:
        case = outcome.case
        found, total = len(outcome.found), len(outcome.found) + len(outcome.missed)
        print(
            f"  {case.project} {case.after[:10]} ({case.title[:50]}): found {ratio(found, total)},"
            f" {len(outcome.outside)} outside the key; {outcome.files_seen} files seen,"
            f" {outcome.files_parsed} parsed, {outcome.wall_s:.2f} s"
        )
        for problem in outcome.problems:
            print(f"    ! {problem}")
    by_kind = tally(outcomes, "kind")
    issue = [by_kind.get(k, (0, 0)) for k in ISSUE_KINDS]
    print(
        f"  recall, the issue's kinds: {ratio(sum(f for f, _ in issue), sum(t for _, t in issue))}"
    )
    for kind in KINDS:
        if kind in by_kind:
            print(f"    {kind:12s} {ratio(*by_kind[kind])}")
    for place, counts in sorted(tally(outcomes, "place").items()):
        print(f"    place {place:6s} {ratio(*counts)}")
    uncounted = sum(len(o.uncounted) for o in outcomes)
    if uncounted:
        print(f"    ({uncounted} doc lines not counted: give --docs)")
    checked: dict[str, list[str]] = collections.defaultdict(list)
    for outcome in outcomes:
        for key, places in outcome.fix_check.items():
            checked[key] += [f"{outcome.case.project} {place}" for place in places]
    if checked:
        print("  --fix at the findings of rules with a fix (--check-fix):")
        for key, places in sorted(checked.items()):
            print(f"    {len(places):5d}  {key}")
            if key not in AGREEING:
                for place in places[:show]:
                    print(f"             {place}")
    outside = [(o.case.project, f) for o in outcomes for f in o.outside]
    where = collections.Counter(f["where"] for _, f in outside)
    print(f"  findings outside the key: {len(outside)} ({dict(where)})")
    by_rule = collections.Counter((f["id"], f["where"]) for _, f in outside)
    for (rule, place), count in by_rule.most_common():
        print(f"    {count:4d}  {rule}  [{place}]")
    if show:
        print("  missed (first of each kind):")
        for kind in KINDS:
            misses = [(o.case.project, k) for o in outcomes for k in o.missed if k.kind == kind]
            for project, key in misses[:show]:
                print(f"    {kind:12s} {project} {key.path}:{key.line}: {key.text[:110]}")
        print("  outside the key (first of each rule):")
        seen: collections.Counter[str] = collections.Counter()
        for project, finding in outside:
            if seen[finding["id"]] < show:
                seen[finding["id"]] += 1
                at = f"{finding['path']}:{finding['line']}"
                print(
                    f"    {finding['id']} {project} {at} [{finding['where']}]: {finding['snippet'][:100]}"
                )


def print_sample(outcomes: list[Outcome], count: int, seed: int) -> None:
    """``count`` findings drawn at random (``seed``) from ``outcomes``, to be read and judged."""
    every = sorted(
        ((o.case.project, f) for o in outcomes for f in o.findings),
        key=lambda pf: (pf[0], pf[1]["path"], pf[1]["line"], pf[1]["id"]),
    )
    drawn = random.Random(seed).sample(every, min(count, len(every)))
    print(f"\n== {len(drawn)} of {len(every)} findings drawn with seed {seed}, to read")
    for number, (project, finding) in enumerate(drawn, 1):
        mechanical = re.search(r"\(mechanical: [^)]*\)", finding["remediation"])
        print(
            f"[{number}] {project} {finding['path']}:{finding['line']} {finding['id']}"
            f" ({finding['status']}; {finding['where']}){' ' + mechanical[0] if mechanical else ''}"
        )
        print(f"    {finding['title']}")
        for line in finding.get("context") or [finding["snippet"]]:
            print(f"      | {line[:140]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=Path, required=True, help="directory of the clones")
    parser.add_argument("--part", choices=("development", "held-out", "all"), default="development")
    parser.add_argument("--project", action="append", default=[], help="only these (repeatable)")
    parser.add_argument("--docs", action="store_true", help="scan documents too; count doc lines")
    parser.add_argument("--python", default=None, help="the interpreter to judge against")
    parser.add_argument("--json", type=Path, default=None, help="write every outcome here")
    parser.add_argument("--show", type=int, default=3, help="examples per kind and rule")
    parser.add_argument("--sample", type=int, default=0, help="print N findings drawn at random")
    parser.add_argument("--seed", type=int, default=1, help="the seed of --sample's draw")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--check-fix",
        action="store_true",
        help="hold the mechanical labels to what --fix does at each finding (slow: LibCST)",
    )
    args = parser.parse_args()
    cases = [
        case for case in load_cases(args.corpus)
        if (args.part == "all" or case.part == args.part)
        and (not args.project or case.project in args.project)
    ]  # fmt: skip
    if not cases:
        print("no case matches --part and --project", file=sys.stderr)
        return 2
    outcomes = []
    for case in cases:
        print(f"scanning {case.project} at {case.before[:10]} ...", file=sys.stderr, flush=True)
        outcomes.append(measure(case, args.repos, args.docs, args.python, args.check_fix))
    for part in ("development", "held-out"):
        chosen = [o for o in outcomes if o.case.part == part]
        if chosen:
            print_part(part, chosen, args.show)
    if args.sample:
        print_sample(outcomes, args.sample, args.seed)
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {
                        "project": o.case.project,
                        "part": o.case.part,
                        "after": o.case.after,
                        "found": [vars(k) for k in o.found],
                        "missed": [vars(k) for k in o.missed],
                        "findings": o.findings,
                        "problems": o.problems,
                        "wall_s": o.wall_s,
                        "files_seen": o.files_seen,
                        "files_parsed": o.files_parsed,
                        "fix_check": o.fix_check,
                    }
                    for o in outcomes
                ],
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
