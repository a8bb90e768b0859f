"""The columns a read returns, as Spark's Kafka source names them, and how a log batch becomes Arrow.

``key``, ``value``, ``topic``, ``partition``, ``offset``, ``timestamp``, ``timestampType`` and, with
``includeHeaders``, ``headers`` (an array of ``key``/``value`` structs). Keys and values are bytes unless
a converter decodes them into typed columns.

The columns are built from numpy buffers (``numeric``, ``repeated_string``), not from Python values: a
read task's first ``pa.array`` or ``pa.scalar`` of Python values imports pandas, which costs the first
micro-batch of every new Python worker a fraction of a second and the worker tens of megabytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import pyarrow as pa
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    DataType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from conveyor.log import RecordBatch
from conveyor.log.columns import BinaryColumn, binary_array

CREATE_TIME: Final = 0
"""Every record's timestamp is the time its producer gave it (Kafka's CreateTime)."""

HEADERS_TYPE: Final = ArrayType(
    StructType([StructField("key", StringType(), False), StructField("value", BinaryType(), True)]), False
)


def record_schema(
    include_headers: bool, key_type: DataType | None = None, value_type: DataType | None = None
) -> StructType:
    """The Spark schema of a read; converters replace the binary key and value with typed columns."""
    fields = [
        StructField("key", key_type or BinaryType(), True),
        StructField("value", value_type or BinaryType(), True),
        StructField("topic", StringType(), False),
        StructField("partition", IntegerType(), False),
        StructField("offset", LongType(), False),
        StructField("timestamp", TimestampType(), False),
        StructField("timestampType", IntegerType(), False),
    ]
    if include_headers:
        fields.append(StructField("headers", HEADERS_TYPE, True))
    return StructType(fields)


def arrow_schema(schema: StructType) -> pa.Schema:
    """The Arrow schema Spark expects batches of ``schema`` in (timestamps in UTC microseconds)."""
    return to_arrow_schema(schema, timezone="UTC")


def numeric(values: np.ndarray, arrow_type: pa.DataType) -> pa.Array:
    """``values`` (no nulls, of ``arrow_type``'s width) as an Arrow array over the same buffer."""
    return pa.Array.from_buffers(arrow_type, len(values), [None, pa.py_buffer(np.ascontiguousarray(values))])


def repeated_string(text: str, count: int) -> pa.Array:
    """``text`` ``count`` times, as an Arrow string array."""
    data = text.encode("utf-8")
    offsets = np.arange(count + 1, dtype=np.int64) * len(data)
    return pa.Array.from_buffers(
        pa.large_string(), count, [None, pa.py_buffer(offsets), pa.py_buffer(data * count)]
    ).cast(pa.string())


def binary_values(data: Sequence[bytes | None]) -> pa.Array:
    """Keys or values as an Arrow binary array; a column of records without any (a list of None, as
    the log gives keys no record has) as nulls."""
    if not isinstance(data, BinaryColumn) and all(item is None for item in data):
        return pa.nulls(len(data), pa.binary())
    return binary_array(data)


def metadata_columns(batch: RecordBatch, schema: pa.Schema) -> list[pa.Array]:
    """The ``topic`` to ``timestampType`` columns of a log batch, built without a Python loop per row."""
    count = len(batch)
    micros = np.asarray(batch.timestamps, dtype=np.int64) * 1000
    return [
        repeated_string(batch.topic, count),
        numeric(np.full(count, batch.partition, dtype=np.int32), pa.int32()),
        numeric(np.asarray(batch.offsets, dtype=np.int64), pa.int64()),
        numeric(micros, schema.field("timestamp").type),
        numeric(np.full(count, CREATE_TIME, dtype=np.int32), pa.int32()),
    ]


def headers_column(headers: Sequence[Sequence[tuple[str, bytes | None]]], schema: pa.Schema) -> pa.Array:
    """The ``headers`` column: each record's headers as a list of ``{key, value}`` structs (built without
    a Python call per record when no record has any, the common case)."""
    list_type = schema.field("headers").type
    if not any(headers):
        no_entries = numeric(np.zeros(len(headers) + 1, dtype=np.int32), pa.int32())
        return pa.ListArray.from_arrays(no_entries, pa.nulls(0, list_type.value_type), type=list_type)
    return pa.array(
        [[{"key": key, "value": value} for key, value in record] for record in headers], list_type
    )


def to_arrow(batch: RecordBatch, schema: pa.Schema, keys: pa.Array, values: pa.Array) -> pa.RecordBatch:
    """A log batch as an Arrow batch of ``schema``, given its (raw or decoded) key and value columns."""
    columns = [keys, values, *metadata_columns(batch, schema)]
    if "headers" in schema.names:
        columns.append(headers_column(batch.headers, schema))
    return pa.RecordBatch.from_arrays(columns, schema=schema)
