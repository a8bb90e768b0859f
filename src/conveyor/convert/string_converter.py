"""``StringConverter`` and ``ByteArrayConverter``: the two pass-through converters Kafka ships."""

from __future__ import annotations

import codecs
from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import Any, Final

from conveyor.api import ConfigDef, ConfigError, ConfigType, Importance, LambdaValidator
from conveyor.convert.configured_converter import ConfiguredConverter
from conveyor.convert.converter_type import define_converter_type
from conveyor.data import (
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    DataError,
    Headers,
    Schema,
    SchemaAndValue,
    Type,
)

ENCODING_CONFIG: Final = "converter.encoding"
_DEFAULT_ENCODING: Final = "UTF8"


def _require_known_encoding(name: str, value: Any) -> None:
    try:
        codecs.lookup(str(value))
    except LookupError as error:
        raise ConfigError(name, value, "unknown character encoding") from error


def string_converter_config_def() -> ConfigDef:
    """``converter.type`` and ``converter.encoding`` (Kafka's ``StringConverterConfig``)."""
    return define_converter_type(ConfigDef()).define(
        ENCODING_CONFIG,
        ConfigType.STRING,
        default=_DEFAULT_ENCODING,
        validator=LambdaValidator(_require_known_encoding, "a character encoding Python knows"),
        importance=Importance.HIGH,
        documentation="The name of the character encoding used to convert strings.",
    )


class StringConverter(ConfiguredConverter):
    """Writes ``str(value)`` in ``converter.encoding``; reads bytes back as an optional string.

    As Kafka's ``StringDeserializer``, undecodable bytes are replaced (U+FFFD) rather than refused.
    """

    def config(self) -> ConfigDef:
        return string_converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        settings = dict(configs)
        for prefixed in ("serializer.encoding", "deserializer.encoding"):
            if prefixed in settings and ENCODING_CONFIG not in settings:
                settings[ENCODING_CONFIG] = settings[prefixed]
        super().configure(settings, is_key)

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._encoding = str(settings[ENCODING_CONFIG])
        self._utf8 = codecs.lookup(self._encoding).name == "utf-8"

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if value is None:
            return None
        try:
            return str(value).encode(self._encoding)
        except UnicodeEncodeError as error:
            raise DataError(f"Cannot encode value in {self._encoding}: {error}", topic=topic) from error

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue(OPTIONAL_STRING_SCHEMA, None)
        return SchemaAndValue(OPTIONAL_STRING_SCHEMA, bytes(value).decode(self._encoding, errors="replace"))

    def from_connect_batch(
        self, topic: str, schema: Schema | None, values: Sequence[Any]
    ) -> list[bytes | None]:
        """A column of plain strings is encoded by ``str.encode`` mapped over it, with no Python step per
        value; a column with nulls or other types (a ``str`` subclass included, whose ``str()`` may differ
        from its characters), value by value as ``from_connect_data`` does."""
        encoding = self._encoding
        try:
            if set(map(type, values)) <= {str}:
                return list(map(str.encode, values, repeat(encoding, len(values))))
            return [None if value is None else str(value).encode(encoding) for value in values]
        except UnicodeEncodeError as error:
            raise DataError(f"Cannot encode value in {encoding}: {error}", topic=topic) from error

    def to_connect_batch(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        encoding = self._encoding
        return [
            SchemaAndValue(
                OPTIONAL_STRING_SCHEMA, None if value is None else value.decode(encoding, "replace")
            )
            for value in values
        ]

    def to_connect_columns(
        self, topic: str, values: Sequence[bytes | None]
    ) -> tuple[Sequence[Schema | None], Sequence[Any]]:
        count = len(values)
        nulls = values.count(None)
        if nulls == count:
            return [OPTIONAL_STRING_SCHEMA] * count, [None] * count
        decoded: Sequence[str | None] | None = (
            _decode_utf8_column(values) if nulls == 0 and self._utf8 else None
        )
        if decoded is None:
            encoding = self._encoding
            decoded = [None if value is None else value.decode(encoding, "replace") for value in values]
        return [OPTIONAL_STRING_SCHEMA] * count, decoded


def _decode_utf8_column(values: Sequence[bytes | None]) -> list[str] | None:
    """UTF-8 values decoded in one call: joined by NUL, which UTF-8 never makes of other bytes and which
    ends any invalid sequence before it, so each value decodes (replacements included) as on its own.
    None when a value holds a NUL itself (the text then splits into more parts than there are values)."""
    parts = b"\x00".join(values).decode("utf-8", "replace").split("\x00")  # type: ignore[arg-type]
    return parts if len(parts) == len(values) else None


class ByteArrayConverter(ConfiguredConverter):
    """Passes bytes through unchanged; refuses schemas other than BYTES and values other than bytes."""

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if schema is not None and schema.type is not Type.BYTES:
            raise DataError(f"Invalid schema type for ByteArrayConverter: {schema.type.name}", topic=topic)
        if value is None:
            return None
        if not isinstance(value, bytes | bytearray | memoryview):
            raise DataError(
                f"ByteArrayConverter is not compatible with objects of type {type(value).__name__}",
                topic=topic,
            )
        return bytes(value)

    def from_connect_batch(
        self, topic: str, schema: Schema | None, values: Sequence[Any]
    ) -> list[bytes | None]:
        """A column of ``bytes`` (and nulls) is passed on as it is; any other value by value."""
        if (schema is None or schema.type is Type.BYTES) and set(map(type, values)) <= {bytes, type(None)}:
            return list(values)
        return [self.from_connect_data(topic, schema, value) for value in values]

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        return SchemaAndValue(OPTIONAL_BYTES_SCHEMA, value)

    def to_connect_columns(
        self, topic: str, values: Sequence[bytes | None]
    ) -> tuple[Sequence[Schema | None], Sequence[Any]]:
        return [OPTIONAL_BYTES_SCHEMA] * len(values), list(values)
