"""What the names of a Python module stand for, and where it uses them: one walk of its ``ast``.

``NameTable.read(tree)`` walks a module once, binding names and collecting the ``Facts`` the
matchers need (name chains, imports, calls, ``with`` items, each with its scope; list and
tuple displays); ``finish()``
then resolves simple assignments. ``resolve(node, scope)`` gives the dotted names an
expression may stand for:

* ``import a.b`` binds ``a``; ``import a.b as x`` binds ``x`` to ``a.b``; ``from a.b import c
  as d`` binds ``d`` to ``a.b.c``: so ``ipex.optimize`` is ``intel_extension_for_pytorch.
  optimize`` after ``import intel_extension_for_pytorch as ipex``;
* attribute chains extend what their base stands for (``amp.autocast`` after ``from torch.xpu
  import amp`` is ``torch.xpu.amp.autocast``);
* ``x = <chain>`` (also annotated) binds ``x`` to what the chain stands for through imports:
  one level; ``y = x.amp`` after it is not followed;
* scopes are Python's: a function or lambda sees its own names, then the enclosing functions'
  and the module's, never a class body's; a name the function binds otherwise (a parameter, a
  loop variable, ``ipex = None``) hides the outer one unless the same scope also imports it;
* bindings are flow-insensitive within a scope: a name imported in ``try`` and set to ``None``
  in ``except ImportError`` still stands for the module, and several imports under one name
  give several candidates (the matchers report the best).

* ``global ipex`` in a function makes its ``import ... as ipex`` bind in the module (the lazy
  import idiom), ``nonlocal`` in the enclosing function.
* a method's receiver (its first parameter, ``self`` or ``cls``; not a static method's):
  what the class's methods assign to its attributes (``self.ipex = ipex`` in ``__init__``,
  also annotated) through their receiver, resolved as a simple assignment is, is what
  ``self.ipex`` stands for in every method of that class and in the functions and lambdas
  inside them (an inner function's own ``self`` hides it). Applications keep an optional
  IPEX on the object that uses it (``self.ipex.optimize(model)`` in a backend class); an
  attribute is bound by whatever the class assigns it, flow-insensitively, as names are.
* a dict of imported things, keyed by string literals (``{"ipex": ipex}``, ``dict(ipex=ipex)``),
  assigned to a name, or returned by a function of the module and assigned from a call of a
  function of that name (``mods = self.import_packages()``): ``mods["ipex"]`` stands for what
  ``ipex`` stood for where the dict was built. Libraries that import optional packages lazily
  hand them around this way (Pruna's ``import_algorithm_packages``); the function is matched
  by its name within the module, as a method called on ``self`` cannot be resolved otherwise.
  A key is bound as the name ``mods['ipex']`` (no identifier looks like it), so scoping and
  ``global`` apply as to any name.

A table may be given the project's own imports of IPEX (``project``, found across files by
``own_aliases``): ``from backend.hardware import ipex``, where that module binds ``ipex`` to
IPEX at its top level, binds ``ipex`` to what it stands for there, relative or absolute; each
such import is named by where its statement starts and the name it imports.

Not followed (the name stays unresolved): star imports, relative imports (the project's own
modules) but for those above, ``__import__`` and ``importlib``, ``getattr`` with a string
(but for a literal name on IPEX's or the oneCCL bindings' module, which ``matches`` reads as
the attribute), attributes of objects but a method's receiver (``engine.ipex`` where another class set it, a base class's attributes in a
subclass), tuple unpacking, function return values (but for the dicts
above), a dict's key that is not a string literal, names no import
binds (a notebook kernel's pre-imported ``torch``; IPEX's alias read so is a pattern's,
``patterns``, not a resolved name). A comprehension's variables are taken as
its function's (``[torch for torch in xs]`` hides the module's ``torch`` in that function).
Strings and comments are never names, so a docstring about ``ipex.optimize`` matches nothing.

Several trees may share one table: a notebook's cells are read in order into the same module
scope, so an import in cell 1 resolves a use in cell 5. A large module may be read in runs of
statements (``readers``): once for the bindings, each run's tree dropped after it, then, after
``finish``, again with ``replay`` for each run's facts, which binds nothing and gives each
function or class the scope the first reading made for it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from typing import NamedTuple, cast

_EMPTY: frozenset[str] = frozenset()


class Scope:
    """A namespace: the module, a function or lambda, or a class body."""

    __slots__ = (
        "assigned",
        "bound",
        "declared",
        "instance",
        "is_class",
        "local",
        "parent",
        "receiver",
    )

    def __init__(self, parent: Scope | None, *, is_class: bool = False) -> None:
        self.parent = parent
        self.is_class = is_class
        self.bound: dict[str, set[str]] = {}
        """Name -> the dotted names it may stand for (imports and resolved assignments)."""
        self.local: set[str] = set()
        """Names bound here in any other way: they hide the enclosing scopes' bindings."""
        self.declared: dict[str, bool] = {}
        """Names declared ``global`` (``True``) or ``nonlocal`` (``False``) here."""
        self.assigned: set[str] = set()
        """Names of ``bound`` that only assignments bind here (no import does)."""
        self.receiver: str | None = None
        """A method's first parameter (``self``, ``cls``): the name its class's attributes are
        read through; ``None`` for any other scope."""
        self.instance: dict[str, set[str]] = {}
        """A class body's attributes that its methods assign through their receiver
        (``self.ipex = ipex``) -> the dotted names they may stand for."""

    def owner(self, name: str, module: Scope) -> Scope:
        """The scope a binding of ``name`` here lands in: this one, or the module for a
        ``global`` name, or the enclosing function for a ``nonlocal`` one."""
        declared = self.declared.get(name)
        if declared is None:
            return self
        if declared:
            return module
        scope = self.parent
        while scope is not None and scope.is_class:
            scope = scope.parent
        return scope or module

    def lookup(self, name: str) -> frozenset[str] | set[str]:
        """What ``name`` may stand for here, by Python's scoping (see the module)."""
        scope: Scope | None = self
        while scope is not None:
            if scope is self or not scope.is_class:
                targets = scope.bound.get(name)
                if targets:
                    return targets
                if name in scope.local:
                    return _EMPTY
            scope = scope.parent
        return _EMPTY

    def class_of(self, name: str) -> Scope | None:
        """The class body whose method this scope is (or lies in: a function or lambda defined
        inside it), where ``name`` is that method's receiver here; else ``None``."""
        scope: Scope | None = self
        while scope is not None and not scope.is_class:
            if scope.receiver is not None:
                return scope.parent if scope.receiver == name else None
            if name in scope.local or name in scope.bound:
                return None  # NOTE: an inner function's own ``self`` hides the method's
            scope = scope.parent
        return None

    def attribute(self, name: str, attribute: str) -> set[str]:
        """What ``name.attribute`` may stand for here: where ``name`` is a method's receiver
        (``class_of``), what that class's methods assign to ``attribute`` through theirs."""
        owner = self.class_of(name)
        return owner.instance.get(attribute, set()) if owner is not None else set()

    def sees_binding(self, name: str) -> bool:
        """Whether some binding of ``name`` (an import, an assignment, a parameter, a
        definition) is visible here, by Python's scoping: a class body's names are seen in the
        body alone."""
        scope: Scope | None = self
        while scope is not None:
            if (scope is self or not scope.is_class) and (
                name in scope.bound or name in scope.local
            ):
                return True
            scope = scope.parent
        return False

    def assigned_only(self, name: str) -> bool:
        """Whether the scope that binds ``name`` here binds it by assignments alone (``qconfig =
        ipex.quantization.default_static_qconfig_mapping``), not by an import."""
        scope: Scope | None = self
        while scope is not None:
            if scope is self or not scope.is_class:
                if scope.bound.get(name):
                    return name in scope.assigned
                if name in scope.local:
                    return False
            scope = scope.parent
        return False

    def unambiguous(self, name: str) -> bool:
        """Whether ``name`` here stands for one imported thing only: the scope that binds it
        binds it once, by one import, and in no other way (``ipex = None`` in an ``except``
        makes it two things, and a rewrite of its uses unsafe)."""
        scope: Scope | None = self
        while scope is not None:
            if scope is self or not scope.is_class:
                targets = scope.bound.get(name)
                if targets:
                    return len(targets) == 1 and name not in scope.local
                if name in scope.local:
                    return False
            scope = scope.parent
        return False

    def runs_at_import(self) -> bool:
        """Whether code in this scope runs while the module is imported (the module or a class
        body in it, not a function)."""
        scope: Scope | None = self
        while scope is not None and scope.parent is not None:
            if not scope.is_class:
                return False
            scope = scope.parent
        return True


