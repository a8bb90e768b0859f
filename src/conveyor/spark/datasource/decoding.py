"""Decoding keys and values with a configured Connect converter (``value.converter=...JsonConverter``).

The converter is resolved by its plugin name, so Kafka's Java class names work. Reads decode a batch at
a time: JsonConverter envelopes in Arrow's JSON parser where that is exact (``envelopes``), anything else
with the converter itself. Planning samples one stored record to learn the Connect schema and hence the
column's Spark type.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyarrow as pa
from pyspark.sql.pandas.types import to_arrow_type
from pyspark.sql.types import DataType

from conveyor.api import Converter
from conveyor.convert.json_converter import JsonConverter
from conveyor.data import DataError
from conveyor.log import Log, RecordBatch, TopicPartition
from conveyor.log.columns import binary_array
from conveyor.plugins import PluginKind, load_plugin_class
from conveyor.spark.datasource.connect_types import UnsupportedSchemaError, spark_type, to_arrow_column
from conveyor.spark.datasource.envelopes import EnvelopeDecoder
from conveyor.spark.datasource.options import ConverterSpec

_SAMPLE_RECORDS = 100


def make_converter(spec: ConverterSpec, is_key: bool) -> Converter:
    """A configured converter instance for keys or values."""
    converter = load_plugin_class(spec.class_name, PluginKind.CONVERTER)()
    assert isinstance(converter, Converter)
    converter.configure(dict(spec.settings), is_key)
    return converter


class ColumnDecoder:
    """Decodes stored keys or values into Arrow columns of one Spark type, a batch at a time."""

    def __init__(self, converter: Converter, data_type: DataType) -> None:
        self._converter = converter
        self._data_type = data_type
        self._arrow_type = to_arrow_type(data_type, timezone="UTC")
        self._envelopes: EnvelopeDecoder | None = None

    def decode(self, topic: str, data: Sequence[bytes | None]) -> pa.Array:
        """``data`` decoded by the converter, as an Arrow column of the decoder's type."""
        envelopes = self._envelopes_for(topic, data)
        if envelopes is not None:
            decoded = envelopes.decode(binary_array(data))
            if decoded is not None:
                return decoded
        return to_arrow_column(
            [item.value for item in self._converter.to_connect_batch(topic, data)], self._data_type
        )

    def _envelopes_for(self, topic: str, data: Sequence[bytes | None]) -> EnvelopeDecoder | None:
        """The envelope decoder for the schema of the batch's first value (learnt from that value), if
        that schema has the column's type."""
        if not isinstance(self._converter, JsonConverter) or not self._converter.reads_envelopes:
            return None
        first = next((value for value in data if value is not None), None)
        if first is None:
            return None
        known = self._envelopes
        if known is not None and first.startswith(known.prefix):
            return known
        try:
            schema = self._converter.to_connect_data(topic, first).schema
        except DataError:
            return None
        if schema is None or spark_type(schema) != self._data_type:
            return None
        self._envelopes = EnvelopeDecoder.like(first, schema, self._arrow_type)
        return self._envelopes


def first_batches(log: Log, partitions: Sequence[TopicPartition]) -> Iterator[RecordBatch]:
    """The first committed records of each partition in turn (up to 100 each): what planning samples."""
    with log.consumer(isolation_level="read_committed", auto_offset_reset="earliest") as consumer:
        for partition in partitions:
            consumer.assign([partition])
            consumer.seek_to_beginning([partition])
            yield from consumer.poll_batch(max_records=_SAMPLE_RECORDS)


def sample_type(
    log: Log, partitions: Sequence[TopicPartition], spec: ConverterSpec, is_key: bool, column: str
) -> DataType:
    """The Spark type of the first non-null key or value stored in ``partitions``, decoded by ``spec``.

    Raises ``UnsupportedSchemaError`` when nothing is stored yet or the data carries no schema: give
    the DataFrame reader a schema (``.schema(...)``) in those cases.
    """
    converter = make_converter(spec, is_key)
    for batch in first_batches(log, partitions):
        for stored in batch.keys if is_key else batch.values:
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
