"""The one repair policy: what ``fix`` may run, judged on typed actions, and the snapshot's
grammar. The names it may touch are derived from what the doctor reads and its remedies name."""

from __future__ import annotations

import pytest
from builders import make_env

from ipex_doctor.knowledge import remedies, remedy_policy
from ipex_doctor.knowledge.known_issues import load_files
from ipex_doctor.knowledge.remedy_policy import (
    MAY_TOUCH,
    PROTECTED,
    action_refusal,
    distribution_refusal,
    known_index,
    source_refusal,
)
from ipex_doctor.model.remedy import PipAction
from ipex_doctor.model.terms import StepKind
from ipex_doctor.probe.interpreter import PACKAGES_OF_INTEREST

PY = "/envs/a/bin/python"


def _install(*requirements: str, index: str | None = None, extra: tuple[str, ...] = ()) -> PipAction:  # fmt: skip
    return PipAction(PY, StepKind.INSTALL, requirements, index, extra)


@pytest.mark.parametrize(
    "action",
    [
        _install("intel-extension-for-pytorch==2.8.*"),
        _install("torch==2.7.1", "torchvision==0.22.1"),
        _install("torchvision==0.28.0+cpu", index="https://download.pytorch.org/whl/cpu"),
        _install(
            "intel-extension-for-pytorch==2.8.10+xpu",
            extra=("https://pytorch-extension.intel.com/release-whl/stable/xpu/us/",),
        ),
        _install("intel-cmplr-lib-ur==2025.3.1"),
        _install("Intel_Extension_For_PyTorch==2.8.0", index="https://pypi.org/simple/"),
        PipAction(PY, StepKind.UNINSTALL, ("intel-extension-for-pytorch",)),
    ],
)
def test_what_the_remedies_produce_may_run(action: PipAction) -> None:
    assert action_refusal(action, PY) is None


@pytest.mark.parametrize(
    ("action", "said"),
    [
        (PipAction("/other/python", StepKind.INSTALL, ("torch==2.8.0",)), "not the examined"),
        (_install("torch"), "not pinned"),
        (_install("torch>=2.8"), "not pinned"),
        (_install("torch==2.8"), "not pinned"),  # X.Y: not one version
        (_install("torch==2.8.0.1"), "not pinned"),
        (_install("torch==2.9.0rc1"), "not pinned"),
        (_install("torch==2.8.0.post1"), "not pinned"),
        (_install("torch==1!2.8.0"), "not pinned"),
        (_install("torch==2.*"), "not pinned"),
        (_install("torch==2.8.0,!=2.8.1"), "not pinned"),
        (_install("torch===2.8.0"), "not pinned"),
        (_install("torch[opt]==2.8.0"), "URL, extras or a marker"),
        (_install("torch==2.8.0; python_version>'3'"), "URL, extras or a marker"),
        (_install("torch @ https://example.org/torch-2.8.0-py3-none-any.whl"), "URL, extras"),
        (_install("slowpkg==1.0.0"), "not a package the knowledge base may touch"),
        (_install("--find-links=http://127.0.0.1/"), "not a requirement"),
        (_install("pip==24.0"), "never removes or replaces pip"),
        (_install("setuptools==80.0.0"), "never removes or replaces setuptools"),
        (PipAction(PY, StepKind.UNINSTALL, ("pip",)), "never removes or replaces pip"),
        (PipAction(PY, StepKind.UNINSTALL, ("wheel",)), "never removes or replaces wheel"),
        (PipAction(PY, StepKind.UNINSTALL, ("ipex_doctor",)), "ipex-doctor"),
        (PipAction(PY, StepKind.UNINSTALL, ("torch==2.8.0",)), "the distribution alone"),
        (_install("torch==2.8.0", index="http://127.0.0.1:8000/simple"), "not one the knowledge"),
        (_install("torch==2.8.0", extra=("http://download.pytorch.org/whl/cpu",)), "not one"),
        (
            _install("torch==2.8.0", index="https://download.pytorch.org.evil.example/whl/cpu"),
            "not one",
        ),
        (_install("torch==2.8.0", index="https://u:p@download.pytorch.org/whl/cpu"), "not one"),
        (_install("torch==2.8.0", index="https://download.pytorch.org:8443/whl/cpu"), "not one"),
        (_install("torch==2.8.0", index="https://download.pytorch.org/whl/cpu?x=1"), "not one"),
        (_install("torch==2.8.0", index="https://download.pytorch.org/whl/../evil"), "not one"),
        (_install("torch==2.8.0", index="https://pypi.org/simple/evil/"), "not one"),
    ],
)
def test_anything_else_is_refused_with_the_reason(action: PipAction, said: str) -> None:
    reason = action_refusal(action, PY)
    assert reason is not None and said in reason, reason


