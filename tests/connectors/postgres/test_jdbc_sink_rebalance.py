"""The exactly-once JDBC sink in a group of real `conveyor distributed` workers whose membership changes
while records stream in: a second worker joins (a task and its partitions move mid-stream), then the
first is killed with SIGKILL. The table is read back: every record once, whatever the rebalances cut."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from jdbc_sink_support import create_database, query, sink_config
from tests.distributed.worker_group import WorkerGroup, worker_group
from tests.waiting import wait_until
from tests.worker.support import JSON_CONVERTER, STRING_CONVERTER, unique

from conveyor.log import open_log
from conveyor.postgres_server import PostgresServer

PARTITIONS = 4
TASKS = 2
MOST_RECORDS = 8_000
"""The producer's bound: it writes until told to stop, never more than this."""
CHUNK = 10
PACE_S = 0.1
"""The producer's pause between chunks, so that records keep arriving through every rebalance."""
MOVED_ROWS = 300
"""Rows the sink must write after each membership change before the next one."""
WAIT_S = 240.0
STARTUP_S = 480.0
"""A second SparkSession starting beside the first and its tasks, on a machine that may be busy."""

WORKER = {"group.id": "jdbc-sink-group", "offset.flush.interval.ms": "600000"}
"""Consumer offsets committed every ten minutes, so within the test only when partitions are revoked: a
task that opens a partition of a killed worker finds no newer offset in the consumer group."""

pytestmark = pytest.mark.timeout(1200)
"""Two worker processes, each with its SparkSession, start slowly on a busy machine."""

VALUE_SCHEMA = {
    "type": "struct",
    "optional": False,
    "fields": [
        {"field": "id", "type": "int64", "optional": False},
        {"field": "pad", "type": "string", "optional": True},
    ],
}


@dataclass
class Producer:
    """Writes records with ids 0, 1, ... spread over the topic's partitions, on a thread of its own."""

    log_url: str
    topic: str
    written: int = 0
    error: BaseException | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> int:
        """Stop writing; the number of records written (ids 0 to that number minus one)."""
        self._stop.set()
        assert self._thread is not None
        self._thread.join(WAIT_S)
        assert not self._thread.is_alive(), "the producer did not stop"
        if self.error is not None:
            raise self.error
        return self.written

    def _run(self) -> None:
        try:
            with open_log(self.log_url) as log, log.producer() as producer:
                while not self._stop.is_set() and self.written < MOST_RECORDS:
                    for id_ in range(self.written, min(self.written + CHUNK, MOST_RECORDS)):
                        value = {"schema": VALUE_SCHEMA, "payload": {"id": id_, "pad": "p" * 150}}
                        producer.send(self.topic, json.dumps(value).encode(), partition=id_ % PARTITIONS)
                    producer.flush()
                    self.written = min(self.written + CHUNK, MOST_RECORDS)
                    self._stop.wait(PACE_S)
        except BaseException as error:
            self.error = error


@pytest.fixture
def group(tmp_path: Path) -> Iterator[WorkerGroup]:
    """A group of one worker to begin with; the test adds the second."""
    with worker_group(tmp_path, 0, **WORKER) as g:
        g.add_worker(STARTUP_S)
        yield g


def tally(postgres: PostgresServer, database: str, table: str) -> tuple[int, int, int, int]:
    """(rows, distinct ids, lowest id, highest id) of the table, or zeros before it exists."""
    exists = query(postgres, database, "SELECT to_regclass(%s) IS NOT NULL", f'"{table}"')[0][0]
    if not exists:
        return 0, 0, 0, 0
    rows = query(postgres, database, f'SELECT count(*), count(DISTINCT id), min(id), max(id) FROM "{table}"')
    count, distinct, low, high = rows[0]
    return int(count), int(distinct), int(low or 0), int(high or 0)


def connector_config(postgres: PostgresServer, database: str, topic: str) -> dict[str, str]:
    config = sink_config(
        postgres,
        database,
        auto_create="true",
        insert_mode="insert",
        pk_mode="none",
        exactly_once="true",
        max_retries="100",
        retry_backoff_ms="500",
    )
    del config["name"]
    return {
        **config,
        "topics": topic,
        "tasks.max": str(TASKS),
        "key.converter": STRING_CONVERTER,
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "true",
    }


def task_workers(group: WorkerGroup, name: str) -> set[str]:
    """The workers the connector's tasks run on, once every task is RUNNING (empty before)."""
    live = group.live()
    tasks = group.status(name, live[0]).get("tasks", []) if live else []
    if len(tasks) != TASKS or any(t["state"] != "RUNNING" for t in tasks):
        return set()
    return {t["worker_id"] for t in tasks}


def test_a_worker_joining_and_the_first_killed_mid_stream_leave_every_record_in_the_table_once(
    group: WorkerGroup, postgres: PostgresServer
) -> None:
    database = create_database(postgres)
    name, topic = unique("jdbc-rebalance"), unique("rebalance").replace("-", "_")
    with open_log(group.log_url) as log:
        log.admin().create_topic(topic, partitions=PARTITIONS)
    first = group.workers[0]
    response = group.request(
        first, "POST", "/connectors", {"name": name, "config": connector_config(postgres, database, topic)}
    )
    assert response.status_code == 201, response.text
    producer = Producer(group.log_url, topic)
    producer.start()
    try:
        wait_until(
            lambda: task_workers(group, name) == {first.worker_id}, "both tasks on the first worker", WAIT_S
        )
        wait_until(lambda: tally(postgres, database, topic)[0] >= MOVED_ROWS, "rows flowing", WAIT_S, 0.5)

        second = group.add_worker(STARTUP_S)
        both = {first.worker_id, second.worker_id}
        wait_until(
            lambda: task_workers(group, name) == both, "a task moved to the second worker", WAIT_S, 0.5
        )
        moved_at = tally(postgres, database, topic)[0]
        wait_until(
            lambda: (
                tally(postgres, database, topic)[0] >= moved_at + MOVED_ROWS
                or producer.written == MOST_RECORDS
            ),
            "rows flowing after the rebalance",
            WAIT_S,
            0.5,
        )

        first.kill()
        group.remove(first)
        wait_until(
            lambda: task_workers(group, name) == {second.worker_id},
            "both tasks on the second worker",
            WAIT_S,
            0.5,
        )
        killed_at = tally(postgres, database, topic)[0]
        wait_until(
            lambda: (
                tally(postgres, database, topic)[0] >= killed_at + MOVED_ROWS
                or producer.written == MOST_RECORDS
            ),
            "rows flowing after the kill",
            WAIT_S,
            0.5,
        )
    finally:
        written = producer.stop()

    seen: list[tuple[int, int, int, int]] = []

    def all_arrived() -> bool:
        seen.append(tally(postgres, database, topic))
        return seen[-1][1] == written

    wait_until(all_arrived, f"all {written} records in the table", WAIT_S, 1.0)
    assert tally(postgres, database, topic) == (written, written, 0, written - 1)
