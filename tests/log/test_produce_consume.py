"""Writing and reading records: offsets, partitioning, record fields, positions and committed offsets."""

from __future__ import annotations

import pytest

from conveyor.log import (
    FlushTimeoutError,
    IllegalStateError,
    InvalidGroupIdError,
    Log,
    NoOffsetForPartitionError,
    OffsetAndMetadata,
    RecordMetadata,
    TopicPartition,
    UnknownTopicOrPartitionError,
    open_log,
)

from .conftest import backend_of, embedded_only, partitions_of, read_all, values_of


def test_offsets_are_dense_and_start_at_zero_in_each_partition(log: Log, topic: str) -> None:
    with log.producer(batch_size=300) as producer:
        for i in range(50):
            producer.send(topic, b"v" * 20, partition=i % 3)
        producer.send_batch(topic, [b"w"] * 40, partition=2)
    by_partition: dict[int, list[int]] = {}
    for record in read_all(log, topic):
        by_partition.setdefault(record.partition, []).append(record.offset)
    assert by_partition == {0: list(range(17)), 1: list(range(17)), 2: list(range(56))}


def test_records_keep_key_value_headers_and_timestamp(log: Log, topic: str) -> None:
    headers = [("trace", b"abc"), ("empty", None), ("trace", b"")]
    with log.producer() as producer:
        producer.send(topic, b"value", key=b"key", partition=1, headers=headers, timestamp=1234)
        producer.send(topic, None, key=b"gone", partition=1, timestamp=99)
    first, second = read_all(log, topic)
    assert (first.topic, first.partition, first.offset) == (topic, 1, 0)
    assert (first.key, first.value, first.headers, first.timestamp) == (b"key", b"value", headers, 1234)
    assert (second.key, second.value, second.headers, second.timestamp) == (b"gone", None, [], 99)


def test_send_batch_keeps_each_records_headers_and_timestamp(log: Log, topic: str) -> None:
    headers = [("trace", b"abc")]
    with log.producer() as producer:
        producer.send_batch(
            topic, [b"a", b"b"], keys=[b"1", None], partition=0, headers=[headers, None], timestamps=[5, 6]
        )
    first, second = read_all(log, topic)
    assert (first.key, first.value, first.headers, first.timestamp) == (b"1", b"a", headers, 5)
    assert (second.key, second.value, second.headers, second.timestamp) == (None, b"b", [], 6)


def test_send_batch_larger_than_the_clients_queue_waits_for_room_and_loses_nothing(
    log: Log, topic: str
) -> None:
    values = [str(n).encode() for n in range(50)]
    timestamps = list(range(1000, 1050))
    with log.producer(**{"queue.buffering.max.messages": 5}) as producer:
        producer.send_batch(topic, values, partition=0, timestamps=timestamps)
    assert [(record.value, record.timestamp) for record in read_all(log, topic)] == list(
        zip(values, timestamps, strict=True)
    )


def test_send_batch_refuses_a_column_whose_length_is_not_the_values(log: Log, topic: str) -> None:
    with log.producer() as producer, pytest.raises(ValueError, match="1 timestamps for 2 values"):
        producer.send_batch(topic, [b"a", b"b"], timestamps=[5])
    assert read_all(log, topic) == []


def test_records_of_one_partition_are_read_in_send_order(log: Log, topic: str) -> None:
    values = [str(i).encode() for i in range(1000)]
    with log.producer(batch_size=1000) as producer:
        for value in values[:500]:
            producer.send(topic, value, key=b"same")
        producer.send_batch(topic, values[500:], keys=[b"same"] * 500)
    assert values_of(read_all(log, topic)) == values


def test_unkeyed_records_all_land_in_partitions_of_the_topic(log: Log, topic: str) -> None:
    with log.producer(batch_size=100) as producer:
        for _ in range(200):
            producer.send(topic, b"0123456789")
    records = read_all(log, topic)
    assert len(records) == 200
    assert {record.partition for record in records} <= {0, 1, 2}


