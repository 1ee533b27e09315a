"""``fix``: which commands it may run, the plan it shows, the refusals, and the snapshot.

The plan is read from the findings of real reports; the commands of an old report are read
into typed actions here exactly as ``fix`` reads them, and judged by the one repair policy, so a
remedy that names another interpreter, ``sudo`` or an unpinned requirement is proven to stay
advice.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_doctor

from ipex_doctor.app.repair_plan import propose, undo_plan
from ipex_doctor.knowledge.remedy_policy import action_refusal
from ipex_doctor.model.findings import Evidence, Finding, FindingKind, Severity, Status
from ipex_doctor.model.remedy import PipAction
from ipex_doctor.model.repair import (
    Distribution,
    Download,
    ManualStep,
    PlannedStep,
    Repair,
    RepairVerdict,
    Snapshot,
)
from ipex_doctor.model.terms import StepKind
from ipex_doctor.reporting.formats.repair_text import plan_text
from ipex_doctor.reporting.legacy_commands import parse_command, split_commands

PY = "/envs/a/bin/python"


def _finding(fid: str, *commands: str, remediation: str = "do it") -> Finding:
    """A finding whose remedies are ``commands``, read as an old report's are."""
    actions, manual = split_commands(commands)
    return Finding(
        id=fid, kind=FindingKind.ENVIRONMENT, status=Status.FAIL, severity=Severity.ERROR,
        title=fid, evidence=Evidence("seen"), remediation=remediation, actions=tuple(actions),
        manual_commands=tuple(manual),
    )  # fmt: skip


def _sanctioned(command: str) -> PipAction | None:
    """The action ``command`` spells when the repair policy lets it run in ``PY``."""
    action = parse_command(command)
    return action if action is not None and action_refusal(action, PY) is None else None


def test_only_pinned_pip_commands_of_the_examined_interpreter_are_sanctioned() -> None:
    """install of ``==`` pins (index options allowed), uninstall -y of names; nothing else."""
    assert _sanctioned(f"{PY} -m pip install 'intel-extension-for-pytorch==2.8.*'") == PipAction(
        PY, StepKind.INSTALL, ("intel-extension-for-pytorch==2.8.*",),
    )  # fmt: skip
    index = "https://download.pytorch.org/whl/cpu"
    assert _sanctioned(f"{PY} -m pip install torchvision==0.23.* --index-url {index}") == (
        PipAction(PY, StepKind.INSTALL, ("torchvision==0.23.*",), index_url=index)
    )
    assert _sanctioned(f"{PY} -m pip uninstall -y intel-extension-for-pytorch") == PipAction(
        PY, StepKind.UNINSTALL, ("intel-extension-for-pytorch",),
    )  # fmt: skip
    refused = [
        f"{PY} -m pip install torch",  # not pinned
        f"{PY} -m pip install 'torch>=2.8'",  # a range is not a pin
        "/other/bin/python -m pip install torch==2.8.0",  # another interpreter
        f"sudo {PY} -m pip install torch==2.8.0",
        f"{PY} -m pip install --user torch==2.8.0",  # an option not on the list
        f"{PY} -m pip install --index-url ftp://x torch==2.8.0",
        f"{PY} -m pip uninstall intel-extension-for-pytorch",  # would prompt
        f"{PY} -m pip download torch==2.8.0",
        "sudo usermod -aG render $USER",
        f"{PY} -m pip install 'torch @ https://example.org/torch.whl'",
        f"{PY} -m pip install 'torch==2.8.0' ; rm -rf /",
    ]
    for command in refused:
        assert _sanctioned(command) is None, command


def test_proposals_merge_shared_commands_uninstall_first_and_keep_advice() -> None:
    """A command two findings share is one step naming both; uninstalls run before installs;
    a finding without a sanctioned command is a manual step with its advice."""
    findings = [
        _finding("a", f"{PY} -m pip install torchvision==0.23.*"),
        _finding("b", f"{PY} -m pip uninstall -y intel-extension-for-pytorch"),
        _finding("c", f"{PY} -m pip install torchvision==0.23.*", "sudo usermod -aG render me"),
        _finding("d", remediation="Install the GPU driver."),
    ]
    proposals, manual = propose(findings, PY)
    assert [(p.action.verb, p.findings) for p in proposals] == [
        (StepKind.UNINSTALL, ("b",)), (StepKind.INSTALL, ("a", "c")),
    ]  # fmt: skip
    assert manual == (
        ManualStep("c", "do it", ("sudo usermod -aG render me",)),
        ManualStep("d", "Install the GPU driver."),
    )


