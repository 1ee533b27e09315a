"""Each reader's prefilter, kept between scans (``ruleset.kept_prefilter``): the one taken back
is the one derived, a damaged or foreign value is a miss, and a fresh process takes it back
instead of deriving it again."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ipex_doctor.knowledge import code_rules
from ipex_doctor.model.code import FileKind
from ipex_doctor.scan.match import ruleset as ruleset_module
from ipex_doctor.scan.match.ruleset import RuleSet, kept_prefilter
from ipex_doctor.scan.match.triggers import Prefilter, Trigger, name_trigger
from ipex_doctor.scan.read import derived_cache

_READERS = [(kind, python) for kind in FileKind for python in (False, True)]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test keeps its values in a cache directory of its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _shape(prefilter: Prefilter) -> tuple[object, ...]:
    return (
        prefilter.triggers,
        prefilter.always,
        prefilter.anchors,
        prefilter.gate,
        prefilter.ungated,
        prefilter.direct,
    )


def _triggers(kind: FileKind, python: bool) -> list[Trigger]:
    """The triggers the shipped rules give the reader (what ``RuleSet.prefilter`` derives from)."""
    return list(RuleSet(code_rules.load()).prefilter(kind, python=python).triggers)


def _kept_files() -> list[Path]:
    return sorted(derived_cache.directory().glob("prefilter-*.json"))


@pytest.mark.parametrize(("kind", "python"), _READERS)
def test_a_kept_prefilter_is_the_one_derived(kind: FileKind, python: bool) -> None:
    """For every reader of the shipped rules: the prefilter a second rule set takes back from
    the cache is, field by field and in order, the one derived from the triggers."""
    first = RuleSet(code_rules.load()).prefilter(kind, python=python)
    again = RuleSet(code_rules.load()).prefilter(kind, python=python)
    assert _shape(again) == _shape(first)
    assert _shape(first) == _shape(Prefilter(_triggers(kind, python)))


def test_a_kept_prefilter_is_taken_back_not_derived(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once kept, the derivation is not worked out again (a cache that is never read would
    pass every other test here)."""
    triggers = [name_trigger(f"torch.{n}", whole=True) for n in ("xpu", "amp", "compile")]
    kept_prefilter(triggers)

    def derive(_: object) -> None:
        raise AssertionError("derived again")

    monkeypatch.setattr(ruleset_module, "derive", derive)
    assert _shape(kept_prefilter(triggers)) == _shape(Prefilter(triggers))


def test_other_triggers_miss() -> None:
    """A trigger more, or one word other, is another key: its own prefilter, never the first."""
    base = [name_trigger("torch.xpu.amp.autocast", whole=True), Trigger((b"ipexrun",))]
    for triggers in (base, [*base, Trigger((b"oneccl",))], [base[0], Trigger((b"ipexrunx",))]):
        assert _shape(kept_prefilter(triggers)) == _shape(Prefilter(triggers))


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text.replace('"kept": [', '"kept": [999, '),  # an index out of range
        lambda text: text.replace('"gate": ', '"gate": 7, "x": '),  # a gate of another type
        lambda text: text[: len(text) // 2],  # cut short
        lambda text: "{}",  # no identity
        lambda text: text.replace('"kept"', '"kept_"'),  # resealed below: a foreign shape
    ],
)
def test_a_damaged_or_foreign_value_is_a_miss(damage: object) -> None:
    """Whatever the file holds, the prefilter is the one derived: a value that is not what the
    cache wrote is a miss, and the file is written again."""
    triggers = [name_trigger("torch.xpu.has_fp64_dtype", whole=True), Trigger((b"ccl",))]
    expected = _shape(Prefilter(triggers))
    kept_prefilter(triggers)
    (path,) = _kept_files()
    text = path.read_text(encoding="utf-8")
    damaged = damage(text)  # type: ignore[operator]
    if "kept_" in damaged:  # a well-sealed file of another shape
        from ipex_doctor.knowledge.cache import seal, unseal

        payload = unseal(text)
        assert payload is not None
        value = payload["value"]
        value["kept_"] = value.pop("kept")
        damaged = seal(payload)
    path.write_text(damaged, encoding="utf-8")
    assert _shape(kept_prefilter(triggers)) == expected
    assert _shape(kept_prefilter(triggers)) == expected


def test_the_kept_file_is_sealed_json_readable_by_its_owner_only() -> None:
    """Inert data: JSON and its MAC (keyed BLAKE2b, 32 bytes), nothing to execute; mode 0600."""
    kept_prefilter([Trigger((b"ipex_kept_file_check",))])
    for path in _kept_files():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        body, _, checksum = path.read_text(encoding="utf-8").rpartition("\n")
        assert set(json.loads(body)) == {"identity", "value"}
        assert len(checksum) == 64


def test_an_unwritable_cache_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the cache directory cannot be made, the prefilter is derived every time."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    triggers = [Trigger((b"ipex_unwritable",))]
    assert _shape(kept_prefilter(triggers)) == _shape(Prefilter(triggers))
    assert _shape(kept_prefilter(triggers)) == _shape(Prefilter(triggers))


def test_a_fresh_process_takes_back_what_an_earlier_one_kept(tmp_path: Path) -> None:
    """Two fresh interpreters (other hash seeds): the second derives nothing for the shipped
    rules' readers, and its prefilters are the first's."""
    source = textwrap.dedent(
        """
        import hashlib
        from ipex_doctor.knowledge import code_rules
        from ipex_doctor.model.code import FileKind
        from ipex_doctor.scan.match import ruleset
        derived = []
        real = ruleset.derive
        def counting(triggers):
            derived.append(len(triggers))
            return real(triggers)
        ruleset.derive = counting
        def plain(trigger):  # NOTE: a confirm's repr holds its address: its name instead
            confirm = getattr(trigger.confirm, "__qualname__", None)
            return (trigger.words, trigger.folded, trigger.whole, trigger.roots, confirm)
        def covers(anchors):
            return [(anchor, [plain(t) for t in covered]) for anchor, covered in anchors]
        rules = ruleset.RuleSet(code_rules.load())
        shapes = [repr(([plain(t) for t in p.triggers], covers(p.anchors), p.gate,
                        covers(p.ungated), [plain(t) for t in p.direct], p.always))
                  for p in rules.prefilters()]
        print(len(derived))
        print(hashlib.sha256("\\n".join(shapes).encode()).hexdigest())
        """
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "fresh")}
    runs = []
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", source],
            env={**env, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        runs.append(done.stdout.split())
    assert int(runs[0][0]) > 0
    assert runs[1][0] == "0"
    assert runs[1][1:] == runs[0][1:]
