"""The number and boolean converters: fixed-width big-endian values, as Kafka's serializers write them."""

from __future__ import annotations

import struct
from typing import Any, ClassVar

from conveyor.convert.configured_converter import ConfiguredConverter
from conveyor.data import (
    OPTIONAL_BOOLEAN_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    DataError,
    Headers,
    Schema,
    SchemaAndValue,
)


class FixedWidthConverter(ConfiguredConverter):
    """Packs one value with a ``struct`` format; subclasses choose the format, schema and Python type."""

    FORMAT: ClassVar[str]
    SCHEMA: ClassVar[Schema]

    @property
    def type_name(self) -> str:
        """The Connect type named in errors, e.g. ``INT32``."""
        return self.SCHEMA.type.name

    def _accepts(self, value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if value is None:
            return None
        if not self._accepts(value):
            raise DataError(
                f"Failed to serialize to {self.type_name} (was {type(value).__name__})", topic=topic
            )
        try:
            return struct.pack(self.FORMAT, value)
        except struct.error as error:
            raise DataError(f"Failed to serialize to {self.type_name}: {error}", topic=topic) from error

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue(self.SCHEMA, None)
        size = struct.calcsize(self.FORMAT)
        if len(value) != size:
            raise DataError(
                f"Size of data received by {self.type_name} deserializer is not {size} but {len(value)}",
                topic=topic,
            )
        return SchemaAndValue(self.SCHEMA, struct.unpack(self.FORMAT, value)[0])


class ShortConverter(FixedWidthConverter):
    """INT16 as two big-endian bytes."""

    FORMAT = ">h"
    SCHEMA = OPTIONAL_INT16_SCHEMA


class IntegerConverter(FixedWidthConverter):
    """INT32 as four big-endian bytes."""

    FORMAT = ">i"
    SCHEMA = OPTIONAL_INT32_SCHEMA


class LongConverter(FixedWidthConverter):
    """INT64 as eight big-endian bytes."""

    FORMAT = ">q"
    SCHEMA = OPTIONAL_INT64_SCHEMA


class _FloatingConverter(FixedWidthConverter):
    def _accepts(self, value: Any) -> bool:
        return isinstance(value, float | int) and not isinstance(value, bool)


class FloatConverter(_FloatingConverter):
    """FLOAT32 as four big-endian IEEE 754 bytes."""

    FORMAT = ">f"
    SCHEMA = OPTIONAL_FLOAT32_SCHEMA


class DoubleConverter(_FloatingConverter):
    """FLOAT64 as eight big-endian IEEE 754 bytes."""

    FORMAT = ">d"
    SCHEMA = OPTIONAL_FLOAT64_SCHEMA


class BooleanConverter(FixedWidthConverter):
    """BOOLEAN as one byte, 1 for true and 0 for false; any other byte is refused."""

    FORMAT = ">?"
    SCHEMA = OPTIONAL_BOOLEAN_SCHEMA

    def _accepts(self, value: Any) -> bool:
        return isinstance(value, bool)

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if value is not None and len(value) == 1 and value[0] not in (0, 1):
            raise DataError(f"Unexpected byte {value[0]} received by BOOLEAN deserializer", topic=topic)
        return super().to_connect_data(topic, value, headers)
