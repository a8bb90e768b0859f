"""A herder's stages: what it is doing, and when it counts as stuck (KIP-1017's health check)."""

from __future__ import annotations

from conveyor.herder.stages import HerderStages


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_running_stage_is_summarized_with_its_start_as_java_prints_an_instant() -> None:
    clock = Clock()
    stages = HerderStages(clock)
    with stages.stage("starting the connector c"):
        assert stages.summary() == (
            "The worker is currently starting the connector c, which began at 2023-11-14T22:13:20.000Z."
        )


def test_after_a_stage_ends_the_summary_names_it_as_the_last_completed() -> None:
    clock = Clock()
    stages = HerderStages(clock)
    with stages.stage("deleting the connector c"):
        clock.now += 1.5
    assert stages.summary() == (
        "The last operation the worker completed was deleting the connector c, which began at "
        "2023-11-14T22:13:20.000Z and completed at 2023-11-14T22:13:21.500Z."
    )


def test_a_stage_is_stuck_only_once_it_outlasts_the_timeout() -> None:
    clock = Clock()
    stages = HerderStages(clock)
    with stages.stage("restarting the connector c"):
        clock.now += 10.0
        assert stages.stuck(10.0) is None
        clock.now += 0.1
        stuck = stages.stuck(10.0)
        assert stuck is not None and stuck.description == "restarting the connector c"
    assert stages.stuck(10.0) is None


def test_the_oldest_of_concurrent_stages_is_the_one_reported() -> None:
    clock = Clock()
    stages = HerderStages(clock)
    with stages.stage("deleting the connector a"):
        clock.now += 1
        with stages.stage("deleting the connector b"):
            oldest = stages.oldest_running()
    assert oldest is not None and oldest.description == "deleting the connector a"


def test_a_request_that_times_out_names_what_the_herder_is_doing_and_since_when() -> None:
    clock = Clock()
    stages = HerderStages(clock)
    with stages.stage("writing the config of the connector c"):
        clock.now += 95
        assert stages.timed_out() == (
            "Request timed out. The worker is currently writing the config of the connector c, which began "
            "at 2023-11-14T22:13:20.000Z."
        )


def test_a_request_that_times_out_with_the_herder_idle_names_its_last_operation() -> None:
    clock = Clock()
    stages = HerderStages(clock)
    with stages.stage("deleting the connector c"):
        clock.now += 1
    assert stages.timed_out().startswith(
        "Request timed out. The last operation the worker completed was deleting the connector c"
    )
