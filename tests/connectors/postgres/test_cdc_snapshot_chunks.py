"""The parallel snapshot: task 0 plans primary-key chunks in the slot's exported snapshot, every task reads
its share of them in that snapshot, and task 0 streams once every chunk is committed."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator

import pytest
from tests.connectors.connector_contexts import DictOffsetStorageReader
from tests.connectors.postgres.cdc_tasks import TaskRun, after, cdc_config, ops
from tests.connectors.postgres.databases import execute, fresh_database
from tests.waiting import wait_until

from conveyor.connectors.postgres.cdc_config import TASK_COUNT_CONFIG, TASK_INDEX_CONFIG
from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.data import SourceRecord
from conveyor.postgres_server import PostgresServer

ROWS = 1000
CHUNK = 70
WAIT_S = 120.0


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "cdcchunks") as target:
        execute(
            target,
            "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)",
            f"INSERT INTO items SELECT n, 'item ' || n FROM generate_series(1, {ROWS}) AS n",
            "CREATE TABLE pairs (a int, b text, PRIMARY KEY (a, b))",
            "INSERT INTO pairs SELECT n % 7, 'b' || n FROM generate_series(1, 300) AS n",
        )
        yield target


def task_configs(database: PostgresAddress, tasks: int) -> list[dict[str, str]]:
    config = cdc_config(
        database,
        "chunks",
        **{"slot.name": f"slot_{uuid.uuid4().hex[:8]}", "snapshot.chunk.size": str(CHUNK)},
        **{"max.batch.size": "50"},
    )
    return [{**config, TASK_INDEX_CONFIG: str(i), TASK_COUNT_CONFIG: str(tasks)} for i in range(tasks)]


def run_tasks(database: PostgresAddress, tasks: int, until_streamed: int) -> list[TaskRun]:
    """Start the tasks on one offset store and poll and commit each in turn until task 0 has streamed
    ``until_streamed`` changes (an insert made once task 0 has returned its first records)."""
    offsets = DictOffsetStorageReader()
    runs = [TaskRun(config, offsets) for config in task_configs(database, tasks)]
    inserted = False

    def streamed() -> list[SourceRecord]:
        return [record for record in runs[0].records if after(record) and ops([record]) != ["r"]]

    def advanced() -> bool:
        nonlocal inserted
        for run in runs:
            run.poll()
            run.commit()
        if runs[0].records and not inserted:
            execute(database, "INSERT INTO items VALUES (-1, 'made during the snapshot')")
            inserted = True
        return len(streamed()) >= until_streamed

    try:
        wait_until(advanced, "the snapshot and the change made during it", WAIT_S, every_s=0.0)
    finally:
        for run in runs:
            run.task.stop()
    return runs


def key(record: SourceRecord) -> tuple[str, object]:
    row = after(record)
    assert row is not None
    return record.topic, row["id"] if "id" in row else (row["a"], row["b"])


@pytest.mark.parametrize("tasks", [1, 3])
def test_every_row_arrives_once_across_the_tasks_and_the_change_made_meanwhile_is_streamed(
    database: PostgresAddress, tasks: int
) -> None:
    runs = run_tasks(database, tasks, until_streamed=1)
    read = Counter(key(record) for run in runs for record in run.records if ops([record]) == ["r"])
    expected = {("chunks.public.items", n) for n in range(1, ROWS + 1)} | {
        ("chunks.public.pairs", (n % 7, f"b{n}")) for n in range(1, 301)
    }
    assert [key for key, count in read.items() if count > 1] == []
    assert expected - set(read) == set()
    assert set(read) - expected == set()
    streamed = [after(record) for record in runs[0].records if ops([record]) == ["c"]]
    assert streamed == [{"id": -1, "name": "made during the snapshot"}]


def test_each_task_reads_its_share_of_the_chunks(database: PostgresAddress) -> None:
    runs = run_tasks(database, 3, until_streamed=1)
    shares = [sum(1 for record in run.records if ops([record]) == ["r"]) for run in runs]
    assert all(share > 0 for share in shares)
    assert sum(shares) == ROWS + 300


def test_a_task_restarted_mid_chunk_resumes_after_its_last_committed_row(database: PostgresAddress) -> None:
    offsets = DictOffsetStorageReader()
    first, second = task_configs(database, 2)
    leader = TaskRun(first, offsets)
    try:
        leader.poll()
        leader.commit()
        helper = TaskRun(second, offsets)
        wait_until(lambda: len(helper.poll()) > 0, "the helper's first rows", WAIT_S, every_s=0.0)
        committed = list(helper.records)
        helper.commit()
        assert helper.poll(), "the helper had no second batch to lose"
        helper.task.stop()
        restarted = TaskRun(second, offsets)

        def finished() -> bool:
            restarted.poll()
            restarted.commit()
            leader.poll()
            leader.commit()
            return any(h.source_partition == {"server": "chunks"} for h in leader.heartbeats)

        wait_until(finished, "the snapshot to complete", WAIT_S, every_s=0.0)
        restarted.task.stop()
    finally:
        leader.task.stop()
    keys = [
        key(record) for record in [*leader.records, *committed, *restarted.records] if ops([record]) == ["r"]
    ]
    assert len(keys) == len(set(keys)) == ROWS + 300
