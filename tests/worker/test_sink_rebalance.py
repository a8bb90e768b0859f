"""Sink tasks of one connector share its consumer group: a rebalance closes partitions cleanly.

When a second task joins, the first loses partitions: it gets `pre_commit` with `is_closing()` true
(KAFKA-6725), then `close` for exactly those partitions, and its offsets are committed before the
new owner starts, so no record is lost or delivered twice.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from conveyor.log import Log

from .connectors import EVENTS_FILE_CONFIG, RECORDING_SINK, VALUES_DIR_CONFIG
from .support import (
    create_connector,
    rest_client,
    running_worker,
    unique,
    wait_for_partitions_held,
    wait_for_states,
    wait_until,
)

PARTITIONS = 4
RECORDS = 200


def produce(log: Log, topic: str, start: int, count: int) -> None:
    with log.producer() as producer:
        for n in range(start, start + count):
            producer.send(topic, f"value-{n}".encode(), partition=n % PARTITIONS)
        producer.flush()


def delivered(values_dir: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    for path in values_dir.glob("task-*.txt"):
        counts.update(line for line in path.read_text().splitlines() if line)
    return counts


def events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_joining_task_makes_the_first_close_its_partitions_after_a_closing_pre_commit(
    tmp_path: Path,
) -> None:
    topic, name = unique("rebalance"), unique("recording-sink")
    values_dir, events_file = tmp_path / "values", tmp_path / "events.jsonl"
    values_dir.mkdir()
    config = {
        "connector.class": RECORDING_SINK,
        "tasks.max": "1",
        "topics": topic,
        EVENTS_FILE_CONFIG: str(events_file),
        VALUES_DIR_CONFIG: str(values_dir),
    }
    with running_worker(tmp_path / "worker") as worker, rest_client(worker) as client:
        worker.log.admin().create_topic(topic, partitions=PARTITIONS)
        produce(worker.log, topic, 0, RECORDS)
        create_connector(client, name, config)
        wait_until(lambda: sum(delivered(values_dir).values()) >= RECORDS, "the first records delivered")

        assert client.put(f"/connectors/{name}/config", json={**config, "tasks.max": "2"}).status_code == 200
        wait_for_states(client, name, "RUNNING", ["RUNNING", "RUNNING"])
        wait_for_partitions_held(client, name, 2)
        produce(worker.log, topic, RECORDS, RECORDS)
        wait_until(lambda: sum(delivered(values_dir).values()) >= 2 * RECORDS, "every record delivered")

        counts = delivered(values_dir)
        assert set(counts) == {f"value-{n}" for n in range(2 * RECORDS)}
        assert max(counts.values()) == 1
        log = events(events_file)
        closings = [e for e in log if e["event"] == "pre_commit" and e["closing"]]
        assert closings, "no pre_commit ran with is_closing() true"
        for closing in closings:
            later = log[log.index(closing) + 1 :]
            close = next(e for e in later if e["event"] == "close" and e["task"] == closing["task"])
            assert set(close["partitions"]) >= set(closing["partitions"])
        final_owner: dict[str, int] = {}
        for entry in log:
            for partition in entry["partitions"]:
                if entry["event"] == "open":
                    final_owner[partition] = entry["task"]
        assert set(final_owner.values()) == {0, 1}
