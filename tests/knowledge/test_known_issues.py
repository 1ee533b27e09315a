"""The knowledge base: the shipped file's invariants, validation errors and overlays."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ipex_doctor.errors import KnowledgeBaseError
from ipex_doctor.knowledge import known_issues
from ipex_doctor.model.findings import FindingKind
from ipex_doctor.runs.catalog import catalog
from ipex_doctor.verdicts.rules import RULES

SEED_ISSUES = {"dot-half", "bf16-linear", "grad-mode-divergence", "qconv-op-name"}

MINIMAL = """\
schema_version: 1
issues:
  - id: my-site-issue
    title: Our cluster's driver breaks things
    kind: environment
    severity: warning
    summary: A site-specific issue.
    remediation: Do the site-specific thing.
    affected:
      - package: torch
        introduced: "2.0"
    references:
      - url: https://example.org/ticket/1
"""


def write(tmp_path: Path, text: str, name: str = "kb.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_shipped_kb_loads() -> None:
    """The shipped knowledge base validates and holds the seed issues and E-list entries."""
    knowledge = known_issues.load()
    ids = {issue.id for issue in knowledge.issues}
    assert SEED_ISSUES <= ids
    assert {"torch-ipex-mismatch", "ipex-os-exit", "torchvision-broken", "ipex-retired"} <= ids
    assert len(knowledge.issues) == 64  # update when adding entries


def test_shipped_kb_invariants() -> None:
    """What the loader does not enforce: every entry can be judged or explained, and every
    known issue names a shipped check script of its own id (references, URLs and rule names
    are the loader's business: see the error tests below)."""
    scripts = catalog()
    knowledge = known_issues.load()
    causes = {c for issue in knowledge.issues for c in issue.causes}
    assert all(knowledge.get(c) is not None for c in causes), causes
    for issue in knowledge.issues:
        usable = (issue.rule is not None or issue.affected or issue.symptoms or issue.match
                  or issue.id in causes)  # fmt: skip
        assert usable, f"{issue.id} is unusable"
        if issue.kind is FindingKind.KNOWN_ISSUE:
            assert issue.repro == issue.id and issue.repro in scripts, issue.id
            assert issue.symptoms or issue.id == "grad-mode-divergence", issue.id


def test_plain_http_reference_is_refused(tmp_path: Path) -> None:
    """References must be https (the schema says so; the loader names the line)."""
    message = error_of(tmp_path, MINIMAL.replace("https://example.org", "http://example.org"))
    assert "kb.yaml:13" in message and "references" in message


def test_every_rule_is_used() -> None:
    """No dead rules: each built-in rule judges some shipped entry."""
    used = {issue.rule for issue in known_issues.load().issues}
    assert set(RULES) <= used


def test_seed_error_texts_match_their_symptoms() -> None:
    """The exact error texts quoted in the entries' upstream issues match their symptom patterns."""
    texts = {
        "dot-half": "RuntimeError: \"dot\" not implemented for 'Half'",
        "bf16-linear": "RuntimeError: could not create a primitive descriptor for the inner "
        "product forward propagation primitive. Run workload with environment variable "
        "ONEDNN_VERBOSE=all to get additional diagnostic information.",
        "torch-ipex-mismatch": "ERROR! Intel® Extension for PyTorch* needs to work with PyTorch"
        "       2.1.*, but PyTorch 2.2.0+cpu is found. Please switch to the matching version",
        "ipex-os-exit": "AttributeError: module 'os' has no attribute 'exit'",
        "torchvision-broken": "RuntimeError: operator torchvision::nms does not exist",
        "qconv-op-name": "NotImplementedError: 'onednn::qconv_pointwise'",
    }
    knowledge = known_issues.load()
    for issue_id, text in texts.items():
        issue = knowledge.get(issue_id)
        assert issue is not None
        assert any(p.search(text) for p in issue.symptoms), issue_id


def test_minimal_overlay_adds_entry(tmp_path: Path) -> None:
    """An overlay with a new id is added after the shipped entries."""
    knowledge = known_issues.load([write(tmp_path, MINIMAL)])
    assert knowledge.issues[-1].id == "my-site-issue"
    assert knowledge.issues[-1].source.endswith("kb.yaml:3")


def test_overlay_replaces_same_id(tmp_path: Path) -> None:
    """An overlay entry with an existing id replaces the shipped one in place."""
    text = MINIMAL.replace("my-site-issue", "bf16-linear").replace(
        "Our cluster's driver breaks things", "Replaced"
    )
    knowledge = known_issues.load([write(tmp_path, text)])
    issue = knowledge.get("bf16-linear")
    assert issue is not None and issue.title == "Replaced"
    assert [i.id for i in knowledge.issues].count("bf16-linear") == 1


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(KnowledgeBaseError) as caught:
        known_issues.read_document(write(tmp_path, text))
    return str(caught.value)


def test_malformed_yaml_names_file_and_line(tmp_path: Path) -> None:
    """A YAML syntax error says which file and line."""
    message = error_of(tmp_path, MINIMAL.replace("    kind: environment", "    kind: [environment"))
    assert re.search(r"kb\.yaml:\d+: malformed YAML", message), message


def test_schema_error_names_line_issue_and_field(tmp_path: Path) -> None:
    """A schema violation names the line, the issue id and the field."""
    message = error_of(tmp_path, MINIMAL.replace("severity: warning", "severity: catastrophic"))
    assert "kb.yaml:6" in message and "'my-site-issue'" in message and "severity" in message


def test_invalid_version_is_named(tmp_path: Path) -> None:
    """A version that is not PEP 440 is refused with its line."""
    message = error_of(tmp_path, MINIMAL.replace('introduced: "2.0"', 'introduced: "two"'))
    assert "kb.yaml:11" in message and "'two' is not a PEP 440 version" in message


def test_invalid_regex_is_named(tmp_path: Path) -> None:
    """A symptom that is not a regular expression is refused with its line."""
    text = MINIMAL.replace(
        "    references:", '    symptoms:\n      - "unbalanced ("\n    references:'
    )
    message = error_of(tmp_path, text)
    assert "kb.yaml:13" in message and "invalid regular expression" in message


def test_unknown_rule_is_named(tmp_path: Path) -> None:
    """A rule the doctor does not have is refused, listing the known ones."""
    message = error_of(
        tmp_path, MINIMAL.replace("    affected:", "    rule: no-such-rule\n    affected:")
    )
    assert "unknown rule 'no-such-rule'" in message and "torch-ipex-mismatch" in message


def test_duplicate_id_in_one_file(tmp_path: Path) -> None:
    """Two entries with one id in the same file is an error (overlays replace, files don't)."""
    entry = MINIMAL.split("issues:\n", 1)[1]
    message = error_of(tmp_path, MINIMAL + entry)
    assert "duplicate id" in message


def test_aliases_are_refused(tmp_path: Path) -> None:
    """YAML aliases (the billion-laughs vector) are refused outright."""
    text = MINIMAL.replace("summary: A site-specific issue.", "summary: &s A site-specific issue.")
    text = text.replace("remediation: Do the site-specific thing.", "remediation: *s")
    assert "aliases are not allowed" in error_of(tmp_path, text)


def test_newer_kb_is_refused_by_version_gate(tmp_path: Path) -> None:
    """A KB written for a newer doctor says so before any schema error."""
    text = "min_doctor_version: '99.0'\n" + MINIMAL + "    future_field: 1\n"
    assert "needs ipex-doctor >= 99.0" in error_of(tmp_path, text)


def test_not_a_mapping(tmp_path: Path) -> None:
    """A YAML list or scalar at the top is a clear error."""
    assert "top level must be a mapping" in error_of(tmp_path, "- 1\n- 2\n")


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    """Missing files, directories and non-UTF-8 files are one-line errors."""
    with pytest.raises(KnowledgeBaseError, match="no such knowledge-base file"):
        known_issues.read_document(tmp_path / "absent.yaml")
    with pytest.raises(KnowledgeBaseError, match="is a directory"):
        known_issues.read_document(tmp_path)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(KnowledgeBaseError, match="not UTF-8"):
        known_issues.read_document(binary)


def test_size_limit(tmp_path: Path) -> None:
    """A huge file is refused before parsing."""
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * (known_issues.MAX_FILE_BYTES + 10))
    with pytest.raises(KnowledgeBaseError, match="larger than"):
        known_issues.read_document(big)