def test_send_batch_with_keys_partitions_each_record_like_send(log: Log, topic: str) -> None:
    keys = [f"key-{i}".encode() for i in range(60)]
    with log.producer() as producer:
        producer.send_batch(topic, keys, keys=keys)
    other = f"{topic}-twin"
    log.admin().create_topic(other, partitions=3)
    with log.producer() as producer:
        for key in keys:
            producer.send(other, key, key=key)
    placed = {(r.key, r.partition) for r in read_all(log, topic)}
    assert placed == {(r.key, r.partition) for r in read_all(log, other)}


def test_sent_records_are_invisible_until_flushed_within_linger_ms(log: Log, topic: str) -> None:
    producer = log.producer(linger_ms=60_000)
    producer.send(topic, b"pending", partition=0)
    assert read_all(log, topic) == []
    producer.flush()
    assert values_of(read_all(log, topic)) == [b"pending"]


def test_a_flush_out_of_time_raises_on_kafka_and_the_next_flush_appends_what_it_left(
    log: Log, topic: str
) -> None:
    producer = log.producer(linger_ms=60_000)
    producer.send(topic, b"late", partition=0)
    if backend_of(log) == "kafka":
        # No broker acknowledges a record within no time at all; the embedded log appends at once.
        with pytest.raises(FlushTimeoutError, match="1 outstanding records"):
            producer.flush(timeout_s=0)
    producer.flush()
    assert values_of(read_all(log, topic)) == [b"late"]


def test_send_to_unknown_topic_names_it(log: Log) -> None:
    with pytest.raises(UnknownTopicOrPartitionError, match="nowhere"):
        log.producer().send("nowhere", b"x")


def test_send_to_missing_partition_names_it(log: Log, topic: str) -> None:
    with pytest.raises(UnknownTopicOrPartitionError, match=f"{topic}-3"):
        log.producer().send(topic, b"x", partition=3)


def test_poll_batch_returns_the_same_records_as_poll_in_columns(log: Log, topic: str) -> None:
    with log.producer() as producer:
        producer.send_batch(
            topic, [b"a", b"b", None], keys=[b"1", None, b"3"], partition=0, timestamps=[5, 6, 7]
        )
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([TopicPartition(topic, 0)])
    (batch,) = consumer.poll_batch()
    assert list(batch.offsets) == [0, 1, 2]
    assert list(batch.values) == [b"a", b"b", None]
    assert list(batch.keys) == [b"1", None, b"3"]
    assert list(batch.timestamps) == [5, 6, 7]
    assert batch.next_offset == 3
    consumer.seek(TopicPartition(topic, 0), 0)
    assert list(batch.records()) == consumer.poll()


@embedded_only("a Kafka fetch may hand a poll fewer records than are there")
def test_poll_batch_hands_a_partition_over_as_one_batch_whatever_batches_it_was_sent_in(
    log: Log, topic: str
) -> None:
    with log.producer() as producer:
        for start in range(0, 30, 10):
            producer.send_batch(topic, [str(n).encode() for n in range(start, start + 10)], partition=0)
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([TopicPartition(topic, 0)])
    consumer.seek(TopicPartition(topic, 0), 5)
    batches = consumer.poll_batch(timeout=1, max_records=20)
    assert [(list(b.offsets), list(b.values), b.next_offset) for b in batches] == [
        (list(range(5, 25)), [str(n).encode() for n in range(5, 25)], 25)
    ]


def test_records_of_two_topics_read_together_keep_their_own_topic_and_partition(log: Log) -> None:
    for name in ("left", "right"):
        log.admin().create_topic(name, partitions=2)
        with log.producer() as producer:
            for partition in range(2):
                producer.send_batch(
                    name, [f"{name}-{partition}-{n}".encode() for n in range(50)], partition=partition
                )
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([TopicPartition(name, p) for name in ("left", "right") for p in range(2)])
    read: list[tuple[str, int, int, bytes | None]] = []
    while batch := consumer.poll(timeout=1, max_records=10_000):
        read.extend((r.topic, r.partition, r.offset, r.value) for r in batch)
    assert sorted(read) == sorted(
        (name, p, n, f"{name}-{p}-{n}".encode())
        for name in ("left", "right")
        for p in range(2)
        for n in range(50)
    )


