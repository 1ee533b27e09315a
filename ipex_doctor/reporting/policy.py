"""The gate policy: which statuses fail the run, and which findings are knowingly ignored.

A policy comes from ``--fail-on``/``--ignore ID`` on the command line and from a policy file
(``--policy FILE``, or ``.ipex-doctor.yaml`` in the working directory)::

    fail_on: warn                      # fail | warn | never (the command line wins)
    ignore:
      - id: bf16-linear
        reason: we always run ipex.optimize under autocast (TICKET-123)   # mandatory
        expires: 2027-03-31            # optional; after it the ignore stops applying
    scan:
      exclude: [tests/fixtures/]       # scan leaves these out (.gitignore patterns)

An ignored finding becomes ``skip`` and keeps the status it had and the reason. An expired
ignore does not apply, and the finding says so. An id that no finding can have is a
configuration error (exit 2) naming it: a typo must not silently ignore nothing.

The file found in the working directory (not named with ``--policy``) comes with the checkout,
maybe from someone else: it is read only as a regular file inside that directory. A link
leading out of it (a pull request's ``.ipex-doctor.yaml`` pointing at the CI user's
``~/.git-credentials``, whose text a schema error would quote into the log) is refused, and
so is anything there that is no regular file to read (a link to nothing, a FIFO, a directory):
exit 2, never a run that silently goes without the project's policy. What is judged is what
is read: the bytes come from the one file opened and judged (``_read_found_here``), so someone
else who may write the directory cannot swap a link in between the judgement and the read.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import stat
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ipex_doctor.errors import (
    DoctorError,
    ExitCode,
    did_you_mean,
    read_bounded,
    read_bounded_from,
)
from ipex_doctor.model.findings import Evidence, Finding, Ignored, Report, Status
from ipex_doctor.reporting.output_options import FailOn

DEFAULT_POLICY_FILE = ".ipex-doctor.yaml"
MAX_POLICY_BYTES = 256 * 1024


class PolicyError(DoctorError):
    """A policy file or ignore is invalid; the message names the file, line or id."""


@dataclass(frozen=True)
class Ignore:
    """One ignore: a finding id, why, and until when."""

    id: str
    reason: str
    expires: datetime.date | None = None
    source: str = "--ignore"


@dataclass(frozen=True)
class Gate:
    """Whether a run passes its gate, and the findings that decided it."""

    fail_on: FailOn = FailOn.FAIL
    deciding: tuple[Finding, ...] = ()
    """The findings at or above the threshold (none: the gate passes)."""

    @property
    def passed(self) -> bool:
        """True when no finding is at or above the threshold."""
        return not self.deciding

    @property
    def failing(self) -> frozenset[Status]:
        """The statuses that fail the run under this gate."""
        return self.fail_on.failing()

    @property
    def exit_code(self) -> ExitCode:
        """1 when any finding is at or above the threshold, else 0."""
        return ExitCode.OK if self.passed else ExitCode.FINDINGS

    def sentence(self) -> str:
        """One line saying why the gate passed or failed."""
        if self.passed:
            return f"no finding at or above --fail-on {self.fail_on}"
        names = ", ".join(
            f"{f.id}" + (f" [{f.device}]" if f.device else "") for f in self.deciding[:5]
        )
        more = f" and {len(self.deciding) - 5} more" if len(self.deciding) > 5 else ""
        count = len(self.deciding)
        noun = "finding" if count == 1 else "findings"
        return f"{count} {noun} at or above --fail-on {self.fail_on}: {names}{more}"


@dataclass(frozen=True)
class Policy:
    """The gate: threshold and ignores."""

    fail_on: FailOn = FailOn.FAIL
    ignores: tuple[Ignore, ...] = ()
    scan_exclude: tuple[str, ...] = ()
    """``scan.exclude`` of the policy file: paths ``scan`` leaves out (.gitignore patterns)."""

    def decide(self, report: Report) -> Gate:
        """The gate's outcome for ``report`` (the ignores already applied): the one place the
        run's pass or fail is decided; the exit code and every format read it from here."""
        failing = self.fail_on.failing()
        deciding = tuple(f for f in report.findings if f.status in failing)
        return Gate(self.fail_on, deciding)

    def apply(self, report: Report, *, today: datetime.date | None = None) -> Report:
        """The report with the ignores applied (expired ones noted, not applied)."""
        today = today or datetime.date.today()
        by_id = {ignore.id: ignore for ignore in self.ignores}
        findings = []
        for finding in report.findings:
            ignore = by_id.get(finding.id)
            if ignore is None or finding.ignored is not None:
                findings.append(finding)
                continue
            expires = None if ignore.expires is None else ignore.expires.isoformat()
            if ignore.expires is not None and ignore.expires < today:
                note = f" [ignore from {ignore.source} expired on {expires}: it no longer applies]"
                findings.append(
                    dataclasses.replace(
                        finding,
                        evidence=Evidence(finding.evidence.summary + note, finding.evidence.data),
                    )
                )
                continue
            findings.append(
                dataclasses.replace(
                    finding,
                    status=Status.SKIP,
                    ignored=Ignored(
                        reason=ignore.reason,
                        status=finding.status,
                        expires=expires,
                        source=ignore.source,
                    ),
                )
            )
        return dataclasses.replace(report, findings=tuple(findings))

    def check_ids(self, known: Collection[str]) -> None:
        """Refuse ignores of ids that no finding can have."""
        for ignore in self.ignores:
            if ignore.id not in known:
                raise PolicyError(
                    f"{ignore.source}: unknown finding id '{ignore.id}'",
                    tip=did_you_mean(
                        ignore.id, known, otherwise="'ipex-doctor kb list' lists the ids"
                    ),
                )


