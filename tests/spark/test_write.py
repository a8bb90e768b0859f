"""``df.write.format("conveyor")``: rows to topics as Spark's Kafka sink takes them, each task once."""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pytest
from pyspark.sql import DataFrame, SparkSession

from conveyor.log import Log, ProducerFencedError
from conveyor.spark.datasource.exactly_once import WriteIdentity, write_partition

from .conftest import on_both_backends
from .records import read_committed_values


def write(frame: DataFrame, log_url: str, **options: str) -> None:
    """Write ``frame`` in one Spark task (these frames are tiny; more tasks only cost time)."""
    frame.coalesce(1).write.format("conveyor").option("log.url", log_url).options(**options).mode(
        "append"
    ).save()


@on_both_backends
def test_rows_are_written_to_the_topic_option(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    frame = spark.createDataFrame([("k1", "v1"), (None, "v2")], "key string, value string")
    write(frame, log_url, topic=topic)
    records = read_committed_values(log, [topic])
    assert sorted((r.value, r.key) for r in records) == [(b"v1", b"k1"), (b"v2", None)]


@on_both_backends
def test_a_keyed_row_lands_in_the_partition_of_its_key_hash(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    frame = spark.createDataFrame([(b"same", b"a"), (b"same", b"b")], "key binary, value binary")
    write(frame, log_url, topic=topic)
    assert len({r.partition for r in read_committed_values(log, [topic])}) == 1


@on_both_backends
def test_the_topic_column_routes_each_row(spark: SparkSession, log: Log, log_url: str) -> None:
    for name in ("left", "right"):
        log.admin().create_topic(name)
    frame = spark.createDataFrame(
        [("left", "1"), ("right", "2"), ("left", "3")], "topic string, value string"
    )
    write(frame, log_url)
    assert sorted(r.value for r in read_committed_values(log, ["left"])) == [b"1", b"3"]
    assert [r.value for r in read_committed_values(log, ["right"])] == [b"2"]


@on_both_backends
def test_the_partition_column_picks_the_partition(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    frame = spark.createDataFrame([(2, "a"), (1, "b")], "partition int, value string")
    write(frame, log_url, topic=topic)
    assert sorted((r.partition, r.value) for r in read_committed_values(log, [topic])) == [
        (1, b"b"),
        (2, b"a"),
    ]


@on_both_backends
def test_the_headers_column_is_written_as_record_headers(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    frame = spark.createDataFrame(
        [("v", [("trace", b"t-1")])], "value string, headers array<struct<key:string,value:binary>>"
    )
    write(frame, log_url, topic=topic)
    (record,) = read_committed_values(log, [topic])
    assert record.headers == [("trace", b"t-1")]


def test_a_frame_without_a_value_column_is_refused(spark: SparkSession, log_url: str, topic: str) -> None:
    frame = spark.createDataFrame([("k",)], "key string")
    with pytest.raises(Exception, match="'value' column"):
        write(frame, log_url, topic=topic)


def _rows(*values: bytes) -> list[pa.RecordBatch]:
    return [pa.RecordBatch.from_pydict({"value": list(values)}, pa.schema([("value", pa.binary())]))]


@on_both_backends
def test_a_partition_written_again_for_the_same_batch_is_not_written_twice(
    log: Log, log_url: str, topic: str
) -> None:
    identity = WriteIdentity("query-1", batch_id=4, spark_partition=0)
    first = write_partition(log_url, identity, iter(_rows(b"a", b"b")), topic, 60_000)
    again = write_partition(log_url, identity, iter(_rows(b"a", b"b")), topic, 60_000)
    assert (first.already_written, again.already_written) == (False, True)
    assert sorted(r.value for r in read_committed_values(log, [topic])) == [b"a", b"b"]


@on_both_backends
def test_the_next_batch_of_the_same_partition_is_written(log: Log, log_url: str, topic: str) -> None:
    write_partition(log_url, WriteIdentity("query-1", 4, 0), iter(_rows(b"a")), topic, 60_000)
    later = write_partition(log_url, WriteIdentity("query-1", 5, 0), iter(_rows(b"b")), topic, 60_000)
    assert not later.already_written
    assert sorted(r.value for r in read_committed_values(log, [topic])) == [b"a", b"b"]


@on_both_backends
def test_the_marker_commits_with_the_rows(log: Log, log_url: str, topic: str) -> None:
    identity = WriteIdentity("query-1", batch_id=4, spark_partition=3)
    write_partition(log_url, identity, iter(_rows(b"a")), topic, 60_000)
    markers = log.admin().list_consumer_group_offsets(identity.marker_group)
    assert markers[identity.marker_partition].offset == 5


@on_both_backends
def test_a_failed_attempt_leaves_no_rows_and_no_marker(log: Log, log_url: str, topic: str) -> None:
    identity = WriteIdentity("query-1", batch_id=0, spark_partition=0)

    def batches() -> Iterator[pa.RecordBatch]:
        yield from _rows(b"lost")
        raise RuntimeError("executor lost")

    with pytest.raises(RuntimeError):
        write_partition(log_url, identity, batches(), topic, 60_000)
    assert read_committed_values(log, [topic]) == []
    assert identity.marker_partition not in log.admin().list_consumer_group_offsets(identity.marker_group)


@on_both_backends
def test_an_older_attempt_still_writing_is_fenced_and_its_rows_never_appear(
    log: Log, log_url: str, topic: str
) -> None:
    identity = WriteIdentity("query-1", batch_id=0, spark_partition=0)
    zombie = log.producer(identity.transactional_id)
    zombie.init_transactions()
    zombie.begin_transaction()
    zombie.send_batch(topic, [b"zombie"], partition=0)
    zombie.flush()
    write_partition(log_url, identity, iter(_rows(b"retry")), topic, 60_000)
    assert [r.value for r in read_committed_values(log, [topic])] == [b"retry"]
    with pytest.raises(ProducerFencedError):
        zombie.commit_transaction()
