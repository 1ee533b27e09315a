"""Hostile input: knowledge-base, policy and report files are data, never code; output never
leaks secrets. Property-based where the input space is open."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import REPO, doctor_env, examples, make_fake_env, run_doctor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unprivileged import Someone

from ipex_doctor.errors import KnowledgeBaseError
from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.findings import (
    Evidence,
    Finding,
    FindingKind,
    Reference,
    Report,
    Severity,
    Status,
    Verdict,
)
from ipex_doctor.reporting.saved_reports import load_report

ENTRY = """\
schema_version: 1
issues:
  - id: site-entry
    title: t
    kind: environment
    severity: warning
    summary: s
    remediation: r
    affected:
      - package: torch
    references:
      - url: https://example.org/x
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "kb.yaml"
    path.write_text(text)
    return path


def test_python_tags_are_not_code(tmp_path: Path) -> None:
    """A YAML python/object tag is refused by the safe loader, not executed."""
    marker = tmp_path / "pwned"
    text = f"!!python/object/apply:os.system ['touch {marker}']\n"
    with pytest.raises(KnowledgeBaseError):
        known_issues.read_document(_write(tmp_path, text))
    assert not marker.exists()


def test_billion_laughs_is_refused_quickly(tmp_path: Path) -> None:
    """An alias bomb is refused before anything expands it."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lines.append(
            f"{cur}: &{cur} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]"
        )
    started = time.process_time()  # CPU time: a loaded machine slows the clock, not the work
    with pytest.raises(KnowledgeBaseError, match="aliases are not allowed"):
        known_issues.read_document(_write(tmp_path, "\n".join(lines) + "\n"))
    assert time.process_time() - started < 2


def test_catastrophic_regex_is_refused(tmp_path: Path) -> None:
    """A symptom shaped like (a+)+ is refused at load, with its line."""
    text = ENTRY.replace(
        "    references:", '    symptoms:\n      - "(\\\\w+\\\\s?)+$"\n    references:'
    )
    with pytest.raises(KnowledgeBaseError, match="quantified group") as caught:
        known_issues.read_document(_write(tmp_path, text))
    assert "kb.yaml:12" in str(caught.value)


def test_unknown_keys_are_warned_not_fatal(tmp_path: Path) -> None:
    """An unknown key is a warning with file and line; the entry still loads."""
    warnings: list[str] = []
    text = ENTRY.replace("    title: t\n", "    title: t\n    colour: blue\n")
    issues = known_issues.read_document(_write(tmp_path, text), warnings)
    assert issues[0].id == "site-entry"
    assert warnings and "kb.yaml:5" in warnings[0] and "unknown key 'colour'" in warnings[0]
    done = run_doctor("kb", "validate", str(tmp_path / "kb.yaml"))
    assert done.returncode == 0 and "unknown key 'colour'" in done.stderr


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.text(max_size=2000))
def test_kb_loader_on_arbitrary_text(text: str) -> None:
    """Any text: either entries or a KnowledgeBaseError, never another exception, quickly."""
    started = time.process_time()  # CPU time: a loaded machine slows the clock, not the work
    try:
        known_issues.parse_document("fuzz.yaml", text)
    except KnowledgeBaseError:
        pass
    assert time.process_time() - started < 2


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(
        st.builds(
            lambda i, s, sev, v, t, data: Finding(
                id=f"f-{i}",
                kind=FindingKind.KNOWN_ISSUE,
                status=s,
                severity=sev,
                title=t or "x",
                evidence=Evidence(t, data),
                remediation=t,
                references=(Reference("https://example.org", t),),
                verdict=v,
            ),
            st.integers(0, 99),
            st.sampled_from(Status),
            st.sampled_from(Severity),
            st.one_of(st.none(), st.sampled_from(Verdict)),
            st.text(max_size=50),
            st.dictionaries(
                st.text(max_size=10),
                st.one_of(st.integers(), st.text(max_size=20), st.none()),
                max_size=4,
            ),
        ),  # fmt: skip
        max_size=8,
    )
)
def test_report_json_round_trip(findings: list[Finding]) -> None:
    """Report -> JSON text -> Report is the identity, for arbitrary findings."""
    env = load_report(
        REPO / "tests" / "assets" / "reports" / "xpu-ipex2120-arc-a770.json"
    ).environment
    report = Report("0.1.0", "2026-11-21T00:00:00Z", "check", env, tuple(findings))
    assert Report.from_dict(json.loads(json.dumps(report.to_dict()))) == report


SECRETS = {
    "HF_TOKEN": "hf_PlantedSecretValue0123456789abcdef",
    "CCL_AUTH_TOKEN": "planted-ccl-auth-value",
    "MY_DB_PASSWORD": "planted-db-password-42",
    "IPEX_MIRROR": "https://planted-user:planted-pass@mirror.example.org/simple",
}
PLANTED = ("PlantedSecretValue", "planted-ccl-auth", "planted-db-password", "planted-pass")


def test_no_secret_in_any_output_format(tmp_path: Path) -> None:
    """A torch whose import fails printing the environment: console, JSON, JUnit and Markdown
    all carry the failure, and none carries a planted secret (values, URL credentials, tokens)."""
    leaky = (
        "import os, sys\n"
        "print('env dump:', dict(os.environ))\n"
        "print('fetching https://planted-user:planted-pass@mirror.example.org/simple', file=sys.stderr)\n"
        "raise ImportError('failed with token ' + os.environ['HF_TOKEN'] + ' and ghp_' + 'Q' * 36)\n"
    )
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", leaky)})
    outputs = {name: tmp_path / f"r.{name}" for name in ("json", "xml", "md")}
    done = run_doctor(
        "check", "--python", python, "-v", "--json", str(outputs["json"]),
        "--junit-xml", str(outputs["xml"]), "--markdown", str(outputs["md"]), extra_env=SECRETS,
    )  # fmt: skip
    assert done.returncode == 1
    texts = [done.stdout, done.stderr] + [path.read_text() for path in outputs.values()]
    assert "ImportError" in texts[2] and "<redacted>" in texts[2]
    for text in texts:
        for secret in (*PLANTED, "Q" * 36):
            assert secret not in text


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("policy.yaml", "fail_on: warn\nignore: 5\n", "is not of type 'array'"),
        ("policy.yaml", "ignore:\n  - id: [1, 2]\n    reason: {a: b}\n", "is not of type 'string'"),
        ("policy.yaml", "!!python/name:os.system\n", "malformed YAML"),
    ],
)
def test_hostile_policy_files(tmp_path: Path, name: str, text: str, said: str) -> None:
    """Wrong types and code tags in a policy file: exit 2, one line with the file, no traceback."""
    path = tmp_path / name
    path.write_text(text)
    fixture = REPO / "tests" / "assets" / "reports" / "xpu-ipex2120-arc-a770.json"
    done = run_doctor("report", str(fixture), "--policy", str(path), "-q")
    assert done.returncode == 2 and said in done.stderr and str(path) in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


ARC = REPO / "tests" / "assets" / "reports" / "xpu-ipex2120-arc-a770.json"
"""A saved report that fails the default gate (exit 1) and passes under ``fail_on: never``."""


def test_a_policy_file_found_here_is_never_followed_out_of_this_directory(tmp_path: Path) -> None:
    """A checkout's ``.ipex-doctor.yaml`` linking to a file elsewhere (a pull request's link to
    the CI user's ``~/.git-credentials``) is not read: one line, exit 2, saying where it leads
    and how to read it on purpose, and nothing of that file in the log. Before, the token was
    quoted by the schema error. A link that stays in the directory is read as before."""
    secret = tmp_path / "home" / ".git-credentials"
    secret.parent.mkdir()
    secret.write_text("https://ci:ghp_PlantedToken0123456789@github.com\n")
    project = tmp_path / "project"
    project.mkdir()
    found = project / ".ipex-doctor.yaml"
    for link in (secret, Path("../home/.git-credentials")):
        found.unlink(missing_ok=True)
        found.symlink_to(link)
        done = run_doctor("report", str(ARC), "-q", cwd=project)
        assert done.returncode == 2, done.stderr
        assert "PlantedToken" not in done.stdout + done.stderr
        assert done.stderr.splitlines() == [
            f"ipex-doctor: error: {found} links to {secret}, outside {project}: a policy file "
            "found here is read only inside it (name it with --policy to read it)"
        ]
    found.unlink()
    (project / "ci").mkdir()
    (project / "ci" / "policy.yaml").write_text("fail_on: never\n")
    found.symlink_to("ci/policy.yaml")
    assert run_doctor("report", str(ARC), "-q", cwd=project).returncode == 0


_SWAPPER = """
import os, sys, time
found, inside, outside = sys.argv[1:4]
spare = found + ".swap"
end = time.monotonic() + float(sys.argv[4])
print("swapping", flush=True)
while time.monotonic() < end:
    for target in (inside, outside):
        try:
            os.unlink(spare)
        except FileNotFoundError:
            pass
        os.symlink(target, spare)
        os.replace(spare, found)
