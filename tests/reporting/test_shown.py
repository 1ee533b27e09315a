"""Text read from a scanned tree (file names, quoted lines of code) reaches no report as a control
character, a reordering mark or an unencodable surrogate: each is written as its visible escape,
the JUnit file parses as XML 1.0, and the JSON keeps the exact original text (it is data)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ipex_doctor.reporting.formats.shown import UNSAFE, UNSAFE_IN_FILE, shown, shown_in_file
from ipex_doctor.reporting.formats.styled import StyledText, plain_text

# Every kind the contract names: ESC (CSI and OSC: recolour, clear the screen, set the title), a
# lone C1 CSI, DEL, the bidi override of "Trojan Source", an isolate and a mark.
HOSTILE_LINE = (
    "import intel_extension_for_pytorch as ipex  "
    "# \x1b]0;title\x07 \x1b[2J \x9b31m \x7f \u202eevil\u202c \u2066x\u2069 \u200f"
)
HOSTILE_NAMES = ("a\x1b[31mred.py", "c\u202eyp.py", "d\x9bname.py")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain text, é, 漢字, tab\there\nnew line", "plain text, é, 漢字, tab\there\nnew line"),
        ("\x1b[31m", "\\x1b[31m"),
        ("\x9b1m\x7f\x00", "\\x9b1m\\x7f\\x00"),
        ("\u202eabc\u202c \u2066\u2069 \u061c\u200e\u200f", "\\u202eabc\\u202c \\u2066\\u2069 \\u061c\\u200e\\u200f"),
        ("b\udcffname", "b\\udcffname"),
        ("\ufffe\uffff", "\\ufffe\\uffff"),
    ],
)  # fmt: skip
def test_shown_escapes_each_unsafe_character_visibly_and_keeps_the_rest(
    text: str, expected: str
) -> None:
    assert shown(text) == expected
    assert shown_in_file(text) == expected


def test_the_codes_rich_drops_are_left_to_it_on_a_console_and_escaped_in_a_file() -> None:
    text = "a\x07b\x08c\x0bd\x0ce\rf"
    assert shown(text) is text
    assert plain_text([StyledText(text)]) == "abcdef\n"  # rich's bytes, as before
    assert shown_in_file(text) == "a\\x07b\\x08c\\x0bd\\x0ce\\x0df"


def test_every_code_point_is_either_kept_or_escaped_to_printable_ascii() -> None:
    for code in range(0x110000):
        char = chr(code)
        out = shown_in_file(char)
        if UNSAFE_IN_FILE.match(char):
            assert re.fullmatch(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4})", out), hex(code)
        else:
            assert out == char, hex(code)
    assert UNSAFE.pattern != UNSAFE_IN_FILE.pattern


def test_a_styled_text_keeps_its_pieces_escaped_for_both_writers() -> None:
    text = StyledText("  ", style="bold").append("a\x1b[31mred.py", style="dim")
    assert text.plain == "  a\\x1b[31mred.py"
    assert str(text.__rich__()) == text.plain  # the terminal's writer gets the same text


def _hostile_tree(root: Path) -> Path:
    root.mkdir()
    for name in HOSTILE_NAMES:
        (root / name).write_text(HOSTILE_LINE + "\n", encoding="utf-8")
    # NOTE: a name that is not UTF-8 (Linux allows any bytes but / and NUL): read with
    # surrogateescape, it must neither stop the report nor reach it as a raw surrogate.
    with open(os.fsencode(root) + b"/b\xffname.py", "w", encoding="utf-8") as handle:
        handle.write("import intel_extension_for_pytorch as ipex\n")
    return root


def _raw_unsafe(text: str) -> list[str]:
    return sorted({hex(ord(c)) for c in text if UNSAFE_IN_FILE.match(c) and c not in "\r"})


def test_no_report_of_a_hostile_tree_carries_its_controls(tmp_path: Path) -> None:
    tree = _hostile_tree(tmp_path / "tree")
    out = tmp_path / "out"
    out.mkdir()
    argv = [
        sys.executable, "-m", "ipex_doctor", "scan", str(tree), "--no-cache",
        "--json", str(out / "r.json"), "--junit-xml", str(out / "r.xml"),
        "--markdown", str(out / "r.md"), "--html", str(out / "r.html"),
        "--sarif", str(out / "r.sarif"),
    ]  # fmt: skip
    done = subprocess.run(
        argv, capture_output=True, env={**os.environ, "COLUMNS": "200"}, timeout=180
    )
    assert done.returncode == 0, done.stderr
    console = done.stdout.decode("utf-8", "surrogateescape")
    assert (
        "\\x1b[31mred.py" in console and "\\u202eyp.py" in console and "\\udcffname.py" in console
    )
    assert "\\x1b]0;title" in console and "\\x9b31m" in console
    assert _raw_unsafe(console) == []
    for name in ("r.xml", "r.md", "r.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert _raw_unsafe(text) == [], name
        assert "\\x1b[31mred.py" in text, name
    ET.parse(out / "r.xml")  # well-formed XML 1.0: a CI parser reads it
    report = json.loads((out / "r.json").read_text(encoding="utf-8"))
    paths = json.dumps(report)
    assert "a\\u001b[31mred.py" in paths  # JSON is data: the exact name, escaped by JSON alone
    assert "b\\udcffname.py" in paths  # a name that is not UTF-8: its escape, read back exactly
    assert os.fsencode("b\udcffname.py") == b"b\xffname.py"
    sarif = (out / "r.sarif").read_text(encoding="utf-8")
    json.loads(sarif)
    assert '"b%FFname.py"' in sarif  # RFC 3986: the octet itself, percent-encoded
