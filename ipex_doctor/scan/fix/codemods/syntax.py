"""Node-level helpers for the codemods: reading literals and names, writing expressions, and
the argument-list edits that keep a call's own layout (one line, or one argument per line
with comments and trailing commas)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst


def code_of(node: cst.CSTNode) -> str:
    """The source text of ``node`` (without the whitespace that belongs to its parent)."""
    return cst.Module(body=[]).code_for_node(node)


def expr(code: str) -> cst.BaseExpression:
    """An expression node from code the fix writes itself."""
    return cst.parse_expression(code)


def string_value(node: cst.CSTNode) -> str | None:
    """The value of a plain (non-bytes, non-f) string literal, else ``None``."""
    if isinstance(node, cst.SimpleString) and "b" not in node.prefix.lower():
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def quote_of(node: cst.SimpleString) -> str:
    """The quote the literal uses, so a string written next to it matches its style."""
    return node.quote[0]


def _bare(ws: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """A line break and indent like ``ws`` without its comment (which belongs to the argument
    it follows), or one space when ``ws`` stays on the line."""
    if isinstance(ws, cst.ParenthesizedWhitespace):
        return cst.ParenthesizedWhitespace(indent=ws.indent, last_line=ws.last_line)
    return cst.SimpleWhitespace(" ")


def _separator(call: cst.Call) -> cst.BaseParenthesizableWhitespace:
    """Whitespace to put after a comma between arguments in this call's own layout: one space
    on one line; in a call laid out one argument per line, the same line break and indent."""
    if len(call.args) >= 2 and isinstance(call.args[-2].comma, cst.Comma):
        return _bare(call.args[-2].comma.whitespace_after)
    return _bare(call.whitespace_before_args)


def prepend_args(call: cst.Call, new: Sequence[cst.Arg]) -> cst.Call:
    """``call`` with ``new`` before its arguments, laid out as the call is. The existing
    arguments keep their text, comments and commas."""
    sep = _bare(call.whitespace_before_args)
    items: list[cst.Arg] = []
    for index, arg in enumerate(new):
        if index == len(new) - 1 and not call.args:
            items.append(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        else:
            items.append(arg.with_changes(comma=cst.Comma(whitespace_after=sep)))
    return call.with_changes(args=[*items, *call.args])


def append_args(call: cst.Call, new: Sequence[cst.Arg]) -> cst.Call:
    """``call`` with ``new`` after its arguments, laid out as the call is: a trailing comma
    stays trailing, the closing parenthesis stays on its own line, and a comment after the
    last argument stays on that argument's line."""
    if not new or not call.args:
        return prepend_args(call, new)
    args = list(call.args)
    last = args[-1]
    between = cst.Comma(whitespace_after=_separator(call))
    tail_ws: cst.BaseParenthesizableWhitespace = cst.SimpleWhitespace("")
    final_comma: cst.Comma | cst.MaybeSentinel = cst.MaybeSentinel.DEFAULT
    if isinstance(last.comma, cst.Comma):
        ws = last.comma.whitespace_after
        sep = between.whitespace_after
        if isinstance(ws, cst.ParenthesizedWhitespace) and isinstance(
            sep, cst.ParenthesizedWhitespace
        ):
            args[-1] = last.with_changes(
                comma=last.comma.with_changes(
                    whitespace_after=ws.with_changes(last_line=sep.last_line)
                )
            )
            final_comma = cst.Comma(whitespace_after=_bare(ws).with_changes(last_line=ws.last_line))
        else:
            args[-1] = last.with_changes(comma=between)
            final_comma = last.comma
    else:
        args[-1] = last.with_changes(comma=between, whitespace_after_arg=cst.SimpleWhitespace(""))
        tail_ws = last.whitespace_after_arg
    items = [arg.with_changes(comma=between) for arg in new[:-1]]
    items.append(new[-1].with_changes(comma=final_comma, whitespace_after_arg=tail_ws))
    return call.with_changes(args=[*args, *items])


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value`` written as PEP 8 writes keyword arguments."""
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )


def as_keyword(arg: cst.Arg, name: str) -> cst.Arg:
    """A positional argument turned into ``name=...``, its value and comma untouched."""
    return arg.with_changes(
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )


def as_positional(arg: cst.Arg) -> cst.Arg:
    """A keyword argument turned positional, its value and comma untouched."""
    return arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)


def is_starred(arg: cst.Arg) -> bool:
    """``*args`` or ``**kwargs``: what they hold cannot be read from the code."""
    return arg.star != ""


def root_name(node: cst.CSTNode) -> str | None:
    """The name an attribute chain starts from (``t`` for ``t.xpu.amp.autocast``)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and everything under it."""
    yield node
    for child in node.children:
        yield from walk(child)
