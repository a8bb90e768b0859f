"""The change data capture task against a real PostgreSQL: snapshot, stream, offsets and the slot."""

from __future__ import annotations

import contextlib
import decimal
import json
import uuid
from collections.abc import Iterator

import pytest
from tests.connectors.connector_contexts import DictOffsetStorageReader
from tests.connectors.postgres.cdc_tasks import TaskRun, after, before, cdc_config, ops, task_run
from tests.connectors.postgres.databases import execute, fresh_database, query
from tests.waiting import wait_until

from conveyor.api import RetriableError
from conveyor.connectors.postgres.catalog import CaptureError
from conveyor.connectors.postgres.connection import PostgresAddress, connect
from conveyor.data import SourceRecord
from conveyor.postgres_server import PostgresServer


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "cdctask") as target:
        execute(
            target, "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, balance numeric(10,2))"
        )
        yield target


@pytest.fixture
def config(database: PostgresAddress) -> dict[str, str]:
    return cdc_config(database, "server1", **{"slot.name": f"slot_{uuid.uuid4().hex[:8]}"})


def confirmed_flush(target: PostgresAddress, slot: str) -> int:
    rows = query(
        target,
        "SELECT confirmed_flush_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name = %s",
        (slot,),
    )
    return int(rows[0][0])