Chain = ast.Attribute | ast.Name | ast.Subscript
"""A name chain: a name, attributes of one, or of a dict's key (``mods["ipex"].llm``)."""


def keyed_name(node: ast.expr) -> str | None:
    """The name a dict's key is bound as (``mods['ipex']`` for ``mods["ipex"]``), when
    ``node`` reads a string key of a name; else ``None``."""
    if type(node) is not ast.Subscript:
        return None
    key = node.slice
    if type(node.value) is ast.Name and type(key) is ast.Constant and type(key.value) is str:
        return f"{node.value.id}[{key.value!r}]"
    return None


def chain_base(chain: ast.expr) -> str | None:
    """The name a chain starts at (a name, or a dict's key as ``keyed_name`` spells it)."""
    while type(chain) is ast.Attribute:
        chain = chain.value
    if type(chain) is ast.Name:
        return chain.id
    return keyed_name(chain)


class Facts(NamedTuple):
    """What one tree uses, each with its scope, for the matchers."""

    chains: list[tuple[Chain, Scope]]
    """Outermost name chains (``a``, ``a.b.c``, ``a["k"].b``) that are read or attribute
    targets."""
    imports: list[ast.Import | ast.ImportFrom]
    calls: list[tuple[ast.Call, Scope]]
    withs: list[tuple[ast.withitem, Scope]]
    sequences: list[ast.List | ast.Tuple]
    """List and tuple displays (a command line built as ``["ipexrun", ...]``)."""
    strings: list[ast.Constant | ast.JoinedStr]
    """String literals: ``str`` constants outside f-strings, and whole f-strings."""
    docstrings: list[ast.expr]
    """Strings that are statements of their own (docstrings, strings used as comments)."""
    branches: list[tuple[ast.If | ast.IfExp | ast.BoolOp | ast.Try, Scope]]
    """Conditions and ``try`` statements: what may guard a use."""
    compares: list[ast.Compare]
    dicts: list[ast.Dict]
    messages: list[ast.expr]
    """What ``raise`` raises and what ``assert`` says when it fails."""
    assigns: list[tuple[ast.Assign | ast.AnnAssign, Scope]]
    concatenations: list[ast.BinOp]
    """``+`` with a string literal on one side (a command or requirement joined in pieces)."""
    bodies: list[tuple[list[ast.stmt], Scope]]
    """The statement lists of the tree's module body and of each function, with the scope
    they run in: a statement of one runs before every statement after it there (what an
    assignment of the file's own precedes, ``matches``)."""
    part: int = 0
    """Which part of the file the tree is: 0, or a notebook's 1-based cell."""


