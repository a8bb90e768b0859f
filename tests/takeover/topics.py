"""Reading the test broker's topics as an independent Kafka client (confluent-kafka), read_committed."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def create_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)


def committed_records(bootstrap: str, topic: str) -> Iterator[tuple[bytes | None, bytes | None]]:
    """(key, value) of every committed record of partition 0, oldest first, up to the end it had when
    asked (a topic still being written to is read to that point, not for as long as records arrive)."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "takeover-reader",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
        }
    )
    try:
        partition = TopicPartition(topic, 0, 0)
        consumer.assign([partition])
        _, end = consumer.get_watermark_offsets(partition, timeout=30)
        while messages := consumer.consume(10_000, 2.0):
            for message in messages:
                if message.error() is None:
                    yield message.key(), message.value()
            if consumer.position([partition])[0].offset >= end:
                break
    finally:
        consumer.close()


@dataclass(frozen=True)
class LineTally:
    """What a topic holds of lines ``line-0 .. line-(expected-1)``: how many arrived, twice or never."""

    expected: int
    records: int
    distinct: int
    duplicates: int
    gaps: int

    @property
    def exactly_once(self) -> bool:
        return self.records == self.distinct == self.expected and self.gaps == 0


def tally_lines(bootstrap: str, topic: str, expected: int) -> LineTally:
    counts = Counter(value for _, value in committed_records(bootstrap, topic))
    wanted = {line(n).encode() for n in range(expected)}
    return LineTally(
        expected=expected,
        records=sum(counts.values()),
        distinct=len(counts),
        duplicates=sum(count - 1 for count in counts.values()),
        gaps=len(wanted - counts.keys()),
    )


def line(n: int) -> str:
    return f"line-{n}"


def append_lines(path: Any, first: int, count: int) -> None:
    with open(path, "a") as file:
        file.write("".join(line(n) + "\n" for n in range(first, first + count)))


def committed_position(bootstrap: str, offsets_topic: str, connector: str, filename: str) -> int | None:
    """The last ``position`` committed for ``filename`` under Kafka Connect's offset key format."""
    key = json.dumps([connector, {"filename": filename}], separators=(",", ":")).encode()
    position = None
    for record_key, value in committed_records(bootstrap, offsets_topic):
        if record_key == key and value is not None:
            position = json.loads(value)["position"]
    return position