def test_poll_returns_at_most_max_records_and_continues_where_it_stopped(log: Log, topic: str) -> None:
    with log.producer() as producer:
        producer.send_batch(topic, [str(i).encode() for i in range(10)], partition=0)
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([TopicPartition(topic, 0)])
    first = consumer.poll(max_records=4)
    second = consumer.poll(max_records=100)
    assert [r.offset for r in first] == [0, 1, 2, 3]
    assert [r.offset for r in second] == list(range(4, 10))
    assert consumer.position(TopicPartition(topic, 0)) == 10


def test_seek_moves_the_position(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 2)
    with log.producer() as producer:
        producer.send_batch(topic, [b"a", b"b", b"c", b"d"], partition=2)
    consumer = log.consumer()
    consumer.assign([tp])
    consumer.seek(tp, 2)
    assert values_of(consumer.poll()) == [b"c", b"d"]
    consumer.seek_to_beginning()
    assert consumer.position(tp) == 0
    consumer.seek_to_end([tp])
    assert consumer.position(tp) == 4


def test_new_consumer_without_committed_offset_starts_at_the_end_by_default(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 0)
    with log.producer() as producer:
        producer.send(topic, b"old", partition=0)
    consumer = log.consumer("fresh-group")
    consumer.assign([tp])
    assert consumer.position(tp) == 1
    assert consumer.poll() == []


def test_auto_offset_reset_none_without_committed_offset_fails_naming_group(log: Log, topic: str) -> None:
    consumer = log.consumer("strict-group", auto_offset_reset="none")
    consumer.assign([TopicPartition(topic, 0)])
    with pytest.raises(NoOffsetForPartitionError, match="strict-group"):
        consumer.poll()


def test_committed_offsets_are_where_a_new_consumer_of_the_group_starts(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 0)
    with log.producer() as producer:
        producer.send_batch(topic, [b"a", b"b", b"c"], partition=0)
    first = log.consumer("readers", auto_offset_reset="earliest")
    first.assign([tp])
    first.poll(max_records=2)
    first.commit()
    assert first.committed([tp]) == {tp: OffsetAndMetadata(2)}
    first.close()
    second = log.consumer("readers", auto_offset_reset="earliest")
    second.assign([tp])
    assert values_of(second.poll()) == [b"c"]


def test_explicit_commit_keeps_metadata(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 1)
    consumer = log.consumer("meta-group")
    consumer.assign([tp])
    consumer.commit({tp: OffsetAndMetadata(7, "checkpoint")})
    assert consumer.committed([tp, TopicPartition(topic, 2)]) == {
        tp: OffsetAndMetadata(7, "checkpoint"),
        TopicPartition(topic, 2): None,
    }


def test_commit_without_group_id_is_refused(log: Log, topic: str) -> None:
    consumer = log.consumer()
    consumer.assign([TopicPartition(topic, 0)])
    with pytest.raises(InvalidGroupIdError):
        consumer.commit()


def test_poll_without_assignment_is_an_illegal_state(log: Log) -> None:
    with pytest.raises(IllegalStateError, match="not assigned"):
        log.consumer().poll()


def test_assigning_a_missing_partition_names_it(log: Log, topic: str) -> None:
    with pytest.raises(UnknownTopicOrPartitionError, match=f"{topic}-7"):
        log.consumer().assign([TopicPartition(topic, 7)])


def test_a_refused_assign_leaves_the_consumer_reading_what_it_is_assigned_next(log: Log, topic: str) -> None:
    with log.producer() as producer:
        producer.send(topic, b"here", partition=0)
    consumer = log.consumer(auto_offset_reset="earliest")
    with pytest.raises(UnknownTopicOrPartitionError):
        consumer.assign([TopicPartition(topic, 0), TopicPartition(topic, 7)])
    consumer.assign([TopicPartition(topic, 0)])
    assert values_of(consumer.poll(timeout=5.0)) == [b"here"]
    assert consumer.poll(timeout=1.0) == []
    consumer.close()


