"""Decoding keys and values with a configured Connect converter (``value.converter=...JsonConverter``).

The converter is resolved by its plugin name, so Kafka's Java class names work. Reads decode a batch at
a time; planning samples one stored record to learn the Connect schema and hence the column's Spark type.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
from pyspark.sql.types import DataType

from conveyor.api import Converter
from conveyor.log import Log, TopicPartition
from conveyor.plugins import PluginKind, load_plugin_class
from conveyor.spark.datasource.connect_types import UnsupportedSchemaError, spark_type, to_arrow_column
from conveyor.spark.datasource.options import ConverterSpec

_SAMPLE_RECORDS = 100


def make_converter(spec: ConverterSpec, is_key: bool) -> Converter:
    """A configured converter instance for keys or values."""
    converter = load_plugin_class(spec.class_name, PluginKind.CONVERTER)()
    assert isinstance(converter, Converter)
    converter.configure(dict(spec.settings), is_key)
    return converter


def decode_column(
    converter: Converter, topic: str, data: Sequence[bytes | None], data_type: DataType
) -> pa.Array:
    """Stored keys or values, decoded by ``converter``, as an Arrow column of ``data_type``."""
    decoded = converter.to_connect_batch(topic, data)
    return to_arrow_column([item.value for item in decoded], data_type)


def sample_type(
    log: Log, partitions: Sequence[TopicPartition], spec: ConverterSpec, is_key: bool, column: str
) -> DataType:
    """The Spark type of the first non-null key or value stored in ``partitions``, decoded by ``spec``.

    Raises ``UnsupportedSchemaError`` when nothing is stored yet or the data carries no schema: give
    the DataFrame reader a schema (``.schema(...)``) in those cases.
    """
    converter = make_converter(spec, is_key)
    with log.consumer(isolation_level="read_committed", auto_offset_reset="earliest") as consumer:
        for partition in partitions:
            consumer.assign([partition])
            consumer.seek_to_beginning([partition])
            for batch in consumer.poll_batch(max_records=_SAMPLE_RECORDS):
                data = batch.keys if is_key else batch.values
                for stored in data:
                    if stored is None:
                        continue
                    schema = converter.to_connect_data(batch.topic, stored).schema
                    if schema is None:
                        raise UnsupportedSchemaError(
                            f"The {column}s of {batch.topic} carry no Connect schema; "
                            "pass a schema to the reader with .schema(...)"
                        )
                    return spark_type(schema)
    raise UnsupportedSchemaError(
        f"No {column} to learn a Connect schema from in {[str(p) for p in partitions]}; "
        "pass a schema to the reader with .schema(...)"
    )
