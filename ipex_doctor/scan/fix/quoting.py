"""A path as git shows it in a diff header or a one-line message: a name with a newline,
a tab, a quote, a backslash or a byte outside printable ASCII quoted, so it can never break
the line it is in or be taken for another name (``quote_name``); and a path in a report's
text, its line feeds escaped (``shown_name``).
Light: no import beyond the language."""

from __future__ import annotations

_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f",
              "\r": "\\r", '"': '\\"', "\\": "\\\\"}  # fmt: skip


def quote_name(name: str) -> str:
    """``name`` as git writes it in a diff header: as it is when it is plain; else in double
    quotes with C escapes (``\\n``, ``\\t``, ``\\"``, ``\\\\``) and every other byte outside
    printable ASCII in octal (``\\303\\251`` for ``é``), as git's ``core.quotePath`` does.

    By hand: the standard library has shell quoting (``shlex``), not git's C-style quoting."""
    if all(" " <= char <= "~" and char not in '"\\' for char in name):
        return name
    out = []
    for char in name:
        if char in _C_ESCAPES:
            out.append(_C_ESCAPES[char])
        elif " " <= char <= "~":
            out.append(char)
        else:
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogateescape"))
    return '"' + "".join(out) + '"'


def shown_name(name: str) -> str:
    """``name`` for a human report's text, each line feed in it written ``\\x0a``: the escape
    the reports write for every other control character (``reporting.formats.shown``, which
    keeps line feeds as the report's own layout). A tree's file name holding a line feed would
    otherwise start a line of its own in the report: a forged "Gate: passed" in the console,
    or markup in a Markdown report."""
    return name.replace("\n", "\\x0a") if "\n" in name else name
