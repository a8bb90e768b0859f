"""Writing numbered records to a source cluster and checking, partition by partition, what a target holds."""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.log import ConsumerRecord, Log, TopicPartition

BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter"
BYTES_CONVERTERS = {
    "key.converter": BYTE_ARRAY,
    "value.converter": BYTE_ARRAY,
    "header.converter": BYTE_ARRAY,
}


def value_of(partition: int, number: int) -> bytes:
    return f"{partition}:{number}".encode()


def produce(
    log: Log, topic: str, partitions: int, start: int, count: int, transactional_id: str | None = None
) -> None:
    """Records ``start .. start+count-1`` into every partition, with a key, a header and a timestamp."""
    with log.producer(transactional_id=transactional_id) as producer:
        if transactional_id is not None:
            producer.init_transactions()
            producer.begin_transaction()
        for partition in range(partitions):
            numbers = range(start, start + count)
            producer.send_batch(
                topic,
                [value_of(partition, n) for n in numbers],
                [f"k{n}".encode() for n in numbers],
                partition,
                [[("seq", str(n).encode())] for n in numbers],
                [1_000_000 + n for n in numbers],
            )
        if transactional_id is not None:
            producer.commit_transaction()


def read_partition(
    log: Log, topic: str, partition: int, isolation: str = "read_committed"
) -> list[ConsumerRecord]:
    """Every record of the partition up to its end (its last stable offset when reading committed)."""
    if topic not in log.admin().list_topics():
        return []
    consumer = log.consumer(None, isolation, **{"auto.offset.reset": "earliest"})  # type: ignore[arg-type]
    try:
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        consumer.seek_to_beginning([tp])
        end = consumer.end_offsets([tp])[tp]
        records: list[ConsumerRecord] = []
        while consumer.position(tp) < end:
            records.extend(consumer.poll(timeout=1.0, max_records=50_000))
        return records
    finally:
        consumer.close()


@dataclass(frozen=True)
class PartitionReport:
    """How one replicated partition compares with its source: zero duplicates and gaps is exactly once."""

    partition: int
    source_records: int
    replicated: int
    duplicates: int
    gaps: int
    in_order: bool

    @property
    def exactly_once(self) -> bool:
        return self.duplicates == 0 and self.gaps == 0 and self.in_order


def compare(source: Log, topic: str, target: Log, remote: str) -> list[PartitionReport]:
    """Each partition of ``remote`` against the committed records of the same partition of ``topic``."""
    partitions = source.admin().describe_topics([topic])[topic].partitions
    reports = []
    for partition in range(partitions):
        expected = [r.value for r in read_partition(source, topic, partition)]
        got = [r.value for r in read_partition(target, remote, partition)]
        distinct = list(dict.fromkeys(got))
        reports.append(
            PartitionReport(
                partition,
                len(expected),
                len(got),
                duplicates=len(got) - len(distinct),
                gaps=len(set(expected) - set(got)),
                in_order=distinct == expected[: len(distinct)],
            )
        )
    return reports


def replicated_count(target: Log, remote: str) -> int:
    """Records in ``remote``, duplicates included: how far replication has gone."""
    if remote not in target.admin().list_topics():
        return 0
    partitions = target.admin().describe_topics([remote])[remote].partitions
    return sum(len(read_partition(target, remote, p)) for p in range(partitions))


def distinct_replicated(target: Log, remote: str) -> int:
    """Distinct records in ``remote``: a design that may duplicate reaches the source's count in
    ``replicated_count`` before its last records arrive, so completion is judged on this."""
    if remote not in target.admin().list_topics():
        return 0
    partitions = target.admin().describe_topics([remote])[remote].partitions
    return sum(len({r.value for r in read_partition(target, remote, p)}) for p in range(partitions))
