"""A connector's `producer.override.*` and `admin.override.*` settings reach the librdkafka clients of its
tasks on the Kafka backend, and a worker whose `connector.client.config.override.policy` is `None`
refuses them when the config is validated, with Kafka's message."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker
from conveyor.log.murmur2 import partition_for_key
from log_backends import fresh_log_url

from .support import (
    create_connector,
    delete_all_connectors,
    generator_config,
    read_topic,
    rest_client,
    running_worker,
    status,
    unique,
    wait_for_states,
    wait_until,
)

PARTITIONS = 4
KEYS = 20
RECORDS = 200
NONE_REFUSES_LINGER = (
    "The 'None' policy does not allow 'linger.ms' to be overridden in the connector configuration."
)


@pytest.fixture(scope="module")
def kafka_worker(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StandaloneWorker]:
    """A worker on the session's Kafka broker, with Kafka's default policy `All`."""
    data_dir = tmp_path_factory.mktemp("overrides")
    with running_worker(data_dir, fresh_log_url(request, "kafka", data_dir)) as worker:
        yield worker


@pytest.fixture(scope="module")
def none_policy_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    """The policy is checked before any client exists, so the embedded log shows it as well as Kafka."""
    settings = {"connector.client.config.override.policy": "None"}
    with running_worker(tmp_path_factory.mktemp("none-policy"), **settings) as worker:
        yield worker


@pytest.fixture
def kafka_client(kafka_worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(kafka_worker) as client:
        yield client
        delete_all_connectors(client)


def failure_trace(client: httpx.Client, config: dict[str, str]) -> str:
    """The trace of the one task of a new connector, once it has failed."""
    name = unique("overridden")
    create_connector(client, name, config)
    wait_for_states(client, name, "RUNNING", ["FAILED"])
    trace: str = status(client, name)["tasks"][0]["trace"]
    return trace


def test_a_producer_override_changes_how_the_tasks_kafka_producer_partitions(
    kafka_worker: StandaloneWorker, kafka_client: httpx.Client
) -> None:
    topic = unique("consistent")
    kafka_worker.log.admin().create_topic(topic, partitions=PARTITIONS)
    config = generator_config(
        topic,
        records=str(RECORDS),
        **{"key.cardinality": str(KEYS), "producer.override.partitioner": "consistent"},
    )
    create_connector(kafka_client, unique("consistent"), config)
    records = wait_until(
        lambda: found if len(found := read_topic(kafka_worker.log, topic)) == RECORDS else None,
        f"{RECORDS} records in {topic}",
    )
    # librdkafka's `consistent` partitioner is CRC32 of the key; without the override Conveyor's producers
    # partition by murmur2, as Kafka's Java clients do, which puts some of these keys elsewhere.
    placed = {record.key: record.partition for record in records}
    assert placed == {key: zlib.crc32(key) % PARTITIONS for key in placed}
    assert any(partition_for_key(key, PARTITIONS) != partition for key, partition in placed.items())


def test_a_bad_producer_override_fails_the_task_naming_the_setting(kafka_client: httpx.Client) -> None:
    config = generator_config(unique("never"), **{"producer.override.compression.type": "squeeze"})
    trace = failure_trace(kafka_client, config)
    assert "producer.override.compression.type" in trace and "squeeze" in trace, trace


def test_a_bad_admin_override_fails_the_task_naming_the_setting(kafka_client: httpx.Client) -> None:
    config = generator_config(unique("never"), **{"admin.override.socket.timeout.ms": "soon"})
    trace = failure_trace(kafka_client, config)
    assert "admin.override.socket.timeout.ms" in trace, trace
    assert 'Invalid value for configuration property "socket.timeout.ms"' in trace, trace


def test_the_none_policy_refuses_an_override_at_validation_with_kafkas_message(
    none_policy_worker: StandaloneWorker,
) -> None:
    config = generator_config("never", name="refused", **{"producer.override.linger.ms": "10"})
    with rest_client(none_policy_worker) as client:
        response = client.put("/connector-plugins/GeneratorSourceConnector/config/validate", json=config)
    infos = response.json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in infos["configs"] if c["value"]["errors"]}
    assert (infos["error_count"], errors) == (1, {"producer.override.linger.ms": [NONE_REFUSES_LINGER]})


def test_the_none_policy_refuses_to_create_a_connector_with_an_override(
    none_policy_worker: StandaloneWorker,
) -> None:
    config = generator_config("never", **{"producer.override.linger.ms": "10"})
    with rest_client(none_policy_worker) as client:
        response = client.post("/connectors", json={"name": unique("refused"), "config": config})
        assert response.status_code == 400
        assert NONE_REFUSES_LINGER in response.json()["message"]
        assert client.get("/connectors").json() == []


def test_the_none_policy_lets_a_connector_without_overrides_run(none_policy_worker: StandaloneWorker) -> None:
    with rest_client(none_policy_worker) as client:
        name = unique("plain")
        try:
            create_connector(client, name, generator_config(unique("plain"), records="10"))
            wait_for_states(client, name, "RUNNING", ["RUNNING"])
        finally:
            delete_all_connectors(client)
