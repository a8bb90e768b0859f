"""``spark.read.format("conveyor")``: what a bounded read returns, and in which columns."""

from __future__ import annotations

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.utils import AnalysisException

from conveyor.log import Log

from .conftest import on_both_backends
from .records import aborted, committed, left_open, read_committed_values


def read(spark: SparkSession, log_url: str, **options: str) -> DataFrame:
    return spark.read.format("conveyor").option("log.url", log_url).options(**options).load()


def values_of(frame: DataFrame) -> list[bytes]:
    return sorted(bytes(row.value) for row in frame.select("value").collect())


@on_both_backends
def test_a_read_returns_the_committed_records_of_every_partition(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    for partition in range(3):
        committed(log, topic, [b"%d-a" % partition, b"%d-b" % partition], partition)
    assert values_of(read(spark, log_url, subscribe=topic)) == sorted(
        b"%d-%s" % (p, s) for p in range(3) for s in (b"a", b"b")
    )


@on_both_backends
def test_a_read_never_returns_records_of_aborted_transactions(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [b"before"], 0)
    aborted(log, topic, [b"aborted-1", b"aborted-2"], 0)
    committed(log, topic, [b"after"], 0)
    assert values_of(read(spark, log_url, subscribe=topic)) == [b"after", b"before"]


@on_both_backends
def test_a_read_committed_read_stops_before_an_open_transaction(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [b"first"], 0)
    pending = left_open(log, topic, [b"pending"], 0)
    committed(log, topic, [b"later"], 0, transactional_id="other-writer")
    try:
        assert values_of(read(spark, log_url, subscribe=topic)) == [b"first"]
    finally:
        pending.abort_transaction()
        pending.close()


@on_both_backends
def test_a_read_uncommitted_read_sees_open_and_aborted_transactions(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    aborted(log, topic, [b"aborted"], 0)
    pending = left_open(log, topic, [b"pending"], 1)
    try:
        frame = read(spark, log_url, subscribe=topic, **{"isolation.level": "read_uncommitted"})
        assert values_of(frame) == [b"aborted", b"pending"]
    finally:
        pending.abort_transaction()
        pending.close()


def test_the_columns_are_those_of_sparks_kafka_source(spark: SparkSession, log_url: str, topic: str) -> None:
    frame = read(spark, log_url, subscribe=topic)
    assert [(f.name, f.dataType.simpleString()) for f in frame.schema.fields] == [
        ("key", "binary"),
        ("value", "binary"),
        ("topic", "string"),
        ("partition", "int"),
        ("offset", "bigint"),
        ("timestamp", "timestamp"),
        ("timestampType", "int"),
    ]


@on_both_backends
def test_each_row_carries_its_key_topic_partition_offset_and_timestamp(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    with log.producer() as producer:
        producer.send(topic, b"v", key=b"k", partition=2, timestamp=1_700_000_000_123)
    (row,) = read(spark, log_url, subscribe=topic).collect()
    assert (bytes(row.key), row.topic, row.partition, row.offset) == (b"k", topic, 2, 0)
    assert int(row.timestamp.timestamp() * 1000) == 1_700_000_000_123


@on_both_backends
def test_include_headers_adds_the_headers_column(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [b"v"], 0, headers=[[("trace", b"t-1"), ("empty", None)]])
    (row,) = read(spark, log_url, subscribe=topic, includeHeaders="true").collect()
    assert [(h.key, h.value) for h in row.headers] == [("trace", b"t-1"), ("empty", None)]


def test_each_topic_partition_is_one_input_partition(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    for partition in range(3):
        committed(log, topic, [b"x"], partition)
    assert read(spark, log_url, subscribe=topic).rdd.getNumPartitions() == 3


@on_both_backends
def test_min_partitions_splits_a_partition_into_several_reads_that_miss_and_repeat_nothing(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [b"a-%02d" % i for i in range(10)], 0)
    aborted(log, topic, [b"aborted"], 0)
    committed(log, topic, [b"b-%02d" % i for i in range(10)], 0)
    frame = read(spark, log_url, subscribe=topic, minPartitions="4")
    assert frame.rdd.getNumPartitions() == 4
    assert values_of(frame) == sorted([b"a-%02d" % i for i in range(10)] + [b"b-%02d" % i for i in range(10)])


@on_both_backends
def test_starting_and_ending_offsets_bound_the_read(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [b"%d" % i for i in range(10)], 0)
    committed(log, topic, [b"other"], 1)
    frame = read(
        spark,
        log_url,
        subscribe=topic,
        startingOffsets=f'{{"{topic}":{{"0":3,"1":-2}}}}',
        endingOffsets=f'{{"{topic}":{{"0":6,"1":-1}}}}',
    )
    assert values_of(frame) == [b"3", b"4", b"5", b"other"]


@on_both_backends
def test_an_ending_offset_just_past_an_aborted_transaction_bounds_the_read(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [b"0", b"1"], 0)
    aborted(log, topic, [b"aborted"], 0)
    committed(log, topic, [b"3", b"4", b"5"], 0)
    end = next(r.offset for r in read_committed_values(log, [topic]) if r.value == b"3") + 1
    frame = read(spark, log_url, assign=f'{{"{topic}":[0]}}', endingOffsets=f'{{"{topic}":{{"0":{end}}}}}')
    assert values_of(frame) == [b"0", b"1", b"3"]


def test_assign_reads_only_the_named_partitions(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    for partition in range(3):
        committed(log, topic, [b"p%d" % partition], partition)
    frame = read(spark, log_url, assign=f'{{"{topic}":[0,2]}}')
    assert values_of(frame) == [b"p0", b"p2"]


@on_both_backends
def test_subscribe_pattern_reads_every_matching_topic(spark: SparkSession, log: Log, log_url: str) -> None:
    for name in ("orders-eu", "orders-us", "payments"):
        log.admin().create_topic(name)
        committed(log, name, [name.encode()])
    frame = read(spark, log_url, subscribePattern="orders-.*")
    assert values_of(frame) == [b"orders-eu", b"orders-us"]


def test_a_string_value_column_in_a_given_schema_is_decoded_as_utf8(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, ["grüße".encode()], 0)
    schema = (
        "key string, value string, topic string, partition int, offset long, timestamp timestamp, "
        "timestampType int"
    )
    frame = (
        spark.read.format("conveyor")
        .schema(schema)
        .option("log.url", log_url)
        .option("subscribe", topic)
        .load()
    )
    assert [row.value for row in frame.collect()] == ["grüße"]


def test_a_read_without_a_log_url_fails_naming_the_option(spark: SparkSession, topic: str) -> None:
    with pytest.raises(AnalysisException, match=r"log\.url"):
        spark.read.format("conveyor").option("subscribe", topic).load().collect()
