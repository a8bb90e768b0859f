"""``StringConverter`` and ``ByteArrayConverter``: the two pass-through converters Kafka ships."""

from __future__ import annotations

import codecs
from collections.abc import Mapping, Sequence
from typing import Any, Final

from conveyor.api import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Converter,
    HeaderConverter,
    Importance,
    LambdaValidator,
)
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


class StringConverter(Converter, HeaderConverter):
    """Writes ``str(value)`` in ``converter.encoding``; reads bytes back as an optional string.

    As Kafka's ``StringDeserializer``, undecodable bytes are replaced (U+FFFD) rather than refused.
    """

    def __init__(self) -> None:
        self._encoding = _DEFAULT_ENCODING

    def config(self) -> ConfigDef:
        return string_converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        settings = dict(configs)
        for prefixed in ("serializer.encoding", "deserializer.encoding"):
            if prefixed in settings and ENCODING_CONFIG not in settings:
                settings[ENCODING_CONFIG] = settings[prefixed]
        self._encoding = str(string_converter_config_def().parse(settings)[ENCODING_CONFIG])

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
        encoding = self._encoding
        try:
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

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, value)


class ByteArrayConverter(Converter, HeaderConverter):
    """Passes bytes through unchanged; refuses schemas other than BYTES and values other than bytes."""

    def config(self) -> ConfigDef:
        return define_converter_type(ConfigDef())

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        define_converter_type(ConfigDef()).parse(configs)

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

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        return SchemaAndValue(OPTIONAL_BYTES_SCHEMA, value)

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, value)
