"""SARIF 2.1.0 for code findings (``scan --sarif PATH``), so code scanning shows them inline.

One run, one tool (``ipex-doctor``) whose ``rules`` are the code rules the findings name, each
with its title, why, the upstream replacement and its references. A result is one finding at
one place; a suppressed (inline) or policy-ignored finding stays in the log with a SARIF
``suppressions`` entry rather than vanishing. A mechanical fix travels as a SARIF ``fix``:
the replaced lines of the file and the text that replaces them, computed by ``scan --fix``'s
own rewrite; the files ``scan --fix`` rewrote are the run's ``artifacts``, each with the
``modified`` role and its SHA-256. Paths are relative to the scan root (``%SRCROOT%``), as GitHub's ingestion wants,
written as RFC 3986 relative references (``artifact_uri``: a space, ``%``, ``#``, ``?``, a colon,
non-ASCII and control characters percent-encoded, UTF-8). Findings without a code location (the
environment's, in ``check --code``) are not code results and are left out: the other formats
carry them. Each file the scan could not read is a tool execution notification of the run's
invocation (``invocations[0].toolExecutionNotifications``, level ``warning``, at the file), so
a code-scanning view says what it did not see.

Written by hand rather than with an object model (``sarif-om``) because the shape needed is
small and the tests validate every log against the official OASIS schema.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ipex_doctor import __version__
from ipex_doctor.model.findings import Finding, Report, Status
from ipex_doctor.reporting.formats.json_format import LazyArray, indented_json

if TYPE_CHECKING:
    from ipex_doctor.reporting.policy import Gate

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/ipex-doctor/"
_LEVELS = {
    Status.FAIL: "error",
    Status.ERROR: "error",
    Status.WARN: "warning",
    Status.PASS: "note",
    Status.SKIP: "note",
}


def render_sarif(report: Report, gate: Gate | None = None) -> str:
    """The report's code findings as a SARIF 2.1.0 log (JSON text ending in a newline)."""
    return "".join(sarif_chunks(report, gate))


def sarif_chunks(report: Report, gate: Gate | None = None) -> Iterator[str]:
    """``render_sarif``'s text in pieces, each result's JSON made when the encoder reaches it
    (``json_format.LazyArray``)."""
    coded = [f for f in report.findings if f.location is not None]
    rule_ids = list(dict.fromkeys(f.id for f in coded))
    rule_index = {rule_id: index for index, rule_id in enumerate(rule_ids)}
    first_of = {rule_id: next(f for f in coded if f.id == rule_id) for rule_id in rule_ids}
    log: dict[str, Any] = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ipex-doctor",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule(first_of[r]) for r in rule_ids],
                    }
                },
                "originalUriBaseIds": {
                    "%SRCROOT%": {"description": {"text": "The root the scan was given."}}
                },
                "columnKind": "unicodeCodePoints",
                "results": LazyArray(coded, lambda f: _result(f, rule_index[f.id])),
                "invocations": [_invocation(report)],
            }
        ],
    }
    artifacts = _modified(report)
    if artifacts:
        log["runs"][0]["artifacts"] = artifacts
    yield from indented_json(log)


def _modified(report: Report) -> list[dict[str, Any]]:
    """The files ``scan --fix`` rewrote, as artifacts with the ``modified`` role and the
    SHA-256 of what they hold now."""
    fix = report.scan.fix if report.scan is not None else None
    return [
        {
            "location": artifact_uri(rewritten.path),
            "roles": ["modified"],
            "hashes": {"sha-256": rewritten.sha256_after},
        }
        for rewritten in (fix.rewritten if fix is not None else ())
    ]


def artifact_uri(path: str) -> dict[str, str]:
    """A SARIF ``artifactLocation`` for a result's path: a relative path as an RFC 3986
    relative reference against ``%SRCROOT%`` (every character but the unreserved ones and
    ``/`` percent-encoded from UTF-8: a colon too, which would read as a scheme in a first
    segment); an absolute one (a file named on the command line) as a ``file`` URI."""
    if PurePosixPath(path).is_absolute():
        return {"uri": "file://" + quote(_bytes_of(path), safe="/")}
    return {"uri": quote(_bytes_of(path), safe="/"), "uriBaseId": "%SRCROOT%"}


