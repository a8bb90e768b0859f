"""A SparkFileSink under errors.tolerance=all: records its converter rejects are skipped and copied to the
dead letter queue; the others are written."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pyspark.sql import SparkSession

from conveyor.log import Log, TopicPartition

from .support import person, rows, sink_config, wait_until, write_people


def dead_letters(log: Log, topic: str) -> list[tuple[bytes | None, dict[str, bytes | None]]]:
    if topic not in log.admin().list_topics():
        return []
    with log.consumer(isolation_level="read_committed", auto_offset_reset="earliest") as consumer:
        consumer.assign([TopicPartition(topic, 0)])
        return [(record.value, dict(record.headers)) for record in consumer.poll(timeout=1.0)]


COMPILED: dict[str, str] = {}
PYTHON_CHAIN = {
    "transforms": "hoist,unhoist",
    "transforms.hoist.type": "org.apache.kafka.connect.transforms.HoistField$Value",
    "transforms.hoist.field": "person",
    "transforms.unhoist.type": "org.apache.kafka.connect.transforms.ExtractField$Value",
    "transforms.unhoist.field": "person",
}


@pytest.mark.parametrize("chain", [COMPILED, PYTHON_CHAIN], ids=["compiled chain", "python chain"])
def test_a_record_the_converter_rejects_goes_to_the_dead_letter_queue_and_the_rest_to_files(
    client: httpx.Client, log: Log, spark: SparkSession, output: Path, chain: dict[str, str]
) -> None:
    topic = f"with-bad-{len(chain)}"
    log.admin().create_topic(topic, partitions=1)
    write_people(log, topic, range(0, 10))
    with log.producer() as producer:
        producer.send(topic, b"{not json", key=b"bad")
        producer.send(topic, person(10), key=b"10")
        producer.flush()
    config = sink_config(
        topic,
        output,
        **chain,
        **{
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": f"{topic}-dlq",
            "errors.deadletterqueue.context.headers.enable": "true",
        },
    )
    assert client.post("/connectors", json={"name": f"{topic}-files", "config": config}).status_code == 201

    written = wait_until(lambda: len(found := rows(spark, output)) >= 11 and found, "the 11 good rows")
    assert sorted(row["id"] for row in written) == list(range(11))
    (value, headers), *_ = wait_until(lambda: dead_letters(log, f"{topic}-dlq"), "the dead letter")
    assert value == b"{not json"
    assert headers["__connect.errors.connector.name"] == f"{topic}-files".encode()
    assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
