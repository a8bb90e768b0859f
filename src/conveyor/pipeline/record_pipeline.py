"""The record pipeline of a connector: transforms and converters between Connect records and log bytes.

Work is done per batch (DESIGN decision 4): records of a batch that share a topic and schema are
converted by one converter call; only when a batch call fails does the pipeline fall back to one
record at a time, to find and tolerate (or report) exactly the records that fail.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter
from typing import Any

from conveyor.api import Converter, HeaderConverter, PluginMetrics
from conveyor.api.plugin_metrics import monitor
from conveyor.convert import ByteArrayConverter
from conveyor.convert.encoded_json import EncodedJson, connect_value, writes_unchanged
from conveyor.data import (
    ConnectError,
    ConnectRecord,
    Headers,
    Schema,
    SchemaAndValue,
    SinkColumns,
    SinkRecord,
    SourceRecord,
    SourceRecordBatch,
    TimestampType,
)
from conveyor.log import RecordBatch
from conveyor.pipeline.error_handling import ErrorHandler, FailedRecord, Stage
from conveyor.plugins import load_chain_plugin
from conveyor.settings.converters import build_converter, build_header_converter
from conveyor.settings.worker_config import WorkerConfig
from conveyor.transforms import TransformationChain

LogHeaders = list[tuple[str, bytes | None]]

# Field readers that run in C over a whole batch: a source hands over records by the thousand.
_TARGET = attrgetter("topic", "kafka_partition")
_KEY_SCHEMA = attrgetter("key_schema")
_KEY = attrgetter("key")
_VALUE_SCHEMA = attrgetter("value_schema")
_VALUE = attrgetter("value")
_TIMESTAMP = attrgetter("timestamp")
_DATA = attrgetter("data")


@dataclass
class OutgoingBatch:
    """Converted records bound for one topic (and partition, when the records chose one).

    ``keys`` is None when every key is null, and ``timestamps`` None when no record has one (the producer
    stamps them then, as Kafka's does): the log's producers take such a batch in one call, with no work
    per record for a column that says nothing."""

    topic: str
    partition: int | None
    keys: list[bytes | None] | None = field(default_factory=list)
    values: list[bytes | None] = field(default_factory=list)
    headers: list[LogHeaders | None] | None = None
    timestamps: list[int] | None = None
    records: Sequence[SourceRecord] = field(default_factory=list)


def build_transformation_chain(connector_config: Mapping[str, str]) -> TransformationChain:
    return TransformationChain.from_connector_config(connector_config, load_chain_plugin)


def _monitor_plugins(
    key_converter: Converter,
    value_converter: Converter,
    header_converter: HeaderConverter,
    chain: TransformationChain,
) -> list[PluginMetrics]:
    """Give each Monitorable plugin of the pipeline its metrics, tagged as Kafka's ConnectMetrics.wrap tags
    them: the converter's role, or the transformation's or predicate's alias."""
    placed: list[tuple[object, dict[str, str]]] = [
        (key_converter, {"converter": "key"}),
        (value_converter, {"converter": "value"}),
        (header_converter, {"converter": "header"}),
    ]
    for stage in chain.stages:
        placed.append((stage.transformation, {"transformation": stage.alias}))
        if stage.predicate is not None and stage.predicate_alias is not None:
            placed.append((stage.predicate, {"predicate": stage.predicate_alias}))
    found = (monitor(plugin, tags) for plugin, tags in placed)
    return [metrics for metrics in found if metrics is not None]


class RecordPipeline:
    """A connector's transforms and converters, with its error handling around each stage."""

    def __init__(
        self,
        key_converter: Converter,
        value_converter: Converter,
        header_converter: HeaderConverter,
        chain: TransformationChain,
        errors: ErrorHandler,
    ) -> None:
        self.key_converter = key_converter
        self.value_converter = value_converter
        self.header_converter = header_converter
        self.chain = chain
        self.errors = errors
        self.plugin_metrics = _monitor_plugins(key_converter, value_converter, header_converter, chain)
        self._writes_json_unchanged = (
            not chain and writes_unchanged(key_converter) and writes_unchanged(value_converter)
        )

    @classmethod
    def for_connector(
        cls, connector_config: Mapping[str, str], worker_config: WorkerConfig, errors: ErrorHandler
    ) -> RecordPipeline:
        return cls(
            build_converter(connector_config, worker_config, "key.converter"),
            build_converter(connector_config, worker_config, "value.converter"),
            build_header_converter(connector_config, worker_config),
            build_transformation_chain(connector_config),
            errors,
        )

    def plugin_metric_samples(self) -> list[dict[str, Any]]:
        """The samples of the metrics the converters, transformations and predicates registered."""
        return [sample for metrics in self.plugin_metrics for sample in metrics.samples()]

    def close(self) -> None:
        for metrics in self.plugin_metrics:
            metrics.close()
        self.chain.close()
        self.key_converter.close()
        self.value_converter.close()
        self.header_converter.close()

    # Source side: Connect records -> log bytes.

    def writes_json_unchanged(self) -> bool:
        """Whether keys and values reach the log through default JsonConverters with no transformation, so
        that a source record's :class:`EncodedJson` key or value is written as it is."""
        return self._writes_json_unchanged

    def transform(self, records: Sequence[Any]) -> list[Any]:
        """Apply the chain to a batch; records that fail are tolerated or reported one by one."""
        if not self.chain:
            return list(records)
        try:
            return self.chain.apply_batch(records)
        except Exception:
            transformed: list[Any] = []
            for record in records:
                result = self.errors.execute(
                    Stage.TRANSFORMATION, partial(self.chain.apply, record), partial(self._describe, record)
                )
                if result is not None:
                    transformed.append(result)
            return transformed

    def to_log(self, records: Sequence[SourceRecord]) -> list[OutgoingBatch]:
        """Transform and convert a polled batch, grouped by destination topic and partition.

        A :class:`SourceRecordBatch` with no transformation to apply, whose records were not built, is
        converted a column at a time; should a converter fail on it, its records go the way of any
        others."""
        if (
            isinstance(records, SourceRecordBatch)
            and records
            and not self.chain
            and not records.records_built
        ):
            converted = self._columns_to_log(records)
            if converted is not None:
                return [converted]
        if not self._writes_json_unchanged:
            records = _with_connect_values(records)
        transformed = self.transform(records)
        targets = list(map(_TARGET, transformed))
        groups: dict[tuple[str, int | None], list[SourceRecord]]
        if targets and targets.count(targets[0]) == len(targets):
            groups = {targets[0]: transformed}
        else:
            groups = {}
            for target, record in zip(targets, transformed, strict=True):
                groups.setdefault(target, []).append(record)
        now = int(time.time() * 1000)
        return [
            self._convert_group(topic, partition, group, now) for (topic, partition), group in groups.items()
        ]

    def _columns_to_log(self, batch: SourceRecordBatch) -> OutgoingBatch | None:
        """The batch's columns converted with one converter call each, or None when a converter fails
        (or a column holds :class:`EncodedJson` the converters need read back): `to_log` then converts
        the records, one at a time where needed, to report exactly those that fail."""
        topic, count, encoded = batch.topic, len(batch), self._writes_json_unchanged
        try:
            values = _column_from_connect(
                self.value_converter, topic, batch.value_schema, batch.values, encoded
            )
            keys: list[bytes | None] | None = None
            if batch.keys is None:
                null_key = self.key_converter.from_connect_data(topic, batch.key_schema, None)
                if null_key is not None:
                    keys = [null_key] * count
            else:
                keys = _column_from_connect(self.key_converter, topic, batch.key_schema, batch.keys, encoded)
        except Exception:
            return None
        if keys is not None and keys.count(None) == count:
            keys = None
        timestamps = None if batch.timestamp is None else [batch.timestamp] * count
        return OutgoingBatch(topic, batch.kafka_partition, keys, values, None, timestamps, batch)

    def _convert_group(
        self, topic: str, partition: int | None, group: list[SourceRecord], now: int
    ) -> OutgoingBatch:
        batch = OutgoingBatch(topic, partition)
        keys: list[bytes | None] = []
        try:
            encoded = self._writes_json_unchanged
            keys = _batch_from_connect(
                self.key_converter, topic, list(map(_KEY_SCHEMA, group)), list(map(_KEY, group)), encoded
            )
            values = _batch_from_connect(
                self.value_converter,
                topic,
                list(map(_VALUE_SCHEMA, group)),
                list(map(_VALUE, group)),
                encoded,
            )
            batch.values, batch.records = values, group
        except Exception:
            keys = []
            converted_records: list[SourceRecord] = []
            for record in group:
                converted = self._convert_one(record)
                if converted is not None:
                    keys.append(converted[0])
                    batch.values.append(converted[1])
                    converted_records.append(record)
            batch.records = converted_records
        batch.keys = None if keys.count(None) == len(keys) else keys
        timestamps = list(map(_TIMESTAMP, batch.records))
        nulls = timestamps.count(None)
        if nulls < len(timestamps):
            if nulls:
                timestamps = [now if timestamp is None else timestamp for timestamp in timestamps]
            batch.timestamps = timestamps
        if ConnectRecord.any_has_headers(batch.records):
            batch.headers = [self._headers_to_log(r) for r in batch.records]
        return batch

    def _convert_one(self, record: SourceRecord) -> tuple[bytes | None, bytes | None] | None:
        key = self.errors.execute(
            Stage.KEY_CONVERTER,
            lambda: (self.key_converter.from_connect_data(record.topic, record.key_schema, record.key),),
            lambda: self._describe(record),
        )
        if key is None:
            return None
        value = self.errors.execute(
            Stage.VALUE_CONVERTER,
            lambda: (
                self.value_converter.from_connect_data(record.topic, record.value_schema, record.value),
            ),
            lambda: self._describe(record),
        )
        if value is None:
            return None
        return key[0], value[0]

    def _headers_to_log(self, record: SourceRecord) -> LogHeaders:
        return [
            (h.key, self.header_converter.from_connect_header(record.topic, h.key, h.schema, h.value))
            for h in record.headers
        ]

    def _describe(self, record: Any) -> FailedRecord:
        """What the dead letter queue keeps of a record that failed in this pipeline."""
        offset = getattr(record, "kafka_offset", None)
        return FailedRecord(
            key=_bytes_for_report(self.key_converter, record.topic, record.key_schema, record.key),
            value=_bytes_for_report(self.value_converter, record.topic, record.value_schema, record.value),
            topic=record.topic,
            partition=record.kafka_partition,
            offset=offset,
            description=f"record for topic {record.topic}"
            if offset is None
            else f"record {record.topic}@{offset}",
        )

    # Sink side: log bytes -> Connect records.

    def passes_bytes_through(self) -> bool:
        """No transforms, and ByteArrayConverters for keys, values and headers: a sink record would
        carry the stored bytes unchanged, so a task may take the consumed columns as they are."""
        converters = (self.key_converter, self.value_converter, self.header_converter)
        return not self.chain and all(isinstance(c, ByteArrayConverter) for c in converters)

    def from_log(self, batch: RecordBatch) -> list[SinkRecord]:
        """Convert and transform a consumed batch into the records a sink task's `put` receives.

        The batch is converted a column at a time; should that fail, record by record, so that the
        error handling sees (and reports) the very records that fail.
        """
        columns = self.columns_from_log(batch)
        records = self._convert_each(batch) if columns is None else columns.records()
        return self.transform(records) if self.chain else records

    def columns_from_log(self, batch: RecordBatch) -> SinkColumns | None:
        """A consumed batch converted a column at a time (transforms left out), or None when some record
        fails to convert: `from_log` then finds it."""
        topic = batch.topic
        try:
            key_schemas, keys = self.key_converter.to_connect_columns(topic, batch.keys)
            value_schemas, values = self.value_converter.to_connect_columns(topic, batch.values)
            headers = (
                [self._connect_headers(topic, h) if h else None for h in batch.headers]
                if any(batch.headers)
                else None
            )
        except Exception:
            return None
        columns = [key_schemas, keys, value_schemas, values, batch.timestamps]
        if any(len(column) != len(batch.offsets) for column in columns):
            return None
        return SinkColumns(
            topic,
            batch.partition,
            batch.offsets,
            key_schemas,
            keys,
            value_schemas,
            values,
            batch.timestamps,
            batch.next_offset,
            headers,
            TimestampType.CREATE_TIME,
        )

    def _convert_each(self, batch: RecordBatch) -> list[SinkRecord]:
        topic, partition = batch.topic, batch.partition
        records: list[SinkRecord] = []
        for offset, raw_key, raw_value, headers, timestamp in zip(
            batch.offsets, batch.keys, batch.values, batch.headers, batch.timestamps, strict=True
        ):
            raw = FailedRecord(
                raw_key, raw_value, topic, partition, offset, f"record {topic}-{partition}@{offset}"
            )
            record = self.errors.execute(
                Stage.VALUE_CONVERTER,
                partial(self._convert_sink_record, raw, headers, timestamp),
                partial(_same, raw),
            )
            if record is not None:
                records.append(record)
        return records

    def _convert_sink_record(self, raw: FailedRecord, headers: LogHeaders, timestamp: int) -> SinkRecord:
        assert raw.topic is not None and raw.partition is not None and raw.offset is not None
        key = self.key_converter.to_connect_data(raw.topic, raw.key)
        value = self.value_converter.to_connect_data(raw.topic, raw.value)
        return self._sink_record(raw.topic, raw.partition, raw.offset, key, value, headers, timestamp)

    def _sink_record(
        self,
        topic: str,
        partition: int,
        offset: int,
        key: SchemaAndValue,
        value: SchemaAndValue,
        headers: LogHeaders,
        timestamp: int,
    ) -> SinkRecord:
        return SinkRecord(
            topic,
            kafka_partition=partition,
            key_schema=key.schema,
            key=key.value,
            value_schema=value.schema,
            value=value.value,
            kafka_offset=offset,
            timestamp=timestamp,
            timestamp_type=TimestampType.CREATE_TIME,
            headers=self._connect_headers(topic, headers),
        )

    def _connect_headers(self, topic: str, headers: LogHeaders) -> Headers:
        connect_headers = Headers()
        for name, raw in headers:
            converted = self.header_converter.to_connect_header(topic, name, raw)
            connect_headers.add(name, converted.value, converted.schema)
        return connect_headers


def _batch_from_connect(
    converter: Converter, topic: str, schemas: list[Schema | None], values: list[Any], encoded: bool
) -> list[bytes | None]:
    """One converter call when the batch shares one schema, else one call per record; the bytes of
    :class:`EncodedJson` values as they are, which only a pipeline that writes them unchanged
    (``encoded``) still holds: any other read them back into Connect values before its transforms."""
    if encoded and EncodedJson in map(type, values):
        if set(map(type, values)) == {EncodedJson}:
            return list(map(_DATA, values))
        return [
            value.data if type(value) is EncodedJson else converter.from_connect_data(topic, schema, value)
            for schema, value in zip(schemas, values, strict=True)
        ]
    first = schemas[0] if schemas else None
    if schemas.count(first) == len(schemas):
        return converter.from_connect_batch(topic, first, values)
    return [
        converter.from_connect_data(topic, schema, value)
        for schema, value in zip(schemas, values, strict=True)
    ]


class _NeedsConnectValues(ConnectError):
    """A column holds :class:`EncodedJson` that the pipeline's converters need read back first."""


def _column_from_connect(
    converter: Converter, topic: str, schema: Schema | None, values: Sequence[Any], encoded: bool
) -> list[bytes | None]:
    """A column of values that share one schema, converted in one call."""
    if EncodedJson in map(type, values):
        if not encoded:
            raise _NeedsConnectValues
        return _batch_from_connect(converter, topic, [schema] * len(values), list(values), encoded)
    return converter.from_connect_batch(topic, schema, values)


def _with_connect_values(records: Sequence[SourceRecord]) -> Sequence[SourceRecord]:
    """The records with any :class:`EncodedJson` key or value read back into its Connect value, for a
    pipeline whose converters or transformations need it."""
    if EncodedJson not in map(type, map(_KEY, records)) and EncodedJson not in map(
        type, map(_VALUE, records)
    ):
        return records
    for record in records:
        if type(record.key) is EncodedJson:
            record.key = connect_value(record.key, record.key_schema)
        if type(record.value) is EncodedJson:
            record.value = connect_value(record.value, record.value_schema)
    return records


def _same(record: FailedRecord) -> FailedRecord:
    return record


def _bytes_for_report(converter: Converter, topic: str, schema: Schema | None, value: Any) -> bytes | None:
    """The converter's bytes for a failed record; its repr when the converter itself fails on it."""
    try:
        return converter.from_connect_data(topic, schema, value)
    except Exception:
        return None if value is None else repr(value)[:1000].encode()
