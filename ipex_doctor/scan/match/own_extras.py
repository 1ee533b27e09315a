"""A project's own extras that pull IPEX: ``pip install pruna[intel]`` installs IPEX where
the tree's own ``pyproject.toml`` declares ``intel = ["intel-extension-for-pytorch>=2.7.0"]``.

The requirement rules match IPEX's own names; an install of the project's extra names none of
them, yet pulls IPEX as surely. Whether it does is a fact of the tree's own metadata, read
exactly (never guessed from the extra's name: Pruna's ``cpu`` extra is empty). Two halves, one
for each pass of a scan:

* ``ipex_extras``, while a ``pyproject.toml`` (PEP 621 ``[project]``) or ``setup.cfg``
  (``[options.extras_require]``) is read: the project's name with each extra of it that
  requires IPEX or the oneCCL bindings, directly or through another of its own extras
  (``full = ["pruna[intel]"]``), as ``name[extra]``; ``()`` for almost every file (one
  ``bytes`` search). ``setup.py`` is code, not metadata: its extras are not derived.
* ``extras_rules``, once every file is read and some metadata declared such an extra: the
  requirement rules (``ipex-requirement`` for requirement, shell and metadata files,
  ``ipex-install-string`` for Python strings and notebooks), their patterns replaced by the
  extras' spellings and everything else (``when``, ``unless``, the kinds they read) as
  written: a message or a test mark that names the extra installs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from ipex_doctor.knowledge.code_rules import CodeRule, CodeRules

IPEX_DISTRIBUTIONS = frozenset({"intel-extension-for-pytorch", "oneccl-bind-pt"})
"""The distributions (canonical names) whose requirement makes an extra IPEX's."""
EXTRAS_RULES = ("ipex-requirement", "ipex-install-string")
"""The rules that read an install of the project's IPEX extras."""
_TRIGGER = re.compile(rb"(?i)intel[-_.]extension[-_.]for[-_.]pytorch|oneccl[-_.]bind[-_.]pt")


def ipex_extras(data: bytes, name: str) -> tuple[str, ...]:
    """``name[extra]`` for each extra that the metadata file ``data`` (called ``name``:
    ``pyproject.toml`` or ``setup.cfg``) declares and that pulls IPEX; ``()`` when it declares
    none, or cannot be read as its format (the file's own findings say the rest)."""
    lowered = name.lower()
    if lowered not in ("pyproject.toml", "setup.cfg") or _TRIGGER.search(data) is None:
        return ()
    declared = _pyproject(data) if lowered == "pyproject.toml" else _setup_cfg(data)
    if declared is None:
        return ()
    project, extras = declared
    return tuple(f"{project}[{extra}]" for extra in _pulling_ipex(project, extras))


def extras_rules(rules: CodeRules, spellings: Iterable[str]) -> CodeRules:
    """The requirement rules of ``rules`` with their patterns replaced by ``spellings``
    (``name[extra]``, as ``ipex_extras`` gives them)."""
    patterns = tuple(sorted({_pattern(spelling) for spelling in spellings}))
    derived: list[CodeRule] = [
        replace(rule, match=replace(rule.match, text=patterns), fix=None)
        for rule in rules.rules
        if rule.id in EXTRAS_RULES
    ]
    return CodeRules(rules=tuple(derived))


def _pattern(spelling: str) -> str:
    """A regex for a requirement of ``name[extra]``: the name's separators and case as pip
    takes them, the extra among others in the brackets (``pruna[dev, intel]``)."""
    name, extra = spelling[:-1].split("[", 1)
    sep = r"[-_.]"
    written = sep.join(re.escape(part) for part in re.split(r"[-_.]", name))
    wanted = sep.join(re.escape(part) for part in re.split(r"[-_.]", extra))
    return rf"(?i)(?<![\w./-]){written}\s*\[(?:[^\]\n]*,)?\s*{wanted}\s*(?:,[^\]\n]*)?\]"


def _canonical(name: str) -> str:
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


def _pulling_ipex(project: str, extras: Mapping[str, Sequence[str]]) -> list[str]:
    """The extras (canonical names) of ``project`` that require IPEX, directly or through
    another of its own extras, sorted."""
    from packaging.requirements import InvalidRequirement, Requirement

    direct: dict[str, bool] = {}
    through: dict[str, set[str]] = {}
    for extra, requirements in extras.items():
        key = _canonical(extra)
        for text in requirements:
            try:
                requirement = Requirement(text)
            except InvalidRequirement:
                continue  # NOTE: not a requirement pip would take: it pulls nothing
            named = _canonical(requirement.name)
            if named in IPEX_DISTRIBUTIONS:
                direct[key] = True
            elif named == project:
                through.setdefault(key, set()).update(map(_canonical, requirement.extras))
    pulling = {extra for extra, yes in direct.items() if yes}
    grew = True
    while grew:  # NOTE: an extra of extras (full = ["pruna[intel]"]) pulls what they pull
        grew = False
        for extra, others in through.items():
            if extra not in pulling and others & pulling:
                pulling.add(extra)
                grew = True
    return sorted(pulling)


def _pyproject(data: bytes) -> tuple[str, dict[str, list[str]]] | None:
    try:
        import tomllib
    except ImportError:  # NOTE: Python 3.10 has no TOML reader; the fact is then not derived
        return None
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    project = document.get("project")
    if not isinstance(project, dict) or not isinstance(project.get("name"), str):
        return None
    extras = project.get("optional-dependencies")
    if not isinstance(extras, dict):
        return None
    listed = {
        str(extra): [item for item in items if isinstance(item, str)]
        for extra, items in extras.items()
        if isinstance(items, list)
    }
    return _canonical(project["name"]), listed


def _setup_cfg(data: bytes) -> tuple[str, dict[str, list[str]]] | None:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(data.decode("utf-8"))
    except (UnicodeDecodeError, configparser.Error):
        return None
    name = parser.get("metadata", "name", fallback="").strip()
    if not name or not parser.has_section("options.extras_require"):
        return None
    listed = {
        extra: [line.strip() for line in value.splitlines() if line.strip()]
        for extra, value in parser.items("options.extras_require")
    }
    return _canonical(name), listed