def test_the_snapshot_reads_every_row_as_op_r_with_debezium_s_markers(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    execute(database, "INSERT INTO customers VALUES (1, 'ann', 10.5), (2, 'bob', NULL), (3, 'cy', 0)")
    with task_run(config) as run:
        records = run.poll_count(3)
    assert ops(records) == ["r", "r", "r"]
    assert [after(r) for r in records] == [
        {"id": 1, "name": "ann", "balance": decimal.Decimal("10.50")},
        {"id": 2, "name": "bob", "balance": None},
        {"id": 3, "name": "cy", "balance": decimal.Decimal("0.00")},
    ]
    assert [r.value.get("source").get("snapshot") for r in records] == ["first", "true", "last"]
    assert all(r.source_offset["snapshot"] is True for r in records)


def test_the_snapshot_s_completion_is_debezium_s_last_snapshot_record_offset(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    execute(database, "INSERT INTO customers VALUES (1, 'ann', 10.5)")
    with task_run(config) as run:
        run.poll_until(lambda _: any(h.source_partition == {"server": "server1"} for h in run.heartbeats), "")
    (done,) = [h for h in run.heartbeats if h.source_partition == {"server": "server1"}]
    assert done.source_offset is not None
    assert (done.source_offset["snapshot"], done.source_offset["last_snapshot_record"]) == (True, True)


def test_streamed_changes_are_debezium_events_on_the_table_s_topic(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    with task_run(config) as run:
        run.poll()
        execute(database, "INSERT INTO customers VALUES (1, 'ann', 1)")
        execute(database, "UPDATE customers SET name = 'anne' WHERE id = 1")
        execute(database, "DELETE FROM customers WHERE id = 1")
        records = run.poll_count(4)
    assert ops(records) == ["c", "u", "d", None]
    assert {r.topic for r in records} == {"server1.public.customers"}
    assert [r.key.to_dict() for r in records] == [{"id": 1}] * 4
    assert records[0].key_schema is not None and records[0].key_schema.name == "server1.public.customers.Key"
    assert (
        records[0].value_schema is not None
        and records[0].value_schema.name == "server1.public.customers.Envelope"
    )
    assert (before(records[0]), after(records[0])) == (
        None,
        {"id": 1, "name": "ann", "balance": decimal.Decimal("1.00")},
    )
    assert (before(records[1]), after(records[1])["name"]) == (None, "anne")
    assert before(records[2]) == {"id": 1, "name": "", "balance": None}
    assert after(records[2]) is None
    assert records[3].value is None and records[3].value_schema is None


def test_the_source_block_says_where_the_change_comes_from(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    with task_run(config) as run:
        run.poll()
        execute(database, "INSERT INTO customers VALUES (5, 'e', 5)")
        (record,) = run.poll_count(1)
    source = record.value.get("source").to_dict()
    xid = record.source_offset["txId"]
    assert source["connector"] == "postgresql"
    assert (source["name"], source["db"], source["schema"], source["table"]) == (
        "server1",
        database.dbname,
        "public",
        "customers",
    )
    assert source["snapshot"] == "false"
    assert (source["txId"], source["lsn"]) == (xid, record.source_offset["lsn"])
    assert source["ts_ms"] == record.source_offset["ts_usec"] // 1000
    assert json.loads(source["sequence"]) == [None, str(source["lsn"])]
    assert record.source_partition == {"server": "server1"}
    assert set(record.source_offset) == {"lsn", "lsn_proc", "lsn_commit", "txId", "ts_usec", "event"}


def test_changes_committed_after_the_snapshot_began_are_streamed_not_read(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    execute(database, "INSERT INTO customers VALUES (1, 'before', 1)")
    with task_run(config) as run:
        execute(
            database,
            "UPDATE customers SET name = 'during' WHERE id = 1",
            "INSERT INTO customers VALUES (2, 'new', 2)",
        )
        records = run.poll_count(3)
    assert ops(records) == ["r", "u", "c"]
    assert [after(r)["name"] for r in records] == ["before", "during", "new"]


def test_the_slot_s_position_advances_only_when_the_records_are_committed(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    slot = config["slot.name"]
    with task_run(config) as run:
        run.poll()
        start = confirmed_flush(database, slot)
        execute(database, "INSERT INTO customers VALUES (1, 'a', 1)")
        run.poll_count(1)
        assert confirmed_flush(database, slot) == start
        run.commit()
        assert confirmed_flush(database, slot) > start


def test_a_restart_resumes_after_the_last_committed_change_inside_a_transaction(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    offsets = DictOffsetStorageReader()
    settings = {**config, "max.batch.size": "1", "snapshot.mode": "no_data"}
    with task_run(settings, offsets) as run:
        run.poll()
        execute(
            database,
            "INSERT INTO customers VALUES (1, 'a', 1)",
            "INSERT INTO customers VALUES (2, 'b', 2)",
            "INSERT INTO customers VALUES (3, 'c', 3)",
        )
        run.poll_count(1)
        run.commit()
    with task_run(settings, offsets) as run:
        run.poll_count(2)
        run.poll()
    assert [after(r)["id"] for r in run.records] == [2, 3]


def test_a_restart_does_not_repeat_committed_transactions(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    offsets = DictOffsetStorageReader()
    with task_run(config, offsets) as run:
        run.poll()
        execute(database, "INSERT INTO customers VALUES (1, 'a', 1)")
        run.poll_count(1)
        run.commit()
    execute(database, "INSERT INTO customers VALUES (2, 'b', 2)")
    with task_run(config, offsets) as run:
        run.poll_count(1)
        run.poll()
    assert [(r.value.get("op"), after(r)["id"]) for r in run.records] == [("c", 2)]


def test_later_events_carry_a_column_added_mid_stream(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    with task_run(config) as run:
        run.poll()
        execute(database, "INSERT INTO customers VALUES (1, 'a', 1)")
        execute(
            database,
            "ALTER TABLE customers ADD COLUMN email text",
            "INSERT INTO customers VALUES (2, 'b', 2, 'b@x')",
        )
        execute(
            database,
            "ALTER TABLE customers DROP COLUMN balance",
            "INSERT INTO customers VALUES (3, 'c', 'c@x')",
        )
        records = run.poll_count(3)
    assert [after(r) for r in records] == [
        {"id": 1, "name": "a", "balance": decimal.Decimal("1.00")},
        {"id": 2, "name": "b", "balance": decimal.Decimal("2.00"), "email": "b@x"},
        {"id": 3, "name": "c", "email": "c@x"},
    ]


def test_a_column_type_change_changes_the_field_s_schema(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    with task_run(config) as run:
        run.poll()
        execute(
            database,
            "ALTER TABLE customers ALTER COLUMN balance TYPE bigint",
            "INSERT INTO customers VALUES (1, 'a', 7)",
        )
        (record,) = run.poll_count(1)
    assert after(record)["balance"] == 7
    assert record.value_schema.field("after").schema.field("balance").schema.type.value == "int64"


def test_truncate_is_skipped_by_default(database: PostgresAddress, config: dict[str, str]) -> None:
    with task_run(config) as run:
        run.poll()
        execute(database, "TRUNCATE customers")
        execute(database, "INSERT INTO customers VALUES (1, 'a', 1)")
        records = run.poll_count(1)
    assert ops(records) == ["c"]


def test_truncate_is_an_op_t_event_when_not_skipped(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    with task_run({**config, "skipped.operations": "none"}) as run:
        run.poll()
        execute(database, "TRUNCATE customers")
        (record,) = run.poll_count(1)
    assert ops([record]) == ["t"] and record.key is None
    assert (record.value.get("before"), record.value.get("after")) == (None, None)


def test_skipped_operations_leave_out_updates(database: PostgresAddress, config: dict[str, str]) -> None:
    with task_run({**config, "skipped.operations": "u"}) as run:
        run.poll()
        execute(
            database,
            "INSERT INTO customers VALUES (1, 'a', 1)",
            "UPDATE customers SET name = 'b'",
            "DELETE FROM customers",
        )
        records = run.poll_count(3)
    assert ops(records) == ["c", "d", None]


def test_an_update_of_the_primary_key_is_a_delete_and_a_create(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    with task_run(config) as run:
        run.poll()
        execute(database, "INSERT INTO customers VALUES (1, 'a', 1)")
        execute(database, "UPDATE customers SET id = 2 WHERE id = 1")
        records = run.poll_count(4)
    assert ops(records) == ["c", "d", None, "c"]
    assert [r.key.to_dict() for r in records] == [{"id": 1}, {"id": 1}, {"id": 1}, {"id": 2}]


def test_excluded_tables_and_columns_are_not_captured(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    execute(database, "CREATE TABLE audit (id int PRIMARY KEY)")
    settings = {
        **config,
        "table.exclude.list": "public.audit",
        "column.exclude.list": r"public\.customers\.balance",
    }
    with task_run(settings) as run:
        run.poll()
        execute(database, "INSERT INTO audit VALUES (1)", "INSERT INTO customers VALUES (1, 'a', 1)")
        records = run.poll_count(1)
    assert [after(r) for r in records] == [{"id": 1, "name": "a"}]


def test_snapshot_mode_initial_only_stops_after_the_snapshot(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    execute(database, "INSERT INTO customers VALUES (1, 'a', 1)")
    with task_run({**config, "snapshot.mode": "initial_only"}) as run:
        run.poll_count(1)
        execute(database, "INSERT INTO customers VALUES (2, 'b', 2)")
        run.poll()
        run.poll()
    assert ops(run.records) == ["r"]


def test_snapshot_mode_always_snapshots_again_at_each_start(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    execute(database, "INSERT INTO customers VALUES (1, 'a', 1)")
    offsets = DictOffsetStorageReader()
    settings = {**config, "snapshot.mode": "always"}
    with task_run(settings, offsets) as run:
        run.poll_count(1)
        run.commit()
    with task_run(settings, offsets) as run:
        assert ops(run.poll_count(1)) == ["r"]


def test_a_slot_held_by_another_connection_fails_the_task_with_what_to_do(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    with task_run(config) as run:
        run.poll()
        run.poll()
        with (
            pytest.raises(CaptureError, match=r"in use by another connection.*its own slot\.name"),
            task_run({**config, "slot.max.retries": "1", "slot.retry.delay.ms": "100"}),
        ):
            pass


def test_a_missing_publication_with_autocreate_disabled_fails_the_task(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    settings = {**config, "publication.autocreate.mode": "disabled", "publication.name": "nowhere"}
    with (
        pytest.raises(CaptureError, match=r"Publication nowhere does not exist.*CREATE PUBLICATION"),
        task_run(settings),
    ):
        pass


def test_a_filtered_publication_lists_exactly_the_captured_tables(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    execute(database, "CREATE TABLE other (id int PRIMARY KEY)")
    settings = {
        **config,
        "publication.autocreate.mode": "filtered",
        "table.include.list": "public.customers",
        "publication.name": "only_customers",
    }
    with task_run(settings):
        tables = query(
            database,
            "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = 'only_customers'",
        )
    assert tables == [("public", "customers")]


def test_many_column_types_arrive_in_one_event(database: PostgresAddress, config: dict[str, str]) -> None:
    execute(
        database,
        "CREATE TYPE mood AS ENUM ('sad', 'happy')",
        "CREATE TABLE kinds (id bigint PRIMARY KEY, flag boolean, born date, at timestamp, "
        "zoned timestamptz, u uuid, doc jsonb, raw bytea, tags text[], m mood, n numeric)",
    )
    with task_run(config) as run:
        run.poll()
        execute(
            database,
            "INSERT INTO kinds VALUES (1, true, '2024-01-02', '2024-01-02 03:04:05.123456', "
            "'2024-01-02 03:04:05+01', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"k\": [1]}', '\\x0102', "
            "ARRAY['x','y'], 'happy', 3.25)",
        )
        (record,) = run.poll_count(1)
    row = after(record)
    assert row["flag"] is True and row["born"] == 19724
    assert row["at"] == 1_704_164_645_123_456
    assert row["zoned"] == "2024-01-02T02:04:05.000000Z"
    assert row["u"] == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" and row["doc"] == '{"k": [1]}'
    assert row["raw"] == b"\x01\x02" and row["tags"] == ["x", "y"] and row["m"] == "happy"
    assert row["n"] == {"scale": 2, "value": b"\x01\x45"}


def test_the_task_reconnects_after_its_connection_is_killed_and_repeats_nothing(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    with task_run({**config, "snapshot.mode": "no_data"}) as run:
        run.poll()
        execute(database, "INSERT INTO customers VALUES (1, 'a', 1)")
        run.poll_count(1)
        admin = connect(database, autocommit=True)
        try:
            admin.cursor().execute(
                "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = %s",
                (config["slot.name"],),
            )
        finally:
            admin.close()
        execute(database, "INSERT INTO customers VALUES (2, 'b', 2)")

        def poll_through_errors() -> None:
            with contextlib.suppress(RetriableError):
                run.poll()

        wait_until(
            lambda: poll_through_errors() or len(run.records) >= 2, "the change after the reconnect", 60, 0.0
        )
        run.poll()
    assert [after(r)["id"] for r in run.records] == [1, 2]


def test_changes_read_just_before_a_lost_connection_are_streamed_again(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    slot = config["slot.name"]
    with task_run({**config, "snapshot.mode": "no_data", "poll.interval.ms": "3000"}) as run:
        run.poll()
        execute(database, "INSERT INTO customers VALUES (1, 'a', 1)")
        wait_until(
            lambda: (
                query(
                    database,
                    "SELECT sent_lsn >= pg_current_wal_lsn() FROM pg_stat_replication "
                    "WHERE application_name = %s",
                    (f"conveyor-{slot}",),
                )
                == [(True,)]
            ),
            "the server to send the insert",
        )
        execute(
            database,
            "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = %s",
            params=(slot,),
        )

        def poll_through_errors() -> bool:
            with contextlib.suppress(RetriableError):
                run.poll()
            return bool(run.records)

        wait_until(poll_through_errors, "the insert after the reconnect", 60, 0.0)
    assert [after(r)["id"] for r in run.records] == [1]


def streaming_heartbeats(run: TaskRun) -> list[SourceRecord]:
    """The heartbeats of streaming, not those that record the snapshot's plan and completion."""
    return [h for h in run.heartbeats if h.source_offset is not None and not h.source_offset.get("snapshot")]


def test_a_heartbeat_commits_the_position_of_transactions_with_nothing_to_capture(
    database: PostgresAddress, config: dict[str, str]
) -> None:
    slot = config["slot.name"]
    execute(database, "CREATE TABLE ignored (id int PRIMARY KEY)")
    settings = {**config, "table.exclude.list": "public.ignored", "heartbeat.interval.ms": "1"}
    with task_run(settings) as run:
        run.poll()
        start = confirmed_flush(database, slot)
        execute(database, "INSERT INTO ignored VALUES (1)")
        run.poll_until(lambda _: bool(streaming_heartbeats(run)), "a heartbeat")
        heartbeat = streaming_heartbeats(run)[0]
        run.commit()
        assert confirmed_flush(database, slot) > start
    assert heartbeat.topic == "__debezium-heartbeat.server1"
    assert heartbeat.key.to_dict() == {"serverName": "server1"}
    assert heartbeat.source_offset is not None and heartbeat.source_offset["lsn"] > start


def test_a_restart_of_postgresql_mid_stream_loses_and_repeats_nothing() -> None:
    with PostgresServer() as server:
        server.start()
        target = PostgresAddress(server.host, server.port, "postgres", server.user, server.password)
        execute(target, "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, balance numeric)")
        with task_run(cdc_config(target, "server1", **{"snapshot.mode": "no_data"})) as run:

            def poll_through_errors(count: int) -> bool:
                with contextlib.suppress(RetriableError):
                    run.poll()
                return len(run.records) >= count

            run.poll()
            execute(
                target, "INSERT INTO customers VALUES (1, 'a', 1)", "INSERT INTO customers VALUES (2, 'b', 2)"
            )
            wait_until(lambda: poll_through_errors(2), "the changes before the restart", 60, 0.0)
            run.commit()
            execute(target, "INSERT INTO customers VALUES (3, 'c', 3)")
            server.stop(mode="immediate")
            server.start()
            execute(target, "INSERT INTO customers VALUES (4, 'd', 4)")
            wait_until(lambda: poll_through_errors(4), "the changes after the restart", 90, 0.0)
            run.poll()
    assert [after(r)["id"] for r in run.records] == [1, 2, 3, 4]
