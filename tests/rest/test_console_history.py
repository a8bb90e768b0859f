"""The console's history: records/s and lag per connector from the statuses sampled, kept for a window."""

from __future__ import annotations

from typing import Any

from conveyor.herder.entities import ConnectorState, ConnectorStateInfo, TaskState
from conveyor.rest.console.history import ConsoleHistory, HistorySampler
from conveyor.storage.errors import StorageError

from .error_raising_herder import ErrorRaisingHerder


def status(kind: str, *tasks: tuple[str, dict[str, Any]], connector: str = "RUNNING") -> ConnectorStateInfo:
    return ConnectorStateInfo(
        "c",
        ConnectorState(connector, "w:8083"),
        [TaskState(state, "w:8083", id=i, metrics=metrics) for i, (state, metrics) in enumerate(tasks)],
        kind,
    )


def source(*written: int, state: str = "RUNNING") -> ConnectorStateInfo:
    return status("source", *[(state, {"records-written": count}) for count in written])


def test_records_per_second_is_the_change_in_records_moved_over_the_time_between_samples() -> None:
    history = ConsoleHistory()
    history.record(1_000, {"c": source(100, 50)})
    sample = history.record(3_000, {"c": source(300, 50)})
    assert sample.connectors["c"].rate == 100.0


def test_a_counter_that_drops_after_a_restart_counts_as_no_records() -> None:
    history = ConsoleHistory()
    history.record(1_000, {"c": source(500)})
    assert history.record(2_000, {"c": source(10)}).connectors["c"].rate == 0.0


def test_a_task_whose_metrics_are_unknown_is_left_out_of_the_rate_rather_than_counted_as_no_records() -> None:
    history = ConsoleHistory()
    history.record(1_000, {"c": source(100, 1_000)})
    unknown = TaskState("RUNNING", "w2:8083", id=1, metrics_unavailable="Worker w2:8083 did not answer")
    gone = source(300)
    history.record(2_000, {"c": ConnectorStateInfo("c", gone.connector, [gone.tasks[0], unknown], "source")})
    assert history.record(3_000, {"c": source(500, 3_000)}).connectors["c"].rate == 200.0


def test_a_sinks_lag_is_its_tasks_records_lag_and_a_source_has_none() -> None:
    history = ConsoleHistory()
    sink = status("sink", ("RUNNING", {"records-put": 1, "records-lag": 7}), ("RUNNING", {"records-lag": 3}))
    sample = history.record(1_000, {"s": sink, "c": source(1)})
    assert sample.connectors["s"].lag == 10.0
    assert sample.connectors["c"].lag is None


def test_samples_older_than_the_window_are_dropped() -> None:
    history = ConsoleHistory(interval_s=5, window_s=15)
    for t in range(1, 6):
        history.record(t * 5_000, {"c": source(t)})
    assert [sample.t for sample in history.since()] == [15_000, 20_000, 25_000]


def test_since_answers_only_the_samples_taken_after_it() -> None:
    history = ConsoleHistory()
    for t in (1_000, 2_000, 3_000):
        history.record(t, {"c": source(t)})
    assert [sample.t for sample in history.since(2_000)] == [3_000]


def test_a_task_failure_is_counted_once_however_many_samples_see_it() -> None:
    history = ConsoleHistory()
    history.record(1_000, {"c": source(1, state="FAILED")})
    history.record(2_000, {"c": source(1, state="FAILED")})
    history.record(3_000, {"c": source(1, state="RUNNING")})
    history.record(4_000, {"c": source(1, state="FAILED")})
    seen = history.task_failures()[("c", 0)]
    assert (seen.count, seen.last_seen_ms, seen.failed) == (2, 4_000, True)


def test_a_deleted_connector_leaves_the_samples_that_follow() -> None:
    history = ConsoleHistory()
    history.record(1_000, {"c": source(1, state="FAILED")})
    sample = history.record(2_000, {})
    assert sample.connectors == {}
    assert history.task_failures() == {}


def test_a_herder_that_raises_costs_one_sample_and_never_the_sampler() -> None:
    history = ConsoleHistory()
    sampler = HistorySampler(ErrorRaisingHerder(StorageError("the status topic is unreachable")), history)
    sampler.sample_once()
    assert history.since() == []
