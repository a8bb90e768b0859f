"""Transactions: atomic visibility, isolation levels, fencing, timeouts and offsets in transactions."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conveyor.log import (
    IllegalStateError,
    InvalidTxnStateError,
    Log,
    OffsetAndMetadata,
    Producer,
    ProducerFencedError,
    TopicPartition,
    TransactionAbortedError,
    open_log,
)
from conveyor.log.embedded.database import DATABASE_FILE
from waiting import wait_until

from .conftest import backend_of, control_records, embedded_only, read_all, values_of


def transactional(log: Log, transactional_id: str, **config: object) -> Producer:
    producer = log.producer(transactional_id, **config)
    producer.init_transactions()
    return producer


def timed_out_error(log: Log) -> type[Exception]:
    """What the producer of a timed-out transaction gets: Kafka differs on purpose, as its coordinator
    bumps the epoch when it aborts (transaction protocol 2), so the producer is fenced and a new one
    takes over; on the embedded log the producer aborts and goes on."""
    return ProducerFencedError if backend_of(log) == "kafka" else TransactionAbortedError


def test_committed_transaction_becomes_visible_across_partitions_at_once(log: Log, topic: str) -> None:
    producer = transactional(log, "atomic")
    producer.begin_transaction()
    for partition in range(3):
        producer.send(topic, f"p{partition}".encode(), partition=partition)
    producer.flush()
    assert read_all(log, topic) == []
    producer.commit_transaction()
    assert {record.value for record in read_all(log, topic)} == {b"p0", b"p1", b"p2"}


def test_a_commit_that_does_not_wait_for_visibility_still_commits_and_the_next_transaction_follows(
    log: Log, topic: str
) -> None:
    producer = transactional(log, "no-wait")
    for value in (b"first", b"second"):
        producer.begin_transaction()
        producer.send(topic, value, partition=0)
        producer.commit_transaction_nowait()
    wait_until(lambda: values_of(read_all(log, topic)) == [b"first", b"second"], "both transactions")


def test_the_first_record_after_a_commit_that_did_not_wait_is_sent_once_that_commit_is_visible(
    log: Log, topic: str
) -> None:
    producer = transactional(log, "sends-after-markers")
    reader = log.consumer(isolation_level="read_committed")
    partition = TopicPartition(topic, 0)
    try:
        producer.begin_transaction()
        producer.send(topic, b"first", partition=0)
        producer.commit_transaction_nowait()
        producer.begin_transaction()
        producer.send(topic, b"second", partition=1)
        assert reader.end_offsets([partition]) == {partition: 1 + control_records(log)}
    finally:
        reader.close()


def test_read_committed_skips_aborted_records(log: Log, topic: str) -> None:
    producer = transactional(log, "aborter")
    producer.begin_transaction()
    producer.send(topic, b"kept-1", partition=0)
    producer.commit_transaction()
    producer.begin_transaction()
    producer.send(topic, b"dropped", partition=0)
    producer.flush()
    producer.abort_transaction()
    producer.begin_transaction()
    producer.send(topic, b"kept-2", partition=0)
    producer.commit_transaction()
    records = read_all(log, topic)
    assert values_of(records) == [b"kept-1", b"kept-2"]
    # On Kafka the commit and the abort each took an offset for their control record.
    assert [record.offset for record in records] == [0, 2 + 2 * control_records(log)]


def test_a_reader_handed_a_transactions_last_record_is_positioned_past_its_commit(
    log: Log, topic: str
) -> None:
    tp = TopicPartition(topic, 0)
    producer = transactional(log, "marked")
    producer.begin_transaction()
    producer.send(topic, b"only", partition=0)
    producer.commit_transaction()
    consumer = log.consumer(auto_offset_reset="earliest")
    try:
        consumer.assign([tp])
        assert values_of(consumer.poll(timeout=10.0)) == [b"only"]
        assert consumer.position(tp) == 1 + control_records(log)
    finally:
        consumer.close()


def test_read_uncommitted_sees_open_and_aborted_records(log: Log, topic: str) -> None:
    producer = transactional(log, "dirty")
    producer.begin_transaction()
    producer.send(topic, b"aborted", partition=0)
    producer.flush()
    producer.abort_transaction()
    producer.begin_transaction()
    producer.send(topic, b"open", partition=0)
    producer.flush()
    assert values_of(read_all(log, topic, "read_uncommitted")) == [b"aborted", b"open"]


def open_before_a_committed_one(log: Log, topic: str) -> Producer:
    """A transaction left open on partition 0 of ``topic``, then another producer's committed after it;
    returns the open one's producer."""
    slow = transactional(log, "slow")
    slow.begin_transaction()
    slow.send(topic, b"open", partition=0)
    slow.flush()
    fast = transactional(log, "fast")
    fast.begin_transaction()
    fast.send(topic, b"committed-after", partition=0)
    fast.commit_transaction()
    return slow


