"""Saved JSON within limits: refused in one line, never a traceback, never a crash.

Real files in ``tmp_path``; the limits of the real readers (reports, snapshots) are proven by
the commands in tests/app/test_repair_hostile.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipex_doctor.bounded_json import JsonLimits, read_json
from ipex_doctor.errors import DoctorError

LIMITS = JsonLimits(max_bytes=1024 * 1024, max_depth=8, max_values=200_000, max_number_chars=10)


class _Refused(DoctorError):
    pass


def _read(tmp_path: Path, text: str, limits: JsonLimits = LIMITS) -> object:
    path = tmp_path / "saved.json"
    path.write_text(text)
    return read_json(path, limits, _Refused, "report")


def _refusal(tmp_path: Path, text: str, limits: JsonLimits = LIMITS) -> str:
    with pytest.raises(_Refused) as caught:
        _read(tmp_path, text, limits)
    message = str(caught.value)
    assert str(tmp_path / "saved.json") in message and "\n" not in message
    return message


def test_within_the_limits_the_value_is_read_as_json_reads_it(tmp_path: Path) -> None:
    """Up to each limit exactly: the value json.loads gives, numbers and constants included."""
    text = '{"a": [1, 2.5, -3e-2, null, true, "x,[{"], "b": {"c": NaN}, "n": 1234567890}'
    read = _read(tmp_path, text)
    assert json.dumps(read) == json.dumps(json.loads(text))
    assert _read(tmp_path, "[" * 8 + "]" * 8) == json.loads("[" * 8 + "]" * 8)
    assert _read(tmp_path, json.dumps([0] * 199_999)) == [0] * 199_999


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[" * 9 + "]" * 9, "nested deeper than 8 levels"),
        ('{"a": ' * 9 + "1" + "}" * 9, "nested deeper than 8 levels"),
        ("[" * 100_000 + "]" * 100_000, "nested deeper than 8 levels"),
        ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested deeper than 8 levels"),
        ("[12345678901]", "a number of 11 characters, more than 10"),
        ("[1.234567890]", "a number of 11 characters, more than 10"),
        ('{"n": ' + "9" * 100_000 + "}", "a number of 100,000 characters"),
        ("[" + "0," * 200_000 + "0]", "more than 200,000 values"),
        ("[" + "[]," * 200_000 + "[]]", "more than 200,000 values"),
        ('{"a": 1', "not JSON"),
    ],
)
def test_beyond_a_limit_is_one_line_naming_the_file(tmp_path: Path, text: str, said: str) -> None:
    """Deeper, longer or larger than allowed, or not JSON: one line that names the file and
    what is wrong (the 100,000-level and 100,000-digit documents included)."""
    assert said in _refusal(tmp_path, text)


def test_commas_inside_strings_do_not_count_as_values(tmp_path: Path) -> None:
    """The quick bound counts commas; strings full of them are counted exactly instead."""
    text = json.dumps({"evidence": "," * 300_000, "more": ["[{,"] * 50})
    assert _read(tmp_path, text) == json.loads(text)


def test_larger_than_the_file_limit_is_refused_unread(tmp_path: Path) -> None:
    """A file over the size limit is refused before it is read."""
    said = _refusal(tmp_path, "[" + " " * 2048 + "]", JsonLimits(max_bytes=1024))
    assert "larger than 1 KiB" in said


def test_the_default_limits_read_every_report_the_doctor_wrote(tmp_path: Path) -> None:
    """The recorded reports, and a fleet report as large as 10,624 nodes make it (the nodes
    list of each finding is the big part), read within the default limits."""
    limits = JsonLimits(max_bytes=64 * 1024 * 1024)
    for path in (REPO / "tests" / "assets" / "reports").glob("*.json"):
        assert read_json(path, limits, _Refused, "report") == json.loads(path.read_text())
    report = json.loads(
        (REPO / "tests" / "assets" / "reports" / "cpu-reference-check.json").read_text()
    )
    nodes = [f"node{i:05d}" for i in range(1, 10_625)]
    report["findings"] = [{**f, "nodes": nodes} for f in report["findings"]]
    fleet = tmp_path / "fleet.json"
    fleet.write_text(json.dumps(report))
    assert read_json(fleet, limits, _Refused, "report") == report


def _nesting(value: object) -> int:
    """How deep arrays and objects nest in ``value`` (``[1]`` is 1), by walking it."""
    if isinstance(value, dict):
        return 1 + max((_nesting(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_nesting(v) for v in value), default=0)
    return 0


_TRICKY = st.text(alphabet='[]{}"\\,:é\n\t a', max_size=12)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | _TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TRICKY, inner, max_size=4),
    max_leaves=40,
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(_VALUES, st.booleans())
def test_the_depth_read_off_the_text_is_the_values_own(tmp_path: Path, value: object, ascii_only: bool) -> None:  # fmt: skip
    """Brackets, quotes and backslashes inside strings, escaped or not, any layout: the text
    is refused exactly when the value nests deeper than the limit."""
    text = json.dumps(value, ensure_ascii=ascii_only, indent=None if ascii_only else 1)
    limits = JsonLimits(max_bytes=1024 * 1024, max_depth=3)
    if _nesting(value) > 3:
        assert "nested deeper than 3 levels" in _refusal(tmp_path, text, limits)
    else:
        assert _read(tmp_path, text, limits) == value
