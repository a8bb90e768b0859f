"""Reading with ``value.converter``: typed columns from the Connect schema instead of bytes."""

from __future__ import annotations

import datetime as dt
import decimal
import json

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.utils import AnalysisException

from conveyor.convert import JsonConverter
from conveyor.data import (
    INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Timestamp,
)
from conveyor.log import Log

from .records import committed, read_committed_values

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"

ORDER = (
    SchemaBuilder.struct()
    .name("Order")
    .field("id", INT32_SCHEMA)
    .field("note", OPTIONAL_STRING_SCHEMA)
    .field("amount", Decimal.schema(2))
    .field("placed", Timestamp.SCHEMA)
    .field("due", Date.SCHEMA)
    .field("tags", SchemaBuilder.array(STRING_SCHEMA).build())
    .field("counts", SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build())
    .build()
)
PLACED = dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.UTC)


def order(order_id: int, note: str | None) -> Struct:
    return (
        Struct(ORDER)
        .put("id", order_id)
        .put("note", note)
        .put("amount", decimal.Decimal("12.34"))
        .put("placed", PLACED)
        .put("due", dt.date(2024, 6, 1))
        .put("tags", ["new", "gift"])
        .put("counts", {"a": 1})
    )


def encoded(schema: Schema | None, values: list[object], schemas_enable: bool = True) -> list[bytes]:
    converter = JsonConverter()
    converter.configure({"schemas.enable": schemas_enable}, is_key=False)
    return [converter.from_connect_data("t", schema, value) or b"" for value in values]


def read_json(spark: SparkSession, log_url: str, topic: str, **options: str) -> DataFrame:
    return (
        spark.read.format("conveyor")
        .option("log.url", log_url)
        .option("subscribe", topic)
        .option("value.converter", JSON_CONVERTER)
        .options(**options)
        .load()
    )


def test_the_value_column_takes_the_spark_type_of_the_connect_schema(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, encoded(ORDER, [order(1, "first")]), 0)
    value_type = read_json(spark, log_url, topic).schema["value"].dataType
    assert value_type.simpleString() == (
        "struct<id:int,note:string,amount:decimal(38,2),placed:timestamp,due:date,"
        "tags:array<string>,counts:map<string,int>>"
    )


def test_decoded_values_keep_every_field(spark: SparkSession, log: Log, log_url: str, topic: str) -> None:
    committed(log, topic, encoded(ORDER, [order(1, "first"), order(2, None)]), 0)
    rows = read_json(spark, log_url, topic).orderBy("offset").collect()
    first, second = (row.value for row in rows)
    assert (first.id, first.note, first.amount, first.due) == (
        1,
        "first",
        decimal.Decimal("12.34"),
        dt.date(2024, 6, 1),
    )
    assert first.placed.replace(tzinfo=None) == PLACED.astimezone().replace(tzinfo=None)
    assert (first.tags, first.counts) == (["new", "gift"], {"a": 1})
    assert (second.id, second.note) == (2, None)


def test_a_tombstone_is_a_null_value(spark: SparkSession, log: Log, log_url: str, topic: str) -> None:
    committed(log, topic, encoded(ORDER, [order(1, "x")]), 0)
    with log.producer() as producer:
        producer.send(topic, None, key=b"gone", partition=0)
    rows = read_json(spark, log_url, topic).orderBy("offset").collect()
    assert [row.value is None for row in rows] == [False, True]


def test_schemaless_json_is_read_into_a_schema_the_reader_gives(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [json.dumps({"id": 7, "name": "seven"}).encode()], 0)
    schema = (
        "key binary, value struct<id:bigint,name:string>, topic string, partition int, offset bigint, "
        "timestamp timestamp, timestampType int"
    )
    frame = (
        spark.read.format("conveyor")
        .schema(schema)
        .option("log.url", log_url)
        .option("subscribe", topic)
        .option("value.converter", JSON_CONVERTER)
        .option("schemas.enable", "false")
        .load()
    )
    (row,) = frame.collect()
    assert (row.value.id, row.value.name) == (7, "seven")


def test_schemaless_json_without_a_given_schema_is_an_error_asking_for_one(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [json.dumps({"id": 7}).encode()], 0)
    with pytest.raises(AnalysisException, match=r"\.schema\("):
        read_json(spark, log_url, topic, **{"schemas.enable": "false"}).schema  # noqa: B018


PERSON = (
    SchemaBuilder.struct()
    .name("Person")
    .field("id", INT32_SCHEMA)
    .field("note", OPTIONAL_STRING_SCHEMA)
    .build()
)


def people(*ids: int) -> list[bytes]:
    return encoded(PERSON, [Struct(PERSON).put("id", i).put("note", f"n{i}") for i in ids])


def test_a_value_the_converter_rejects_fails_the_read_by_default(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [*people(1), b"{not json", *people(3)], 0)
    with pytest.raises(Exception, match="Converting byte\\[\\] to Kafka Connect data failed"):
        read_json(spark, log_url, topic).collect()


def test_with_errors_tolerance_all_rejected_values_are_skipped_and_copied_to_the_dead_letter_queue(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, [*people(1), b"{not json", *people(3)], 0)
    frame = read_json(
        spark,
        log_url,
        topic,
        **{
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": f"{topic}-dlq",
            "errors.deadletterqueue.context.headers.enable": "true",
            "name": "orders-reader",
        },
    )
    assert sorted(row.value.id for row in frame.collect()) == [1, 3]
    (dead,) = read_committed_values(log, [f"{topic}-dlq"])
    headers = dict(dead.headers)
    assert dead.value == b"{not json"
    assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
    assert headers["__connect.errors.offset"] == b"1"
    assert headers["__connect.errors.connector.name"] == b"orders-reader"


def test_an_unknown_errors_tolerance_is_an_option_error(
    spark: SparkSession, log: Log, log_url: str, topic: str
) -> None:
    committed(log, topic, people(1), 0)
    with pytest.raises(Exception, match=r"errors\.tolerance"):
        read_json(spark, log_url, topic, **{"errors.tolerance": "some"}).collect()