def test_undo_removes_what_is_new_and_reinstalls_exact_versions(tmp_path: Path) -> None:
    """The undo of a snapshot: uninstall what it lacked; nothing to install when every version
    is the snapshot's (the install would need the index)."""
    snapshot = Snapshot(PY, "2026-01-01T00:00:00Z", (Distribution("pip", "23.2.1"),))
    now = (Distribution("pip", "23.2.1"), Distribution("slowpkg", "1.0"))
    (step,) = undo_plan(snapshot, now).steps
    assert step.command == (PY, "-m", "pip", "uninstall", "-y", "slowpkg")
    assert step.removes == (Distribution("slowpkg", "1.0"),)
    assert undo_plan(snapshot, snapshot.distributions).steps == ()


def test_plan_text_names_findings_sizes_and_removals() -> None:
    """Each step: the command to paste, what it resolves, downloads with sizes, removals."""
    step = PlannedStep(
        StepKind.INSTALL, (PY, "-m", "pip", "install", "intel-extension-for-pytorch==2.8.0"),
        ("torch-ipex-mismatch",),
        (Download("intel-extension-for-pytorch", "2.8.0", "https://x/ipex.whl", 49_936_492),),
        (Distribution("intel-extension-for-pytorch", "2.7.0"),),
    )  # fmt: skip
    text = plan_text(Repair(RepairVerdict.PLANNED, (step,), (ManualStep("xpu", "join render"),)))
    assert f"1. {PY} -m pip install intel-extension-for-pytorch==2.8.0" in text
    assert "resolves: torch-ipex-mismatch" in text
    assert (
        "downloads 49.9 MB at most" in text and "removes: intel-extension-for-pytorch 2.7.0" in text
    )
    assert "- xpu: join render" in text
    unknown = PlannedStep(StepKind.INSTALL, step.command, ("a",), (Download("t", "1", "u", None),))
    assert "size unknown" in plan_text(Repair(RepairVerdict.PLANNED, (unknown,)))


def test_undo_refuses_what_is_not_a_snapshot(tmp_path: Path) -> None:
    """A missing file, a non-snapshot, and options that do not go with --undo: exit 2, one
    line, no traceback."""
    missing = run_doctor("fix", "--undo", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "no such snapshot file" in missing.stderr
    other = tmp_path / "report.json"
    other.write_text(json.dumps({"schema_version": "1.7"}))
    wrong = run_doctor("fix", "--undo", str(other))
    assert wrong.returncode == 2 and "not an ipex-doctor snapshot" in wrong.stderr
    mixed = run_doctor("fix", "--undo", str(other), "--report", str(other))
    assert mixed.returncode == 2 and "--undo restores a snapshot" in mixed.stderr
    for done in (missing, wrong):
        assert done.stderr.startswith("ipex-doctor: error: ") and len(done.stderr.splitlines()) == 1
    assert "Traceback" not in mixed.stderr


def test_report_that_is_not_a_report_is_refused(tmp_path: Path) -> None:
    """``--report`` of a file that is not a report: exit 2, one line, nothing planned."""
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    done = run_doctor("fix", "--report", str(bad))
    assert done.returncode == 2 and "not JSON" in done.stderr and "Traceback" not in done.stderr


def _judged(fid: str, status: Status, device: str | None = None) -> Finding:
    return Finding(
        id=fid, kind=FindingKind.KNOWN_ISSUE, status=status, severity=Severity.WARNING,
        title=fid, evidence=Evidence("seen"), remediation="", device=device,
    )  # fmt: skip


def test_a_finding_reached_only_after_the_repair_is_no_regression_unless_it_fails() -> None:
    """What a repair makes worse is judged against what was judged before: a finding skipped
    before (IPEX did not import, so nothing of IPEX's was asked) that warns after is the host's
    fact, newly reached (bf16 prepacking on a CPU without native bf16), not a regression; one
    that now fails or errs is, as a new failing finding is; a judged finding that gets worse is."""
    from ipex_doctor.app.repair import worsened

    before = [
        _judged("torch-ipex-mismatch", Status.FAIL),
        _judged("bf16-prepack-isa", Status.SKIP),
        _judged("ipex-kernels", Status.SKIP),
        _judged("grad-divergence", Status.PASS, device="xpu:0"),
        _judged("torch-version", Status.WARN),
    ]
    after = [
        _judged("torch-ipex-mismatch", Status.PASS),
        _judged("bf16-prepack-isa", Status.WARN),
        _judged("ipex-kernels", Status.FAIL),
        _judged("grad-divergence", Status.WARN, device="xpu:0"),
        _judged("torch-version", Status.WARN),
        _judged("new-one", Status.ERROR),
        _judged("new-warning", Status.WARN),
    ]
    assert worsened(before, after) == (
        "ipex-kernels: skip -> fail",
        "grad-divergence [xpu:0]: pass -> warn",
        "new-one: new error",
    )
    assert worsened(before, before) == ()
