"""The packages an examination reads: the metadata directory's name decides which
distributions' METADATA are read, and the packages are those that reading all of them gives."""

from __future__ import annotations

import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
import testenvs
from conftest import fresh_interpreter_prints, make_fake_env, real_env

from ipex_doctor.probe import interpreter, runtime_libraries


def _every_metadata_read(sys_path: tuple[str, ...], wanted: object) -> dict[str, str]:
    """Name -> metadata directory of the first distribution of each wanted name, every
    METADATA on ``sys_path`` read: what the examination found before it read names from the
    directories."""
    found: dict[str, str] = {}
    for dist in metadata.distributions(path=list(sys_path)):
        try:
            name = interpreter.normalize_name(dist.metadata["Name"] or "")
        except (KeyError, OSError, ValueError):
            continue
        if name and callable(wanted) and wanted(name):
            found.setdefault(name, str(getattr(dist, "_path", "")))
    return found


def _sys_path(python: str) -> tuple[str, ...]:
    return interpreter.inspect(python).sys_path


@pytest.mark.envs
@pytest.mark.parametrize("name", list(testenvs.RECIPES))
def test_the_real_environments_read_as_with_every_metadata(name: str) -> None:
    """In every real test environment (torch, IPEX, torchvision, the oneAPI runtime wheels)
    the packages of interest and the runtime's distributions are those, from the same
    directories, that reading every distribution's METADATA gives."""
    sys_path = _sys_path(real_env(name))
    runtime = lambda n: runtime_libraries.is_runtime(n) or n == "torch"  # noqa: E731
    expected = _every_metadata_read(sys_path, interpreter._of_interest)
    packages = interpreter.installed_packages(sys_path)
    assert {p.name for p in packages} == set(expected)
    assert {p.name: p.location for p in packages} == {
        n: str(Path(p).parent) for n, p in expected.items()
    }
    chosen = runtime_libraries._installed(sys_path)
    assert {n: str(getattr(d, "_path", "")) for n, d in chosen.items()} == _every_metadata_read(
        sys_path, runtime
    )


def test_the_directory_name_decides_which_metadata_is_read(tmp_path: Path) -> None:
    """A distribution is read where its directory's name is wanted, and then known by the name
    its METADATA gives; one whose directory names a package of no interest is not read (here
    a directory mislabelled by hand, whose METADATA names torchvision, as
    ``importlib.metadata.distribution("torchvision")`` would not find it either); an
    ``.egg-info`` directory without a version is read by its name."""
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", ""), "numpy": ("2.1.0", "")})
    (site,) = (tmp_path / "env" / "lib").glob("python*/site-packages")
    mislabelled = site / "requests-2.32.0.dist-info"
    mislabelled.mkdir()
    (mislabelled / "METADATA").write_text("Metadata-Version: 2.1\nName: torchvision\nVersion: 9\n")
    egg = site / "intel_extension_for_pytorch.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text(
        "Metadata-Version: 2.1\nName: intel-extension-for-pytorch\nVersion: 2.8.10+xpu\n"
    )
    names = {
        name: dist.version
        for name, dist in interpreter.distributions(_sys_path(python), lambda _: True)
    }
    assert names == {
        "torch": "2.8.0", "numpy": "2.1.0", "intel-extension-for-pytorch": "2.8.10+xpu",
        "torchvision": "9",  # NOTE: every directory is wanted here, so this one is read
    }  # fmt: skip
    packages = interpreter.installed_packages(_sys_path(python))
    assert [(p.name, p.version) for p in packages] == [
        ("intel-extension-for-pytorch", "2.8.10+xpu"), ("numpy", "2.1.0"), ("torch", "2.8.0"),
    ]  # fmt: skip


def test_this_interpreter_reads_as_with_every_metadata() -> None:
    """The doctor's own interpreter (no torch, many other distributions) too."""
    sys_path = _sys_path(sys.executable)
    expected = _every_metadata_read(sys_path, interpreter._of_interest)
    assert {p.name for p in interpreter.installed_packages(sys_path)} == set(expected)


def _finder_may_give(sys_path: list[str], wanted: object) -> bool:
    """Whether ``importlib.metadata`` finds on ``sys_path`` a distribution whose directory
    name is wanted or of another form (what ``distributions`` would go on to read)."""
    for dist in metadata.distributions(path=sys_path):
        spelled = interpreter._directory_name(dist)
        if spelled is None or (callable(wanted) and wanted(spelled)):
            return True
    return False


def test_importlib_metadata_is_spared_only_where_it_finds_nothing_to_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``_may_hold`` says no (and ``importlib.metadata`` is not imported) only where the
    finder gives nothing ``distributions`` reads; each kind of entry the finder looks into
    otherwise (a zip, an ``.egg``, a suffix in capitals, a name of another form) says yes."""
    plain = tmp_path / "plain"
    for name in ("requests-2.32.0.dist-info", "click.egg-info", "torchish-1.0.dist-info", "x.py"):
        (plain / name).mkdir(parents=True)
    odd = {
        "capitals": "torch-2.8.0.DIST-INFO",
        "of another form": ".dist-info",
        "wanted": "Intel_Extension_For_Pytorch-2.8.10.dist-info",
        "egg-info wanted": "torch.egg-info",
    }
    monkeypatch.chdir(plain)  # NOTE: where the entry "" looks
    entries = {"nothing wanted": [str(plain), str(tmp_path / "missing"), ""]}
    for label, name in odd.items():
        (tmp_path / label / name).mkdir(parents=True)
        entries[label] = [str(plain), str(tmp_path / label)]
    archive = tmp_path / "lib.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("torch-2.8.0.dist-info/METADATA", "Name: torch\nVersion: 2.8.0\n")
    entries["a zip"] = [str(plain), str(archive)]
    (tmp_path / "old.egg" / "EGG-INFO").mkdir(parents=True)
    entries["an egg"] = [str(plain), str(tmp_path / "old.egg")]
    for label, sys_path in entries.items():
        may = interpreter._may_hold(sys_path, interpreter._of_interest)
        assert may is (label != "nothing wanted"), label
        assert may or not _finder_may_give(sys_path, interpreter._of_interest), label


def test_a_scan_without_torch_never_imports_importlib_metadata() -> None:
    """The doctor's own interpreter has no package of interest: reading its packages finds
    none without importing ``importlib.metadata``."""
    probe = (
        "import sys\n"
        "from ipex_doctor.probe import interpreter\n"
        "sys_path = interpreter.inspect(sys.executable).sys_path\n"
        "print(interpreter.installed_packages(sys_path), 'importlib.metadata' in sys.modules)\n"
    )
    assert fresh_interpreter_prints(probe) == ["() False"]
