"""A piece of the human report as styled text, without rich: rich renders it on a terminal, and
a log gets its plain text, byte for byte what rich would have written there.

The console report (``console``) is made of ``StyledText``: its text and style are recorded as
they are given, and ``__rich__`` replays them into a ``rich.text.Text`` only when a terminal
prints it. A report printed to a pipe, a file or a CI log (a pre-commit hook's) never imports
rich: ``plain_text`` says what rich writes there for a run of parts, or ``None`` where that
takes rich itself (then rich prints them, as before).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ipex_doctor.reporting.formats.shown import shown

if TYPE_CHECKING:
    from rich.text import Text

PLAIN_WIDTH = 1_000_000
"""The width of the console that writes a log's plain text (``console.write_plain_text``): so
wide that rich never wraps a line; ``COLUMNS`` wraps it afterwards, between words."""

# NOTE: rich.text.Text drops these control codes (bell, backspace, vertical tab, form feed,
# carriage return) from every piece of text it is given (rich.control.strip_control_codes); a
# log written without rich must drop the same, or it would not be rich's bytes.
_DROPPED_BY_RICH = dict.fromkeys((7, 8, 11, 12, 13))
_DROPPED_CHARACTERS = tuple(chr(code) for code in _DROPPED_BY_RICH)


class StyledText:
    """Text in pieces, each with a rich style name (``""``: none), and a style for the whole;
    made and appended to as ``rich.text.Text`` is (the subset the report uses). Every piece is
    kept as ``shown`` makes it: text from a file can never drive the terminal (both writers,
    rich's and ``plain_text``, print the same escaped text)."""

    __slots__ = ("_pieces", "style")

    def __init__(self, text: str = "", style: str = "") -> None:
        self.style = style
        self._pieces: list[tuple[str, str | None]] = [(shown(text), None)]

    def append(self, text: str, style: str | None = None) -> StyledText:
        """Add ``text``, with ``style`` over it alone (the whole's style over it too)."""
        self._pieces.append((shown(text), style))
        return self

    @property
    def plain(self) -> str:
        """The text without its styles (control codes included, as given)."""
        return "".join(text for text, _ in self._pieces)

    def __rich__(self) -> Text:
        """The ``rich.text.Text`` made by the very calls this text was made with."""
        from rich.text import Text

        (first, _), *rest = self._pieces
        text = Text(first, style=self.style)
        for piece, style in rest:
            text.append(piece, style=style)
        return text


def plain_text(parts: Sequence[object]) -> str | None:
    """What a console of ``PLAIN_WIDTH`` columns without colour (``console.write_plain_text``'s)
    writes for ``parts`` printed as one group: each part's text and a line break; ``None``
    where that is rich's to say.

    Rich's only changes to such text are dropping the control codes above, expanding tabs
    (to its cell widths: a line with a tab is left to rich) and cropping a line wider than the
    console (one that might be is left to rich: no character is wider than two cells)."""
    texts = []
    for part in parts:
        if not isinstance(part, StyledText):
            return None
        text = part.plain
        # NOTE: translate only where one is there: str.translate looks every character up in
        # the table once the text is not ASCII (the report's arrows and rules), about 10 ms
        # of CPU for a small project's report, where five searches for them cost microseconds
        if any(code in text for code in _DROPPED_CHARACTERS):
            text = text.translate(_DROPPED_BY_RICH)
        if "\t" in text or (len(text) > PLAIN_WIDTH // 2 and _has_wide_line(text)):
            return None
        texts.append(text)
    texts.append("")
    return "\n".join(texts)


def _has_wide_line(text: str) -> bool:
    return any(len(line) > PLAIN_WIDTH // 2 for line in text.split("\n"))
