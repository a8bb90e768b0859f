"""The Connect data model: schemas, structs, logical types, headers and records.

This package imports nothing of Conveyor's but the error root ``conveyor.errors``, so every other package
may depend on it.
"""

from conveyor.data.builder import SchemaBuilder
from conveyor.data.errors import ConnectError, DataError, SchemaBuilderError
from conveyor.data.headers import Header, Headers
from conveyor.data.logical import Date, Decimal, Time, Timestamp
from conveyor.data.records import ConnectRecord, SinkRecord, SourceRecord, TimestampType
from conveyor.data.schema import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BOOLEAN_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT8_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Field,
    Schema,
    SchemaAndValue,
    Type,
)
from conveyor.data.sink_columns import SinkColumns
from conveyor.data.source_batch import SourceRecordBatch
from conveyor.data.struct import Struct, StructColumn, validate_value

__all__ = [
    "BOOLEAN_SCHEMA",
    "BYTES_SCHEMA",
    "FLOAT32_SCHEMA",
    "FLOAT64_SCHEMA",
    "INT8_SCHEMA",
    "INT16_SCHEMA",
    "INT32_SCHEMA",
    "INT64_SCHEMA",
    "OPTIONAL_BOOLEAN_SCHEMA",
    "OPTIONAL_BYTES_SCHEMA",
    "OPTIONAL_FLOAT32_SCHEMA",
    "OPTIONAL_FLOAT64_SCHEMA",
    "OPTIONAL_INT8_SCHEMA",
    "OPTIONAL_INT16_SCHEMA",
    "OPTIONAL_INT32_SCHEMA",
    "OPTIONAL_INT64_SCHEMA",
    "OPTIONAL_STRING_SCHEMA",
    "STRING_SCHEMA",
    "ConnectError",
    "ConnectRecord",
    "DataError",
    "Date",
    "Decimal",
    "Field",
    "Header",
    "Headers",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "SchemaBuilderError",
    "SinkColumns",
    "SinkRecord",
    "SourceRecord",
    "SourceRecordBatch",
    "Struct",
    "StructColumn",
    "Time",
    "Timestamp",
    "TimestampType",
    "Type",
    "validate_value",
]