def _bytes_of(path: str) -> bytes:
    """The bytes of ``path`` as the file system has them: a name that is not UTF-8 (read with
    ``surrogateescape``) is percent-encoded byte for byte (``%FF``), as RFC 3986 encodes any
    octet, where encoding its text as UTF-8 would fail."""
    return path.encode("utf-8", "surrogateescape")


def _invocation(report: Report) -> dict[str, Any]:
    """The run's invocation: it ran to its end, and each file it could not read."""
    skipped = report.scan.skipped if report.scan is not None else ()
    notifications = [
        {
            "level": "warning",
            "message": {"text": f"{item.path} was not read: {item.reason}"},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_uri(item.path)}}],
            "descriptor": {"id": "scan-unread"},
        }
        for item in skipped
    ]
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return invocation


def _rule(finding: Finding) -> dict[str, Any]:
    data = finding.evidence.data
    why = str(data.get("why") or finding.title)
    replacement = finding.remediation or "see the references"
    links = "".join(f"\n- [{r.title or r.url}]({r.url})" for r in finding.references)
    rule: dict[str, Any] = {
        "id": finding.id,
        "name": "".join(part.capitalize() for part in finding.id.split("-")),
        "shortDescription": {"text": finding.title},
        "fullDescription": {"text": why},
        "help": {
            "text": f"{why}\nInstead: {replacement}",
            "markdown": f"{why}\n\n**Instead:** {replacement}\n{links}".rstrip(),
        },
        "defaultConfiguration": {"level": _severity_level(finding)},
        "properties": {"tags": ["ipex-migration", finding.severity.value]},
    }
    if finding.references:
        rule["helpUri"] = finding.references[0].url
    if data.get("rule_source"):
        # NOTE: a site's overlay rule (scan --rules) says whose rule it is, shipped ones do not
        rule["properties"]["source"] = str(data["rule_source"])
    return rule


def _severity_level(finding: Finding) -> str:
    return {"error": "error", "warning": "warning"}.get(finding.severity.value, "note")


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    location = finding.location
    assert location is not None
    region: dict[str, Any] = {"startLine": location.line, "startColumn": location.column + 1}
    if location.end_line:
        region["endLine"] = location.end_line
        region["endColumn"] = location.end_column + 1
    if finding.snippet:
        region["snippet"] = {"text": finding.snippet}
    physical: dict[str, Any] = {"artifactLocation": artifact_uri(location.path), "region": region}
    result: dict[str, Any] = {
        "ruleId": finding.id,
        "ruleIndex": rule_index,
        "level": _level(finding),
        "message": {"text": finding.evidence.summary or finding.title},
        "locations": [{"physicalLocation": physical}],
    }
    if location.cell is not None:
        result["properties"] = {"notebookCell": location.cell}
    suppressions = _suppressions(finding)
    if suppressions:
        result["suppressions"] = suppressions
    fix = finding.evidence.data.get("fix_edit")
    if isinstance(fix, Mapping):
        result["fixes"] = [_fix(location.path, fix)]
    return result


def _level(finding: Finding) -> str:
    """The level of the finding as judged (``ignored`` keeps the status it had)."""
    status = finding.ignored.status if finding.ignored is not None else finding.status
    if status is Status.SKIP and finding.evidence.data.get("suppressed"):
        return _severity_level(finding)
    return _LEVELS[status]


def _suppressions(finding: Finding) -> list[dict[str, Any]]:
    found = []
    inline = finding.evidence.data.get("suppressed")
    if isinstance(inline, str):
        found.append({"kind": "inSource", "justification": inline})
    if finding.ignored is not None:
        found.append({"kind": "external", "justification": finding.ignored.reason})
    return found


def _fix(path: str, edit: Mapping[str, Any]) -> dict[str, Any]:
    """A SARIF fix: lines ``start``..``end`` (1-based, inclusive; ``end`` < ``start``: an
    insertion) replaced by ``text``."""
    start, end = int(edit["start"]), int(edit["end"])
    deleted: dict[str, Any] = {"startLine": start, "startColumn": 1}
    # NOTE: a whole-line replacement ends at column 1 of the line after the last one replaced.
    deleted.update({"endLine": end + 1, "endColumn": 1})
    return {
        "description": {"text": str(edit.get("description") or "apply the upstream replacement")},
        "artifactChanges": [
            {
                "artifactLocation": artifact_uri(path),
                "replacements": [
                    {"deletedRegion": deleted, "insertedContent": {"text": str(edit["text"])}}
                ],
            }
        ],
    }