_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "fail_on": {"enum": ["fail", "warn", "never"]},
        "scan": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "exclude": {"type": "array", "items": {"type": "string", "minLength": 1}},
            },
        },
        "ignore": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "reason"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "minLength": 1},
                    "reason": {"type": "string", "minLength": 3},
                    "expires": {"type": "string"},  # NOTE: a date; _date() checks it
                },
            },
        },
    },
}


def _date(text: Any, where: str) -> datetime.date:
    if isinstance(text, datetime.date):
        return text
    try:
        return datetime.date.fromisoformat(str(text))
    except ValueError:
        raise PolicyError(f"{where}: expires '{text}' is not a date (YYYY-MM-DD)") from None


def read_policy_file(path: Path) -> tuple[FailOn | None, tuple[Ignore, ...]]:
    """Parse a policy file; raises ``PolicyError`` naming the file and line."""
    fail_on, ignores, _ = _read_policy_file(path)
    return fail_on, ignores


def _read_policy_file(
    path: Path, text: str | None = None
) -> tuple[FailOn | None, tuple[Ignore, ...], tuple[str, ...]]:
    """A policy file's threshold, ignores and ``scan.exclude`` patterns, from one read and one
    parse of it (``PolicyError`` naming the file and line); ``text`` is its text when the caller
    already read it."""
    # NOTE: only where a policy file is given: a scan without one never builds the schema's
    # checker (its module and dataclass, about 3 ms of a small project's start)
    from ipex_doctor.knowledge import schema, yamldoc

    if text is None:
        text = read_bounded(path, MAX_POLICY_BYTES, PolicyError, "policy")
    data, tree = yamldoc.load(str(path), text, PolicyError)
    if data is None:
        return None, (), ()
    # NOTE: YAML reads 2027-03-31 as a date; the schema wants strings, so normalise first.
    if isinstance(data, dict) and isinstance(data.get("ignore"), list):
        for item in data["ignore"]:
            if isinstance(item, dict) and isinstance(item.get("expires"), datetime.date):
                item["expires"] = item["expires"].isoformat()
    errors = schema.errors(data, _SCHEMA)
    if errors:
        first = errors[0]
        line = yamldoc.line_of(tree, list(first.path))
        where = f"{path}:{line}" if line else str(path)
        raise PolicyError(f"{where}: {first.message}", tip="see the policy format in docs/ci.md")
    fail_on = FailOn(data["fail_on"]) if "fail_on" in data else None
    ignores = []
    for index, item in enumerate(data.get("ignore") or ()):
        line = yamldoc.line_of(tree, ["ignore", index])
        where = f"{path}:{line}" if line else str(path)
        expires = _date(item["expires"], where) if "expires" in item else None
        ignores.append(
            Ignore(id=item["id"], reason=item["reason"].strip(), expires=expires, source=where)
        )
    scan = data.get("scan") if isinstance(data, dict) else None
    exclude = scan.get("exclude") if isinstance(scan, dict) else None
    scan_exclude = tuple(str(p) for p in exclude) if isinstance(exclude, list) else ()
    return fail_on, tuple(ignores), scan_exclude


