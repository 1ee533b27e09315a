"""Version parsing and OSV-style range matching on PyTorch-on-Intel version strings."""

from __future__ import annotations

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from ipex_doctor.model.versions import VersionRange, build_variant, major_minor, matching_key


@pytest.mark.parametrize(
    ("text", "accelerator", "local", "cxx11", "pre"),
    [
        ("2.8.0+xpu", "xpu", "xpu", False, False),
        ("2.8.0+cpu", "cpu", "cpu", False, False),
        ("2.8.0+cu128", "cuda", "cu128", False, False),
        ("2.5.1+rocm6.2", "rocm", "rocm6.2", False, False),
        ("2.1.0a0+cxx11.abi", None, "cxx11.abi", True, True),
        ("2.1.0.post2+cxx11.abi", None, "cxx11.abi", True, False),
        ("2.1.20+xpu", "xpu", "xpu", False, False),
        ("2.8.0", None, None, False, False),
        ("1.13.0a0+git6c9b55e", None, "git6c9b55e", False, True),
        ("not a version", None, None, False, False),
    ],
)
def test_build_variant_from_local_label(
    text: str, accelerator: str | None, local: str | None, cxx11: bool, pre: bool
) -> None:
    """The variant comes from the local label; Intel's a0 builds are marked pre-release."""
    variant = build_variant(text)
    assert (variant.accelerator, variant.local, variant.cxx11_abi, variant.prerelease) == (
        accelerator,
        local,
        cxx11,
        pre,
    )


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("2.1.20+xpu", "2.1.20"),  # local label dropped
        ("2.1.0a0+cxx11.abi", "2.1.0"),  # Intel ABI build counts as its release
        ("2.1.0a0", "2.1.0a0"),  # a real pre-release stays one
        ("2.8.0.dev20250410", "2.8.0.dev20250410"),  # nightlies stay ordered
        ("1!2.0", "1!2.0"),  # epochs survive
    ],
)
def test_matching_key(text: str, key: str) -> None:
    """Ranges compare on the public version, with Intel's labelled pre-releases promoted."""
    assert matching_key(Version(text)) == Version(key)


def _range(
    introduced: str | None = None, fixed: str | None = None, last: str | None = None
) -> VersionRange:
    return VersionRange(
        introduced=None if introduced is None else Version(introduced),
        fixed=None if fixed is None else Version(fixed),
        last_affected=None if last is None else Version(last),
    )


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("2.1.10+xpu", False),
        ("2.1.20+xpu", True),  # PEP 440 '>2.1.20' would reject this; the KB must not
        ("2.1.20", True),
        ("2.1.30+xpu", False),
        ("2.1.30a0+xpu", False),  # labelled pre-release of the fix counts as the fix
        ("2.1.29", True),
    ],
)
def test_grad_mode_range(version: str, expected: bool) -> None:
    """introduced 2.1.20, fixed 2.1.30: the IPEX #597 window, with and without labels."""
    assert _range("2.1.20", "2.1.30").contains(version) is expected


def test_last_affected_is_inclusive_of_labelled_builds() -> None:
    """OSV pitfall: with raw ordering 2.1.20+xpu > 2.1.20 would make it 'unaffected'."""
    assert _range(last="2.1.20").contains("2.1.20+xpu") is True
    assert _range(last="2.1.20").contains("2.1.21") is False


def test_intel_abi_build_is_in_release_range() -> None:
    """'>=2.1.0' must accept 2.1.0a0+cxx11.abi, which PEP 440 specifiers reject."""
    assert _range("2.1.0", "2.2.0").contains("2.1.0a0+cxx11.abi") is True


def test_nightly_window() -> None:
    """The qconv rename affects only nightlies between two merges."""
    window = _range("2.8.0.dev20250408", "2.8.0.dev20250416")
    assert window.contains("2.8.0.dev20250410+xpu") is True
    assert window.contains("2.8.0.dev20250416+xpu") is False
    assert window.contains("2.8.0+xpu") is False
    assert window.contains("2.7.0+xpu") is False


def test_unparsable_version_is_unknown() -> None:
    """A version that is not PEP 440 is neither in nor out: None."""
    assert _range("1.0").contains("banana") is None


def test_describe() -> None:
    """Ranges read as specifiers."""
    assert _range("2.1.20", "2.1.30").describe() == ">=2.1.20, <2.1.30"
    assert _range().describe() == "all versions"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2.8.0+cpu", "2.8"), ("2.13.0", "2.13"), ("2.1.0a0+cxx11.abi", "2.1"), ("x", None)],
)
def test_major_minor(text: str, expected: str | None) -> None:
    """major.minor as IPEX's import check computes it."""
    assert major_minor(text) == expected


versions = st.builds(
    lambda epoch, rel, pre, local: f"{epoch}{'.'.join(map(str, rel))}{pre}{local}",
    st.sampled_from(["", "1!"]),
    st.lists(st.integers(0, 30), min_size=1, max_size=4),
    st.sampled_from(["", "a0", "rc1", ".dev20250410", ".post2"]),
    st.sampled_from(["", "+xpu", "+cpu", "+cu128", "+cxx11.abi", "+git6c9b55e"]),
)


@settings(max_examples=examples(100))
@given(versions, versions, versions)
def test_range_agrees_with_key_ordering(version: str, low: str, high: str) -> None:
    """contains() is exactly introduced <= key < fixed, for any labels and pre-releases."""
    lo, hi = matching_key(Version(low)), matching_key(Version(high))
    rng = VersionRange(introduced=lo, fixed=hi)
    key = matching_key(Version(version))
    assert rng.contains(version) is (lo <= key < hi)
