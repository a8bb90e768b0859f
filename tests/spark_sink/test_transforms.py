"""Kafka's transforms in a SparkFileSink: those with a Spark SQL equivalent compile to column expressions,
the others run as the Python chain over Arrow batches; both give the rows Kafka's transforms would."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pyspark.sql import DataFrame, SparkSession

from conveyor.log import Log
from conveyor.plugins import load_chain_plugin
from conveyor.spark.streaming.smt_compiler import compile_chain
from conveyor.transforms import TransformationChain

from .support import person, rows, sink_config, wait_until, write_people

TRANSFORMS = "org.apache.kafka.connect.transforms"
PREDICATES = "org.apache.kafka.connect.transforms.predicates"


@pytest.fixture
def people(spark: SparkSession) -> DataFrame:
    """Records as the conveyor source gives them with a JSON value converter (schemas enabled)."""
    return spark.createDataFrame(
        [
            (b"1", (1, "ann", "ann@example.com"), "people", 0, 10, [("trace", b"t-1")]),
            (b"2", None, "people", 1, 11, []),
            (b"3", (3, "bob", "bob@example.com"), "others", 0, 12, None),
        ],
        "key binary, value struct<id:bigint,name:string,email:string>, "
        "topic string, partition int, offset bigint, headers array<struct<key:string,value:binary>>",
    ).selectExpr("*", "timestamp_millis(1700000000000) AS timestamp")


@pytest.fixture
def keyed(spark: SparkSession) -> DataFrame:
    """Records whose keys are structs (a JSON key converter), one of them null."""
    return spark.createDataFrame(
        [((1, "eu"), (1, "ann"), 10), (None, (2, "bob"), 11)],
        "key struct<id:bigint,region:string>, value struct<id:bigint,name:string>, offset bigint",
    )


def keys(frame: DataFrame | None) -> list[object]:
    assert frame is not None, "the chain did not compile"
    rows = frame.orderBy("offset").collect()
    return [row.key.asDict() if hasattr(row.key, "asDict") else row.key for row in rows]


def compiled(frame: DataFrame, config: dict[str, str]) -> DataFrame | None:
    chain = TransformationChain.from_connector_config(config, load_chain_plugin)
    try:
        return compile_chain(frame, chain, config)
    finally:
        chain.close()


def values(frame: DataFrame | None) -> list[object]:
    assert frame is not None, "the chain did not compile"
    return [None if row.value is None else row.value.asDict() for row in frame.orderBy("offset").collect()]


def test_replace_field_mask_field_insert_field_and_cast_compile(people: DataFrame) -> None:
    config = {
        "transforms": "drop,mask,insert,cast",
        "transforms.drop.type": f"{TRANSFORMS}.ReplaceField$Value",
        "transforms.drop.exclude": "email",
        "transforms.drop.renames": "name:full_name",
        "transforms.mask.type": f"{TRANSFORMS}.MaskField$Value",
        "transforms.mask.fields": "full_name",
        "transforms.mask.replacement": "***",
        "transforms.insert.type": f"{TRANSFORMS}.InsertField$Value",
        "transforms.insert.static.field": "source",
        "transforms.insert.static.value": "crm",
        "transforms.insert.topic.field": "from_topic",
        "transforms.cast.type": f"{TRANSFORMS}.Cast$Value",
        "transforms.cast.spec": "id:string",
    }
    assert values(compiled(people, config)) == [
        {"id": "1", "full_name": "***", "source": "crm", "from_topic": "people"},
        None,
        {"id": "3", "full_name": "***", "source": "crm", "from_topic": "others"},
    ]


def test_filter_with_tombstone_and_topic_predicates_compiles(people: DataFrame) -> None:
    config = {
        "transforms": "tombstones,others",
        "transforms.tombstones.type": f"{TRANSFORMS}.Filter",
        "transforms.tombstones.predicate": "isTombstone",
        "transforms.others.type": f"{TRANSFORMS}.Filter",
        "transforms.others.predicate": "isPeople",
        "transforms.others.negate": "true",
        "predicates": "isTombstone,isPeople",
        "predicates.isTombstone.type": f"{PREDICATES}.RecordIsTombstone",
        "predicates.isPeople.type": f"{PREDICATES}.TopicNameMatches",
        "predicates.isPeople.pattern": "peo.*",
    }
    assert values(compiled(people, config)) == [{"id": 1, "name": "ann", "email": "ann@example.com"}]


@pytest.mark.parametrize(("negate", "kept"), [("false", [11, 12]), ("true", [10])])
def test_filter_with_a_header_key_predicate_compiles(people: DataFrame, negate: str, kept: list[int]) -> None:
    config = {
        "transforms": "traced",
        "transforms.traced.type": f"{TRANSFORMS}.Filter",
        "transforms.traced.predicate": "has-trace",
        "transforms.traced.negate": negate,
        "predicates": "has-trace",
        "predicates.has-trace.type": f"{PREDICATES}.HasHeaderKey",
        "predicates.has-trace.name": "trace",
    }
    frame = compiled(people, config)
    assert frame is not None
    assert [row.offset for row in frame.orderBy("offset").collect()] == kept


def test_extract_field_compiles_to_the_field(people: DataFrame) -> None:
    config = {
        "transforms": "name",
        "transforms.name.type": f"{TRANSFORMS}.ExtractField$Value",
        "transforms.name.field": "name",
    }
    frame = compiled(people, config)
    assert frame is not None
    assert [row.value for row in frame.orderBy("offset").collect()] == ["ann", None, "bob"]


def test_key_transforms_compile_on_the_key_and_leave_a_null_key_null(keyed: DataFrame) -> None:
    config = {
        "transforms": "drop,mask",
        "transforms.drop.type": f"{TRANSFORMS}.ReplaceField$Key",
        "transforms.drop.exclude": "id",
        "transforms.mask.type": f"{TRANSFORMS}.MaskField$Key",
        "transforms.mask.fields": "region",
        "transforms.mask.replacement": "--",
    }
    assert keys(compiled(keyed, config)) == [{"region": "--"}, None]


def test_extract_field_and_cast_of_the_key_compile(keyed: DataFrame) -> None:
    config = {
        "transforms": "id,text",
        "transforms.id.type": f"{TRANSFORMS}.ExtractField$Key",
        "transforms.id.field": "id",
        "transforms.text.type": f"{TRANSFORMS}.Cast$Key",
        "transforms.text.spec": "string",
    }
    assert keys(compiled(keyed, config)) == ["1", None]


def test_a_transform_without_a_spark_equivalent_does_not_compile(people: DataFrame) -> None:
    config = {
        "transforms": "hoist",
        "transforms.hoist.type": f"{TRANSFORMS}.HoistField$Value",
        "transforms.hoist.field": "person",
    }
    assert compiled(people, config) is None


def test_a_connector_with_compiled_transforms_and_sql_writes_the_projection(
    client: httpx.Client, log: Log, spark: SparkSession, output: Path
) -> None:
    log.admin().create_topic("contacts", partitions=2)
    write_people(log, "contacts", range(50))
    config = sink_config(
        "contacts",
        output,
        **{
            "transforms": "drop",
            "transforms.drop.type": f"{TRANSFORMS}.ReplaceField$Value",
            "transforms.drop.exclude": "email",
            "sql": "SELECT id, upper(name) AS name, kafka_topic AS topic FROM records WHERE id % 2 = 0",
        },
    )
    assert client.post("/connectors", json={"name": "contacts-files", "config": config}).status_code == 201
    written = wait_until(lambda: len(found := rows(spark, output)) >= 25 and found, "25 projected rows")
    assert sorted(written, key=lambda row: row["id"]) == [
        {"id": i, "name": f"NAME-{i}", "topic": "contacts"} for i in range(0, 50, 2)
    ]


def test_a_connector_with_a_python_only_transform_runs_the_chain_batch_wise(
    client: httpx.Client, log: Log, spark: SparkSession, output: Path
) -> None:
    log.admin().create_topic("hoisted", partitions=2)
    write_people(log, "hoisted", range(40))
    config = sink_config(
        "hoisted",
        output,
        **{
            "transforms": "hoist",
            "transforms.hoist.type": f"{TRANSFORMS}.HoistField$Value",
            "transforms.hoist.field": "person",
            "format": "json",
            "sql": "SELECT person.id AS id, person.email AS email, kafka_offset FROM records",
        },
    )
    assert client.post("/connectors", json={"name": "hoisted-files", "config": config}).status_code == 201
    written = wait_until(lambda: len(found := rows(spark, output, "json")) >= 40 and found, "40 JSON rows")
    assert sorted((row["id"], row["email"]) for row in written) == [
        (i, f"user{i}@example.com") for i in range(40)
    ]


def test_headers_reach_the_records_view_and_header_transforms_run_in_the_python_chain(
    client: httpx.Client, log: Log, spark: SparkSession, output: Path
) -> None:
    log.admin().create_topic("headed", partitions=2)
    with log.producer() as producer:
        for i in range(10):
            producer.send(
                "headed", person(i), key=str(i).encode(), headers=[("source", b"crm")] if i % 2 else None
            )
        producer.flush()
    config = sink_config(
        "headed",
        output,
        **{
            "transforms": "tag",
            "transforms.tag.type": f"{TRANSFORMS}.InsertHeader",
            "transforms.tag.header": "pipeline",
            "transforms.tag.value.literal": "spark",
            "sql": "SELECT id, kafka_headers AS headers FROM records",
        },
    )
    assert client.post("/connectors", json={"name": "headed-files", "config": config}).status_code == 201
    written = wait_until(lambda: len(found := rows(spark, output)) >= 10 and found, "10 rows with headers")
    headers = {row["id"]: [(h["key"], bytes(h["value"])) for h in row["headers"]] for row in written}
    assert headers[1] == [("source", b"crm"), ("pipeline", b"spark")]
    assert headers[2] == [("pipeline", b"spark")]


def test_keys_are_typed_by_the_key_converter_in_the_records_view(
    client: httpx.Client, log: Log, spark: SparkSession, output: Path
) -> None:
    log.admin().create_topic("keyed", partitions=2)
    write_people(log, "keyed", range(12))
    config = sink_config(
        "keyed",
        output,
        **{
            "transforms": "number",
            "transforms.number.type": f"{TRANSFORMS}.Cast$Key",
            "transforms.number.spec": "int64",
            "sql": "SELECT id, kafka_key AS key FROM records",
        },
    )
    assert client.post("/connectors", json={"name": "keyed-files", "config": config}).status_code == 201
    written = wait_until(lambda: len(found := rows(spark, output)) >= 12 and found, "12 rows with keys")
    assert sorted((row["id"], row["key"]) for row in written) == [(i, i) for i in range(12)]
