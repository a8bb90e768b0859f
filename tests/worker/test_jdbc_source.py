"""The JDBC source on a real worker (REST, Spark, the embedded log) against a real PostgreSQL.

Tables are copied over several polls, a restarted worker resumes from the offsets, offsets altered over
REST in the shape Confluent's connector writes are resumed from, bad configs are refused naming the key,
and tables are spread over two tasks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.connectors.postgres.databases import execute, fresh_database

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.postgres_server import PostgresServer

from .support import (
    JSON_CONVERTER,
    create_connector,
    delete_all_connectors,
    read_values,
    rest_client,
    running_worker,
    status,
    unique,
    wait_for_states,
    wait_until,
)

INVALID = "Connector configuration is invalid"


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "jdbcworker") as target:
        yield target


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("jdbc")) as started:
        yield started


@pytest.fixture
def client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(worker) as rest:
        yield rest
        delete_all_connectors(rest)


@pytest.fixture
def table(database: PostgresAddress) -> str:
    """A fresh table ``(id serial, item text, updated timestamp)`` of its own name."""
    name = unique("orders").replace("-", "_")
    execute(
        database,
        f"CREATE TABLE {name} (id serial PRIMARY KEY, item text NOT NULL, "
        "updated timestamp NOT NULL DEFAULT now())",
    )
    return name


def jdbc_source(target: PostgresAddress, **settings: str) -> dict[str, str]:
    """A JDBC source config by Confluent's class name, writing schemaless JSON values."""
    return {
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": f"jdbc:postgresql://{target.host}:{target.port}/{target.dbname}",
        "connection.user": str(target.user),
        "connection.password": str(target.password),
        "poll.interval.ms": "200",
        "tasks.max": "1",
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "false",
        **settings,
    }


def insert(target: PostgresAddress, table: str, first: int, last: int) -> None:
    execute(
        target,
        f"INSERT INTO {table} (item) SELECT 'item-' || n FROM generate_series(%s, %s) AS n",
        params=(first, last),
    )


def items(worker: StandaloneWorker, topic: str) -> list[str]:
    return [json.loads(value)["item"] for value in read_values(worker.log, topic) if value is not None]


def wait_for_items(worker: StandaloneWorker, topic: str, count: int) -> list[str]:
    found: list[str] = wait_until(
        lambda: (seen := items(worker, topic)) and len(seen) >= count and seen, f"{count} rows in {topic}"
    )
    return found


def expected(first: int, last: int) -> list[str]:
    return [f"item-{n}" for n in range(first, last + 1)]


def test_incrementing_mode_copies_rows_inserted_over_several_polls(
    worker: StandaloneWorker, client: httpx.Client, database: PostgresAddress, table: str
) -> None:
    insert(database, table, 1, 50)
    name = unique("jdbc")
    create_connector(
        client,
        name,
        jdbc_source(database, mode="incrementing", **{"table.whitelist": table, "topic.prefix": "inc-"}),
    )
    wait_for_items(worker, f"inc-{table}", 50)
    insert(database, table, 51, 80)
    wait_for_items(worker, f"inc-{table}", 80)
    insert(database, table, 81, 90)

    assert wait_for_items(worker, f"inc-{table}", 90) == expected(1, 90)


def test_timestamp_incrementing_mode_copies_updates_as_new_records(
    worker: StandaloneWorker, client: httpx.Client, database: PostgresAddress, table: str
) -> None:
    insert(database, table, 1, 3)
    settings = {"table.whitelist": table, "timestamp.column.name": "updated", "topic.prefix": "ts-"}
    create_connector(client, unique("jdbc"), jdbc_source(database, mode="timestamp+incrementing", **settings))
    wait_for_items(worker, f"ts-{table}", 3)
    execute(
        database, f"UPDATE {table} SET item = 'changed', updated = now() + interval '1 second' WHERE id = 2"
    )

    assert wait_for_items(worker, f"ts-{table}", 4) == ["item-1", "item-2", "item-3", "changed"]


def test_a_restarted_worker_resumes_from_its_offsets_without_duplicates(
    tmp_path: Path, database: PostgresAddress, table: str
) -> None:
    insert(database, table, 1, 20)
    config = jdbc_source(
        database, mode="incrementing", **{"table.whitelist": table, "topic.prefix": "restart-"}
    )
    topic = f"restart-{table}"
    with running_worker(tmp_path / "data") as first, rest_client(first) as client:
        create_connector(client, "restarted", config)
        wait_for_items(first, topic, 20)
    insert(database, table, 21, 30)
    with running_worker(tmp_path / "data") as second:
        wait_for_items(second, topic, 30)
        insert(database, table, 31, 35)
        assert wait_for_items(second, topic, 35) == expected(1, 35)


