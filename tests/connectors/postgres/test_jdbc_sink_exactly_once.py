"""Exactly once into PostgreSQL: rows and offsets in one transaction, rewinds on open, fencing of zombies,
and a server restarted mid-stream, shown on real task instances and a real database."""

from __future__ import annotations

import pytest
from jdbc_sink_support import create_database, ids, query, rows_of, sink_config, started_task, unique_table

from conveyor.api import RetriableError, TopicPartition
from conveyor.connectors.postgres.jdbc_sink import JdbcSinkConnector, JdbcSinkTask
from conveyor.connectors.postgres.sink_config import JdbcSinkSettings
from conveyor.connectors.postgres.sink_offsets import FencedError
from conveyor.postgres_server import PostgresServer


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> str:
    return create_database(postgres)


@pytest.fixture
def topic(request: pytest.FixtureRequest) -> str:
    return unique_table("e")


def offsets_rows(server: PostgresServer, database: str, topic: str) -> list[tuple[int, int, int]]:
    return [
        (int(p), int(o), int(g))
        for p, o, g in query(
            server,
            database,
            "SELECT kafka_partition, next_offset, generation FROM conveyor_sink_offsets WHERE topic = %s",
            topic,
        )
    ]


def assert_exactly(server: PostgresServer, database: str, topic: str, count: int) -> None:
    """The verifier: one row per record, none twice, none missing."""
    written = ids(server, database, topic)
    assert written == list(range(count)), (len(written), len(set(written)))


def test_exactly_once_is_on_by_default_for_insert_and_off_for_upsert(postgres: PostgresServer) -> None:
    insert = JdbcSinkSettings.parse(sink_config(postgres, "db"))
    upsert = JdbcSinkSettings.parse(sink_config(postgres, "db", insert_mode="upsert", pk_mode="record_value"))
    assert (insert.exactly_once, upsert.exactly_once) == (True, False)


def test_a_batch_commits_its_rows_and_its_next_offset_together(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(postgres, database, auto_create="true")
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put(rows_of(topic, 10))
    assert (ids(postgres, database, topic), offsets_rows(postgres, database, topic)) == (
        list(range(10)),
        [(0, 10, 1)],
    )


def test_pre_commit_reports_the_database_s_offsets_not_the_consumed_ones(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    partition = TopicPartition(topic, 0)
    config = sink_config(postgres, database, auto_create="true")
    with started_task(config, [partition]) as (task, _):
        task.put(rows_of(topic, 10))
        assert task.pre_commit({partition: 25}) == {partition: 10}


def test_a_new_task_rewinds_to_the_database_s_offsets_and_replays_nothing_twice(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    """The first incarnation dies after its database commit and before the consumer group's commit: the
    next one is handed the same records again by the consumer, and writes only the new ones."""
    partition = TopicPartition(topic, 0)
    config = sink_config(postgres, database, auto_create="true")
    with started_task(config, [partition]) as (task, _):
        task.put(rows_of(topic, 30))
    with started_task(config, [partition]) as (task, context):
        assert context.offsets == {partition: 30}
        task.put(rows_of(topic, 50))
    assert_exactly(postgres, database, topic, 50)


def test_a_zombie_task_whose_partition_was_opened_again_writes_nothing(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    partition = TopicPartition(topic, 0)
    config = sink_config(postgres, database, auto_create="true")
    with started_task(config, [partition]) as (zombie, _):
        zombie.put(rows_of(topic, 10))
        with started_task(config, [partition]) as (successor, context):
            with pytest.raises(FencedError, match=rf"fenced off {topic}-0"):
                zombie.put(rows_of(topic, 10, start=10))
            successor.put(rows_of(topic, 20, start=context.offsets[partition]))
    assert_exactly(postgres, database, topic, 30)
    assert offsets_rows(postgres, database, topic) == [(0, 30, 2)]


def test_fencing_is_per_partition(postgres: PostgresServer, database: str, topic: str) -> None:
    kept, moved = TopicPartition(topic, 0), TopicPartition(topic, 1)
    config = sink_config(postgres, database, auto_create="true")
    with started_task(config, [kept, moved]) as (old, _), started_task(config, [moved]):
        old.put(rows_of(topic, 5, partition=0))
        with pytest.raises(FencedError):
            old.put(rows_of(topic, 5, start=5, partition=1))
    assert ids(postgres, database, topic) == list(range(5))


def test_insert_with_no_key_replays_without_duplicates_only_through_the_transaction(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    """pk.mode=none: nothing in the table tells two copies of a record apart."""
    partition = TopicPartition(topic, 0)
    config = sink_config(postgres, database, auto_create="true", pk_mode="none")
    for _ in range(3):
        with started_task(config, [partition]) as (task, _):
            task.put(rows_of(topic, 40))
    assert_exactly(postgres, database, topic, 40)


def test_without_exactly_once_a_replay_writes_the_records_again(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    """The counterpart of the test above: what exactly.once=true prevents."""
    partition = TopicPartition(topic, 0)
    config = sink_config(postgres, database, auto_create="true", pk_mode="none", exactly_once="false")
    for _ in range(2):
        with started_task(config, [partition]) as (task, _):
            task.put(rows_of(topic, 5))
    assert len(ids(postgres, database, topic)) == 10


def test_a_restarted_server_is_ridden_out_by_retries_without_loss_or_duplicates() -> None:
    with PostgresServer() as server:
        database = create_database(server)
        partition = TopicPartition("restart", 0)
        config = sink_config(server, database, auto_create="true", max_retries="50")
        with started_task(config, [partition]) as (task, _):
            task.put(rows_of("restart", 100))
            server.stop(mode="immediate")
            with pytest.raises(RetriableError):
                task.put(rows_of("restart", 100, start=100))
            server.start()
            deliver_until_taken(task, rows_of("restart", 100, start=100))
            task.put(rows_of("restart", 100, start=200))
        assert_exactly(server, database, "restart", 300)


def deliver_until_taken(task: JdbcSinkTask, records: list) -> None:  # type: ignore[type-arg]
    """Redeliver a batch as the runtime does after a RetriableError, a bounded number of times."""
    for _ in range(200):
        try:
            task.put(records)
            return
        except RetriableError:
            continue
    raise AssertionError("the batch was never taken")


def test_altering_the_connector_s_offsets_moves_the_database_s_too(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    partition = TopicPartition(topic, 0)
    config = sink_config(postgres, database, auto_create="true")
    with started_task(config, [partition]) as (task, _):
        task.put(rows_of(topic, 30))
    JdbcSinkConnector().alter_offsets(config, {partition: 12})
    with started_task(config, [partition]) as (_, context):
        assert context.offsets == {partition: 12}


def test_resetting_the_offsets_lets_the_task_resume_from_the_consumer_group_s(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    partition = TopicPartition(topic, 0)
    config = sink_config(postgres, database, auto_create="true")
    with started_task(config, [partition]) as (task, _):
        task.put(rows_of(topic, 30))
    JdbcSinkConnector().alter_offsets(config, {partition: None})
    with started_task(config, [partition]) as (_, context):
        assert context.offsets == {}
