"""Rows to write, as Spark's Kafka sink reads them: ``topic``, ``key``, ``value``, ``headers``, ``partition``.

``value`` is required; ``key`` and ``value`` may be binary or string (written as UTF-8); ``headers`` is
an array of ``key``/``value`` structs; ``partition`` picks the partition (else the key's murmur2 hash, or
a sticky partition for null keys, as Kafka's producer does). The ``topic`` option, when set, overrides
the ``topic`` column. Other columns are ignored.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    DataType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructType,
)

from conveyor.log import Headers
from conveyor.spark.datasource.options import ConveyorOptionError


@dataclass(frozen=True)
class Outgoing:
    """Records bound for one topic (and, when chosen by a column, one partition), in columns."""

    topic: str
    partition: int | None
    keys: Sequence[bytes | None] | None
    values: Sequence[bytes | None]
    headers: Sequence[Headers | None] | None


def _is_bytes_like(data_type: DataType) -> bool:
    return isinstance(data_type, BinaryType | StringType)


def check_write_schema(schema: StructType, topic_option: str | None) -> None:
    """Raise ``ConveyorOptionError`` when the DataFrame cannot be written, saying which column is wrong."""
    names = {field.name: field.dataType for field in schema.fields}
    if "value" not in names:
        raise ConveyorOptionError("Writing to conveyor needs a 'value' column (binary or string)")
    for name in ("key", "value"):
        if name in names and not _is_bytes_like(names[name]):
            raise ConveyorOptionError(
                f"Column {name!r} must be binary or string, not {names[name].simpleString()}"
            )
    if topic_option is None and "topic" not in names:
        raise ConveyorOptionError("Writing to conveyor needs the 'topic' option or a 'topic' column")
    if "topic" in names and not isinstance(names["topic"], StringType):
        raise ConveyorOptionError(f"Column 'topic' must be a string, not {names['topic'].simpleString()}")
    if "partition" in names and not isinstance(names["partition"], IntegerType | ShortType | LongType):
        raise ConveyorOptionError(
            f"Column 'partition' must be an integer, not {names['partition'].simpleString()}"
        )
    headers = names.get("headers")
    if headers is not None and not (
        isinstance(headers, ArrayType)
        and isinstance(headers.elementType, StructType)
        and [f.name for f in headers.elementType.fields] == ["key", "value"]
    ):
        raise ConveyorOptionError("Column 'headers' must be an array of struct<key: string, value: binary>")


def _bytes_column(batch: pa.RecordBatch, name: str) -> list[bytes | None] | None:
    index = batch.schema.get_field_index(name)
    if index < 0:
        return None
    column = batch.column(index)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        column = pc.cast(column, pa.binary())
    values: list[bytes | None] = column.to_pylist()
    return values


def _headers_column(batch: pa.RecordBatch) -> list[Headers | None] | None:
    index = batch.schema.get_field_index("headers")
    if index < 0:
        return None
    return [
        None if record is None else [(h["key"], h["value"]) for h in record]
        for record in batch.column(index).to_pylist()
    ]


def outgoing(batch: pa.RecordBatch, topic_option: str | None) -> Iterator[Outgoing]:
    """A batch of rows as record columns per destination, in row order within each destination."""
    values = _bytes_column(batch, "value")
    assert values is not None
    keys = _bytes_column(batch, "key")
    headers = _headers_column(batch)
    topic_index = batch.schema.get_field_index("topic")
    partition_index = batch.schema.get_field_index("partition")
    if partition_index < 0 and (topic_option is not None or topic_index < 0):
        assert topic_option is not None
        yield Outgoing(topic_option, None, keys, values, headers)
        return
    topics: list[str | None] = (
        [topic_option] * len(values) if topic_option is not None else batch.column(topic_index).to_pylist()
    )
    partitions: list[int | None] = (
        [None] * len(values) if partition_index < 0 else batch.column(partition_index).to_pylist()
    )
    groups: dict[tuple[str, int | None], list[int]] = {}
    for row, destination in enumerate(zip(topics, partitions, strict=True)):
        topic, partition = destination
        if topic is None:
            raise ConveyorOptionError(f"Row {row} has a null 'topic' and no 'topic' option is set")
        groups.setdefault((topic, partition), []).append(row)
    for (topic, partition), rows in groups.items():
        yield Outgoing(
            topic,
            partition,
            None if keys is None else [keys[i] for i in rows],
            [values[i] for i in rows],
            None if headers is None else [headers[i] for i in rows],
        )