def test_every_index_the_remedies_name_is_known() -> None:
    """The indexes of ``remedies`` pass ``known_index`` (with and without the final slash)."""
    named = [remedies.INTEL_CPU_INDEX, remedies.INTEL_XPU_INDEX, "https://pypi.org/simple"]
    named += [remedies.PYTORCH_INDEX + label for label in ("cpu", "xpu", "cu128", "rocm6.4")]
    for url in named:
        assert known_index(url) and known_index(url.rstrip("/") + "/"), url


def test_the_packages_it_may_touch_are_those_the_doctor_reads_and_the_kb_names() -> None:
    """``MAY_TOUCH`` is the stack the probe reads (less numpy, and the CUDA build's triton that
    no remedy names), and holds every package a knowledge-base entry judges and every name a
    remedy builds; nothing protected is in it."""
    assert MAY_TOUCH == PACKAGES_OF_INTEREST - {"numpy", "triton"} | {
        "onemkl-sycl-blas", "onemkl-sycl-dft", "onemkl-sycl-lapack", "onemkl-sycl-rng",
        "onemkl-sycl-sparse",
    }  # fmt: skip
    kb = load_files((), lambda _: None)
    judged = {fact.package for issue in kb.issues for fact in issue.affected}
    assert judged <= MAY_TOUCH
    env = make_env({"torch": "2.8.0", "torchvision": "0.22.0", "intel-extension-for-pytorch": "2.7.0"})  # fmt: skip
    built = [*remedies.move_ipex(env, "2.8", None), *remedies.move_torch(env, "2.7"),
             *remedies.install_torchvision(env, "0.23"), remedies.uninstall(env, "torchvision")]  # fmt: skip
    for action in built:
        assert action_refusal(action, env.interpreter.executable) is None, action
    assert not MAY_TOUCH & PROTECTED


@pytest.mark.parametrize(
    ("name", "version"),
    [("--find-links=http://127.0.0.1/", "1.0"), ("torch==2.8.0", "2.8.0"), ("a b", "1"),
     ("torch", "2.8.0 --index-url=x"), ("torch", "not-a-version"), ("", "1.0"),
     ("torch[x]", "1.0")],
)  # fmt: skip
def test_a_snapshot_entry_must_be_a_distribution(name: str, version: str) -> None:
    assert distribution_refusal(name, version) is not None


def test_what_a_snapshot_records_is_a_distribution() -> None:
    for name, version in [("pip", "23.2.1"), ("Intel_Extension_For_PyTorch", "2.8.0+cpu"),
                          ("zope.interface", "6.0"), ("torch", "2.8.0+cu128")]:  # fmt: skip
        assert distribution_refusal(name, version) is None


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("https://example.org/torchaudio-1.0.0.tar.gz", "not an index or a local wheel file"),
        ("https://example.org/torchaudio-1.0.0-py3-none-any.whl", "not an index or a local"),
        ("file:///tmp/torchaudio-1.0.0.tar.gz", "not a wheel"),
        ("file:///tmp/project", "not a wheel"),
        ("file://host/share/torchaudio-1.0.0-py3-none-any.whl", "not an index or a local"),
        ("file:///tmp/torchvision-1.0.0-py3-none-any.whl", "not the wheel of torchaudio"),
        ("file:///tmp/torchaudio-2.0.0-py3-none-any.whl", "not the wheel of torchaudio"),
        ("file:///tmp/torchaudio.whl", "not a wheel's file name"),
        ("git+https://example.org/torchaudio", "not an index or a local wheel file"),
    ],
)
def test_a_snapshot_source_that_would_be_built_or_fetched_is_refused(source: str, said: str) -> None:  # fmt: skip
    reason = source_refusal("torchaudio", "1.0.0", source)
    assert reason is not None and said in reason, reason


def test_an_index_or_the_local_wheel_of_that_version_is_a_source() -> None:
    assert source_refusal("torchaudio", "1.0.0", None) is None
    wheel = "file:///tmp/w/torchaudio-1.0.0-py3-none-any.whl"
    assert source_refusal("torchaudio", "1.0.0", wheel) is None
    assert remedy_policy.source_refusal("Torch_Audio", "1.0", wheel.replace("torchaudio", "torch_audio")) is None  # fmt: skip
