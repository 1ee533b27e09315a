"""A codemod of ``scan --fix`` declares what it rewrites and plans how; ``CodemodRun`` runs it.

A codemod (``Codemod``) is a declaration: its fix id, a one-line description, the qualified
names it rewrites (``TARGETS``), the words a source must hold for it to have work, and where
it runs among the others (``ORDER``); and one method, ``plan(ctx)``, that decides every edit.
As in LibCST's codemod framework, what it works with is given to it in a context
(``CodemodContext``: the module's names, the records of what it rewrote and refused, an import
editor) instead of being inherited.

``CodemodRun`` is the LibCST transformer that runs one codemod in two steps. ``plan`` runs
once, on the untouched tree with its metadata (scopes, from which qualified names are asked on
demand; positions; an index of nodes and parents): it decides every edit (keyed by the
original node), records a ``Rewrite`` for each and a ``Refusal`` for each place it recognises
but cannot prove equivalent. The traversal then only applies those edits, children first, so
edits nest (a rewritten call inside a rewritten ``with``). Deciding up front is what lets an
import be removed at the top of a file because every use of it further down is rewritten.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Container
from typing import Any, ClassVar

import libcst as cst
from libcst.metadata import PositionProvider, ScopeProvider
from libcst.metadata.base_provider import ProviderT

from ipex_doctor.scan.fix.codemods.context import IPEX_WORDS, CodemodContext
from ipex_doctor.scan.fix.codemods.import_editor import ImportEditor
from ipex_doctor.scan.fix.codemods.layout import TreeIndex
from ipex_doctor.scan.fix.codemods.names import Names
from ipex_doctor.scan.fix.codemods.records import Edit, Records, Refusal, Rewrite
from ipex_doctor.scan.fix.codemods.syntax import code_of, root_name
from ipex_doctor.scan.match.fixable import IPEX_INJECTED, IPEX_PACKAGE, under

__all__ = [
    "CallCodemod",
    "Codemod",
    "CodemodContext",
    "CodemodRun",
    "NameCodemod",
    "Refusal",
    "Rewrite",
]


def is_ipex_only(name: str) -> bool:
    """Whether dotted ``name`` exists only while IPEX is installed and imported."""
    return under(name, (*IPEX_INJECTED, IPEX_PACKAGE))


def _same_line(line: int) -> int:
    return line


class Codemod:
    """One fix id: subclasses declare ``FIX_ID``, ``DESCRIPTION`` (and ``TARGETS``, the
    triggers, ``ORDER`` as they need) and implement ``plan``."""

    FIX_ID: ClassVar[str] = ""
    DESCRIPTION: ClassVar[str] = ""
    """What the fix rewrites, in one line (``kb``, the docs and the rules' errors show it): the
    catalogue of fixes is the codemods themselves (``registry.FIX_CATALOGUE``)."""
    ORDER: ClassVar[int] = 50
    """Where the codemod runs among the others: lower first, ties in fix id order. The rewrites
    of uses give the same code in any order (theirs decides only which of two fixes that both
    need ``import torch`` records adding it); ``ipex-side-effect-import`` runs last (100), so
    it sees the code the others left."""
    TRIGGERS: ClassVar[tuple[str, ...]] = ()
    """Words one of which the source must contain for the codemod to have anything to do (the
    last part of every name it rewrites appears as written, in a use or in the import that
    binds an alias), so a file without them skips the cost of LibCST's metadata."""
    REQUIRES: ClassVar[tuple[str, ...]] = ()
    """Words all of which the source must contain too (``xpu`` for an XPU name: it is spelled
    in the use or in the import)."""
    READS: ClassVar[tuple[str, ...]] = ()
    """What else this codemod's decisions read anywhere in the module (``__all__``, the
    builtins that reach names dynamically, string values): see ``relevant``."""
    TARGETS: ClassVar[tuple[str, ...]] = ()
    """The qualified names a codemod of one old API rewrites (its spellings)."""
    METADATA_DEPENDENCIES: ClassVar[Collection[ProviderT]] = (PositionProvider,)
    """The LibCST metadata its plan reads (``CodemodRun`` resolves it)."""
    SPLICE: ClassVar[bool] = False
    """Whether every edit of this codemod is a call of one of its targets rewritten in place,
    decided by the call's own text and the name ``torch`` alone (a ``CallCodemod``):
    ``fix.splice`` may then plan it without LibCST's tree of the module and apply it as text."""
    QUIET_WITHOUT: ClassVar[tuple[type[ast.AST], ...]] = ()
    """``ast`` node types without one of which (``at_work`` true of it) in the module this
    codemod records and changes nothing: ``fix.splice`` then skips it as it would skip a
    codemod that cannot apply (``()``: no such proof; a codemod with work that does not
    declare ``SPLICE`` makes the splices decline)."""

    @classmethod
    def at_work(cls, node: ast.AST) -> bool:
        """Whether ``node`` (of a ``QUIET_WITHOUT`` type) is one this codemod may record."""
        return True

    @classmethod
    def may_apply(cls, source: Container[str]) -> bool:
        """Whether ``source`` (text, or anything that says which words it holds) can hold
        anything this codemod rewrites or reports."""
        return any(word in source for word in cls.TRIGGERS) and all(
            word in source for word in cls.REQUIRES
        )

    @classmethod
    def relevant(cls) -> frozenset[str]:
        """What a top-level statement spells when this codemod may read it, besides an import
        and the names imports bind (``fix.slice`` keeps those): a name (matched as a whole
        word: the last part of every name it rewrites, its triggers, ``READS``) or other text
        (matched anywhere). A statement that spells none of them is nothing to this codemod:
        no decision of it changes whether the statement is there."""
        targets = (target.rsplit(".", 1)[-1] for target in cls.targets())
        return frozenset((*cls.TRIGGERS, *cls.REQUIRES, *cls.READS, *targets))

    @classmethod
    def targets(cls) -> Collection[str]:
        """The qualified names this codemod rewrites (for pruning their imports); by default
        ``TARGETS``."""
        return cls.TARGETS

    @classmethod
    def prunable(cls, qualified: str) -> bool:
        """Whether an import binding ``qualified`` (a ``from M import X`` or ``import M as Y``)
        goes away once every use of it is rewritten: a name this codemod rewrites, or a module
        only IPEX provides that holds one."""
        targets = cls.targets()
        if qualified in targets:
            return True
        # NOTE: the package itself is not pruned here: ``import intel_extension_for_pytorch``
        # is kept for its side effects, which is ipex-side-effect-import's judgement.
        return (
            qualified != IPEX_PACKAGE
            and is_ipex_only(qualified)
            and any(t.startswith(qualified + ".") for t in targets)
        )

    def keep_import_reason(self, ctx: CodemodContext, module_name: str) -> str | None:
        """Why an import of ``module_name`` must stay although the name it binds is no longer
        used (``None``: it may go). An import from IPEX also loads IPEX, which installs names
        into ``torch``: it stays while the module still uses one of them."""
        if not under(module_name, (IPEX_PACKAGE,)):
            return None
        left = ctx.ipex_uses_left()
        if not left:
            return None
        return f"it also loads IPEX, which {left[0]} still needs"

    def plan(self, ctx: CodemodContext) -> None:
        """Decide every edit and record it (``ctx.records``); called once per run."""
        raise NotImplementedError

    def run(self, original_line: Callable[[int], int] = _same_line) -> CodemodRun:
        """The transformer that plans and applies this codemod (``MetadataWrapper.visit`` it);
        ``original_line`` maps a line of the tree to the user's original line (for the lines a
        reason names in its text)."""
        kind = _ScopedRun if ScopeProvider in self.METADATA_DEPENDENCIES else CodemodRun
        return kind(self, original_line)


class NameCodemod(Codemod):
    """A codemod that resolves names through imports and scopes (all but ``with-and``): the
    metadata that costs the most is computed only for these."""

    METADATA_DEPENDENCIES: ClassVar[Collection[ProviderT]] = (PositionProvider, ScopeProvider)
    READS: ClassVar[tuple[str, ...]] = ("torch", IPEX_PACKAGE, "backend", *sorted(IPEX_WORDS))
    """``torch`` (where the name is bound decides how the fix writes it), and what
    ``ipex_uses_left`` reads: the names IPEX installs into torch and ``backend="ipex"``."""


BARE_GENERATOR = (
    "its argument is a generator expression without parentheses of its own: rewrite by hand"
)
"""Why a call like ``f(x for x in y)`` is left alone (``CallCodemod.refusal``)."""


class CallCodemod(NameCodemod):
    """A codemod that rewrites each call of its targets in place (the callee replaced, an
    argument added, moved or renamed): ``not_called``, ``refusal`` and ``call_edit``
    decide from the call alone, so ``fix.splice`` can reuse them on a call it found with
    ``ast`` (``SPLICE``)."""

    SPLICE: ClassVar[bool] = True

    def plan(self, ctx: CodemodContext) -> None:
        """Plan each call of a target; refuse a use that is not called, a call
        ``call_refusal`` rejects, and one where no name reaches module ``torch``."""
        for node, target in ctx.references({target: target for target in self.targets()}):
            call = ctx.names.call_of(node)
            if call is None:
                ctx.records.refuse(node, self.not_called(code_of(node)))
                continue
            why = self.refusal(call, target)
            if why is not None:
                ctx.records.refuse(call, why)
                continue
            torch = ctx.imports.torch_name(call, root_name(node))
            if torch is None:
                ctx.records.refuse(
                    call, "the name torch means something else here: rewrite by hand"
                )
                continue
            edit, summary = self.call_edit(call, code_of(node), torch, target)
            ctx.records.rewrite(call, edit, summary, consumes=node)

    def refusal(self, call: cst.Call, target: str) -> str | None:
        """Why ``call`` (of ``target``) is left alone: one of the shape every edit breaks, else
        ``call_refusal``'s reason (``None``: it is rewritten)."""
        # NOTE: ``f(x for x in y)``: every edit adds or names an argument, and the generator
        # then needs parentheses of its own, which LibCST does not add (not Python).
        if any(isinstance(arg.value, cst.GeneratorExp) and not arg.value.lpar for arg in call.args):
            return BARE_GENERATOR
        return self.call_refusal(call, target)

    def not_called(self, func: str) -> str:
        """Why a use ``func`` (its code) of a target that is not called is left alone."""
        raise NotImplementedError

    def call_refusal(self, call: cst.Call, target: str) -> str | None:
        """Why ``call`` (of ``target``) cannot be rewritten (``None``: it can)."""
        raise NotImplementedError

    def call_edit(self, call: cst.Call, func: str, torch: str, target: str) -> tuple[Edit, str]:
        """The edit of ``call`` of ``target`` (one ``call_refusal`` accepts; ``func`` is its
        callee's code, ``torch`` a name of module ``torch`` there) and its summary. The edit depends only on
        these: it gives the same code for the call wherever it stands."""
        raise NotImplementedError


class CodemodRun(cst.CSTTransformer):
    """One codemod run on one tree: ``visit_Module`` plans everything (the codemod's ``plan``,
    then the imports its rewrites left unused), ``on_leave`` applies it; what was rewritten and
    refused is in ``records`` afterwards."""

    METADATA_DEPENDENCIES: ClassVar[Collection[ProviderT]] = (PositionProvider,)

    def __init__(self, codemod: Codemod, original_line: Callable[[int], int]) -> None:
        super().__init__()
        self.codemod = codemod
        self.records = Records(codemod.FIX_ID, self._line_of, original_line)
        self._imports: ImportEditor | None = None
        self._on_path: set[cst.CSTNode] | None = None
        """The nodes an edit is in or under (known once planned): only these are visited."""

    def _line_of(self, node: cst.CSTNode) -> int:
        return int(self.get_metadata(PositionProvider, node).start.line)

    def visit_Module(self, node: cst.Module) -> bool:
        """Plan everything before the first edit is applied."""
        index = TreeIndex()
        node.visit(index)
        names = Names(node, index, self.get_metadata)
        imports = self._imports = ImportEditor(names, self.records)
        ctx = CodemodContext(names, self.records, imports)
        codemod = self.codemod
        codemod.plan(ctx)
        if codemod.targets():
            imports.prune_unused(
                codemod.prunable, lambda module: codemod.keep_import_reason(ctx, module)
            )
        # NOTE: with nothing to change, the children are not visited (the costly part);
        # otherwise only the paths down to what changes are (a node elsewhere comes back as
        # it was, and LibCST's rebuilding of every node it visits is most of a pass).
        on_path: set[cst.CSTNode] = {node}
        for changed in (*self.records.edits, *imports.dropped):
            step: cst.CSTNode | None = changed
            while step is not None and step not in on_path:
                on_path.add(step)
                step = index.parents.get(step)
        self._on_path = on_path
        return bool(self.records.edits or imports.changes_anything())

    def on_visit(self, node: cst.CSTNode) -> bool:
        """Visit ``node`` (and its children) only on a path down to a planned edit."""
        on_path = self._on_path
        if on_path is not None and node not in on_path:
            return False
        return super().on_visit(node)

    def on_leave(self, original_node: Any, updated_node: Any) -> Any:
        """Apply the planned edit of ``original_node`` (if any) to its updated form, then the
        planned removals inside blocks and imports."""
        result = super().on_leave(original_node, updated_node)
        edit = self.records.edits.get(original_node)
        if edit is not None:
            result = edit(result)
        imports = self._imports
        assert imports is not None
        if isinstance(original_node, (cst.Import, cst.ImportFrom)) and isinstance(
            result, (cst.Import, cst.ImportFrom)
        ):
            result = imports.prune_aliases(original_node, result)
        elif isinstance(original_node, cst.SimpleStatementSuite) and isinstance(
            result, cst.SimpleStatementSuite
        ):
            result = imports.prune_suite(original_node, result)
        elif isinstance(original_node, cst.IndentedBlock) and isinstance(result, cst.IndentedBlock):
            result = imports.prune_indented(original_node, result)
        elif isinstance(original_node, cst.Module) and isinstance(result, cst.Module):
            result = imports.finish_module(original_node, result)
        return result


class _ScopedRun(CodemodRun):
    """A run that resolves scopes too (for a ``NameCodemod``)."""

    METADATA_DEPENDENCIES: ClassVar[Collection[ProviderT]] = (ScopeProvider,)
