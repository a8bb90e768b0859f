"""Windowed statistics read as Kafka's metrics library reads them (30 s samples, 2 of them)."""

from __future__ import annotations

import pytest

from conveyor.metrics.sampled_stats import Meter, MetricWindow, SampledStat, TotalRate


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_a_rate_divides_by_at_least_one_full_sample_while_the_window_is_young(clock: Clock) -> None:
    stat = SampledStat(MetricWindow(30.0, 2), clock)
    stat.record(300)
    clock.now += 10
    assert stat.rate() == pytest.approx(300 / 40)


def test_a_rate_covers_the_samples_still_in_the_window(clock: Clock) -> None:
    stat = SampledStat(MetricWindow(30.0, 2), clock)
    stat.record(600)
    clock.now += 45
    stat.record(300)
    assert stat.rate() == pytest.approx(900 / 45)


def test_values_age_out_of_the_window(clock: Clock) -> None:
    stat = SampledStat(MetricWindow(30.0, 2), clock)
    stat.record(600)
    clock.now += 61
    assert stat.rate() == 0.0
    assert stat.avg() is None
    assert stat.max() is None


def test_average_minimum_and_maximum_are_over_the_recorded_values(clock: Clock) -> None:
    stat = SampledStat(MetricWindow(30.0, 2), clock)
    for value in (4, 10, 1):
        stat.record(value)
        clock.now += 15
    assert (stat.avg(), stat.min(), stat.max()) == (5, 1, 10)


def test_nothing_recorded_reads_as_no_value(clock: Clock) -> None:
    stat = SampledStat(MetricWindow(30.0, 2), clock)
    assert (stat.avg(), stat.min(), stat.max(), stat.rate()) == (None, None, None, 0.0)


def test_a_reported_total_is_rated_by_its_increases_and_a_reset_counts_from_zero(clock: Clock) -> None:
    rate = TotalRate(MetricWindow(30.0, 2), clock)
    rate.observe(100)
    rate.observe(400)
    rate.observe(50)
    assert rate.rate() == pytest.approx(450 / 30)


def test_a_meter_totals_every_count_while_its_rate_covers_only_the_window(clock: Clock) -> None:
    meter = Meter(MetricWindow(30.0, 2), clock)
    meter.record(600)
    clock.now += 90
    meter.record(300)
    assert (meter.total, meter.rate()) == (900, pytest.approx(300 / 30))