def test_read_committed_stops_at_the_last_stable_offset(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 0)
    slow = open_before_a_committed_one(log, topic)
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([tp])
    assert consumer.poll() == []
    assert consumer.position(tp) == 0
    assert consumer.end_offsets([tp]) == {tp: 0}
    slow.commit_transaction()
    assert values_of(consumer.poll()) == [b"open", b"committed-after"]


def test_high_watermarks_of_a_read_committed_reader_count_open_transactions(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 0)
    slow = open_before_a_committed_one(log, topic)
    consumer = log.consumer(auto_offset_reset="earliest")
    consumer.assign([tp])
    assert consumer.high_watermarks([tp]) == {tp: 2 + control_records(log)}
    assert consumer.end_offsets([tp]) == {tp: 0}
    slow.abort_transaction()
    assert consumer.high_watermarks([tp]) == {tp: 2 + 2 * control_records(log)}


def test_init_transactions_fences_the_previous_producer_at_its_next_write(log: Log, topic: str) -> None:
    old = transactional(log, "task-0", batch_size=1)
    old.begin_transaction()
    transactional(log, "task-0")
    # The send itself is accepted into the buffer, full as it is: the log is written behind it (Kafka's
    # sender thread, the embedded log's linger thread), and the zombie learns it is fenced there.
    old.send(topic, b"zombie", partition=0)
    with pytest.raises(ProducerFencedError, match="task-0"):
        old.flush()


def test_init_transactions_fences_the_previous_producer_on_commit(log: Log, topic: str) -> None:
    old = transactional(log, "task-1")
    old.begin_transaction()
    old.send(topic, b"zombie", partition=0)
    transactional(log, "task-1")
    with pytest.raises(ProducerFencedError, match="task-1"):
        old.commit_transaction()
    # Kafka differs on purpose: the zombie's record may have reached the log before it was fenced (and
    # was aborted then), so only read_committed is sure not to show it.
    isolation = "read_committed" if backend_of(log) == "kafka" else "read_uncommitted"
    assert read_all(log, topic, isolation) == []


def test_a_fenced_producers_timestamped_batch_fails_its_commit(log: Log, topic: str) -> None:
    old = transactional(log, "task-3")
    old.begin_transaction()
    old.send_batch(topic, [b"zombie-1", b"zombie-2"], partition=0, timestamps=[5, 6])
    transactional(log, "task-3")
    with pytest.raises(ProducerFencedError, match="task-3"):
        old.commit_transaction()
    assert read_all(log, topic, "read_committed") == []


def test_fenced_producer_stays_fenced(log: Log, topic: str) -> None:
    old = transactional(log, "task-2")
    old.begin_transaction()
    old.send(topic, b"zombie", partition=0)
    transactional(log, "task-2")
    with pytest.raises(ProducerFencedError):
        old.commit_transaction()
    with pytest.raises(ProducerFencedError):
        old.begin_transaction()


def test_init_transactions_aborts_the_transaction_a_previous_producer_left_open(log: Log, topic: str) -> None:
    old = transactional(log, "task-3")
    old.begin_transaction()
    old.send(topic, b"left-open", partition=1)
    old.flush()
    new = transactional(log, "task-3")
    new.begin_transaction()
    new.send(topic, b"fresh", partition=1)
    new.commit_transaction()
    assert values_of(read_all(log, topic)) == [b"fresh"]


def test_admin_fence_producers_fences_and_aborts(log: Log, topic: str) -> None:
    old = transactional(log, "task-4")
    old.begin_transaction()
    old.send(topic, b"left-open", partition=2)
    old.flush()
    log.admin().fence_producers(["task-4"])
    tp = TopicPartition(topic, 2)
    assert log.admin().list_offsets([tp])[tp].last_stable == 1 + control_records(log)
    with pytest.raises(ProducerFencedError):
        old.commit_transaction()


def test_transaction_left_open_past_its_timeout_is_aborted_by_the_log(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 0)
    producer = transactional(log, "sleepy", transaction_timeout_ms=1_000)
    producer.begin_transaction()
    producer.send(topic, b"too-late", partition=0)
    producer.flush()
    assert log.admin().list_offsets([tp])[tp].last_stable == 0
    aborted_end = 1 + control_records(log)
    wait_until(lambda: log.admin().list_offsets([tp])[tp].last_stable == aborted_end, "the timeout's abort")
    assert read_all(log, topic) == []
    with pytest.raises(timed_out_error(log), match="sleepy"):
        producer.commit_transaction()


