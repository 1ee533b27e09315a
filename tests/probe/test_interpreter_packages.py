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


# NOTE: METADATA texts of the forms a by-hand reading must not get wrong; each is read by hand
# or handed back to importlib.metadata, and either way gives what importlib.metadata gives.
_FORMS = {
    "plain": "Metadata-Version: 2.1\nName: torch\nVersion: 2.8.0\n\nlong description\n",
    "no space": "Name:torch\nVersion:2.8.0+cpu\n",
    "trailing space": "Name: torch \nVersion: 2.8.0 \n",
    "a tab": "Name:\ttorch\nVersion:\t2.8.0\n",
    "CRLF": "Metadata-Version: 2.1\r\nName: torch\r\nVersion: 2.8.0\r\n\r\n",
    "CR": "Name: torch\rVersion: 2.8.0\r\r",
    "folded name": "Name: torch\n  extra\nVersion: 2.8.0\n",
    "folded other": "Name: torch\nLicense: BSD\n  3-clause\nVersion: 2.8.0\n",
    "lower case": "name: torch\nversion: 2.8.0\n",
    "twice": "Name: torch\nName: numpy\nVersion: 2.8.0\nVersion: 9\n",
    "no version": "Name: torch\n",
    "after the body": "Metadata-Version: 2.1\n\nName: torch\nVersion: 2.8.0\n",
    "a BOM": "\ufeffName: torch\nVersion: 2.8.0\n",
    "a form feed": "Name: torch\x0c\nVersion: 2.8.0\n",
    "a line separator": "Name: torch\u2028Version: 1\nVersion: 2.8.0\n",
    "a form feed in the version": "Name: torch\nVersion: 2.8.0\x0cjunk\n",
    "a separator in the version": "Name: torch\nVersion: 2.8.0\u2028junk\n",
    "unix from": "From someone\nName: torch\nVersion: 2.8.0\n",
    "no colon": "Name: torch\nnot a header\nVersion: 2.8.0\n",
    "space before colon": "Name : torch\nVersion: 2.8.0\n",
}


@pytest.mark.parametrize("text", list(_FORMS.values()), ids=list(_FORMS))
def test_metadata_read_by_hand_is_what_importlib_reads(tmp_path: Path, text: str) -> None:
    """Whatever a wanted directory's METADATA holds, the packages are those ``importlib.
    metadata`` gives (read by hand where the form is plain, by it otherwise)."""
    site = tmp_path / "site"
    (site / "torch-2.8.0.dist-info").mkdir(parents=True)
    (site / "torch-2.8.0.dist-info" / "METADATA").write_bytes(text.encode("utf-8"))
    (site / "numpy-2.1.0.dist-info").mkdir()
    (site / "numpy-2.1.0.dist-info" / "PKG-INFO").write_text("Name: numpy\nVersion: 2.1.0\n")
    sys_path = (str(site),)
    expected = []
    for dist in metadata.distributions(path=list(sys_path)):
        try:
            name, version = interpreter.normalize_name(dist.metadata["Name"] or ""), dist.version
        except (KeyError, OSError, ValueError):
            continue
        if name and version and interpreter._of_interest(name):
            expected.append((name, version, str(Path(str(getattr(dist, "_path", ""))).parent)))
    first: dict[str, tuple[str, str, str]] = {}
    for name, version, where in expected:
        first.setdefault(name, (name, version, where))
    packages = interpreter.installed_packages(sys_path)
    assert [(p.name, p.version, p.location) for p in packages] == sorted(first.values())


def test_a_torch_environment_is_read_without_importlib_metadata(tmp_path: Path) -> None:
    """A plain environment with torch (its CPU build: no pin on a runtime wheel) and numpy, as
    ``pip`` writes it, is read by hand: neither ``importlib.metadata`` (its e-mail parser, zip
    modules) nor ``packaging``'s requirement parser is imported by the examination's reading
    of its packages and their pins (they cost more than the reading in a small project's
    scan), and what is read is what they read."""
    python = make_fake_env(tmp_path / "env", {"torch": ("2.8.0", ""), "numpy": ("2.1.0", "")})
    (site,) = (tmp_path / "env" / "lib").glob("python*/site-packages")
    with (site / "torch-2.8.0.dist-info" / "METADATA").open("a") as metadata_file:
        metadata_file.write("Requires-Dist: filelock\nRequires-Dist: sympy>=1.13.3\n\nabout\n")
    probe = (
        "import sys\n"
        "from ipex_doctor.probe import interpreter, runtime_libraries\n"
        f"sys_path = interpreter.inspect({python!r}).sys_path\n"
        "print([(p.name, p.version) for p in interpreter.installed_packages(sys_path)])\n"
        "print(runtime_libraries.requirement_checks(sys_path, (3, 11, 7)))\n"
        "print([(n, d.requires) for n, d in runtime_libraries._installed(sys_path).items()])\n"
        "print(*[m in sys.modules for m in ('importlib.metadata', 'email.parser',"
        " 'packaging.requirements')])\n"
    )
    assert fresh_interpreter_prints(probe) == [
        "[('numpy', '2.1.0'), ('torch', '2.8.0')]",
        "[]",
        "[('torch', ['filelock', 'sympy>=1.13.3'])]",
        "False False False",
    ]
    (dist,) = metadata.distributions(path=[str(site)], name="torch")
    assert dist.requires == ["filelock", "sympy>=1.13.3"]


# NOTE: requirement texts of the forms a name can take, sampled from real wheels' Requires-Dist
# and the edges of PEP 508's grammar
_PINS = [
    "intel-sycl-rt==2025.3.1", 'intel-cmplr-lib-ur==2025.2.1; platform_system == "Linux"',
    "intel_openmp (>=2024)", "Intel.OpenMP", " intel-pti", "mkl", "mkl-", "mkl_ >=1", "mkl.",
    "tbb@ https://example.com/tbb.whl", "onemkl-sycl-blas (==2025.1)", "umf[extra]>=1",
    "filelock", "intel", "intelx", "sympy>=1.13.3; extra == 'intel-x'", "[bad", "", "==1",
    "impi-rt==2021.15", "oneccl==2021.15", "dpcpp-cpp-rt", "tcmlib==1.2",
]  # fmt: skip


@pytest.mark.parametrize("text", _PINS)
def test_a_pin_left_unparsed_is_never_one_on_a_runtime_wheel(text: str) -> None:
    """A requirement is given to ``packaging`` unless its name cannot be a runtime wheel's:
    every text that ``packaging`` reads as a runtime wheel's pin is kept."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        name = interpreter.normalize_name(Requirement(text).name)
    except InvalidRequirement:
        return
    if runtime_libraries.is_runtime(name):
        assert runtime_libraries._may_pin_runtime(text)
