"""A project's own command-line flags that name IPEX, told apart from transformers' and
accelerate's.

``--use-ipex`` on a shell line is transformers' argument when the script it runs hands its
arguments to ``HfArgumentParser`` (``TrainingArguments.use_ipex``), and so is ``--ipex`` after
``accelerate launch``; but a project's script may declare the flag itself (DLRM's
``parser.add_argument("--use-ipex", action="store_true")``), and then the flag is the project's
own switch to its IPEX path. That switch is not reported: the IPEX path it selects is reported
where the script takes it (its import, its calls, with their advice), and the flag goes with
that path; reporting it as transformers' argument would give advice that is false of it.

Two halves, one for each pass of a scan:

* ``declared_flags``, while each Python file's bytes are read (before any prefilter: a script
  that only declares a flag may import nothing of IPEX): the options naming IPEX that it
  declares, by argparse's ``add_argument`` or click's and typer's ``option``. A search of the
  bytes, made only where they contain ``ipex``: one ``bytes`` search for every other file;
* ``without_own_flags``, once every file is read: each finding of a flag rule on a command
  that runs a script of the scanned tree (``python path/x.py``, ``torchrun ... x.py``,
  ``python -m pkg.x``) that declares that flag is dropped. The script is the last one the
  command names before the flag (continued lines included); a flag given to a shell script
  (``startup.sh --use-ipex``) is that script's own; a flag before the script is the
  launcher's; a line that runs none (``ARGS="$ARGS --use-ipex"``) is judged by the scripts
  its file runs. A script is looked up by the literal
  tail of its path (after the last variable), nearest the command's file first. A flag on a
  command whose script is in the tree and does not declare it stays transformers'; on one
  whose ``.py`` script the tree does not hold (renamed or generated since), it is the
  project's where a Python file of the tree declares that very flag, else transformers'.

NOTE: a dataclass field parsed by ``HfArgumentParser`` is not a declaration here: the field
``use_ipex`` is transformers' own (``TrainingArguments``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from ipex_doctor.lazy_pattern import LazyPattern
from ipex_doctor.model.code import CodeMatch
from ipex_doctor.scan.match.cross_file import FLAG_RULES
from ipex_doctor.scan.match.triggers import Probe

_QUOTED = rb"""[rRbBuU]?(?:"[^"\\\n]*"|'[^'\\\n]*')"""
_DECLARATION = re.compile(
    rb"\b(?:add_argument|option|Option)\(\s*((?:" + _QUOTED + rb"\s*,\s*)*" + _QUOTED + rb")"
)
"""A call that declares options: its leading positional string literals (the option names;
keyword arguments such as ``help=`` come after them)."""
_NAME = LazyPattern(rb"""["']([^"']*)["']""")
_FLAG_AT_END = LazyPattern(r"--?[\w-]+$")
_SCRIPT = LazyPattern(
    r"""(?:^|(?<=[\s"'=:]))(?P<path>[^\s"'`;&|<>()]*\.py)(?=$|[\s"'`;&|)])"""
    r"""|(?:^|(?<=\s))-m\s+(?P<module>[A-Za-z_][\w.]*)"""
    r"""|(?:^|(?<=[\s"'=:/]))(?P<shell>[\w.-]+\.(?:sh|bash|bat|cmd|ps1))(?=$|[\s"'`;&|)])"""
)
"""A script a command runs: a path ending in ``.py``, the module of ``-m``, or a shell
script."""
_CONTINUED = ("\\", "`")
"""Line continuations: POSIX shells and Dockerfiles, PowerShell."""


def declared_flags(data: bytes, probe: Probe | None = None) -> tuple[str, ...]:
    """The options naming IPEX (``--use-ipex``, ``--ipex``, click's ``--ipex/--no-ipex`` as
    both) that the Python source in ``data`` declares; ``()`` for almost every file.

    ``probe``, a ``Probe`` of ``data`` the prefilter has asked already, answers whether the
    bytes hold ``ipex`` at all from its one pass (``ipex`` is an anchor of the Python
    prefilter); without it, a search of the bytes (``bytes`` search: 9 ms of a 0.3 s scan of
    a vLLM-based tree of 1,444 Python files, all spent on files without the word)."""
    if not (probe.has(b"ipex") if probe is not None else b"ipex" in data):
        return ()
    flags: set[str] = set()
    for declaration in _DECLARATION.finditer(data):
        for quoted in _NAME.finditer(declaration.group(1)):
            for name in quoted.group(1).decode("utf-8", "replace").split("/"):
                name = name.strip()
                if name.startswith("-") and "ipex" in name.lower():
                    flags.add(name)
    return tuple(sorted(flags))


