"""KAFKA-6725 on a Spark worker: adding a task restarts the connector's task and shares its partitions
out, and a task that fails mid-stream leaves the group, whose rebalance takes partitions from the
other; a buffering sink that writes its partial file when `is_closing()` keeps its progress, so no
record is consumed twice, while one that ignores it reads records again."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from conveyor.log import Log
from conveyor.log.assignment_strategy import COOPERATIVE_STICKY_ASSIGNOR as COOPERATIVE

from .connectors import (
    BUFFERING_SINK,
    FAIL_ON_RECORD_CONFIG,
    OUTPUT_DIR_CONFIG,
    RECORDS_PER_FILE_CONFIG,
    RESPECT_CLOSING_CONFIG,
)
from .support import (
    create_connector,
    rest_client,
    running_worker,
    states,
    status,
    unique,
    wait_for_partitions_held,
    wait_for_states,
    wait_until,
)

PARTITIONS = 2
FAILED_TASKS_STAY_FAILED = {"task.restart.enable": "false"}


def produce(log: Log, topic: str, start: int, per_partition: int) -> None:
    with log.producer() as producer:
        for partition in range(PARTITIONS):
            for n in range(start, start + per_partition):
                producer.send(topic, f"p{partition}-{n}".encode(), partition=partition)
        producer.flush()


def consumed(output: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    for path in output.glob("consumed-*.txt"):
        counts.update(line for line in path.read_text().splitlines() if line)
    return counts


def closed_by(output: Path, task: str) -> list[int]:
    """The partitions the task `<tasks.max>-<id>` closed so far, in order."""
    path = output / f"closed-{task}.txt"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def has_consumed(output: Path, per_partition: int) -> bool:
    seen = consumed(output)
    return all(f"{p}:{o}" in seen for p in range(PARTITIONS) for o in range(per_partition))


def duplicates_after_adding_a_task(tmp_path: Path, respect_closing: bool) -> int:
    """25 records per partition read by one task (two full files each, five buffered); then
    `tasks.max` goes to 2, and 3 more per partition are read by the two new tasks."""
    topic, name = unique("archive"), unique("buffering-sink")
    output = tmp_path / "output"
    output.mkdir()
    config = {
        "connector.class": BUFFERING_SINK,
        "tasks.max": "1",
        "topics": topic,
        OUTPUT_DIR_CONFIG: str(output),
        RECORDS_PER_FILE_CONFIG: "10",
        RESPECT_CLOSING_CONFIG: str(respect_closing).lower(),
    }
    with running_worker(tmp_path / "worker") as worker, rest_client(worker) as client:
        worker.log.admin().create_topic(topic, partitions=PARTITIONS)
        produce(worker.log, topic, 0, 25)
        create_connector(client, name, config)
        wait_until(lambda: has_consumed(output, 25), "the first task reading every record")
        wait_until(lambda: len(list(output.glob("file-*"))) == 4, "two full files per partition")
        response = client.put(f"/connectors/{name}/config", json={**config, "tasks.max": "2"})
        assert response.status_code == 200
        wait_for_states(client, name, "RUNNING", ["RUNNING", "RUNNING"])
        wait_for_partitions_held(client, name, 2)
        produce(worker.log, topic, 25, 3)
        wait_until(lambda: has_consumed(output, 28), "the records after the rebalance read")
    counts = consumed(output)
    return sum(counts.values()) - len(counts)


@dataclass(frozen=True)
class FailureOutcome:
    duplicates: int
    """Records consumed more than once."""
    survivor_closed: list[int]
    """The partitions the task that did not fail closed from the failure on, up to when it had read
    everything (not those it handed over when the second task joined)."""


def after_adding_a_task_then_one_failing(
    tmp_path: Path, respect_closing: bool, **overrides: str
) -> FailureOutcome:
    """As above, then the task holding partition 1 fails on its record 28 (its object store timing
    out, before it takes any record of that put) while both tasks buffer records 25 to 27; it closes
    its partitions and leaves the group, and the other task reads every partition to 30. The failed
    task stays failed, as in Kafka Connect, so that its partition can only go to the other task."""
    topic, name = unique("archive"), unique("buffering-sink")
    output = tmp_path / "output"
    output.mkdir()
    config = {
        "connector.class": BUFFERING_SINK,
        "tasks.max": "1",
        "topics": topic,
        OUTPUT_DIR_CONFIG: str(output),
        RECORDS_PER_FILE_CONFIG: "10",
        RESPECT_CLOSING_CONFIG: str(respect_closing).lower(),
        FAIL_ON_RECORD_CONFIG: "1:28",
        **overrides,
    }
    with (
        running_worker(tmp_path / "worker", **FAILED_TASKS_STAY_FAILED) as worker,
        rest_client(worker) as client,
    ):
        worker.log.admin().create_topic(topic, partitions=PARTITIONS)
        produce(worker.log, topic, 0, 25)
        create_connector(client, name, config)
        wait_until(lambda: has_consumed(output, 25), "the first task reading every record")
        wait_until(lambda: len(list(output.glob("file-*"))) == 4, "two full files per partition")
        response = client.put(f"/connectors/{name}/config", json={**config, "tasks.max": "2"})
        assert response.status_code == 200
        wait_for_states(client, name, "RUNNING", ["RUNNING", "RUNNING"])
        wait_for_partitions_held(client, name, 2)
        produce(worker.log, topic, 25, 3)
        wait_until(lambda: has_consumed(output, 28), "the records after the rebalance read")
        closed_before = {task: len(closed_by(output, f"2-{task}")) for task in range(2)}
        produce(worker.log, topic, 28, 3)
        wait_until(lambda: sorted(states(client, name)[1]) == ["FAILED", "RUNNING"], "one task failing")
        wait_until(lambda: has_consumed(output, 31), "the other task reading every partition on")
        survivor = next(task["id"] for task in status(client, name)["tasks"] if task["state"] == "RUNNING")
        survivor_closed = closed_by(output, f"2-{survivor}")[closed_before[survivor] :]
    counts = consumed(output)
    return FailureOutcome(sum(counts.values()) - len(counts), survivor_closed)


def test_a_sink_that_writes_its_partial_file_when_closing_consumes_nothing_twice(tmp_path: Path) -> None:
    assert duplicates_after_adding_a_task(tmp_path, respect_closing=True) == 0


def test_a_sink_that_ignores_is_closing_consumes_records_again(tmp_path: Path) -> None:
    assert duplicates_after_adding_a_task(tmp_path, respect_closing=False) > 0


def test_with_a_task_failing_mid_stream_a_sink_that_writes_its_partial_file_consumes_nothing_twice(
    tmp_path: Path,
) -> None:
    outcome = after_adding_a_task_then_one_failing(tmp_path, respect_closing=True)
    assert outcome.duplicates == 0
    # Kafka Connect's default assignors rebalance eagerly: the failure closed the survivor's partition.
    assert 0 in outcome.survivor_closed


def test_with_a_task_failing_mid_stream_a_sink_that_ignores_is_closing_consumes_records_again(
    tmp_path: Path,
) -> None:
    assert after_adding_a_task_then_one_failing(tmp_path, respect_closing=False).duplicates > 0


def test_with_cooperative_rebalancing_a_task_failing_mid_stream_closes_none_of_the_survivors_partitions(
    tmp_path: Path,
) -> None:
    outcome = after_adding_a_task_then_one_failing(
        tmp_path, respect_closing=True, **{"consumer.override.partition.assignment.strategy": COOPERATIVE}
    )
    assert outcome.duplicates == 0
    assert 0 not in outcome.survivor_closed
