"""Whether what a shell line writes to a file is read: the judgement behind reading an ``echo``
(``printf``, ``Write-Output``, a PowerShell string, ``cat <<EOF``) whose output goes to a file
as what it writes (an install, a requirement, a sourced script) rather than as a message.

A line written to a file runs, or is installed, only where that file is then read: a list the
same script hands to pip (``pip install -r req.txt``, ``-r "$REQ"``), or a file the scan reads by
its name (a requirement list, a script, a config). On the console, ``/dev/null`` / ``$null`` /
``nul``, the error stream, a log or a document it is a message.

The dialects differ on a name the scan does not know (``~/.startup``, ``"$TARGET"``):

* POSIX shell and PowerShell write startup files (``~/.bashrc``, ``/etc/profile.d/*``,
  ``$PROFILE``), CI environment files (``$GITHUB_ENV``) and temporary lists (``$(mktemp)``)
  under names of their own, so an unknown target is read; what is known to be a message is
  not: a device, a log (``install.log``, ``$LOG_FILE``), a document, or a ``*.txt`` that is
  neither a requirement list by name nor handed to pip in the same script.
* batch writes what it runs to ``*.bat`` / ``*.cmd`` and lists under the names pip is given,
  so only a file known to be read is (its ``%LOGFILE%`` is a message).

Targets are compared as written: a variable is never expanded (``"$REQ"`` is the list ``pip
install -r "$REQ"`` names), only left out when the name around it is judged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ipex_doctor.lazy_pattern import LazyPattern
from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.read.kinds import ShellDialect, classify

_DEVICES = {
    ShellDialect.POSIX: frozenset(
        {"/dev/null", "/dev/stderr", "/dev/stdout", "/dev/tty", "/dev/fd/1", "/dev/fd/2"}
        | {"&1", "&2", "&-"}
    ),
    ShellDialect.POWERSHELL: frozenset({"$null", "nul"}),
    ShellDialect.BATCH: frozenset({"nul", "con", "prn", "aux", "&1", "&2"}),
}
"""Targets that are no file, as written: the console, its error stream, nothing."""
_VARIABLE = {
    ShellDialect.POSIX: LazyPattern(r"\$\{[^}]*\}|\$[A-Za-z_]\w*|\$[0-9@*#?$!-]|^~"),
    ShellDialect.POWERSHELL: LazyPattern(r"(?i)\$\{[^}]*\}|\$(?:env:|script:|global:)?\w+"),
    ShellDialect.BATCH: LazyPattern(r"%~[a-zA-Z]*[0-9]|%[^%\s]+%|![^!\s]+!"),
}
"""A variable's reading in a path (its value is unknown here)."""
_LOG_NAME = LazyPattern(r"(?:^|[._-])(?:logs?|err)(?:$|[._-])")
"""A file named as a log (``install.log``, ``setup.log.1``, ``build_log.txt``, ``pip.err``)."""
_LOG_VARIABLE = LazyPattern(r"(?i:(?:^|_)LOGS?(?:_|FILE|PATH|$)|^LOG)|[a-z]Log(?:[A-Z_]|$)")
"""A variable named as a log's path (``$LOG_FILE``, ``$LOGFILE``, ``$logPath``, ``%LOG%``)."""
_LIST_OPTION = LazyPattern(
    r"""(?i)(?:^|(?<=[\s"'(]))(?:-r|-c|--requirement|--constraint)(?:=|\s+)"""
    r"""("[^"]*"|'[^']*'|[^\s&|;()<>]+)"""
)
_PIP_LINE = LazyPattern(r"(?i)\b(?:pip\w*|uv)\b")


def components(path: str) -> list[str]:
    """The components of a written ``path`` (quotes dropped), in lower case."""
    return re.split(r"[\\/]", path.replace('"', "").replace("'", "").lower())


def lists_handed_to_pip(
    texts: Iterable[str], uncommented: Callable[[str], str] | None = None
) -> frozenset[str]:
    """The last components of the files a script's pip lines take as lists (``-r``, ``-c``...),
    as written (``$REQ``, ``%REQS%`` too: the same variable names the same file); each pip line
    read without its comment where ``uncommented`` cuts it (only those lines: most lines of a
    script name no pip, and cutting a comment walks the line)."""
    return frozenset(
        components(option.group(1))[-1]
        for text in texts
        if _PIP_LINE.search(text) is not None
        for option in _LIST_OPTION.finditer(text if uncommented is None else uncommented(text))
    )


def written_for_reading(target: str, named: frozenset[str], dialect: ShellDialect) -> bool:
    """Whether what is written to ``target`` (as the script spells it) is read: a file pip
    takes as a list in the same script (``named``, from ``lists_handed_to_pip``), or one the
    scan reads by its name; never a device, a log or a document (see the module for a name the
    scan does not know)."""
    parts = components(target.strip())
    devices = _DEVICES[dialect]
    if parts[-1] in devices or "/".join(parts) in devices or not parts[-1]:
        return False
    if parts[-1] in named:
        return True
    variables = _VARIABLE[dialect]
    known = [variables.sub("", part) for part in parts]
    name = known[-1]
    if not name:
        # NOTE: a name that is a variable's alone: judged by what the variable is called
        written = target.replace('"', "").replace("'", "").rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
        if any(_LOG_VARIABLE.search(v.strip("${}%!~:")) for v in variables.findall(written)):
            return False
        return dialect is not ShellDialect.BATCH
    parent = known[-2] if len(known) > 1 else ""
    kind = classify(name, parent, "/".join(known[:-1]))
    if dialect is ShellDialect.BATCH:
        return kind is not None and kind is not FileKind.DOCS
    if kind is FileKind.DOCS or _LOG_NAME.search(name) is not None:
        return False
    if name.endswith((".txt", ".in")):
        return kind is FileKind.REQUIREMENTS
    return True


class ReadTargets:
    """Whether one of the files a script writes to is read (``written_for_reading``), called
    with the targets of one write (none: the console, never read). The lists the script hands
    to pip are found on the first call that needs them: most scripts write to no file."""

    __slots__ = ("_dialect", "_named", "_texts", "_uncommented")

    def __init__(
        self,
        texts: Sequence[str],
        dialect: ShellDialect,
        uncommented: Callable[[str], str] | None = None,
    ) -> None:
        self._texts = texts
        self._dialect = dialect
        self._uncommented = uncommented
        self._named: frozenset[str] | None = None

    def __call__(self, targets: Sequence[str]) -> bool:
        if not targets:
            return False
        if self._named is None:
            self._named = lists_handed_to_pip(self._texts, self._uncommented)
        return any(written_for_reading(t, self._named, self._dialect) for t in targets)
