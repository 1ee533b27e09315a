"""The package's rooms and their one-way arrows, checked on the real import graph.

Rooms, from the bottom up (a room may import the rooms below it, never one above):

    foundation (errors, resources, atomic, usage_rules, lazy_pattern) < model < knowledge < scan < probe < verdicts < runs < reporting < app < cli

Every ``import`` counts, at module level or inside a function, and those under
``if TYPE_CHECKING:`` too: a type-only arrow is still an arrow of the design; ``from P import
m`` is an arrow to the package ``P`` as well as to ``P.m`` (it runs ``P/__init__``). Modules
must not import each other in a cycle, inside a room or across rooms, nor in a cycle of the
imports that run when a module is imported (module level, outside ``TYPE_CHECKING``). Scripts that run inside the
examined interpreter (``probe/scripts/``) import nothing of the package at all.

``scan`` has rooms of its own, by the same rule: read < match < fix < the engine (the modules
at ``scan``'s top: the engine, the readers that join reading to matching, the outcome cache).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "ipex_doctor"
ROOMS = (
    "foundation",
    "model",
    "knowledge",
    "scan",
    "probe",
    "verdicts",
    "runs",
    "reporting",
    "app",
    "cli",
)
SCAN_ROOMS = ("read", "match", "fix", "engine")
FOUNDATION = {
    "ipex_doctor",
    "ipex_doctor.atomic",
    "ipex_doctor.bounded_json",
    "ipex_doctor.errors",
    "ipex_doctor.lazy_pattern",
    "ipex_doctor.private_state",
    "ipex_doctor.regex_literals",
    "ipex_doctor.resources",
    "ipex_doctor.secret_shapes",
    "ipex_doctor.start_up",
    "ipex_doctor.usage_rules",
    "ipex_doctor.__main__",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _room(module: str) -> str:
    if module in FOUNDATION:
        return "foundation" if module != "ipex_doctor.__main__" else "cli"
    return module.split(".")[1]


def _imports(path: Path, *, module_level: bool = False) -> set[str]:
    """Every ipex_doctor module ``path`` imports (``from a import b``: a, and a.b if a module);
    with ``module_level``, only those its import runs (not in functions or TYPE_CHECKING)."""
    modules = {_module_name(p) for p in PACKAGE.rglob("*.py")}
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in _run_on_import(tree.body) if module_level else ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            names = [node.module, *(n for n in names if n in modules)]
        else:
            continue
        found.update(n for n in names if n.startswith("ipex_doctor"))
    return found


def _run_on_import(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The import statements of ``body`` that run when the module is imported."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            type_only = isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            yield from _run_on_import(node.orelse if type_only else [*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                yield from _run_on_import(block)


def _graph(*, module_level: bool = False) -> dict[str, set[str]]:
    return {
        _module_name(path): _imports(path, module_level=module_level) - {_module_name(path)}
        for path in PACKAGE.rglob("*.py")
        if "scripts" not in path.parts
    }


def _scan_room(module: str) -> str:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[2] in SCAN_ROOMS[:-1] else "engine"


def _scan_arrows_up(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{module} ({_scan_room(module)}) imports {target} ({_scan_room(target)})"
        for module, targets in graph.items()
        if _room(module) == "scan"
        for target in targets
        if _room(target) == "scan"
        and SCAN_ROOMS.index(_scan_room(target)) > SCAN_ROOMS.index(_scan_room(module))
    ]


def test_every_module_belongs_to_a_room() -> None:
    """No module sits outside the rooms (the tree is the architecture diagram)."""
    assert {_room(m) for m in _graph()} <= set(ROOMS)


def test_no_arrow_points_up() -> None:
    """A room imports only rooms below it (or itself)."""
    upward = [
        f"{module} ({_room(module)}) imports {target} ({_room(target)})"
        for module, targets in _graph().items()
        for target in targets
        if ROOMS.index(_room(target)) > ROOMS.index(_room(module))
    ]
    assert not upward, "\n".join(upward)


def test_no_arrow_points_up_inside_scan() -> None:
    """Inside ``scan``, ``read`` imports no other room of it, ``match`` only ``read``, ``fix``
    only those two; none of them imports the engine at ``scan``'s top (nor the package, whose
    ``__init__`` runs the engine)."""
    graph = _graph()
    assert {_scan_room(m) for m in graph if _room(m) == "scan"} == set(SCAN_ROOMS)
    upward = _scan_arrows_up(graph)
    assert not upward, "\n".join(upward)


def test_an_arrow_up_inside_scan_is_seen() -> None:
    """The check above reads the rooms of the real module names: an arrow from ``read`` to
    ``match`` or ``fix``, or from ``match`` to ``fix``, is named."""
    graph = {
        "ipex_doctor.scan.read.kinds": {"ipex_doctor.scan.match.ruleset"},
        "ipex_doctor.scan.match.ruleset": {"ipex_doctor.scan.fix.codemods.base"},
        "ipex_doctor.scan.fix.run": {"ipex_doctor.scan"},
        "ipex_doctor.scan.engine": {"ipex_doctor.scan.fix.run", "ipex_doctor.scan.read.kinds"},
    }
    assert len(_scan_arrows_up(graph)) == 3


@pytest.mark.parametrize("module_level", [False, True], ids=["every-import", "module-level"])
def test_no_import_cycle(module_level: bool) -> None:
    """The module graph is acyclic (a depth-first search finds no back edge), package
    ``__init__`` modules included, for every import and for those run on import."""
    graph = _graph(module_level=module_level)
    state: dict[str, int] = {}
    cycles: list[str] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not cycles, "\n".join(cycles)


def test_scripts_import_nothing_of_the_package() -> None:
    """probe/scripts run inside the examined interpreter: standard library and torch only."""
    for path in (PACKAGE / "probe" / "scripts").glob("*.py"):
        assert not _imports(path), path


def test_the_readme_room_table_is_the_tree() -> None:
    """The README's room table names every room, in the order of the arrows, and nothing else."""
    readme = (REPO / "README.md").read_text()
    table = readme[readme.index("| room | owns |") :].split("\n\n", 1)[0]
    rows = [line.split("|")[1].strip() for line in table.splitlines()[2:]]
    named = [
        "foundation" if row.startswith("`errors.py`") else row.strip("`").rstrip("/")
        for row in rows
    ]
    assert named == list(ROOMS)
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(ROOMS) - {"foundation"}
    foundation = {p.name for p in PACKAGE.glob("*.py")} - {"__init__.py", "__main__.py"}
    assert {f"`{name}`" for name in foundation} == set(rows[0].split(", "))