ProjectImports = Mapping[tuple[int, int, str], str]
"""The imports of a name from the project's own modules that stand for an outer module: by the
statement's line and column and the name imported, the dotted name it stands for."""


class NameTable:
    """The bindings of one module (one file, or one notebook's cells) and their scopes."""

    def __init__(self, project: ProjectImports | None = None) -> None:
        self.project: ProjectImports = project or {}
        """The project's own imports that stand for an outer module (see the module)."""
        self.module = Scope(None)
        self._scopes: list[Scope] = [self.module]
        self._assignments: list[tuple[Scope, str, ast.expr]] = []
        self._attributes: list[tuple[Scope, Scope, str, ast.expr]] = []
        """Assignments to an attribute of a method's receiver (``self.ipex = ipex``): the
        scope, the class body, the attribute and the value, resolved in ``finish`` after the
        names."""
        self._returns: list[tuple[Scope, ast.expr]] = []
        """Dicts functions return (``return dict(ipex=ipex)``), with the function's scope."""
        self._function_names: dict[Scope, str] = {}
        self.bound_names: frozenset[str] = frozenset()
        self.watched: frozenset[str] = frozenset()
        """Names whose binding anywhere in the module decides a finding elsewhere (IPEX's
        alias read unbound, ``patterns``): ``read_late`` refuses a run that binds one."""
        self.receivers: frozenset[str] = frozenset()
        """The receivers (``self``) of the methods whose class has an attribute that stands
        for something (``Scope.instance``), after ``finish``: a chain on one may resolve."""
        self._bound_otherwise: frozenset[str] | None = None
        """Every name some scope binds (after ``finish``): a chain on any other name resolves
        to nothing, whatever its scope."""
        self._binding = True
        """Whether ``read`` binds (``False`` while it replays, see ``read``)."""
        self._by_place: dict[tuple[int, int], Scope] | None = None
        """The scope of each function, lambda and class by where it starts (line, column), kept
        from the first reading when a later one will replay it."""
        self._returns_dicts = False
        """Whether some function returns a dict (``_bind_keys``): then a call assigned to a
        name may bind keys."""

    def read(self, tree: ast.Module, part: int = 0, *, replay: bool = False) -> Facts:
        """Bind the names ``tree`` (part ``part`` of the file) defines and collect its facts;
        call ``finish`` after the last tree.

        ``replay``: ``tree`` was read (bound) before, into this table, since finished, by a
        table made with ``keep_scopes``: collect its facts again, binding nothing, each node in
        the scope the first reading gave it. The facts are those the first reading gave."""
        # NOTE: this loop visits every node of every file that passed the prefilter, so it is
        # written for speed: dispatch on the exact type, one work list per scope, no generator.
        binding = self._binding = not replay
        if binding:
            self._bound_otherwise = None  # NOTE: known again at the next ``finish``
        facts = Facts([], [], [], [], [], [], [], [], [], [], [], [], [], [], part)
        facts.bodies.append((tree.body, self.module))
        work: list[tuple[list[ast.AST], Scope]] = [(list(tree.body), self.module)]
        while work:
            stack, scope = work.pop()
            while stack:
                node = stack.pop()
                kind = type(node)
                if kind is ast.Name:
                    name = cast(ast.Name, node)
                    if type(name.ctx) is ast.Store:
                        if binding:
                            scope.local.add(name.id)
                    else:
                        facts.chains.append((name, scope))
                    continue
                if kind is ast.Attribute:
                    attribute = cast(ast.Attribute, node)
                    base = attribute.value
                    while type(base) is ast.Attribute:
                        base = base.value
                    if type(base) is ast.Name:
                        facts.chains.append((attribute, scope))
                    elif keyed_name(base) is not None:
                        facts.chains.append((attribute, scope))
                        stack.append(cast(ast.Subscript, base).value)
                        stack.append(cast(ast.Subscript, base).slice)
                    else:
                        stack.append(base)
                    continue
                if kind is ast.Subscript and keyed_name(cast(ast.Subscript, node)) is not None:
                    subscript = cast(ast.Subscript, node)
                    if type(subscript.ctx) is ast.Load:
                        facts.chains.append((subscript, scope))
                    # NOTE: the key is a string literal still (env["ACCELERATE_USE_IPEX"] = ...)
                    stack.append(subscript.value)
                    stack.append(subscript.slice)
                    continue
                if kind is ast.Constant:
                    if type(cast(ast.Constant, node).value) is str:
                        facts.strings.append(cast(ast.Constant, node))
                    continue
                handler = _SPECIAL.get(kind)
                if handler is not None and handler(self, node, scope, facts, stack, work):
                    continue
                for field in _child_fields(kind):
                    value = getattr(node, field)
                    if type(value) is list:
                        stack.extend(value)
                    elif isinstance(value, ast.AST):
                        stack.append(value)
        return facts

    def read_late(self, tree: ast.Module) -> Facts | None:
        """``read`` of ``tree``, a run of a module's top-level statements that the first reading
        left out (``readers``), into this table, finished without it; ``None`` where that could
        differ from reading it before ``finish`` (the caller then reads the module again as
        usual: the table is no longer of use).

        The facts are the same whenever the tree binds nothing another tree's reading depends
        on and nothing ``finish`` would have resolved for it: no import, ``global`` or
        ``nonlocal``; no assignment whose value resolves (it would bind: ``x = torch.xpu``), a
        dict display or ``dict(...)`` (keys), or a call while some function returns a dict;
        no ``return`` of a dict; and no name its scopes bind otherwise (a parameter, a loop
        variable, a ``def``) that some scope of the module binds to an import, or ``torch``
        (``unambiguous`` and ``binds_otherwise`` ask about those: a name only bound locally
        hides nothing). Then the table after it answers every question about the other trees
        as before, and the tree's own names resolve as they would have."""
        scopes, returns = len(self._scopes), len(self._returns)
        module_local, declared = set(self.module.local), dict(self.module.declared)
        otherwise = self._bound_otherwise
        facts = self.read(tree)
        assignments, self._assignments = self._assignments, []
        attributes, self._attributes = self._attributes, []
        new_scopes = self._scopes[scopes:]
        locals_added = {name for scope in new_scopes for name in scope.local}
        locals_added |= self.module.local - module_local
        self._bound_otherwise = otherwise
        if (
            facts.imports
            or len(self._returns) != returns
            or any(scope.declared or scope.bound for scope in new_scopes)
            or self.module.declared != declared
            or not locals_added.isdisjoint(self.bound_names)
            or not locals_added.isdisjoint(self.watched)
            or "torch" in locals_added
            or any(self._binds(scope, value) for scope, _, value in assignments)
            or any(self.resolve(value, scope) for scope, _, _, value in attributes)
        ):
            return None
        if otherwise is not None:
            self._bound_otherwise = otherwise | locals_added
        return facts

    def _binds(self, scope: Scope, value: ast.expr) -> bool:
        """Whether ``finish`` would bind something for an assignment of ``value`` in ``scope``
        (see ``read_late``)."""
        if self.resolve(value, scope) or type(value) is ast.Dict or _dict_call(value):
            return True
        return type(value) is ast.Call and self._returns_dicts

    def keep_scopes(self) -> None:
        """Keep each scope by where its function, lambda or class starts, for a later
        ``read(..., replay=True)`` (before the first ``read``)."""
        self._by_place = {}

    def binds_otherwise(self, name: str) -> bool:
        """Whether some scope binds ``name`` other than by an import (an assignment, a
        parameter, a loop variable, a definition)."""
        if self._bound_otherwise is None:
            # NOTE: asked once per mechanical use; a walk of every scope each time made a
            # module of many functions quadratic (``finish`` fixes the scopes: known after)
            return any(name in scope.local for scope in self._scopes)
        return name in self._bound_otherwise

    def declares(self, name: str) -> bool:
        """Whether some function declares ``name`` ``global`` or ``nonlocal`` (what it then
        binds lands in another scope)."""
        return any(name in scope.declared for scope in self._scopes)

    def finish(self) -> None:
        """Move what ``global`` / ``nonlocal`` names bind to their scope, then resolve the
        simple assignments through the imports only (one level, see the module)."""
        for scope in self._scopes:
            for name in scope.declared:
                owner = scope.owner(name, self.module)
                scope.local.discard(name)
                moved = scope.bound.pop(name, None)
                if moved:
                    owner.bound.setdefault(name, set()).update(moved)
        self._bind_keys()
        resolved = [
            (scope.owner(name, self.module), name, self.resolve(value, scope))
            for scope, name, value in self._assignments
        ]
        for owner, name, targets in resolved:
            if targets:
                if name not in owner.bound or name in owner.assigned:
                    owner.assigned.add(name)
                owner.bound.setdefault(name, set()).update(targets)
        self._assignments.clear()
        held = [
            (owner, attribute, self.resolve(value, scope))
            for scope, owner, attribute, value in self._attributes
        ]
        for owner, attribute, targets in held:
            if targets:
                owner.instance.setdefault(attribute, set()).update(targets)
        self._attributes.clear()
        self.receivers = frozenset(
            scope.receiver
            for scope in self._scopes
            if scope.receiver is not None and scope.parent is not None and scope.parent.instance
        )
        self.bound_names = frozenset(name for scope in self._scopes for name in scope.bound)
        self._bound_otherwise = frozenset(name for scope in self._scopes for name in scope.local)

    def _bind_keys(self) -> None:
        """Bind the string keys of the dicts assigned to a name, directly or from a call of a
        function of the module that returns one, to what their values stand for (see the
        module); before the simple assignments, which may read a key."""
        returned: dict[str, dict[str, set[str]]] = {}
        for scope, value in self._returns:
            function = self._function_names.get(scope)
            if function is not None:
                for key, targets in self._keyed_items(value, scope):
                    returned.setdefault(function, {}).setdefault(key, set()).update(targets)
        self._returns.clear()
        self._returns_dicts = self._returns_dicts or bool(returned)
        for scope, name, value in self._assignments:
            items: list[tuple[str, tuple[str, ...]]] = []
            if type(value) is ast.Call and returned:
                callee = value.func
                called = callee.attr if type(callee) is ast.Attribute else getattr(callee, "id", "")
                items = [(k, tuple(t)) for k, t in returned.get(called, {}).items()]
            else:
                items = list(self._keyed_items(value, scope))
            owner = scope.owner(name, self.module)
            for key, targets in items:
                bound = f"{name}[{key!r}]"
                owner.assigned.add(bound)
                owner.bound.setdefault(bound, set()).update(targets)

    def _keyed_items(self, value: ast.expr, scope: Scope) -> Iterator[tuple[str, tuple[str, ...]]]:
        """(key, what its value stands for) of each item of the dict ``value`` builds with a
        string key (a display or a ``dict(...)`` call) whose value resolves."""
        pairs: list[tuple[str, ast.expr]] = []
        if type(value) is ast.Dict:
            pairs = [
                (k.value, v)
                for k, v in zip(value.keys, value.values, strict=True)
                if type(k) is ast.Constant and type(k.value) is str
            ]
        elif type(value) is ast.Call and _dict_call(value):
            pairs = [(k.arg, k.value) for k in value.keywords if k.arg is not None]
        for key, item in pairs:
            targets = self.resolve(item, scope)
            if targets:
                yield key, targets

    @staticmethod
    def resolve(node: ast.AST, scope: Scope) -> tuple[str, ...]:
        """The dotted names ``node`` may stand for in ``scope``, sorted; ``()`` when it is not a
        name chain or its base is not bound (see the module for what is followed)."""
        attributes: list[str] = []
        while isinstance(node, ast.Attribute):
            attributes.append(node.attr)
            node = node.value
        if isinstance(node, ast.Subscript):
            keyed = keyed_name(node)
            if keyed is None:
                return ()
            bases = scope.lookup(keyed)
        elif isinstance(node, ast.Name):
            bases = scope.lookup(node.id)
            if not bases and attributes:
                bases = scope.attribute(node.id, attributes[-1])
                if bases:
                    attributes.pop()
        else:
            return ()
        if not bases:
            return ()
        suffix = "".join("." + attribute for attribute in reversed(attributes))
        if len(bases) == 1:
            return (next(iter(bases)) + suffix,)
        return tuple(sorted(base + suffix for base in bases))

    def _scope(self, node: ast.AST, parent: Scope, *, is_class: bool = False) -> Scope:
        """The scope of ``node`` (a function, lambda or class) in ``parent``: a new one, or
        while replaying the one the first reading made."""
        place = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if not self._binding:
            assert self._by_place is not None, "replay needs keep_scopes"
            return self._by_place[place]
        scope = Scope(parent, is_class=is_class)
        self._scopes.append(scope)
        if self._by_place is not None:
            # NOTE: no two such nodes start at one place (each starts with its own keyword)
            self._by_place[place] = scope
        return scope