def test_producer_recovers_from_a_timed_out_transaction(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 0)
    producer = transactional(log, "recovering", transaction_timeout_ms=1_000)
    producer.begin_transaction()
    producer.send(topic, b"too-late", partition=0)
    producer.flush()
    aborted_end = 1 + control_records(log)
    wait_until(lambda: log.admin().list_offsets([tp])[tp].last_stable == aborted_end, "the timeout's abort")
    with pytest.raises(timed_out_error(log)):
        producer.commit_transaction()
    if backend_of(log) == "kafka":
        producer = transactional(log, "recovering")
    else:
        producer.abort_transaction()
    producer.begin_transaction()
    producer.send(topic, b"in-time", partition=0)
    producer.commit_transaction()
    assert values_of(read_all(log, topic)) == [b"in-time"]


def test_offsets_sent_to_a_transaction_are_committed_exactly_when_it_commits(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 0)
    producer = transactional(log, "copier")
    producer.begin_transaction()
    producer.send(topic, b"copied", partition=1)
    producer.send_offsets_to_transaction({tp: OffsetAndMetadata(42, "m")}, "source-group")
    admin = log.admin()
    assert admin.list_consumer_group_offsets("source-group") == {}
    producer.commit_transaction()
    assert admin.list_consumer_group_offsets("source-group") == {tp: OffsetAndMetadata(42, "m")}


def test_offsets_sent_to_an_aborted_transaction_are_never_committed(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 0)
    producer = transactional(log, "copier-2")
    producer.begin_transaction()
    producer.send_offsets_to_transaction({tp: 5}, "source-group-2")
    producer.abort_transaction()
    assert log.admin().list_consumer_group_offsets("source-group-2") == {}


def test_begin_transaction_before_init_is_an_invalid_state(log: Log) -> None:
    with pytest.raises(InvalidTxnStateError, match="tid-x"):
        log.producer("tid-x").begin_transaction()


def test_begin_transaction_twice_is_an_invalid_state(log: Log) -> None:
    producer = transactional(log, "twice")
    producer.begin_transaction()
    with pytest.raises(InvalidTxnStateError, match="twice"):
        producer.begin_transaction()


def test_send_outside_a_transaction_on_a_transactional_producer_is_an_invalid_state(
    log: Log, topic: str
) -> None:
    with pytest.raises(InvalidTxnStateError, match="outside"):
        transactional(log, "outside").send(topic, b"x")


def test_commit_without_a_transaction_is_an_invalid_state(log: Log) -> None:
    with pytest.raises(InvalidTxnStateError):
        transactional(log, "no-txn").commit_transaction()


def test_transactional_calls_on_a_plain_producer_are_an_illegal_state(log: Log) -> None:
    with pytest.raises(IllegalStateError):
        log.producer().init_transactions()


def test_closing_a_producer_aborts_its_open_transaction(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 0)
    producer = transactional(log, "closer")
    producer.begin_transaction()
    producer.send(topic, b"never", partition=0)
    producer.flush()
    producer.close()
    assert log.admin().list_offsets([tp])[tp].last_stable == 1 + control_records(log)
    assert read_all(log, topic) == []


def test_a_closed_producer_refuses_every_further_call(log: Log, topic: str) -> None:
    producer = transactional(log, "closed")
    producer.close()
    calls = [
        lambda: producer.send(topic, b"late", partition=0),
        producer.flush,
        producer.begin_transaction,
        producer.commit_transaction,
    ]
    for call in calls:
        with pytest.raises(IllegalStateError, match="closed"):
            call()


def test_a_second_process_view_of_the_log_sees_the_same_transactions(log_url: str, topic: str) -> None:
    producer = transactional(open_log(log_url), "shared")
    producer.begin_transaction()
    producer.send(topic, b"shared", partition=0)
    producer.commit_transaction()
    other = open_log(log_url)
    assert values_of(read_all(other, topic)) == [b"shared"]
    other.close()


outcome_lists = st.lists(
    st.tuples(st.booleans(), st.integers(min_value=0, max_value=5), st.integers(min_value=0, max_value=2)),
    min_size=1,
    max_size=12,
)


def examples_on(log: Log) -> int:
    """Generated cases per property: fewer on Kafka, where each one creates topics and producers on a real
    broker (the same properties hold on both backends)."""
    return 8 if backend_of(log) == "kafka" else 25


