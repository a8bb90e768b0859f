"""The CDC source on a real worker: Debezium's config over REST, changes in topics as JsonConverter writes
them, and a worker restart that resumes from the committed offsets without repeating a change."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.connectors.postgres.cdc_tasks import cdc_config
from tests.connectors.postgres.databases import execute, fresh_database
from tests.worker.support import (
    JSON_CONVERTER,
    create_connector,
    read_topic,
    rest_client,
    running_worker,
    wait_for_states,
    wait_until,
)

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.postgres_server import PostgresServer

TOPIC = "shop.public.orders"
CHUNKED_TOPIC = "chunked.public.orders"


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "cdcworker") as target:
        execute(
            target,
            "CREATE TABLE orders (id int PRIMARY KEY, item text NOT NULL, qty smallint, "
            "price numeric(8,2), placed timestamptz)",
        )
        yield target


def connector_config(database: PostgresAddress, **settings: str) -> dict[str, str]:
    return {
        **cdc_config(database, "shop", **{"slot.name": f"slot_{uuid.uuid4().hex[:8]}"}),
        "key.converter": JSON_CONVERTER,
        "value.converter": JSON_CONVERTER,
        **settings,
    }


def events(worker: StandaloneWorker, topic: str = TOPIC) -> list[tuple[Any, Any]]:
    """Each record's key and value as the JsonConverter wrote them (None for a null)."""
    return [
        (
            None if record.key is None else json.loads(record.key),
            None if record.value is None else json.loads(record.value),
        )
        for record in read_topic(worker.log, topic)
    ]


def wait_for_events(
    worker: StandaloneWorker, condition: Callable[[list[tuple[Any, Any]]], bool], what: str
) -> list[tuple[Any, Any]]:
    """The topic's events once they satisfy ``condition``."""
    latest: list[list[tuple[Any, Any]]] = []

    def reached() -> bool:
        latest[:] = [events(worker)]
        return condition(latest[0])

    wait_until(reached, what)
    return latest[0]


def payload_ops(found: list[tuple[Any, Any]]) -> list[str | None]:
    return [None if value is None else value["payload"]["op"] for _, value in found]


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("cdc-worker")) as running:
        yield running


def test_a_wrong_password_is_a_400_that_says_what_to_check(
    worker: StandaloneWorker, database: PostgresAddress
) -> None:
    config = connector_config(database, **{"database.password": "wrong"})
    with rest_client(worker) as client:
        response = client.post("/connectors", json={"name": "bad-password", "config": config})
    assert response.status_code == 400
    body = response.json()
    assert body["error_code"] == 400
    assert "database.hostname: Could not connect to PostgreSQL" in body["message"]
    assert "password authentication failed" in body["message"]


def test_changes_reach_the_topic_as_debezium_s_json_events(
    worker: StandaloneWorker, database: PostgresAddress
) -> None:
    execute(database, "INSERT INTO orders VALUES (1, 'pen', 2, 1.50, '2024-05-01 10:00:00+00')")
    with rest_client(worker) as client:
        create_connector(client, "orders-cdc", connector_config(database))
        wait_for_states(client, "orders-cdc", "RUNNING", ["RUNNING"])
        wait_until(lambda: len(events(worker)) >= 1, "the snapshot's record")
        execute(database, "INSERT INTO orders VALUES (2, 'ink', NULL, 3.00, NULL)")
        execute(database, "UPDATE orders SET qty = 5 WHERE id = 2")
        execute(database, "DELETE FROM orders WHERE id = 1")
        found = wait_for_events(worker, lambda found: len(found) >= 5, "every change in the topic")
        offsets = wait_until(lambda: server_offsets(worker, "orders-cdc"), "the committed stream offset")
        client.delete("/connectors/orders-cdc")
    assert payload_ops(found) == ["r", "c", "u", "d", None]
    keys = [key for key, _ in found]
    assert keys[0] == {
        "schema": {
            "type": "struct",
            "fields": [{"type": "int32", "optional": False, "field": "id"}],
            "optional": False,
            "name": "shop.public.orders.Key",
        },
        "payload": {"id": 1},
    }
    assert [key["payload"] for key in keys] == [{"id": 1}, {"id": 2}, {"id": 2}, {"id": 1}, {"id": 1}]
    schema = found[0][1]["schema"]
    assert (schema["name"], schema["version"]) == ("shop.public.orders.Envelope", 2)
    assert [field["field"] for field in schema["fields"]] == [
        "before",
        "after",
        "source",
        "transaction",
        "op",
        "ts_ms",
        "ts_us",
        "ts_ns",
    ]
    row_fields = schema["fields"][1]["fields"]
    assert row_fields == [
        {"type": "int32", "optional": False, "field": "id"},
        {"type": "string", "optional": False, "field": "item"},
        {"type": "int16", "optional": True, "field": "qty"},
        {
            "type": "bytes",
            "optional": True,
            "name": "org.apache.kafka.connect.data.Decimal",
            "version": 1,
            "parameters": {"scale": "2", "connect.decimal.precision": "8"},
            "field": "price",
        },
        {
            "type": "string",
            "optional": True,
            "name": "io.debezium.time.ZonedTimestamp",
            "version": 1,
            "field": "placed",
        },
    ]
    assert schema["fields"][2]["name"] == "io.debezium.connector.postgresql.Source"
    snapshot, created, updated, deleted = (value["payload"] for _, value in found[:4])
    assert snapshot["after"] == {
        "id": 1,
        "item": "pen",
        "qty": 2,
        "price": "AJY=",
        "placed": "2024-05-01T10:00:00.000000Z",
    }
    assert snapshot["source"]["snapshot"] == "last"
    assert created["after"] == {"id": 2, "item": "ink", "qty": None, "price": "ASw=", "placed": None}
    assert (updated["before"], updated["after"]["qty"]) == (None, 5)
    assert deleted["before"]["id"] == 1 and deleted["after"] is None
    source = created["source"]
    assert {key: source[key] for key in ("connector", "name", "db", "schema", "table", "snapshot")} == {
        "connector": "postgresql",
        "name": "shop",
        "db": database.dbname,
        "schema": "public",
        "table": "orders",
        "snapshot": "false",
    }
    assert isinstance(source["lsn"], int) and isinstance(source["txId"], int) and source["ts_ms"] > 0
    assert offsets[0]["partition"] == {"server": "shop"}
    assert {"lsn", "txId", "ts_usec", "lsn_commit", "lsn_proc"} <= set(offsets[0]["offset"])