def test_poll_waits_for_records_written_meanwhile(log: Log, topic: str) -> None:
    import threading

    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign(partitions_of(log, topic))

    def write_later() -> None:
        with log.producer() as producer:
            producer.send(topic, b"late", partition=1)

    timer = threading.Timer(0.2, write_later)
    timer.start()
    records = consumer.poll(timeout=5.0)
    timer.join()
    assert values_of(records) == [b"late"]


def test_end_and_beginning_offsets(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 0)
    with log.producer() as producer:
        producer.send_batch(topic, [b"a", b"b"], partition=0)
    consumer = log.consumer()
    assert consumer.beginning_offsets([tp]) == {tp: 0}
    assert consumer.end_offsets([tp]) == {tp: 2}


def test_delivery_callback_reports_the_offset_each_record_was_appended_at(log: Log, topic: str) -> None:
    delivered: list[RecordMetadata] = []
    producer = log.producer()
    producer.send(topic, b"a", partition=2, timestamp=10, on_delivery=delivered.append)
    producer.send(topic, b"b", partition=2, timestamp=11, on_delivery=delivered.append)
    assert delivered == []
    producer.flush()
    assert delivered == [RecordMetadata(topic, 2, 0, 10), RecordMetadata(topic, 2, 1, 11)]


def test_delivery_callback_of_an_aborted_transaction_never_fires(log: Log, topic: str) -> None:
    delivered: list[RecordMetadata] = []
    producer = log.producer("callbacks")
    producer.init_transactions()
    producer.begin_transaction()
    producer.send(topic, b"a", partition=0, on_delivery=delivered.append)
    producer.abort_transaction()
    producer.begin_transaction()
    producer.send(topic, b"b", partition=0, timestamp=5, on_delivery=delivered.append)
    producer.commit_transaction()
    assert delivered == [RecordMetadata(topic, 0, 0, 5)]


def test_plain_sends_are_appended_after_linger_ms_without_flush(log: Log, topic: str) -> None:
    producer = log.producer(linger_ms=20)
    producer.send(topic, b"lingering", partition=0)
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([TopicPartition(topic, 0)])
    assert values_of(consumer.poll(timeout=5.0)) == [b"lingering"]
    producer.close()


def test_transactional_sends_are_not_appended_by_lingering(log: Log, topic: str) -> None:
    producer = log.producer("no-linger", linger_ms=1)
    producer.init_transactions()
    producer.begin_transaction()
    producer.send(topic, b"held", partition=0)
    # Kafka differs on purpose: it appends a transaction's records as they are sent, so only a
    # read_committed consumer shows that they wait for the commit.
    isolation = "read_committed" if backend_of(log) == "kafka" else "read_uncommitted"
    consumer = log.consumer(isolation_level=isolation, auto_offset_reset="earliest")  # type: ignore[arg-type]
    consumer.assign([TopicPartition(topic, 0)])
    assert consumer.poll(timeout=0.2) == []
    producer.commit_transaction()
    assert values_of(consumer.poll(timeout=1.0)) == [b"held"]


def test_paused_partitions_return_nothing_until_resumed(log: Log, topic: str) -> None:
    with log.producer() as producer:
        producer.send(topic, b"zero", partition=0)
        producer.send(topic, b"one", partition=1)
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([TopicPartition(topic, 0), TopicPartition(topic, 1)])
    consumer.pause([TopicPartition(topic, 0)])
    assert consumer.paused() == {TopicPartition(topic, 0)}
    assert values_of(consumer.poll()) == [b"one"]
    consumer.resume([TopicPartition(topic, 0)])
    assert values_of(consumer.poll()) == [b"zero"]


def test_a_log_travels_to_other_processes_as_its_url(log: Log, topic: str) -> None:
    import pickle

    with log.producer() as producer:
        producer.send(topic, b"shared", partition=0)
    copy = pickle.loads(pickle.dumps(log))
    assert copy.url == log.url
    assert values_of(read_all(copy, topic)) == [b"shared"]
    with open_log(log.url) as reopened:
        assert values_of(read_all(reopened, topic)) == [b"shared"]
    copy.close()
