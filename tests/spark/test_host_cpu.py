"""A task host's share of a core, from the CPU seconds its tasks' heartbeats carry."""

from __future__ import annotations

from conveyor.spark.host_cpu import BUSY_SHARE, WINDOW_S, HostCpu


def test_a_host_not_measured_twice_has_no_share_and_is_not_busy() -> None:
    cpu = HostCpu()
    cpu.add(100.0, 5.0)

    assert cpu.share() is None
    assert not cpu.busy()


def test_the_share_is_the_cpu_seconds_used_over_the_seconds_between_readings() -> None:
    cpu = HostCpu()
    cpu.add(100.0, 5.0)
    cpu.add(104.0, 7.0)

    assert cpu.share() == 0.5


def test_a_host_using_a_busy_share_of_a_core_is_busy() -> None:
    cpu = HostCpu()
    cpu.add(100.0, 0.0)
    cpu.add(102.0, 2 * BUSY_SHARE)

    assert cpu.busy()


def test_readings_less_than_a_second_apart_keep_the_first() -> None:
    cpu = HostCpu()
    cpu.add(100.0, 0.0)
    cpu.add(101.0, 0.1)
    cpu.add(101.5, 0.9)

    assert cpu.share() == 0.1


def test_only_about_the_last_window_of_readings_counts() -> None:
    cpu = HostCpu()
    cpu.add(0.0, 0.0)
    cpu.add(1.0, 1.0)
    for second in range(2, 2 + int(WINDOW_S) * 2):
        cpu.add(float(second), 1.0)

    assert cpu.share() == 0.0


def test_a_reading_below_the_last_one_starts_the_readings_over() -> None:
    cpu = HostCpu()
    cpu.add(100.0, 50.0)
    cpu.add(101.0, 0.5)

    assert cpu.share() is None