def test_offsets_patched_in_confluents_shape_are_resumed_from(
    worker: StandaloneWorker, client: httpx.Client, database: PostgresAddress, table: str
) -> None:
    insert(database, table, 1, 10)
    name, topic = unique("jdbc"), f"patched-{table}"
    create_connector(
        client,
        name,
        jdbc_source(database, mode="incrementing", **{"table.whitelist": table, "topic.prefix": "patched-"}),
    )
    wait_for_items(worker, topic, 10)
    partition = {"protocol": "1", "table": f"public.{table}"}

    def committed() -> list[dict[str, Any]]:
        offsets: list[dict[str, Any]] = client.get(f"/connectors/{name}/offsets").json()["offsets"]
        return offsets

    assert client.put(f"/connectors/{name}/stop").is_success
    wait_for_states(client, name, "STOPPED", [])
    assert committed() == [{"partition": partition, "offset": {"incrementing": 10}}]
    body = {"offsets": [{"partition": partition, "offset": {"incrementing": 7}}]}
    response = client.patch(f"/connectors/{name}/offsets", json=body)
    assert response.status_code == 200, response.text
    assert client.put(f"/connectors/{name}/resume").is_success

    assert wait_for_items(worker, topic, 13) == expected(1, 10) + expected(8, 10)


def test_offsets_of_another_shape_are_refused_with_a_400(
    worker: StandaloneWorker, client: httpx.Client, database: PostgresAddress, table: str
) -> None:
    name = unique("jdbc")
    create_connector(client, name, jdbc_source(database, mode="incrementing", **{"table.whitelist": table}))
    client.put(f"/connectors/{name}/stop")
    wait_for_states(client, name, "STOPPED", [])
    body = {
        "offsets": [{"partition": {"protocol": "1", "table": f"public.{table}"}, "offset": {"position": 7}}]
    }

    response = client.patch(f"/connectors/{name}/offsets", json=body)

    assert response.status_code == 400
    assert "unknown key(s): position" in response.json()["message"]


def test_tables_are_spread_over_two_tasks(
    worker: StandaloneWorker, client: httpx.Client, database: PostgresAddress
) -> None:
    tables = [unique("spread").replace("-", "_") for _ in range(3)]
    for number, name in enumerate(tables):
        execute(database, f"CREATE TABLE {name} (id serial PRIMARY KEY, item text NOT NULL)")
        insert(database, name, 1, 5 + number)
    connector = unique("jdbc")
    include = "|".join(f"public\\.{name}" for name in tables)
    config = jdbc_source(
        database,
        mode="incrementing",
        **{"table.include.list": include, "tasks.max": "2", "topic.prefix": "spread-"},
    )
    create_connector(client, connector, config)
    wait_for_states(client, connector, "RUNNING", ["RUNNING", "RUNNING"])
    for number, name in enumerate(tables):
        assert wait_for_items(worker, f"spread-{name}", 5 + number) == expected(1, 5 + number)


def test_a_wrong_password_fails_the_connector_saying_what_to_check(
    client: httpx.Client, database: PostgresAddress, table: str
) -> None:
    name = unique("jdbc")
    config = jdbc_source(
        database, mode="incrementing", **{"table.whitelist": table, "connection.password": "wrong"}
    )
    create_connector(client, name, config)

    wait_until(lambda: status(client, name)["connector"]["state"] == "FAILED", "the connector to fail")
    trace = status(client, name)["connector"]["trace"]
    assert "password authentication failed" in trace
    assert "Check the host, port, database name, user and password" in trace


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"mode": "incrementing", "incrementing.column.name": "nope"}, "incrementing.column.name"),
        ({"mode": "timestamp", "timestamp.column.name": "nope"}, "timestamp.column.name"),
        ({"mode": "bulk", "table.include.list": "public\\.no_such_table"}, "table.include.list"),
    ],
)
def test_a_config_naming_what_the_database_lacks_is_a_400_naming_the_key(
    client: httpx.Client, database: PostgresAddress, table: str, settings: dict[str, str], key: str
) -> None:
    config = jdbc_source(database, **{"table.whitelist": table, **settings})
    if "table.include.list" in settings:
        del config["table.whitelist"]

    response = client.post("/connectors", json={"name": unique("bad"), "config": config})

    assert response.status_code == 400
    body = response.json()
    assert body["error_code"] == 400
    assert body["message"].startswith(INVALID)
    assert f"\n{key}: " in body["message"]


def test_the_plugin_is_listed_under_confluents_class_name(client: httpx.Client) -> None:
    plugins = client.get("/connector-plugins").json()
    assert {"class": "io.confluent.connect.jdbc.JdbcSourceConnector", "type": "source"}.items() <= next(
        p for p in plugins if p["class"] == "io.confluent.connect.jdbc.JdbcSourceConnector"
    ).items()


def test_a_table_created_while_running_is_copied_too(
    worker: StandaloneWorker, client: httpx.Client, database: PostgresAddress
) -> None:
    prefix = unique("grow").replace("-", "_")
    first, second = f"{prefix}_a", f"{prefix}_b"
    execute(database, f"CREATE TABLE {first} (id serial PRIMARY KEY, item text NOT NULL)")
    insert(database, first, 1, 3)
    settings = {
        "table.include.list": f"public\\.{prefix}_.*",
        "table.poll.interval.ms": "500",
        "topic.prefix": "grow-",
    }
    connector = unique("jdbc")
    create_connector(client, connector, jdbc_source(database, mode="incrementing", **settings))
    wait_for_items(worker, f"grow-{first}", 3)

    execute(database, f"CREATE TABLE {second} (id serial PRIMARY KEY, item text NOT NULL)")
    insert(database, second, 1, 4)

    assert wait_for_items(worker, f"grow-{second}", 4) == expected(1, 4)
