"""``collector_paused``: the cyclic collector is off inside, as it was after, nested or not,
and whatever the block raises."""

from __future__ import annotations

import gc

import pytest

from ipex_doctor.scan.read.collector import collector_paused


def test_the_collector_is_off_inside_and_as_it_was_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # NOTE: the inner pause does not end the outer one
    assert gc.isenabled()


def test_an_error_in_the_block_turns_it_back_on() -> None:
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("inside")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
