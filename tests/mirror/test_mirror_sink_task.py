"""MirrorSinkTask (KIP-656) called as the sink loop calls it, on two embedded logs: A, the source, and B."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conveyor.api import ConnectError
from conveyor.connectors.mirror import MirrorSinkConnector, MirrorSinkTask
from conveyor.connectors.mirror.offset_syncs import OffsetSync
from conveyor.connectors.mirror.sink import transactional_id
from conveyor.data import OPTIONAL_BYTES_SCHEMA, Header, SinkRecord
from conveyor.errors import ConfigError
from conveyor.log import Log, OffsetAndMetadata, Producer, ProducerFencedError, TopicPartition, open_log
from conveyor.runtime.sink_task import RuntimeSinkTaskContext

from .replication import BYTES_CONVERTERS, produce, read_partition

TOPIC = "orders"
REMOTE = "A.orders"
GROUP = "connect-mirror"
PARTITION = TopicPartition(TOPIC, 0)


def task_config(a: Log, b: Log, **overrides: str) -> dict[str, str]:
    return {
        "name": "mirror",
        "topics": TOPIC,
        "source.cluster.alias": "A",
        "target.cluster.alias": "B",
        "consumer.override.log.url": a.url,
        "target.cluster.log.url": b.url,
        "offset.lag.max": "0",
        **BYTES_CONVERTERS,
        **overrides,
    }


def sink_records(log: Log, topic: str, partition: int, start: int = 0) -> list[SinkRecord]:
    """What the sink loop hands to `put` through ByteArrayConverters."""
    return [
        SinkRecord(
            r.topic,
            kafka_partition=r.partition,
            key_schema=OPTIONAL_BYTES_SCHEMA,
            key=r.key,
            value_schema=OPTIONAL_BYTES_SCHEMA,
            value=r.value,
            kafka_offset=r.offset,
            timestamp=r.timestamp,
            headers=[Header(name, raw, OPTIONAL_BYTES_SCHEMA) for name, raw in r.headers],
        )
        for r in read_partition(log, topic, partition)
        if r.offset >= start
    ]


class Started:
    """A started task with its context, stopped on the way out."""

    def __init__(self, task: MirrorSinkTask, config: dict[str, str]) -> None:
        self.task = task
        self.context = RuntimeSinkTaskContext(config, None)
        task.initialize(self.context)
        task.start(config)
        self.context.assigned.add(PARTITION)
        task.open([PARTITION])

    def put(self, records: Sequence[SinkRecord]) -> None:
        self.task.put(records)


@pytest.fixture
def source_topic(cluster_a: Log) -> str:
    cluster_a.admin().create_topic(TOPIC, partitions=2, config={"retention.ms": 123456})
    produce(cluster_a, TOPIC, partitions=2, start=0, count=10)
    return TOPIC


@pytest.fixture
def started(cluster_a: Log, cluster_b: Log, source_topic: str) -> Iterator[Started]:
    running = Started(MirrorSinkTask(), task_config(cluster_a, cluster_b))
    yield running
    running.task.stop()


def test_a_batch_is_copied_to_the_remote_topic_with_keys_values_headers_timestamps_and_partition(
    cluster_a: Log, cluster_b: Log, started: Started
) -> None:
    started.put(sink_records(cluster_a, TOPIC, 0))
    source, copied = read_partition(cluster_a, TOPIC, 0), read_partition(cluster_b, REMOTE, 0)
    assert [(r.key, r.value, r.headers, r.timestamp) for r in copied] == [
        (r.key, r.value, r.headers, r.timestamp) for r in source
    ]
    assert read_partition(cluster_b, REMOTE, 1) == []


def test_the_remote_topic_gets_the_source_topics_partition_count_and_configs(
    cluster_b: Log, started: Started
) -> None:
    description = cluster_b.admin().describe_topics([REMOTE])[REMOTE]
    assert description.partitions == 2
    assert str(description.config.get("retention.ms")) == "123456"


def test_the_source_offsets_are_committed_on_the_target_one_past_the_last_record(
    cluster_a: Log, cluster_b: Log, started: Started
) -> None:
    started.put(sink_records(cluster_a, TOPIC, 0))
    assert cluster_b.admin().list_consumer_group_offsets(GROUP) == {PARTITION: OffsetAndMetadata(10)}
    assert cluster_a.admin().list_consumer_group_offsets(GROUP) == {}


def test_pre_commit_returns_nothing_in_transactional_mode(cluster_a: Log, started: Started) -> None:
    started.put(sink_records(cluster_a, TOPIC, 0))
    assert started.task.pre_commit({PARTITION: 10}) == {}


def test_without_transactions_pre_commit_hands_the_offsets_to_the_runtime(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> None:
    running = Started(
        MirrorSinkTask(), task_config(cluster_a, cluster_b, **{"transactional.producer": "false"})
    )
    try:
        running.put(sink_records(cluster_a, TOPIC, 0))
        assert running.task.pre_commit({PARTITION: 10}) == {PARTITION: 10}
        assert len(read_partition(cluster_b, REMOTE, 0)) == 10
        assert cluster_b.admin().list_consumer_group_offsets(GROUP) == {}
    finally:
        running.task.stop()


def test_start_gives_the_offsets_committed_on_the_target_to_the_context(
    cluster_a: Log, cluster_b: Log, started: Started
) -> None:
    started.put(sink_records(cluster_a, TOPIC, 0))
    started.task.stop()
    restarted = MirrorSinkTask()
    context = RuntimeSinkTaskContext({}, None)
    restarted.initialize(context)
    restarted.start(task_config(cluster_a, cluster_b))
    try:
        assert context.rewinds == {PARTITION: 10}
    finally:
        restarted.stop()


def test_start_fences_an_earlier_incarnation_and_its_open_transaction_before_reading_the_targets_offsets(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> None:
    with cluster_b.producer(transactional_id=transactional_id("mirror", 0)) as earlier:
        earlier.init_transactions()
        earlier.begin_transaction()
        earlier.send_offsets_to_transaction({PARTITION: 5}, GROUP)
        task, context = MirrorSinkTask(), RuntimeSinkTaskContext({}, None)
        task.initialize(context)
        task.start(task_config(cluster_a, cluster_b))
        try:
            with pytest.raises(ProducerFencedError):
                earlier.commit_transaction()
            assert context.rewinds == {}
        finally:
            task.stop()


def test_offset_syncs_pair_upstream_and_downstream_offsets_in_the_same_transaction(
    cluster_a: Log, cluster_b: Log, started: Started
) -> None:
    started.put(sink_records(cluster_a, TOPIC, 0))
    syncs = [
        OffsetSync.decode(r.key or b"", r.value or b"")
        for r in read_partition(cluster_b, "mm2-offset-syncs.B.internal", 0)
    ]
    assert syncs == [OffsetSync(PARTITION, 9, 9)]


class FailingOnceProducer(Producer):
    """A real producer whose first `send` fails, as a broker error would."""

    def __init__(self, producer: Producer) -> None:
        self.inner = producer
        self.failures_left = 1

    @property
    def transactional_id(self) -> str | None:
        return self.inner.transactional_id

    def send(self, topic, value, key=None, partition=None, headers=None, timestamp=None, on_delivery=None):  # type: ignore[no-untyped-def]
        if self.failures_left:
            self.failures_left -= 1
            raise OSError("the broker went away")
        self.inner.send(topic, value, key, partition, headers, timestamp, on_delivery)

    def send_batch(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.inner.send_batch(*args, **kwargs)

    def flush(self, timeout_s: float | None = None) -> None:
        self.inner.flush(timeout_s)

    def partitions_for(self, topic: str) -> int:
        return self.inner.partitions_for(topic)

    def init_transactions(self) -> None:
        self.inner.init_transactions()

    def begin_transaction(self) -> None:
        self.inner.begin_transaction()

    def send_offsets_to_transaction(self, offsets, group_id):  # type: ignore[no-untyped-def]
        self.inner.send_offsets_to_transaction(offsets, group_id)

    def commit_transaction(self) -> None:
        self.inner.commit_transaction()

    def abort_transaction(self) -> None:
        self.inner.abort_transaction()

    def close(self) -> None:
        self.inner.close()


class FailingOnceMirrorSinkTask(MirrorSinkTask):
    def _new_producer(self) -> Producer:
        return FailingOnceProducer(super()._new_producer())


def test_a_failed_send_aborts_the_transaction_and_sends_the_whole_batch_again(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> None:
    running = Started(FailingOnceMirrorSinkTask(), task_config(cluster_a, cluster_b))
    try:
        running.put(sink_records(cluster_a, TOPIC, 0))
        assert running.task.transactions_aborted == 1
        assert [r.value for r in read_partition(cluster_b, REMOTE, 0)] == [
            r.value for r in read_partition(cluster_a, TOPIC, 0)
        ]
        assert cluster_b.admin().list_consumer_group_offsets(GROUP) == {PARTITION: OffsetAndMetadata(10)}
    finally:
        running.task.stop()


def test_a_fenced_task_fails_instead_of_claiming_its_transactional_id_back(
    cluster_a: Log, cluster_b: Log, started: Started
) -> None:
    started.put(sink_records(cluster_a, TOPIC, 0)[:4])
    with cluster_b.producer(transactional_id=transactional_id("mirror", 0)) as newer:
        newer.init_transactions()
        with pytest.raises(ConnectError):
            started.put(sink_records(cluster_a, TOPIC, 0, start=4))
        newer.begin_transaction()
        newer.send_offsets_to_transaction({PARTITION: 4}, GROUP)
        newer.commit_transaction()
    assert len(read_partition(cluster_b, REMOTE, 0)) == 4


def test_partitions_closed_and_opened_again_keep_the_transactional_producer_and_fence_no_newer_incarnation(
    cluster_a: Log, cluster_b: Log, started: Started
) -> None:
    with cluster_b.producer(transactional_id=transactional_id("mirror", 0)) as newer:
        newer.init_transactions()
        started.task.close([PARTITION])
        started.task.open([PARTITION])
        newer.begin_transaction()
        newer.send_offsets_to_transaction({PARTITION: 4}, GROUP)
        newer.commit_transaction()


def test_without_transactions_closed_partitions_take_the_producer_and_the_next_put_gets_a_new_one(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> None:
    started = Started(
        MirrorSinkTask(), task_config(cluster_a, cluster_b, **{"transactional.producer": "false"})
    )
    records = sink_records(cluster_a, TOPIC, 0)
    started.put(records[:5])
    first = started.task._producer
    started.task.close([PARTITION])
    assert started.task._producer is None
    started.put(records[5:])
    assert started.task._producer is not None and started.task._producer is not first
    started.task.pre_commit({PARTITION: 10})
    assert len(read_partition(cluster_b, REMOTE, 0)) == 10
    started.task.stop()


def spanning(a: Log, b: Log, records: int = 1_000, interval_ms: int = 60_000) -> dict[str, str]:
    """The interval boundary, with a record bound and an interval the test chooses."""
    return task_config(
        a,
        b,
        **{
            "transaction.boundary": "interval",
            "transaction.boundary.max.records": str(records),
            "transaction.boundary.interval.ms": str(interval_ms),
        },
    )


@pytest.fixture
def spanning_task(cluster_a: Log, cluster_b: Log, source_topic: str) -> Iterator[Started]:
    running = Started(MirrorSinkTask(), spanning(cluster_a, cluster_b))
    yield running
    running.task.stop()


def test_with_the_interval_boundary_consecutive_batches_share_one_transaction_until_pre_commit(
    cluster_a: Log, cluster_b: Log, spanning_task: Started
) -> None:
    records = sink_records(cluster_a, TOPIC, 0)
    spanning_task.put(records[:4])
    spanning_task.put(records[4:])
    assert read_partition(cluster_b, REMOTE, 0) == []
    assert spanning_task.task.pre_commit({PARTITION: 10}) == {}
    assert len(read_partition(cluster_b, REMOTE, 0)) == 10
    assert cluster_b.admin().list_consumer_group_offsets(GROUP) == {PARTITION: OffsetAndMetadata(10)}
    assert spanning_task.task.transactions_committed == 1


def test_with_the_interval_boundary_a_transaction_commits_in_the_put_that_reaches_its_record_bound(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> None:
    running = Started(MirrorSinkTask(), spanning(cluster_a, cluster_b, records=6))
    try:
        records = sink_records(cluster_a, TOPIC, 0)
        running.put(records[:4])
        assert running.task.transactions_committed == 0
        running.put(records[4:7])
        assert running.task.transactions_committed == 1
        assert cluster_b.admin().list_consumer_group_offsets(GROUP) == {PARTITION: OffsetAndMetadata(7)}
        assert len(read_partition(cluster_b, REMOTE, 0)) == 7
    finally:
        running.task.stop()


def test_opening_a_spanning_transaction_asks_the_loop_for_a_commit_within_the_interval(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> None:
    running = Started(MirrorSinkTask(), spanning(cluster_a, cluster_b, interval_ms=50_000))
    try:
        assert running.context.commit_deadline is None
        before = time.monotonic()
        running.put(sink_records(cluster_a, TOPIC, 0)[:3])
        after = time.monotonic()
        deadline = running.context.commit_deadline
        assert deadline is not None and before + 50 <= deadline <= after + 50
    finally:
        running.task.stop()


def test_the_poll_boundary_commits_every_put_and_asks_the_loop_for_nothing(
    cluster_a: Log, cluster_b: Log, started: Started
) -> None:
    records = sink_records(cluster_a, TOPIC, 0)
    started.put(records[:4])
    started.put(records[4:])
    assert started.task.transactions_committed == 2
    assert started.context.commit_deadline is None and not started.context.commit_requested


class FailingLaterProducer(FailingOnceProducer):
    """A real producer whose ``send`` fails once, after ``sends_before`` successful ones."""

    def __init__(self, producer: Producer, sends_before: int) -> None:
        super().__init__(producer)
        self.sends_before = sends_before

    def send(self, topic, value, key=None, partition=None, headers=None, timestamp=None, on_delivery=None):  # type: ignore[no-untyped-def]
        if self.sends_before:
            self.sends_before -= 1
            self.inner.send(topic, value, key, partition, headers, timestamp, on_delivery)
            return
        super().send(topic, value, key, partition, headers, timestamp, on_delivery)


class FailingInSecondPutMirrorSinkTask(MirrorSinkTask):
    def _new_producer(self) -> Producer:
        return FailingLaterProducer(super()._new_producer(), sends_before=1)


def test_a_failed_send_aborts_the_spanning_transaction_and_sends_every_batch_it_held_again(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> None:
    running = Started(FailingInSecondPutMirrorSinkTask(), spanning(cluster_a, cluster_b))
    try:
        records = sink_records(cluster_a, TOPIC, 0)
        running.put(records[:4])
        running.put(records[4:])
        assert running.task.transactions_aborted == 1
        running.task.pre_commit({PARTITION: 10})
        assert [r.value for r in read_partition(cluster_b, REMOTE, 0)] == [r.value for r in records]
        assert cluster_b.admin().list_consumer_group_offsets(GROUP) == {PARTITION: OffsetAndMetadata(10)}
    finally:
        running.task.stop()


def test_partitions_lost_with_a_transaction_open_abort_it_and_the_kept_ones_are_consumed_again(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> None:
    other = TopicPartition(TOPIC, 1)
    running = Started(MirrorSinkTask(), spanning(cluster_a, cluster_b))
    try:
        running.context.assigned |= {PARTITION, other}
        running.task.open([other])
        running.context.rewinds.clear()
        running.put(sink_records(cluster_a, TOPIC, 0, start=2))
        running.put(sink_records(cluster_a, TOPIC, 1, start=3))
        running.context.assigned.discard(other)
        running.task.close([other])
        assert running.task.transactions_aborted == 1
        assert running.context.rewinds == {PARTITION: 2}
        assert read_partition(cluster_b, REMOTE, 0) == []
        assert cluster_b.admin().list_consumer_group_offsets(GROUP) == {}
    finally:
        running.task.stop()


def test_a_new_incarnation_aborts_the_open_spanning_transaction_of_a_frozen_one(
    cluster_a: Log, cluster_b: Log, spanning_task: Started
) -> None:
    records = sink_records(cluster_a, TOPIC, 0)
    spanning_task.put(records[:6])
    newer = Started(MirrorSinkTask(), spanning(cluster_a, cluster_b))
    try:
        assert newer.context.rewinds == {}
        with pytest.raises(ConnectError):
            spanning_task.put(records[6:])
            spanning_task.task.pre_commit({PARTITION: 10})
        assert read_partition(cluster_b, REMOTE, 0) == []
        assert cluster_b.admin().list_consumer_group_offsets(GROUP) == {}
    finally:
        newer.task.stop()


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    batches=st.lists(st.tuples(st.integers(1, 40), st.booleans()), min_size=1, max_size=12),
    max_records=st.integers(1, 120),
)
def test_spanning_transactions_commit_records_and_offsets_together_whatever_the_bound_and_batch_sizes(
    tmp_path: Path, batches: list[tuple[int, bool]], max_records: int
) -> None:
    """Each batch is put, then pre_commit runs when the flag says so: at every step B holds exactly the
    records below the offset committed on B, and the transactions are the ones the bound makes."""
    with tempfile.TemporaryDirectory(dir=tmp_path) as root:
        a, b = open_log(f"embedded:{root}/a"), open_log(f"embedded:{root}/b")
        a.admin().create_topic(TOPIC, partitions=1)
        produce(a, TOPIC, partitions=1, start=0, count=sum(size for size, _ in batches))
        records = sink_records(a, TOPIC, 0)
        running = Started(MirrorSinkTask(), spanning(a, b, records=max_records))
        expected_transactions, open_records, put = 0, 0, 0
        try:
            for size, commit in batches:
                running.put(records[put : put + size])
                put, open_records = put + size, open_records + size
                if open_records >= max_records or (commit and open_records):
                    expected_transactions, open_records = expected_transactions + 1, 0
                if commit:
                    running.task.pre_commit({PARTITION: put})
                committed = b.admin().list_consumer_group_offsets(GROUP).get(PARTITION)
                copied = [r.value for r in read_partition(b, REMOTE, 0)]
                assert copied == [r.value for r in records[: committed.offset if committed else 0]]
            running.task.pre_commit({PARTITION: put})
            assert [r.value for r in read_partition(b, REMOTE, 0)] == [r.value for r in records]
            assert running.task.transactions_committed == expected_transactions + (open_records > 0)
        finally:
            running.task.stop()
            a.close()
            b.close()


def plain(a: Log, b: Log, **overrides: str) -> dict[str, str]:
    return task_config(a, b, **{"transactional.producer": "false", **overrides})


NO_SYNCS = {"emit.offset-syncs.enabled": "false"}
"""For a producer failing its nth ``send``: only the replicated records are sent."""


def offset_syncs(b: Log) -> list[OffsetSync]:
    return [
        OffsetSync.decode(r.key or b"", r.value or b"")
        for r in read_partition(b, "mm2-offset-syncs.B.internal", 0)
    ]


def test_without_transactions_offset_syncs_pair_the_acknowledged_records_upstream_and_downstream_offsets(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> None:
    running = Started(MirrorSinkTask(), plain(cluster_a, cluster_b))
    running.put(sink_records(cluster_a, TOPIC, 0))
    running.task.pre_commit({PARTITION: 10})
    running.task.stop()
    assert offset_syncs(cluster_b) == [OffsetSync(PARTITION, 9, 9)]


@pytest.fixture
def failing_copy(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> Iterator[tuple[Started, list[SinkRecord]]]:
    """A plain copy whose producer fails a send of its second `put`, and the records to put."""
    running = Started(FailingInSecondPutMirrorSinkTask(), plain(cluster_a, cluster_b, **NO_SYNCS))
    try:
        yield running, sink_records(cluster_a, TOPIC, 0)
    finally:
        running.task.stop()


def test_without_transactions_a_failed_send_rewinds_to_the_first_record_sent_since_the_last_flush(
    failing_copy: tuple[Started, list[SinkRecord]],
) -> None:
    running, records = failing_copy
    running.put(records[:4])
    running.put(records[4:])
    assert running.context.rewinds == {PARTITION: 0}


def test_without_transactions_a_flush_moves_the_point_a_failed_send_rewinds_to(
    failing_copy: tuple[Started, list[SinkRecord]],
) -> None:
    running, records = failing_copy
    running.put(records[:4])
    assert running.task.pre_commit({PARTITION: 4}) == {PARTITION: 4}
    running.put(records[4:])
    assert running.context.rewinds == {PARTITION: 4}


def test_without_transactions_no_commit_goes_past_a_rewind_until_the_partition_is_consumed_again(
    failing_copy: tuple[Started, list[SinkRecord]], cluster_b: Log
) -> None:
    running, records = failing_copy
    running.put(records[:4])
    running.put(records[4:])
    assert running.task.pre_commit({PARTITION: 10}) == {PARTITION: 0}
    running.put(records)
    assert running.task.pre_commit({PARTITION: 10}) == {PARTITION: 10}
    assert [r.value for r in read_partition(cluster_b, REMOTE, 0)][-10:] == [r.value for r in records]


class AlwaysFailingMirrorSinkTask(MirrorSinkTask):
    def _new_producer(self) -> Producer:
        producer = FailingOnceProducer(super()._new_producer())
        producer.failures_left = 1_000
        return producer


def test_without_transactions_the_task_fails_when_sends_keep_failing_with_no_flush_between(
    cluster_a: Log, cluster_b: Log, source_topic: str
) -> None:
    running = Started(AlwaysFailingMirrorSinkTask(), plain(cluster_a, cluster_b, **NO_SYNCS))
    try:
        records = sink_records(cluster_a, TOPIC, 0)
        running.put(records[:3])
        running.put(records[3:6])
        with pytest.raises(ConnectError, match="after 3 attempts"):
            running.put(records[6:])
    finally:
        running.task.stop()


def test_the_sink_design_refuses_the_connector_transaction_boundary_naming_the_key(
    cluster_a: Log, cluster_b: Log
) -> None:
    with pytest.raises(ConfigError, match=r"transaction\.boundary"):
        MirrorSinkConnector().start(
            task_config(cluster_a, cluster_b, **{"transaction.boundary": "connector"})
        )