def _read_found_here(path: Path) -> str | None:
    """The text of the working directory's policy file ``path`` (``None``: nothing is there);
    ``PolicyError`` when it is a link leading out of that directory, or is no regular file (a
    link to nothing, a FIFO, a directory), or is not the file judged when it is opened.

    The file judged is the file read: the name (or, for a link within the directory, its
    resolved target) is opened with ``O_NOFOLLOW`` and ``fstat`` must show the regular file
    that ``lstat`` judged, same device and inode. Judging a name and then reading it by name
    again would let another user who may write the directory swap in a link to a file outside
    it between the two."""
    try:
        judged = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise PolicyError(f"{path}: cannot read: {exc.strerror}") from None
    opened = path
    if stat.S_ISLNK(judged.st_mode):
        target = path.resolve()
        if not target.is_relative_to(path.parent.resolve()):
            # NOTE: said before anything of the target is read: its text would reach the log.
            raise PolicyError(
                f"{path} links to {target}, outside {path.parent}: a policy file found here is "
                "read only inside it (name it with --policy to read it)"
            )
        try:
            judged = os.lstat(target)
        except OSError:
            raise PolicyError(
                f"{path} is a link to nothing; no policy was read (remove it, or name one "
                "with --policy)"
            ) from None
        opened = target
    if not stat.S_ISREG(judged.st_mode):
        raise PolicyError(
            f"{path} is not a regular file; no policy was read (remove it, or name one with "
            "--policy)"
        )
    try:
        # NOTE: O_NONBLOCK for the open alone: a FIFO swapped in must not make the run wait.
        fd = os.open(opened, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise PolicyError(
            f"{path}: changed while it was read ({exc.strerror}); no policy was read"
        ) from None
    try:
        status = os.fstat(fd)
        if (status.st_dev, status.st_ino) != (judged.st_dev, judged.st_ino) or not stat.S_ISREG(
            status.st_mode
        ):
            raise PolicyError(
                f"{path}: changed while it was read (another file took its place); no policy "
                "was read"
            )
        os.set_blocking(fd, True)
        return read_bounded_from(fd, path, MAX_POLICY_BYTES, PolicyError, "policy")
    except OSError as exc:
        raise PolicyError(f"{path}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)


def build_policy(
    *,
    fail_on: FailOn | str | None,
    ignore_args: Sequence[str],
    policy_file: str | None,
    cwd: Path | None = None,
) -> Policy:
    """Combine the command line and the policy file (explicit, else ./.ipex-doctor.yaml).

    ``--ignore ID`` or ``--ignore ID=REASON``: without a reason the ignore says so.
    """
    path = Path(policy_file) if policy_file else (cwd or Path.cwd()) / DEFAULT_POLICY_FILE
    file_fail_on: FailOn | None = None
    ignores: tuple[Ignore, ...] = ()
    scan_exclude: tuple[str, ...] = ()
    if policy_file:
        file_fail_on, ignores, scan_exclude = _read_policy_file(path)
    elif (text := _read_found_here(path)) is not None:
        file_fail_on, ignores, scan_exclude = _read_policy_file(path, text)
    cli_ignores = []
    for arg in ignore_args:
        finding_id, _, reason = arg.partition("=")
        cli_ignores.append(
            Ignore(
                id=finding_id.strip(),
                reason=reason.strip() or "ignored with --ignore (no reason given)",
            )
        )
    threshold = FailOn(fail_on) if fail_on else (file_fail_on or FailOn.FAIL)
    merged = {i.id: i for i in (*ignores, *cli_ignores)}
    return Policy(fail_on=threshold, ignores=tuple(merged.values()), scan_exclude=scan_exclude)