"""
"""Swaps ``found`` between a link within its directory and one leading out of it, each swap
one atomic rename, for the given seconds; says when it starts."""

_READER = """
import sys, collections
from pathlib import Path
from ipex_doctor.reporting.policy import PolicyError, build_policy
seen = collections.Counter()
for _ in range(int(sys.argv[2])):
    try:
        seen[str(build_policy(fail_on=None, ignore_args=(), policy_file=None,
                              cwd=Path(sys.argv[1])).fail_on)] += 1
    except PolicyError as exc:
        seen["refused: " + str(exc).split(": ", 1)[-1][:40]] += 1
print(dict(seen))
"""
"""Builds the policy of the directory ``argv[1]`` ``argv[2]`` times; prints what it got."""


def _while_swapped(
    link: Path, inside: str, outside: Path, script: str, *args: str
) -> dict[str, int]:
    """Run ``script`` (with ``args``) while ``_SWAPPER`` swaps ``link`` between ``inside``
    and ``outside``, as another user where the tests run as root; the counts it printed."""
    as_other = (
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        if os.geteuid() == 0 and shutil.which("setpriv")
        else []
    )
    swapper = subprocess.Popen(
        [*as_other, sys.executable if not as_other else "/usr/bin/python3", "-c", _SWAPPER,
         str(link), inside, str(outside), "20"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert swapper.stdout is not None and swapper.stdout.readline() == "swapping\n"
        done = subprocess.run(
            [sys.executable, "-c", script, *args],
            capture_output=True, text=True, timeout=300, env=doctor_env(),
        )  # fmt: skip
    finally:
        swapper.kill()
        swapper.communicate(timeout=60)
    assert done.returncode == 0, done.stderr
    seen: dict[str, int] = eval(done.stdout)  # noqa: S307  # NOTE: the script's own counts
    return seen


def test_a_policy_file_found_here_cannot_be_swapped_between_judging_and_reading(
    tmp_path: Path,
) -> None:
    """Someone else who may write the working directory swaps its ``.ipex-doctor.yaml``
    between a link within it (``fail_on: warn``) and a link out of it (``fail_on: never``, a
    file the doctor must not read) as fast as they can, as another user where the tests run
    as root. However the swaps fall, the policy read is the one within the directory or a
    one-line refusal, never the outside file's. Before, the name was judged and then opened
    again by name: the outside file was read (its ``never`` became the gate) in a window
    between the two."""
    shared = Path(tempfile.mkdtemp(prefix="ipex-doctor-swap-"))
    try:
        shared.chmod(0o777)  # NOTE: no sticky bit: the other user may rename over our names
        project = shared / "project"
        project.mkdir()
        project.chmod(0o777)
        (project / "inside.yaml").write_text("fail_on: warn\n")
        outside = shared / "elsewhere.yaml"
        outside.write_text("fail_on: never\n")
        found = project / ".ipex-doctor.yaml"
        found.symlink_to("inside.yaml")
        seen = _while_swapped(found, "inside.yaml", outside, _READER, str(project), "3000")
        assert "never" not in seen, seen
        assert seen.get("warn", 0) > 0, seen
        assert all(key == "warn" or key.startswith("refused: ") for key in seen), seen
    finally:
        shutil.rmtree(shared, ignore_errors=True)


_WRITER = """
import os, sys, collections
from ipex_doctor.errors import OutputError
from ipex_doctor.reporting.output import write_text
os.chdir(sys.argv[1])
seen = collections.Counter()
for n in range(int(sys.argv[2])):
    try:
        write_text("reports/doctor.json", f"report {n}\\n")
        seen["written"] += 1
    except OutputError as exc:
        seen["refused: " + str(exc).split(": ", 2)[-1][:30]] += 1