_Stack = list[ast.AST]
_Work = list[tuple[list[ast.AST], Scope]]


def _import(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.Import | ast.ImportFrom)
    if table._binding:
        _bind_import(node, scope, table.project)
    facts.imports.append(node)
    return True


def _function(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    inner = table._scope(node, scope)
    binding = table._binding
    arguments = node.args
    parameters = [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        *(a for a in (arguments.vararg, arguments.kwarg) if a is not None),
    ]
    if binding:
        inner.local.update(a.arg for a in parameters)
    stack.extend(arguments.defaults)
    stack.extend(d for d in arguments.kw_defaults if d is not None)
    if isinstance(node, ast.Lambda):
        work.append(([node.body], inner))
        return True
    if binding:
        scope.local.add(node.name)
        table._function_names[inner] = node.name
        if scope.is_class and parameters[:1] == [*arguments.posonlyargs, *arguments.args][:1]:
            if parameters and not any(_names_staticmethod(d) for d in node.decorator_list):
                inner.receiver = parameters[0].arg
    stack.extend(node.decorator_list)
    stack.extend(a.annotation for a in parameters if a.annotation is not None)
    if node.returns is not None:
        stack.append(node.returns)
    facts.bodies.append((node.body, inner))
    work.append((list(node.body), inner))
    return True


def _class(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.ClassDef)
    if table._binding:
        scope.local.add(node.name)
    stack.extend(node.decorator_list)
    stack.extend(node.bases)
    stack.extend(k.value for k in node.keywords)
    work.append((list(node.body), table._scope(node, scope, is_class=True)))
    return True


def _call(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.Call)
    facts.calls.append((node, scope))
    return False


def _sequence(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.List | ast.Tuple)
    facts.sequences.append(node)
    return False


def _withitem(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.withitem)
    facts.withs.append((node, scope))
    return False


def _assign(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.Assign | ast.AnnAssign)
    facts.assigns.append((node, scope))
    if not table._binding:
        return False
    if isinstance(node, ast.Assign):
        if len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
            table._assignments.append((scope, node.targets[0].id, node.value))
        elif len(node.targets) == 1 and type(node.targets[0]) is ast.Attribute:
            _assign_attribute(table, node.targets[0], node.value, scope)
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        if type(node.target) is ast.Name:
            table._assignments.append((scope, node.target.id, node.value))
        elif type(node.target) is ast.Attribute:
            _assign_attribute(table, node.target, node.value, scope)
    return False


def _assign_attribute(
    table: NameTable, target: ast.Attribute, value: ast.expr, scope: Scope
) -> None:
    """Keep ``self.x = value`` (``self`` a method's receiver) for ``finish``."""
    if type(target.value) is ast.Name:
        owner = scope.class_of(target.value.id)
        if owner is not None:
            table._attributes.append((scope, owner, target.attr, value))


def _return(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.Return)
    value = node.value
    if table._binding and (type(value) is ast.Dict or _dict_call(value)):
        assert value is not None
        table._returns.append((scope, value))
    return False


def _names_staticmethod(decorator: ast.expr) -> bool:
    """Whether ``decorator`` is ``staticmethod`` (a method with no receiver)."""
    return (type(decorator) is ast.Name and decorator.id == "staticmethod") or (
        type(decorator) is ast.Attribute and decorator.attr == "staticmethod"
    )


def _dict_call(node: ast.AST | None) -> bool:
    """Whether ``node`` is ``dict(...)``."""
    return type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "dict"


def _except(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.ExceptHandler)
    if node.name and table._binding:
        scope.local.add(node.name)
    return False


def _expression_statement(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.Expr)
    value = node.value
    if type(value) is ast.JoinedStr or (type(value) is ast.Constant and type(value.value) is str):
        facts.docstrings.append(value)
        return True  # NOTE: a string statement runs nothing; an f-string's names, at most
    return False


def _fstring(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.JoinedStr)
    facts.strings.append(node)
    # NOTE: the literal parts belong to the f-string (one string); only the expressions inside
    # hold names.
    for value in node.values:
        if isinstance(value, ast.FormattedValue):
            stack.append(value.value)
            if value.format_spec is not None:
                stack.append(value.format_spec)
    return True


def _branch(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.If | ast.IfExp | ast.BoolOp | ast.Try)
    facts.branches.append((node, scope))
    return False


def _compare_or_dict(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    if isinstance(node, ast.Compare):
        facts.compares.append(node)
    else:
        assert isinstance(node, ast.Dict)
        facts.dicts.append(node)
    return False


def _message(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    if isinstance(node, ast.Raise):
        if node.exc is not None:
            facts.messages.append(node.exc)
    elif isinstance(node, ast.Assert) and node.msg is not None:
        facts.messages.append(node.msg)
    return False


def _concatenation(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.BinOp)
    if type(node.op) is ast.Add and (
        type(node.left) in _STRING_NODES or type(node.right) in _STRING_NODES
    ):
        facts.concatenations.append(node)
    return False


_STRING_NODES = (ast.Constant, ast.JoinedStr, ast.BinOp)
"""What a ``+`` of strings may have on a side (a ``BinOp``: the rest of a longer chain)."""


def _declaration(
    table: NameTable, node: ast.AST, scope: Scope, facts: Facts, stack: _Stack, work: _Work
) -> bool:
    assert isinstance(node, ast.Global | ast.Nonlocal)
    if table._binding:
        scope.declared.update(dict.fromkeys(node.names, isinstance(node, ast.Global)))
    return True


_SPECIAL = {
    ast.Import: _import,
    ast.ImportFrom: _import,
    ast.FunctionDef: _function,
    ast.AsyncFunctionDef: _function,
    ast.Lambda: _function,
    ast.ClassDef: _class,
    ast.Call: _call,
    ast.withitem: _withitem,
    ast.List: _sequence,
    ast.Tuple: _sequence,
    ast.Assign: _assign,
    ast.AnnAssign: _assign,
    ast.ExceptHandler: _except,
    ast.Return: _return,
    ast.Global: _declaration,
    ast.Nonlocal: _declaration,
    ast.Expr: _expression_statement,
    ast.JoinedStr: _fstring,
    ast.If: _branch,
    ast.IfExp: _branch,
    ast.BoolOp: _branch,
    ast.Try: _branch,
    ast.Compare: _compare_or_dict,
    ast.Dict: _compare_or_dict,
    ast.Raise: _message,
    ast.Assert: _message,
    ast.BinOp: _concatenation,
}
"""The node types that bind, open a scope or are a fact; ``True``: their children are done."""

_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_NOT_CHILDREN = frozenset({"ctx", "op", "ops", "type_ignores"})
"""Fields that hold only expression contexts and operators: never a name."""


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of node type ``kind`` that may hold nodes (anything else has none)."""
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        names: tuple[str, ...] = getattr(kind, "_fields", ())
        fields = _CHILD_FIELDS[kind] = tuple(f for f in names if f not in _NOT_CHILDREN)
    return fields


def _bind_import(node: ast.Import | ast.ImportFrom, scope: Scope, project: ProjectImports) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                scope.bound.setdefault(alias.asname, set()).add(alias.name)
            else:
                top = alias.name.split(".", 1)[0]
                scope.bound.setdefault(top, set()).add(top)
        return
    for alias in node.names:
        if alias.name == "*":
            continue
        name = alias.asname or alias.name
        outer = project.get((node.lineno, node.col_offset, alias.name)) if project else None
        if outer is not None:
            scope.bound.setdefault(name, set()).add(outer)
        elif node.level or not node.module:
            scope.local.add(name)  # NOTE: the project's own modules: not followed
        else:
            scope.bound.setdefault(name, set()).add(f"{node.module}.{alias.name}")


def imported_modules(
    node: ast.Import | ast.ImportFrom, project: ProjectImports | None = None
) -> Iterator[tuple[str, ast.AST]]:
    """The modules an import statement may load, each with the node to report it at: every
    ``import`` alias; for ``from m import n``, ``m`` at the statement and ``m.n`` at the alias
    (``n`` may be a submodule). Relative imports load the project's own modules: none, but for
    a name of ``project`` (what the project module it comes from bound to an outer module: that
    module, at the alias)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, alias
        return
    if project:
        for alias in node.names:
            outer = project.get((node.lineno, node.col_offset, alias.name))
            if outer is not None:
                yield outer, alias
    if node.level or not node.module:
        return
    yield node.module, node
    for alias in node.names:
        if alias.name != "*":
            yield f"{node.module}.{alias.name}", alias
