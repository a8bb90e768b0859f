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

    def __init_subclass__(cls, *, format: str | None = None, schema: Schema | None = None) -> None:
        """``class IntConverter(FixedWidthConverter, format=">i", schema=...)`` sets both at once."""
        super().__init_subclass__()
        if format is not None and schema is not None:
            cls.FORMAT = format
            cls.SCHEMA = schema

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


class ShortConverter(FixedWidthConverter, format=">h", schema=OPTIONAL_INT16_SCHEMA):
    """INT16 as two big-endian bytes."""


class IntegerConverter(FixedWidthConverter, format=">i", schema=OPTIONAL_INT32_SCHEMA):
    """INT32 as four big-endian bytes."""


class LongConverter(FixedWidthConverter, format=">q", schema=OPTIONAL_INT64_SCHEMA):
    """INT64 as eight big-endian bytes."""


class _FloatingConverter(FixedWidthConverter):
    def _accepts(self, value: Any) -> bool:
        return isinstance(value, float | int) and not isinstance(value, bool)


class FloatConverter(_FloatingConverter, format=">f", schema=OPTIONAL_FLOAT32_SCHEMA):
    """FLOAT32 as four big-endian IEEE 754 bytes."""


class DoubleConverter(_FloatingConverter, format=">d", schema=OPTIONAL_FLOAT64_SCHEMA):
    """FLOAT64 as eight big-endian IEEE 754 bytes."""


class BooleanConverter(FixedWidthConverter, format=">?", schema=OPTIONAL_BOOLEAN_SCHEMA):
    """BOOLEAN as one byte, 1 for true and 0 for false; any other byte is refused."""

    def _accepts(self, value: Any) -> bool:
        return isinstance(value, bool)

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if value is not None and len(value) == 1 and value[0] not in (0, 1):
            raise DataError(f"Unexpected byte {value[0]} received by BOOLEAN deserializer", topic=topic)
        return super().to_connect_data(topic, value, headers)
