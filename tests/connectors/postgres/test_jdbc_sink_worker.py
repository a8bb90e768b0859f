"""The JDBC sink on a real worker (tasks on Spark executors, REST over HTTP) writing to a real PostgreSQL."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Iterator

import httpx
import pytest
from jdbc_sink_support import create_database, execute, query, sink_config
from tests.worker.support import (
    JSON_CONVERTER,
    STRING_CONVERTER,
    create_connector,
    delete_all_connectors,
    read_values,
    rest_client,
    running_worker,
    states,
    status,
    task_pid,
    unique,
    wait_for_states,
    wait_until,
)

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.postgres_server import PostgresServer

RECORDS = 6_000
PARTITIONS = 2
DONE_WITHIN_S = 180.0
ZOMBIE_GRACE_S = 3.0
"""How long a woken zombie gets to try to write; Spark may also have killed it when its job was cancelled."""

VALUE_SCHEMA = {
    "type": "struct",
    "optional": False,
    "fields": [
        {"field": "id", "type": "int64", "optional": False},
        {"field": "pad", "type": "string", "optional": True},
    ],
}


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    """A worker that commits consumer offsets only every ten minutes: within a test, never. A task that
    restarts finds no committed offset in its consumer group and is handed every record again."""
    with running_worker(tmp_path_factory.mktemp("jdbc-sink"), **{"offset.flush.interval.ms": "600000"}) as w:
        yield w


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> str:
    return create_database(postgres)


@pytest.fixture
def client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(worker) as rest:
        yield rest
        delete_all_connectors(rest)


def produce(worker: StandaloneWorker, topic: str, ids: range) -> None:
    with worker.log.producer() as producer:
        for id_ in ids:
            value = {"schema": VALUE_SCHEMA, "payload": {"id": id_, "pad": "p" * 150}}
            producer.send(topic, json.dumps(value).encode(), partition=id_ % PARTITIONS)


def connector_config(postgres: PostgresServer, database: str, topic: str, **settings: str) -> dict[str, str]:
    config = sink_config(postgres, database, auto_create="true", **settings)
    del config["name"]
    return {
        **config,
        "topics": topic,
        "tasks.max": "1",
        "key.converter": STRING_CONVERTER,
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "true",
    }


def tally(postgres: PostgresServer, database: str, table: str) -> tuple[int, int, int, int]:
    """(rows, distinct ids, lowest id, highest id) of the table, or zeros before it exists."""
    exists = query(postgres, database, "SELECT to_regclass(%s) IS NOT NULL", f'"{table}"')[0][0]
    if not exists:
        return 0, 0, 0, 0
    rows = query(postgres, database, f'SELECT count(*), count(DISTINCT id), min(id), max(id) FROM "{table}"')
    count, distinct, low, high = rows[0]
    return int(count), int(distinct), int(low or 0), int(high or 0)


def test_kill_9_of_the_task_between_the_database_commit_and_the_offset_commit_loses_and_repeats_nothing(
    worker: StandaloneWorker, client: httpx.Client, postgres: PostgresServer, database: str
) -> None:
    name, topic = unique("jdbc-kill"), unique("kill").replace("-", "_")
    worker.log.admin().create_topic(topic, partitions=PARTITIONS)
    produce(worker, topic, range(RECORDS // 2))
    create_connector(client, name, connector_config(postgres, database, topic, pk_mode="none"))
    wait_for_states(client, name, "RUNNING", ["RUNNING"], timeout_s=DONE_WITHIN_S)
    victim = task_pid(worker, name)
    wait_until(
        lambda: tally(postgres, database, topic)[0] >= 500, "rows written before the kill", DONE_WITHIN_S
    )
    os.kill(victim, signal.SIGKILL)
    produce(worker, topic, range(RECORDS // 2, RECORDS))
    wait_until(lambda: task_pid(worker, name) != victim, "the task to run in a new process", DONE_WITHIN_S)
    wait_until(
        lambda: tally(postgres, database, topic)[1] == RECORDS,
        "every record in the table",
        DONE_WITHIN_S,
        0.5,
    )
    assert tally(postgres, database, topic) == (RECORDS, RECORDS, 0, RECORDS - 1)


def test_a_frozen_task_woken_after_its_restart_writes_nothing_twice(
    worker: StandaloneWorker, client: httpx.Client, postgres: PostgresServer, database: str
) -> None:
    """SIGSTOP of the task's process, a restart that opens its partitions in a new process, then SIGCONT:
    whatever the frozen task held (a batch in hand, or a transaction open on its offsets rows) either
    commits before the new task claims the partitions or is fenced off after."""
    name, topic = unique("jdbc-zombie"), unique("zombie").replace("-", "_")
    worker.log.admin().create_topic(topic, partitions=PARTITIONS)
    produce(worker, topic, range(RECORDS // 2))
    create_connector(client, name, connector_config(postgres, database, topic, pk_mode="none"))
    wait_for_states(client, name, "RUNNING", ["RUNNING"], timeout_s=DONE_WITHIN_S)
    zombie = task_pid(worker, name)
    wait_until(
        lambda: tally(postgres, database, topic)[0] >= 500, "rows written before the freeze", DONE_WITHIN_S
    )
    os.kill(zombie, signal.SIGSTOP)
    try:
        produce(worker, topic, range(RECORDS // 2, RECORDS))
        assert client.post(f"/connectors/{name}/tasks/0/restart").status_code == 204
        wait_until(lambda: task_pid(worker, name) != zombie, "the new incarnation's process", DONE_WITHIN_S)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(zombie, signal.SIGCONT)
    time.sleep(ZOMBIE_GRACE_S)
    wait_until(
        lambda: tally(postgres, database, topic)[1] == RECORDS,
        "every record in the table",
        DONE_WITHIN_S,
        0.5,
    )
    assert tally(postgres, database, topic) == (RECORDS, RECORDS, 0, RECORDS - 1)


def test_postgresql_restarted_mid_stream_is_ridden_out_without_loss_or_duplicates(
    worker: StandaloneWorker, client: httpx.Client
) -> None:
    name, topic = unique("jdbc-restart"), unique("restart").replace("-", "_")
    worker.log.admin().create_topic(topic, partitions=PARTITIONS)
    with PostgresServer() as server:
        database = create_database(server)
        produce(worker, topic, range(RECORDS // 2))
        config = connector_config(server, database, topic, max_retries="200", retry_backoff_ms="500")
        create_connector(client, name, config)
        wait_until(
            lambda: tally(server, database, topic)[0] >= 500, "rows written before the restart", DONE_WITHIN_S
        )
        server.stop(mode="immediate")
        produce(worker, topic, range(RECORDS // 2, RECORDS))
        server.start()
        wait_until(
            lambda: tally(server, database, topic)[1] == RECORDS,
            "every record in the table",
            DONE_WITHIN_S,
            0.5,
        )
        assert tally(server, database, topic) == (RECORDS, RECORDS, 0, RECORDS - 1)
        assert states(client, name) == ("RUNNING", ["RUNNING"])
        delete_all_connectors(client)


def test_a_wrong_password_fails_the_task_saying_what_to_check(
    client: httpx.Client, postgres: PostgresServer, database: str
) -> None:
    name = unique("jdbc-password")
    config = connector_config(postgres, database, unique("pw"), connection_password="wrong")
    create_connector(client, name, config)
    wait_for_states(client, name, "RUNNING", ["FAILED"], timeout_s=DONE_WITHIN_S)
    trace = wait_until(
        lambda: status(client, name)["tasks"][0].get("trace"), "the task's trace", DONE_WITHIN_S
    )
    assert "password authentication failed" in trace and "Check the host, port, database name, user" in trace


def test_deletes_without_record_key_are_refused_with_a_400_naming_the_key(
    client: httpx.Client, postgres: PostgresServer, database: str
) -> None:
    config = connector_config(postgres, database, "t", delete_enabled="true", pk_mode="record_value")
    response = client.post("/connectors", json={"name": unique("jdbc-bad"), "config": config})
    assert response.status_code == 400
    assert "delete.enabled: Primary key mode must be 'record_key'" in response.json()["message"]


def test_the_validate_endpoint_reports_an_upsert_without_a_key_on_pk_mode(
    client: httpx.Client, postgres: PostgresServer, database: str
) -> None:
    config = {
        "name": unique("jdbc-validate"),
        **connector_config(postgres, database, "t", insert_mode="upsert"),
    }
    response = client.put("/connector-plugins/JdbcSinkConnector/config/validate", json=config)
    errors = {
        c["value"]["name"]: c["value"]["errors"] for c in response.json()["configs"] if c["value"]["errors"]
    }
    assert list(errors) == ["pk.mode"] and "needs a primary key" in errors["pk.mode"][0]


def test_a_dead_letter_queue_takes_records_that_do_not_fit_and_the_rest_are_written(
    worker: StandaloneWorker, client: httpx.Client, postgres: PostgresServer, database: str
) -> None:
    name, topic, dlq = unique("jdbc-dlq"), unique("dlq").replace("-", "_"), unique("dlq-topic")
    worker.log.admin().create_topic(topic, partitions=1)
    with worker.log.producer() as producer:
        for id_ in range(10):
            pad = "far too long for five" if id_ == 4 else "ok"
            value = {"schema": VALUE_SCHEMA, "payload": {"id": id_, "pad": pad}}
            producer.send(topic, json.dumps(value).encode())
    execute(postgres, database, f'CREATE TABLE "{topic}" (id bigint, pad varchar(5))')
    config = connector_config(
        postgres, database, topic, errors_tolerance="all", errors_deadletterqueue_topic_name=dlq
    )
    create_connector(client, name, config)
    wait_until(lambda: tally(postgres, database, topic)[0] == 9, "the nine good records", DONE_WITHIN_S)
    dead = wait_until(lambda: read_values(worker.log, dlq), "the bad record in the DLQ", DONE_WITHIN_S)
    assert [json.loads(value or b"")["payload"]["id"] for value in dead] == [4]
