"""Which devices a run uses; under a launcher, each rank its own device and the CPU once per node."""

from __future__ import annotations

import pytest
from builders import MAX, make_env

from ipex_doctor.errors import DoctorError
from ipex_doctor.model.device_spec import DeviceSpec
from ipex_doctor.runs.device_selection import (
    first_device,
    local_rank,
    parse_device_spec,
    select_devices,
)

TWO_CARDS = make_env({"torch": "2.8.0"}, devices=(MAX, {**MAX, "index": 1}))
CPU_ONLY = make_env({"torch": "2.8.0"})


@pytest.mark.parametrize(
    ("rank", "expected"), [(0, ["xpu:0", "cpu"]), (1, ["xpu:1"]), (2, ["xpu:0"])]
)
def test_each_local_rank_takes_its_own_card_and_only_the_first_the_cpu(
    rank: int, expected: list[str]
) -> None:
    assert select_devices(DeviceSpec.parse("local"), TWO_CARDS, rank=rank) == (expected, [])


def test_a_cpu_node_runs_its_checks_on_its_first_rank_only() -> None:
    assert select_devices(DeviceSpec.parse("local"), CPU_ONLY, rank=0) == (["cpu"], [])
    assert select_devices(DeviceSpec.parse("local"), CPU_ONLY, rank=3) == ([], [])
    assert first_device(DeviceSpec.parse("local"), CPU_ONLY, rank=3) == (
        None,
        "",
    )  # not "absent": nothing asked
    assert first_device(DeviceSpec.parse("local"), TWO_CARDS, rank=1) == ("xpu:1", "")


def test_auto_still_means_every_device() -> None:
    assert select_devices(DeviceSpec.parse("auto"), TWO_CARDS, rank=1) == (
        ["cpu", "xpu:0", "xpu:1"],
        [],
    )
    assert select_devices(DeviceSpec.parse("xpu:3"), TWO_CARDS) == ([], ["xpu:3"])


def test_local_rank_comes_from_the_launcher() -> None:
    assert local_rank({"LOCAL_RANK": "3"}) == 3
    assert local_rank({"OMPI_COMM_WORLD_LOCAL_RANK": "2"}) == 2
    assert local_rank({"SLURM_LOCALID": "1"}) == 1
    assert local_rank({"LOCAL_RANK": "x"}) == 0
    assert local_rank({}) == 0


def test_device_specs() -> None:
    assert parse_device_spec(" Local ") == DeviceSpec("local")
    with pytest.raises(DoctorError, match="not a device"):
        parse_device_spec("local:1")


@pytest.mark.parametrize(
    ("text", "kind", "index"),
    [("auto", "auto", None), ("local", "local", None), ("cpu", "cpu", None),
     ("xpu:3", "xpu", 3), (" CUDA:10 ", "cuda", 10), ("cuda", "cuda", None)],
)  # fmt: skip
def test_a_spec_is_parsed_once_into_its_parts_and_written_back(
    text: str, kind: str, index: int | None
) -> None:
    spec = DeviceSpec.parse(text)
    assert (spec.kind, spec.index) == (kind, index)
    assert str(spec) == text.strip().lower() and DeviceSpec.parse(str(spec)) == spec
