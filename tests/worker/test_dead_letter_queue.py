"""Error tolerance and the dead letter queue (KIP-298; Kafka's `test_skip_and_log_to_dlq`).

The sink reads a topic whose odd records are not JSON. Conveyor also sends source records that fail
a transform to the dead letter queue (an extension: Kafka Connect has no DLQ for sources).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conveyor.cli.worker_process import StandaloneWorker

from .connectors import ODD_RECORD_REJECTER
from .support import (
    JSON_CONVERTER,
    create_connector,
    delete_all_connectors,
    file_lines,
    generator_config,
    read_topic,
    read_values,
    rest_client,
    running_worker,
    status,
    unique,
    wait_for_states,
    wait_until,
)

RECORDS = 10
GOOD = [f"good-{n}" for n in range(0, RECORDS, 2)]
BAD = [f"not json {{{n}".encode() for n in range(1, RECORDS, 2)]
ERROR_HEADERS = {
    "__connect.errors.topic",
    "__connect.errors.partition",
    "__connect.errors.offset",
    "__connect.errors.connector.name",
    "__connect.errors.task.id",
    "__connect.errors.stage",
    "__connect.errors.class.name",
    "__connect.errors.exception.class.name",
    "__connect.errors.exception.message",
    "__connect.errors.exception.stacktrace",
}


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneWorker]:
    with running_worker(tmp_path_factory.mktemp("dlq"), **{"task.restart.enable": "false"}) as started:
        yield started


@pytest.fixture
def client(worker: StandaloneWorker) -> Iterator[httpx.Client]:
    with rest_client(worker) as rest:
        yield rest
        delete_all_connectors(rest)


@pytest.fixture
def half_bad_topic(worker: StandaloneWorker) -> str:
    """A topic of JSON strings whose odd records are not JSON at all."""
    topic = unique("half-bad")
    worker.log.admin().create_topic(topic, partitions=1)
    with worker.log.producer() as producer:
        for n in range(RECORDS):
            value = json.dumps(f"good-{n}").encode() if n % 2 == 0 else f"not json {{{n}".encode()
            producer.send(topic, value, key=str(n).encode())
    return topic


def json_sink(topic: str, sink: Path, dlq: str, tolerance: str) -> dict[str, str]:
    return {
        "connector.class": "FileStreamSink",
        "topics": topic,
        "file": str(sink),
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "false",
        "errors.tolerance": tolerance,
        "errors.deadletterqueue.topic.name": dlq,
        "errors.deadletterqueue.context.headers.enable": "true",
    }


def test_tolerated_bad_records_go_to_the_dlq_and_good_ones_to_the_sink(
    client: httpx.Client, worker: StandaloneWorker, half_bad_topic: str, tmp_path: Path
) -> None:
    sink, dlq = tmp_path / "sink.txt", unique("dlq")
    create_connector(client, unique("tolerant"), json_sink(half_bad_topic, sink, dlq, "all"))
    wait_until(lambda: len(file_lines(sink)) == len(GOOD), "the good records in the sink file")
    wait_until(lambda: len(read_values(worker.log, dlq)) == len(BAD), "the bad records in the DLQ")
    assert file_lines(sink) == GOOD
    assert read_values(worker.log, dlq) == BAD


def test_dlq_records_carry_the_error_context_headers(
    client: httpx.Client, worker: StandaloneWorker, half_bad_topic: str, tmp_path: Path
) -> None:
    name, dlq = unique("tolerant"), unique("dlq")
    create_connector(client, name, json_sink(half_bad_topic, tmp_path / "sink.txt", dlq, "all"))
    records = wait_until(lambda: read_topic(worker.log, dlq), "a record in the DLQ")
    headers = {key: value for key, value in records[0].headers}
    assert set(headers) >= ERROR_HEADERS
    assert headers["__connect.errors.topic"] == half_bad_topic.encode()
    assert headers["__connect.errors.offset"] == b"1"
    assert headers["__connect.errors.connector.name"] == name.encode()
    assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"


def test_without_tolerance_the_task_fails_and_only_the_first_bad_record_is_in_the_dlq(
    client: httpx.Client, worker: StandaloneWorker, half_bad_topic: str, tmp_path: Path
) -> None:
    name, sink, dlq = unique("intolerant"), tmp_path / "sink.txt", unique("dlq")
    create_connector(client, name, json_sink(half_bad_topic, sink, dlq, "none"))
    wait_for_states(client, name, "RUNNING", ["FAILED"])
    assert "Tolerance exceeded" in status(client, name)["tasks"][0]["trace"]
    wait_until(lambda: read_values(worker.log, dlq), "the bad record in the dead letter queue")
    assert read_values(worker.log, dlq) == BAD[:1]
    assert file_lines(sink) == []


def test_source_records_failing_a_transform_go_to_the_dlq(
    client: httpx.Client, worker: StandaloneWorker
) -> None:
    topic, dlq = unique("even"), unique("dlq")
    config = generator_config(
        topic,
        records="100",
        transforms="reject",
        **{
            "transforms.reject.type": ODD_RECORD_REJECTER,
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
        },
    )
    create_connector(client, unique("rejecting"), config)
    wait_until(lambda: len(read_values(worker.log, dlq)) == 50, "the rejected records in the DLQ")
    wait_until(lambda: len(read_values(worker.log, topic)) == 50, "the accepted records in the topic")
    assert _seqnos(read_values(worker.log, dlq)) == list(range(1, 100, 2))
    assert _seqnos(read_values(worker.log, topic)) == list(range(0, 100, 2))


def _seqnos(values: list[bytes | None]) -> list[int]:
    """The generator sequence numbers the values carry (a DLQ value may wrap the generated one)."""
    found = [re.search(rb"\d{4}:(\d{15}):", value or b"") for value in values]
    return sorted(int(match.group(1)) for match in found if match)