def without_own_flags(
    matches: Sequence[CodeMatch],
    declared: Mapping[str, tuple[str, ...]],
    python_files: Iterable[str],
    lines_of: Callable[[str], Sequence[str] | None],
) -> list[CodeMatch]:
    """``matches`` less the findings of a flag rule where the flag is the project's own.

    ``declared``: each Python file's declared flags (``declared_flags``), by its path in the
    results; ``python_files``: the paths of every Python file of the tree; ``lines_of``: the
    lines of the file at a path in the results, or ``None`` when it cannot be read again (its
    findings then stay as they are)."""
    if not any(match.rule_id in FLAG_RULES for match in matches):
        return list(matches)
    index = _ScriptIndex(python_files, declared)
    kept: list[CodeMatch] = []
    files: dict[str, Sequence[str] | None] = {}
    for match in matches:
        if match.rule_id in FLAG_RULES:
            flag = _FLAG_AT_END.search(match.symbol)
            if flag is not None and _own(match, flag.group(0), index, files, lines_of):
                continue
        kept.append(match)
    return kept


def _own(
    match: CodeMatch,
    flag: str,
    index: _ScriptIndex,
    files: dict[str, Sequence[str] | None],
    lines_of: Callable[[str], Sequence[str] | None],
) -> bool:
    """Whether ``flag`` at ``match`` is declared by the script its command runs."""
    at = match.location
    lines: Sequence[str] | None
    if at.cell is not None:  # a notebook's shell line: the line alone
        lines, line = [match.snippet], 1
    else:
        if at.path not in files:
            files[at.path] = lines_of(at.path)
        lines, line = files[at.path], at.line
    if not lines or not 0 < line <= len(lines):
        return False
    column = (at.end_column or len(lines[line - 1])) - len(flag) if not at.end_line else 0
    first = line
    while first > 1 and lines[first - 2].rstrip().endswith(_CONTINUED):
        first -= 1
    before = "\n".join([*lines[first - 1 : line - 1], lines[line - 1][: max(column, 0)]])
    scripts = list(_SCRIPT.finditer(before))
    if scripts and scripts[-1]["shell"]:
        # NOTE: a flag given to a shell script (a web UI's webui.sh, an image's startup.sh) is
        # that script's interface, the project's: transformers reads its argument only where
        # a Python script hands it to HfArgumentParser
        return True
    if scripts:
        reference = _reference(scripts[-1])
        if scripts[-1]["path"] and reference and not index.holds(reference):
            # NOTE: a script the tree does not hold (renamed since, as embedding_eval's
            # embedding_bench.py became main.py) cannot say whose the flag is; a tree that
            # declares that very flag itself can
            return index.declared_anywhere(flag)
        return index.declares(reference, at.path, flag)
    if _SCRIPT.search(lines[line - 1], max(column, 0)):
        return False  # before the script: the launcher's own option (accelerate launch --ipex)
    every = (_reference(found) for text in lines for found in _SCRIPT.finditer(text))
    return any(index.declares(script, at.path, flag) for script in every if script)


def _reference(found: re.Match[str]) -> tuple[str, ...]:
    """The paths a script reference can be, as their literal tails: ``${DIR}/models/x.py`` is
    ``models/x.py``; ``-m pkg.x`` is ``pkg/x.py`` or ``pkg/x/__main__.py``."""
    if found["shell"]:
        return ()
    if found["module"]:
        path = found["module"].replace(".", "/")
        return (f"{path}.py", f"{path}/__main__.py")
    tail: list[str] = []
    for part in reversed(found["path"].replace("\\", "/").split("/")):
        if not part or part in (".", "..") or any(c in part for c in "${}%~"):
            break
        tail.append(part)
    return ("/".join(reversed(tail)),) if tail else ()


class _ScriptIndex:
    """The tree's Python files by name, to find the script a command runs."""

    def __init__(self, python_files: Iterable[str], declared: Mapping[str, tuple[str, ...]]):
        self._by_name: dict[str, list[str]] = {}
        for path in python_files:
            self._by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        self._declared = declared

    def holds(self, reference: tuple[str, ...]) -> bool:
        """Whether some file of the tree is the script ``reference`` names."""
        return any(self._paths(reference))

    def declared_anywhere(self, flag: str) -> bool:
        """Whether some Python file of the tree declares ``flag``."""
        return any(flag in flags for flags in self._declared.values())

    def _paths(self, reference: tuple[str, ...]) -> list[str]:
        return [
            path
            for tail in reference
            for path in self._by_name.get(tail.rsplit("/", 1)[-1], ())
            if path == tail or path.endswith("/" + tail)
        ]

    def declares(self, reference: tuple[str, ...], command_file: str, flag: str) -> bool:
        """Whether the script ``reference`` names, as seen from ``command_file``, declares
        ``flag``: of the tree's files whose path ends with the reference, those nearest the
        command's file (the most leading directories in common) decide."""
        paths = self._paths(reference)
        if not paths:
            return False
        here = command_file.split("/")[:-1]
        nearness = {path: _common(here, path.split("/")[:-1]) for path in paths}
        nearest = max(nearness.values())
        return any(
            flag in self._declared.get(path, ()) for path in paths if nearness[path] == nearest
        )


def _common(one: list[str], other: list[str]) -> int:
    """How many leading directories two paths share."""
    count = 0
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        count += 1
    return count