def test_read_committed_sees_exactly_the_committed_transactions(log: Log) -> None:
    @settings(max_examples=examples_on(log), deadline=None)
    @given(outcome_lists)
    def check(outcomes: list[tuple[bool, int, int]]) -> None:
        topic = f"generated-{time.monotonic_ns()}"
        log.admin().create_topic(topic, partitions=3)
        producer = transactional(log, f"gen-{topic}", batch_size=40)
        expected: list[bytes] = []
        for number, (commit, count, flushes) in enumerate(outcomes):
            producer.begin_transaction()
            values = [f"{number}-{i}".encode() for i in range(count)]
            for i, value in enumerate(values):
                producer.send(topic, value, partition=i % 3)
                if flushes and i % (flushes + 1) == 0:
                    producer.flush()
            if commit:
                producer.commit_transaction()
                expected.extend(values)
            else:
                producer.abort_transaction()
        seen = values_of(read_all(log, topic))
        assert sorted(seen) == sorted(expected)  # type: ignore[type-var]
        everything = values_of(read_all(log, topic, "read_uncommitted"))
        assert len(everything) >= len(expected)

    check()


transaction_steps = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=1), st.sampled_from(["send", "send", "flush", "commit", "abort"])
    ),
    min_size=1,
    max_size=30,
)


def test_interleaved_transactions_show_only_committed_records_at_every_step(log: Log) -> None:
    @settings(max_examples=examples_on(log), deadline=None)
    @given(transaction_steps)
    def check(steps: list[tuple[int, str]]) -> None:
        topic = f"interleaved-{time.monotonic_ns()}"
        log.admin().create_topic(topic, partitions=2)
        producers = [transactional(log, f"{topic}-{n}") for n in range(2)]
        open_values: list[list[bytes] | None] = [None, None]
        committed: set[bytes] = set()
        for number, (who, action) in enumerate(steps):
            producer = producers[who]
            if action == "send":
                values = open_values[who]
                if values is None:
                    producer.begin_transaction()
                    values = open_values[who] = []
                value = f"{who}-{number}".encode()
                producer.send(topic, value, partition=number % 2)
                values.append(value)
            elif action == "flush" and open_values[who] is not None:
                producer.flush()
            elif action in ("commit", "abort") and open_values[who] is not None:
                if action == "commit":
                    producer.commit_transaction()
                    committed.update(open_values[who] or [])
                else:
                    producer.abort_transaction()
                open_values[who] = None
            assert {record.value for record in read_all(log, topic)} <= committed
        for producer, values in zip(producers, open_values, strict=True):
            if values is not None:
                producer.abort_transaction()
        assert {record.value for record in read_all(log, topic)} == committed

    check()


@embedded_only(reason="holds the embedded log's database write lock, as another writer would")
def test_a_send_that_fills_a_transactions_buffer_returns_while_another_writer_holds_the_log(
    log: Log, log_url: str, topic: str
) -> None:
    producer = transactional(log, "filler", batch_size=10)
    producer.begin_transaction()
    database = sqlite3.connect(
        Path(log_url.removeprefix("embedded:")) / DATABASE_FILE, isolation_level=None, check_same_thread=False
    )
    database.execute("BEGIN IMMEDIATE")
    sent = threading.Event()

    def fill() -> None:
        producer.send_batch(topic, [b"x" * 20] * 3, partition=0)
        sent.set()

    sender = threading.Thread(target=fill, daemon=True)
    sender.start()
    try:
        assert sent.wait(10), "the send waited for the log's write lock"
    finally:
        database.execute("ROLLBACK")
        database.close()
        sender.join()
    producer.commit_transaction()
    assert values_of(read_all(log, topic)) == [b"x" * 20] * 3


@embedded_only(reason="holds the embedded log's database write lock, as another writer would")
def test_a_send_returns_while_the_linger_thread_appends_a_full_buffer_in_order_before_the_commit(
    log: Log, log_url: str, topic: str
) -> None:
    producer = transactional(log, "lingering", batch_size=10)
    producer.begin_transaction()
    database = sqlite3.connect(
        Path(log_url.removeprefix("embedded:")) / DATABASE_FILE, isolation_level=None, check_same_thread=False
    )
    database.execute("BEGIN IMMEDIATE")
    producer.send_batch(topic, [b"a" * 20] * 3, partition=0)
    time.sleep(0.2)  # linger.ms is 5: the linger thread has taken the full buffer and waits for the log
    sent = threading.Event()

    def send_more() -> None:
        producer.send_batch(topic, [b"b" * 20] * 3, partition=0)
        sent.set()

    sender = threading.Thread(target=send_more, daemon=True)
    sender.start()
    try:
        assert sent.wait(10), "the send waited for the linger thread's append"
    finally:
        database.execute("ROLLBACK")
        database.close()
        sender.join()
    producer.commit_transaction()
    assert values_of(read_all(log, topic)) == [b"a" * 20] * 3 + [b"b" * 20] * 3
