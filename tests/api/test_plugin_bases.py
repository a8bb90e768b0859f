"""Defaults the plugin bases give their subclasses: batch forms, empty config, dropping records."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from conveyor.api import Converter, Predicate, Transformation
from conveyor.data import (
    INT32_SCHEMA,
    STRING_SCHEMA,
    ConnectRecord,
    Headers,
    Schema,
    SchemaAndValue,
    SinkRecord,
)


class DropOddOffsets(Transformation[SinkRecord]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        self.suffix = str(configs.get("suffix", ""))

    def apply(self, record: SinkRecord) -> SinkRecord | None:
        if record.kafka_offset % 2:
            return None
        return record.new_record(topic=record.topic + self.suffix)


class DecimalTextConverter(Converter):
    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        self.is_key = is_key

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        return None if value is None else str(value).encode()

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        return SchemaAndValue(INT32_SCHEMA, None if value is None else int(value))


class TopicStartsWith(Predicate[ConnectRecord]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        self.prefix = configs["prefix"]

    def test(self, record: ConnectRecord) -> bool:
        return record.topic.startswith(self.prefix)


def sink_record(offset: int) -> SinkRecord:
    return SinkRecord(
        topic="t", kafka_partition=0, value_schema=STRING_SCHEMA, value=f"v{offset}", kafka_offset=offset
    )


def test_apply_batch_applies_in_order_and_leaves_out_dropped_records() -> None:
    transform = DropOddOffsets()
    transform.configure({"suffix": "-even"})
    result = transform.apply_batch([sink_record(n) for n in range(5)])
    assert [(r.topic, r.kafka_offset) for r in result] == [("t-even", 0), ("t-even", 2), ("t-even", 4)]


def test_a_transformation_without_settings_has_an_empty_config_def() -> None:
    assert DropOddOffsets().config().names() == frozenset()


def test_converter_batch_forms_loop_over_the_single_value_forms() -> None:
    converter = DecimalTextConverter()
    converter.configure({}, is_key=False)
    encoded = converter.from_connect_batch("t", INT32_SCHEMA, [1, None, 30])
    assert encoded == [b"1", None, b"30"]
    assert converter.to_connect_batch("t", encoded) == [
        SchemaAndValue(INT32_SCHEMA, 1),
        SchemaAndValue(INT32_SCHEMA, None),
        SchemaAndValue(INT32_SCHEMA, 30),
    ]
    assert converter.to_connect_columns("t", encoded) == ([INT32_SCHEMA] * 3, [1, None, 30])


def test_predicates_test_records() -> None:
    predicate = TopicStartsWith()
    predicate.configure({"prefix": "orders"})
    assert predicate.test(sink_record(0).new_record(topic="orders-eu"))
    assert not predicate.test(sink_record(0))


def test_a_converter_missing_a_direction_cannot_be_instantiated() -> None:
    class OnlyEncodes(Converter):
        def configure(self, configs: Mapping[str, Any], is_key: bool) -> None: ...

        def from_connect_data(
            self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
        ) -> bytes | None:
            return b""

    with pytest.raises(TypeError, match="to_connect_data"):
        OnlyEncodes()  # type: ignore[abstract]