print(dict(seen))
"""
"""Writes ``reports/doctor.json`` in the directory ``argv[1]`` ``argv[2]`` times; prints what
happened."""


def test_a_report_directory_swapped_for_a_link_out_while_writing_receives_nothing(
    tmp_path: Path,
) -> None:
    """Someone else who may write the checkout swaps its ``reports`` between a link to a
    directory within it and a link to a directory of the CI user's elsewhere, as fast as they
    can, while reports are written to ``reports/doctor.json`` 2,000 times (as another user
    where the tests run as root). However the swaps fall, each report is written within the
    checkout or refused in one line, and nothing is ever put in the directory elsewhere.
    Before, the relative path was judged and then written by name: a swap between the two put
    the report (or replaced a file) outside."""
    shared = Path(tempfile.mkdtemp(prefix="ipex-doctor-swap-"))
    try:
        shared.chmod(0o777)  # NOTE: no sticky bit: the other user may rename over our names
        project = shared / "project"
        (project / "out").mkdir(parents=True)
        project.chmod(0o777)
        elsewhere = shared / "home-bin"
        elsewhere.mkdir()
        (project / "reports").symlink_to("out")
        seen = _while_swapped(
            project / "reports", "out", elsewhere, _WRITER, str(project), "2000"
        )  # fmt: skip
        assert list(elsewhere.iterdir()) == [], seen
        assert seen.get("written", 0) > 0, seen
        assert all(key == "written" or key.startswith("refused: ") for key in seen), seen
        assert (project / "out" / "doctor.json").read_text().startswith("report ")
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@pytest.mark.parametrize("kind", ["dangling", "fifo", "directory"])
def test_a_policy_file_found_here_that_cannot_be_read_is_said(tmp_path: Path, kind: str) -> None:
    """A ``.ipex-doctor.yaml`` here that is no file to read (a link to nothing, a FIFO, a
    directory) is one line and exit 2, not a run without the policy. Before, each was
    silently passed over: the gate ran without the thresholds and ignores the project set."""
    found = tmp_path / ".ipex-doctor.yaml"
    if kind == "dangling":
        found.symlink_to("gone.yaml")
    elif kind == "fifo":
        os.mkfifo(found)
    else:
        found.mkdir()
    done = run_doctor("report", str(ARC), "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"ipex-doctor: error: {found}"), line


def test_empty_version_range_is_refused(tmp_path: Path) -> None:
    """A range whose fix predates its introduction is an error naming the line."""
    text = ENTRY.replace(
        "      - package: torch\n",
        '      - package: torch\n        introduced: "1.0"\n        fixed: "0.5"\n',
    )
    with pytest.raises(KnowledgeBaseError, match="empty range"):
        known_issues.read_document(_write(tmp_path, text))


@pytest.mark.parametrize(
    "payload",
    [
        '{"schema_version": "1.0", "doctor_version": "x", "created_at": "x", "environment": {"interpreter": {"executable": "x", "version": "3"}}, "findings": "oops"}',
        '{"schema_version": "1.0", "doctor_version": "x", "created_at": "x", "environment": {"interpreter": {"executable": "x", "version": "3"}, "host": {"logical_cpus": "many"}}, "findings": []}',
        '{"schema_version": "abc"}',
        '"just a string"',
    ],
)
def test_hostile_reports(tmp_path: Path, payload: str) -> None:
    """Wrong types anywhere in a report: exit 2, one line, no traceback."""
    path = tmp_path / "r.json"
    path.write_text(payload)
    done = run_doctor("report", str(path))
    assert (
        done.returncode == 2
        and "Traceback" not in done.stderr
        and "internal error" not in done.stderr
    )


CRASH = (
    "import sys; from ipex_doctor.reporting.output import write_crash_log; "
    "print(write_crash_log(ZeroDivisionError('planted-boom'), '0.0-test'))"
)


def test_a_crash_log_in_a_shared_temporary_directory_follows_nothing_planted_there(
    tmp_path: Path, shared_tmp: Path, other: Someone
) -> None:
    """The cache directory cannot be written, so the crash log goes to the temporary
    directory, shared with other users (sticky, 1777). Another user has put a link to a file
    of the victim's there under the crash log's name, and a file of their own, open to all,
    beside it: neither is written through (the victim's file keeps its text, the other
    user's file learns nothing of the crash); the log is a new file only its writer can read.
    Before, the log was written through the link, over the victim's file."""
    if not other.is_other:
        pytest.skip("planting needs another user than the one running the tests")
    shared = shared_tmp / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    planted = shared / "ipex-doctor-crash.md"
    for command in (["ln", "-s", str(victim), str(planted)],
                    ["sh", "-c", f"umask 0; : > {shared}/mine.md"]):  # fmt: skip
        subprocess.run([*other.prefix, *command], check=True, cwd="/")
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    env = {**doctor_env(), "XDG_CACHE_HOME": str(blocked), "TMPDIR": str(shared)}
    done = subprocess.run([sys.executable, "-c", CRASH], capture_output=True, text=True,
                          env=env, timeout=120, check=True)  # fmt: skip
    written = Path(done.stdout.strip())
    assert victim.read_text() == "precious\n"
    assert planted.is_symlink() and (shared / "mine.md").read_text() == ""
    assert written.parent == shared and "planted-boom" in written.read_text()
    status = written.lstat()
    assert stat.S_ISREG(status.st_mode) and status.st_uid == os.geteuid()
    assert stat.S_IMODE(status.st_mode) == 0o600


@pytest.mark.parametrize("option", ["--markdown", "--json"])
def test_a_report_is_never_written_through_a_link_out_of_its_directory(
    tmp_path: Path, option: str
) -> None:
    """A checkout whose ``report.md`` (or ``.json``) is a link to an executable of the CI
    user's elsewhere (``/usr/local/bin/pip`` when CI runs as root): the report is not written
    through it (the tool keeps its bytes and mode), one line, exit 2, before anything runs.
    Before, the report replaced the tool's text and kept its mode 755. A link that stays in
    the directory is written through, and stays a link."""
    tool = tmp_path / "bin" / "pip"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho the real tool\n")
    tool.chmod(0o755)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    name = "report" + (".md" if option == "--markdown" else ".json")
    link = checkout / name
    link.symlink_to(tool)
    done = run_doctor("report", str(ARC), "-q", option, name, cwd=checkout)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"ipex-doctor: error: cannot write report to {name}: it links to {tool}, outside "
        f"{checkout} (name that file itself to write it)"
    ]
    assert tool.read_text() == "#!/bin/sh\necho the real tool\n"
    assert stat.S_IMODE(tool.stat().st_mode) == 0o755
    link.unlink()
    (checkout / "reports").mkdir()
    link.symlink_to(Path("reports") / name)
    done = run_doctor("report", str(ARC), "-q", option, name, cwd=checkout)
    assert done.returncode == 1, done.stderr
    assert link.is_symlink() and (checkout / "reports" / name).stat().st_size > 0


