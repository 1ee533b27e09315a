"""What an environment says about its torch and IPEX: versions and build variants.

The environments are constructed (tests/builders.py) after the labels PyPI's and Intel's wheels
carry; the real ones are judged in tests/verdicts.
"""

from __future__ import annotations

from builders import ARC, XPU_TORCH, make_env

from ipex_doctor.model.environment import IPEX, Environment


def variant(env: Environment, name: str) -> str | None:
    package = env.package(name)
    assert package is not None, name
    return env.effective_variant(package)


def test_versions_prefer_what_the_import_said() -> None:
    env = make_env({"torch": "2.8.0", IPEX: "2.8.0"}, torch_facts={"version": "2.8.0+cpu"})
    assert env.torch_version() == "2.8.0+cpu"
    assert env.ipex_version() == "2.8.0"  # no import facts: the metadata's
    assert make_env({}).torch_version() is None and make_env({}).ipex_version() is None


def test_an_unlabelled_torch_is_the_build_its_import_reported() -> None:
    xpu = make_env({"torch": "2.1.0.post0+cxx11.abi"}, torch_facts=XPU_TORCH, devices=(ARC,))
    assert variant(xpu, "torch") == "xpu"
    cuda = make_env({"torch": "2.8.0"}, torch_facts={"version": "2.8.0", "cuda": "12.8"})
    assert variant(cuda, "torch") == "cuda"
    assert variant(make_env({"torch": "2.8.0"}), "torch") is None  # no import facts, no label


def test_an_unlabelled_ipex_is_a_cpu_build() -> None:
    """PyPI only ever served IPEX CPU wheels, without a label in their metadata."""
    env = make_env({IPEX: "2.8.0", "torchvision": "0.23.0"})
    assert variant(env, IPEX) == "cpu" and variant(env, "torchvision") is None
    assert variant(make_env({IPEX: "2.8.10+xpu"}), IPEX) == "xpu"


def test_devices_of_a_kind_in_the_probe_s_order() -> None:
    env = make_env({}, devices=({**ARC, "index": 1}, {"type": "cuda", "index": 0}, ARC))
    assert [d["index"] for d in env.devices_of("xpu")] == [1, 0]
    assert env.devices_of("hpu") == []
