"""A path as git shows it in a diff header or a one-line message: a name with a newline,
a tab, a quote, a backslash or a byte outside printable ASCII quoted, so it can never break
the line it is in or be taken for another name. Light: no import beyond the language."""

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
