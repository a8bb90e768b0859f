"""RatePacer: records granted at a steady average rate since the first one."""

import pytest

from conveyor.connectors.generator.pacing import RatePacer


class SteppedClock:
    """Time that moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_first_record_is_granted_at_once() -> None:
    pacer = RatePacer(10, SteppedClock())
    assert pacer.grant(5) == 1


def test_records_are_granted_as_time_makes_them_due() -> None:
    clock = SteppedClock()
    pacer = RatePacer(10, clock)
    pacer.grant(100)
    clock.now += 0.5
    assert pacer.grant(100) == 5


def test_the_wait_until_the_next_record_follows_the_rate() -> None:
    clock = SteppedClock()
    pacer = RatePacer(4, clock)
    pacer.grant(1)
    assert pacer.seconds_until_due() == pytest.approx(0.25)


def test_a_producer_that_fell_behind_catches_up_within_its_request() -> None:
    clock = SteppedClock()
    pacer = RatePacer(100, clock)
    pacer.grant(1)
    clock.now += 10
    assert pacer.grant(500) == 500
    assert pacer.grant(2000) == 500


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError):
        RatePacer(0)