@pytest.mark.parametrize("where", ["reports", "reports/ci"])
def test_a_report_is_never_written_through_a_directory_link_out_of_the_checkout(
    tmp_path: Path, where: str
) -> None:
    """A checkout whose ``reports/`` (or a directory below it) a pull request made a link to a
    directory of the CI user's elsewhere, and CI writing ``--json reports/doctor.json``: no
    file is put or replaced there; one line naming the link, where it leads and the absolute
    path that writes there on purpose, exit 2, before anything runs. Before, the report was
    written through the link (the file there replaced, keeping its mode)."""
    elsewhere = tmp_path / "home" / "bin"
    elsewhere.mkdir(parents=True)
    planted = elsewhere / "doctor.json"
    planted.write_text("#!/bin/sh\necho the real tool\n")
    planted.chmod(0o755)
    checkout = tmp_path / "checkout"
    (checkout / "reports").mkdir(parents=True)
    link = checkout / where
    if where == "reports":
        link.rmdir()
    link.symlink_to(elsewhere)
    name = f"{where}/doctor.json"
    done = run_doctor("report", str(ARC), "-q", "--json", name, cwd=checkout)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"ipex-doctor: error: cannot write report to {name}: {where} links to {elsewhere}, "
        f"outside the working directory {checkout} (name {planted} to write there)"
    ]
    assert planted.read_text() == "#!/bin/sh\necho the real tool\n"
    assert sorted(elsewhere.iterdir()) == [planted]


