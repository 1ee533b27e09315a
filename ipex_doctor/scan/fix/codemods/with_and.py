"""The ``with-and`` fix: ``with a() and b():`` -> ``with a(), b():``."""

from __future__ import annotations

import ast

import libcst as cst

from ipex_doctor.scan.fix.codemods.base import Codemod, CodemodContext
from ipex_doctor.scan.fix.codemods.syntax import code_of


def _and_operands(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The operands of an unparenthesized ``x and y and ...`` chain, else ``None``."""
    if not isinstance(node, cst.BooleanOperation) or not isinstance(node.operator, cst.And):
        return None
    if node.lpar:
        return None
    left = _and_operands(node.left)
    return [*(left if left is not None else [node.left]), node.right]


class WithAnd(Codemod):
    """``with-and``: ``with a() and b():`` -> ``with a(), b():`` (also ``async with``, and
    any number of operands).

    ``a() and b()`` is one expression: when ``a()`` is truthy (a context manager object is),
    only ``b()`` is entered, so ``a()``'s context never applies; this is a bug, not a style,
    and the rewrite changes behaviour on purpose: it enters every context manager, as the
    author meant. That intent is only clear when every operand is a call (``with
    torch.no_grad() and torch.autocast("xpu"):``); ``with x and y:`` of names may be meant as
    written and is left alone, as is an ``and`` in parentheses. An ``as`` target stays on the
    last manager, which is the object it was bound to before.
    """

    FIX_ID = "with-and"
    ORDER = 30
    DESCRIPTION = "with a() and b(): -> with a(), b():"
    TRIGGERS = ("and",)
    REQUIRES = ("with",)
    # NOTE: a Codemod, not a NameCodemod: no name is resolved, so the costly scope and
    # qualified-name metadata is not computed.
    QUIET_WITHOUT = (ast.withitem,)

    @classmethod
    def at_work(cls, node: ast.AST) -> bool:
        """A ``with`` item that is an ``and`` (in parentheses or not): ``plan`` records only
        at such an item."""
        expression = node.context_expr if isinstance(node, ast.withitem) else None
        return isinstance(expression, ast.BoolOp) and isinstance(expression.op, ast.And)

    def plan(self, ctx: CodemodContext) -> None:
        """Plan each ``with`` item that is an ``and`` of calls."""
        for item in ctx.names.nodes(cst.WithItem):
            statement = ctx.names.parent(item)
            if (
                isinstance(item.item, cst.BooleanOperation)
                and isinstance(item.item.operator, cst.And)
                and (
                    item.item.lpar
                    or (
                        isinstance(statement, cst.With)
                        and isinstance(statement.lpar, cst.LeftParen)
                    )
                )
            ):
                # NOTE: `with (a(), b()):` is a tuple before Python 3.9's parser, and removing
                # the parentheses breaks a `with` that spans lines: left to the author.
                ctx.records.refuse(item, "the `and` is in parentheses: rewrite by hand")
                continue
            operands = _and_operands(item.item)
            if operands is None:
                continue
            if not all(isinstance(o, cst.Call) for o in operands):
                ctx.records.refuse(
                    item,
                    "not every operand of the `and` is a call, so `and` may be meant: "
                    "if each is a context manager, write them separated by commas",
                )
                continue
            ctx.records.rewrite(
                item,
                _split,
                f"with {code_of(item.item)} -> with {', '.join(code_of(o) for o in operands)}",
            )


def _split(updated: cst.WithItem) -> cst.FlattenSentinel[cst.WithItem]:
    """The items of the rewritten ``with``: one per operand, the spacing after each ``and``
    kept after the comma that replaces it, the ``as`` target and trailing comma on the last."""
    operands: list[cst.BaseExpression] = []
    spacing: list[cst.BaseParenthesizableWhitespace] = []

    def collect(node: cst.BaseExpression) -> None:
        if (
            isinstance(node, cst.BooleanOperation)
            and isinstance(node.operator, cst.And)
            and not node.lpar
        ):
            collect(node.left)
            spacing.append(node.operator.whitespace_after)
            operands.append(node.right)
        else:
            operands.append(node)

    collect(updated.item)
    items = [
        cst.WithItem(item=operand, comma=cst.Comma(whitespace_after=ws))
        for operand, ws in zip(operands[:-1], spacing, strict=True)
    ]
    items.append(cst.WithItem(item=operands[-1], asname=updated.asname, comma=updated.comma))
    return cst.FlattenSentinel(items)