def server_offsets(worker: StandaloneWorker, name: str) -> list[dict[str, Any]]:
    """The offsets of the server's partition once it holds a streamed change's position."""
    found = [o for o in client_offsets(worker, name) if o["partition"] == {"server": "shop"}]
    return found if found and "lsn_commit" in found[0]["offset"] else []


def client_offsets(worker: StandaloneWorker, name: str) -> list[dict[str, Any]]:
    with rest_client(worker) as client:
        body = client.get(f"/connectors/{name}/offsets").json()
    offsets: list[dict[str, Any]] = body["offsets"]
    return offsets


def test_a_restarted_worker_streams_only_the_changes_made_while_it_was_down(
    tmp_path: Path, database: PostgresAddress
) -> None:
    config = connector_config(database, **{"snapshot.mode": "no_data"})
    with running_worker(tmp_path / "data") as worker, rest_client(worker) as client:
        create_connector(client, "orders-cdc", config)
        wait_for_states(client, "orders-cdc", "RUNNING", ["RUNNING"])
        wait_until(
            lambda: client_offsets(worker, "orders-cdc") or execute_and_false(database), "a first offset"
        )
        execute(database, *(f"INSERT INTO orders VALUES ({n}, 'first', 1, 1, NULL)" for n in range(100, 110)))
        wait_until(lambda: len(events(worker)) >= 11, "the first changes")
    execute(
        database, *(f"INSERT INTO orders VALUES ({n}, 'while down', 1, 1, NULL)" for n in range(200, 210))
    )
    with running_worker(tmp_path / "data") as worker, rest_client(worker) as client:
        wait_for_states(client, "orders-cdc", "RUNNING", ["RUNNING"])
        execute(database, "INSERT INTO orders VALUES (300, 'after', 1, 1, NULL)")
        found = wait_for_events(
            worker,
            lambda found: any(v and v["payload"]["after"]["id"] == 300 for _, v in found),
            "the change made after the restart",
        )
    ids = [value["payload"]["after"]["id"] for _, value in found]
    assert ids[0] == 0
    assert ids[1:] == [*range(100, 110), *range(200, 210), 300]


def execute_and_false(database: PostgresAddress) -> bool:
    """A change the connector commits an offset for (its first offset needs a change to exist)."""
    execute(database, "INSERT INTO orders VALUES (0, 'probe', 1, 1, NULL) ON CONFLICT (id) DO NOTHING")
    return False


def test_three_tasks_snapshot_each_row_once_on_spark_then_the_stream_follows(
    worker: StandaloneWorker, database: PostgresAddress
) -> None:
    execute(database, "INSERT INTO orders SELECT n, 'item', 1, 1, NULL FROM generate_series(1, 600) AS n")
    config = {
        **connector_config(database, **{"tasks.max": "3", "snapshot.chunk.size": "50"}),
        "topic.prefix": "chunked",
    }
    with rest_client(worker) as client:
        create_connector(client, "chunked-cdc", config)
        wait_for_states(client, "chunked-cdc", "RUNNING", ["RUNNING"] * 3)
        wait_until(lambda: len(events(worker, CHUNKED_TOPIC)) >= 600, "the snapshot's records")
        execute(database, "INSERT INTO orders VALUES (1000, 'after', 1, 1, NULL)")

        def streamed() -> list[tuple[Any, Any]]:
            found = events(worker, CHUNKED_TOPIC)
            return found if any(v and v["payload"]["after"]["id"] == 1000 for _, v in found) else []

        found = wait_until(streamed, "the change made after the snapshot")
        client.delete("/connectors/chunked-cdc")
    changes = [(v["payload"]["op"], v["payload"]["after"]["id"]) for _, v in found]
    read = Counter(row for op, row in changes if op == "r")
    assert [row for row, count in read.items() if count > 1] == []
    assert set(read) == set(range(1, 601))
    assert changes[len(read) :] == [("c", 1000)]