def test_a_report_is_written_through_directory_links_the_user_named_or_kept_inside(
    tmp_path: Path,
) -> None:
    """What users rely on still works: a ``reports -> /mnt/share/reports`` of their own,
    named by its absolute path (as the refusal above says), is written through; so is a
    relative path through a link that stays in the working directory, and one above it the
    user reached with ``..``."""
    share = tmp_path / "mnt" / "share" / "reports"
    share.mkdir(parents=True)
    checkout = tmp_path / "checkout"
    (checkout / "out" / "reports").mkdir(parents=True)
    (checkout / "reports").symlink_to(share)
    (checkout / "latest").symlink_to("out/reports")
    (tmp_path / "up").symlink_to(share)
    for name, written in (
        (str(checkout / "reports" / "doctor.json"), share / "doctor.json"),
        ("latest/doctor.json", checkout / "out" / "reports" / "doctor.json"),
        ("../up/above.json", share / "above.json"),
    ):
        done = run_doctor("report", str(ARC), "-q", "--json", name, cwd=checkout)
        assert done.returncode == 1, (name, done.stderr)
        assert json.loads(written.read_text())["findings"], name


def test_a_file_name_never_starts_a_line_of_its_own_in_a_scan_report(tmp_path: Path) -> None:
    """A tree's file names are the tree's word: one holding line breaks (and HTML) would put
    a forged "Gate: **passed**" line, or an image from anywhere, into the console and into a
    Markdown report pasted into an issue. Each line feed of a name is shown as the report
    shows every other control character (``\\x0a``), on its one line; the Markdown holds no
    markup of the tree's. Before, the names were written as they are, line breaks and all."""
    tree = tmp_path / "tree"
    tree.mkdir()
    forged = "a\n\nGate: **passed** <img src=x onerror=y>\n\nx.py"
    (tree / forged).write_text("import torch\nx = torch.xpu.amp.autocast()\n")
    unread = "b\n\nSummary: 0 fail.py"
    (tree / unread).write_text("def f(:\n    torch.xpu.amp\n")
    markdown = tmp_path / "report.md"
    done = run_doctor("scan", ".", "-q", "--markdown", str(markdown), cwd=tree)
    assert done.returncode == 1, done.stderr
    for text in (done.stdout, markdown.read_text()):
        starts = [line.lstrip(" #>*-") for line in text.splitlines()]
        assert not [line for line in starts if line.startswith(("Gate: **passed", "Summary: 0"))]
        assert "a\\x0a\\x0aGate: **passed** <img src=x onerror=y>\\x0a\\x0ax.py" in text.replace(
            "&lt;", "<"
        ).replace("&gt;", ">")
    assert "<img" not in markdown.read_text()


