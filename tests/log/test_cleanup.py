"""Compaction keeps the latest record per key; retention drops old records from the start."""

from __future__ import annotations

import time

import pytest

from conveyor.log import InvalidRecordError, Log, TopicPartition, TransactionAbortedError

from .conftest import embedded_only, read_all

pytestmark = embedded_only(
    reason="compaction and retention run when Admin.run_cleaner is called; Kafka's brokers run them in "
    "the background on their own schedule"
)


@pytest.fixture
def compacted(log: Log) -> str:
    log.admin().create_topic("compacted", partitions=1, config={"cleanup.policy": "compact"})
    return "compacted"


def test_compaction_keeps_the_latest_value_per_key(log: Log, compacted: str) -> None:
    with log.producer(batch_size=1) as producer:
        for key, value in [(b"a", b"1"), (b"b", b"1"), (b"a", b"2"), (b"c", b"1"), (b"a", b"3")]:
            producer.send(compacted, value, key=key)
    log.admin().run_cleaner([compacted])
    assert [(r.key, r.value, r.offset) for r in read_all(log, compacted)] == [
        (b"b", b"1", 1),
        (b"c", b"1", 3),
        (b"a", b"3", 4),
    ]


def test_compaction_keeps_offsets_and_the_end_of_the_partition(log: Log, compacted: str) -> None:
    tp = TopicPartition(compacted, 0)
    with log.producer() as producer:
        producer.send_batch(compacted, [b"1", b"2", b"3"], keys=[b"k", b"k", b"k"])
    log.admin().run_cleaner([compacted])
    assert log.admin().list_offsets([tp])[tp].latest == 3
    assert [r.offset for r in read_all(log, compacted)] == [2]


def test_tombstone_deletes_a_key_once_delete_retention_has_passed(log: Log) -> None:
    log.admin().create_topic("tomb", config={"cleanup.policy": "compact", "delete.retention.ms": 0})
    with log.producer() as producer:
        producer.send_batch("tomb", [b"1", b"2", None], keys=[b"a", b"b", b"a"], timestamps=[1, 1, 1])
    log.admin().run_cleaner(["tomb"])
    assert [(r.key, r.value) for r in read_all(log, "tomb")] == [(b"b", b"2")]


def test_tombstone_is_kept_while_delete_retention_lasts(log: Log, compacted: str) -> None:
    with log.producer() as producer:
        producer.send_batch(compacted, [b"1", None], keys=[b"a", b"a"])
    log.admin().run_cleaner([compacted])
    assert [(r.key, r.value) for r in read_all(log, compacted)] == [(b"a", None)]


def test_compaction_drops_aborted_records_and_leaves_open_transactions_alone(
    log: Log, compacted: str
) -> None:
    producer = log.producer("compacting-txn")
    producer.init_transactions()
    producer.begin_transaction()
    producer.send(compacted, b"aborted", key=b"a")
    producer.flush()
    producer.abort_transaction()
    producer.begin_transaction()
    producer.send(compacted, b"open", key=b"a")
    producer.flush()
    log.admin().run_cleaner([compacted])
    assert [r.value for r in read_all(log, compacted, "read_uncommitted")] == [b"open"]
    producer.commit_transaction()
    assert [r.value for r in read_all(log, compacted)] == [b"open"]


def test_compacted_topic_refuses_records_without_key(log: Log, compacted: str) -> None:
    with pytest.raises(InvalidRecordError, match=compacted):
        log.producer().send(compacted, b"no key")
    with pytest.raises(InvalidRecordError, match=compacted):
        log.producer().send_batch(compacted, [b"x", b"y"], keys=[b"k", None])


def test_retention_removes_old_batches_and_advances_the_log_start(log: Log) -> None:
    log.admin().create_topic("short-lived", config={"retention.ms": 60_000})
    now = int(time.time() * 1000)
    with log.producer(batch_size=1) as producer:
        producer.send("short-lived", b"ancient", timestamp=now - 3_600_000)
        producer.send("short-lived", b"recent", timestamp=now)
    tp = TopicPartition("short-lived", 0)
    result = log.admin().run_cleaner(["short-lived"])
    assert result.records_removed == 1
    assert log.admin().list_offsets([tp])[tp].earliest == 1
    assert [(r.offset, r.value) for r in read_all(log, "short-lived")] == [(1, b"recent")]


def test_consumer_behind_the_log_start_is_reset_per_auto_offset_reset(log: Log) -> None:
    log.admin().create_topic("reset-me", config={"retention.ms": 60_000})
    with log.producer(batch_size=1) as producer:
        producer.send("reset-me", b"old", timestamp=1)
        producer.send("reset-me", b"new")
    tp = TopicPartition("reset-me", 0)
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([tp])
    consumer.seek(tp, 0)
    log.admin().run_cleaner(["reset-me"])
    assert [r.value for r in consumer.poll()] == [b"new"]


def test_timed_out_transaction_stays_aborted_after_the_cleaner_removed_its_records(
    log: Log, compacted: str
) -> None:
    producer = log.producer("cleaned-away", transaction_timeout_ms=100)
    producer.init_transactions()
    producer.begin_transaction()
    producer.send(compacted, b"first-half", key=b"a")
    producer.flush()
    time.sleep(0.3)
    log.admin().run_cleaner([compacted])
    with pytest.raises(TransactionAbortedError, match="cleaned-away"):
        producer.commit_transaction()
    assert read_all(log, compacted) == []