def test_a_tree_of_fifos_and_device_links_never_makes_a_scan_wait(tmp_path: Path) -> None:
    """A tree from elsewhere holding a FIFO as its ``.gitignore`` and as a module (reading
    either waited for a writer forever: the scan never ended), and links to ``/dev/zero``
    under names the scan reads (inside and outside the tree): the scan ends at once, reads
    the rest, and names each file it did not read in the report; a ``.gitignore`` it could
    not read applies no pattern, so what it would have left out is read and found."""
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / ".git").mkdir()  # a work tree: its .gitignore files apply (nothing tracked)
    (tree / "kept.py").write_text("import intel_extension_for_pytorch as ipex\n")
    (tree / "build.py").write_text("import intel_extension_for_pytorch\n")
    os.mkfifo(tree / ".gitignore")
    os.mkfifo(tree / "train.py")
    os.symlink("/dev/zero", tree / "requirements.txt")
    os.symlink("/dev/zero", tree / "sub" / ".gitignore")
    report = tmp_path / "scan.json"
    started = time.monotonic()
    done = run_doctor(
        "scan", ".", "-q", "--fail-on", "never", "--json", str(report), cwd=tree, timeout=120
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert time.monotonic() - started < 120
    saved = json.loads(report.read_text())
    skipped = {item["path"]: item["reason"] for item in saved["scan"]["skipped"]}
    assert skipped == {
        ".gitignore": "not a regular file: not read, so its patterns are not applied",
        "train.py": "a FIFO, not a regular file: not read (reading it would wait for a writer)",
        "requirements.txt": "a symbolic link out of the scanned tree: not followed",
        "sub/.gitignore": "not a regular file: not read, so its patterns are not applied",
    }
    found = {f["location"]["path"] for f in saved["findings"] if f.get("location")}
    assert found == {"kept.py", "build.py"}
    assert any(f["id"] == "scan-unread" for f in saved["findings"])
