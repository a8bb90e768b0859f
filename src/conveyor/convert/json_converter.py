"""``JsonConverter``: Kafka's JSON converter, with the ``{"schema": ..., "payload": ...}`` envelope.

With ``schemas.enable`` (the default) every value is written inside the envelope, byte for byte as
Kafka writes it; without, values are plain JSON and are read back without a schema. ``schema.content``
(KIP-1054) gives one schema for every value read: messages are then plain payloads, as producers that
know nothing of Connect write them. Each schema is
compiled once into an encoder and a decoder (kept in LRU caches of ``schemas.cache.size``), so a batch
sharing one schema costs one generated-function call per record.
"""

from __future__ import annotations

import decimal
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from typing import Any, Final, cast

from conveyor.api import CaseInsensitiveValidString, ConfigDef, ConfigType, Importance
from conveyor.api import Range as ConfigRange
from conveyor.convert.configured_converter import ConfiguredConverter
from conveyor.convert.converter_type import define_converter_type
from conveyor.convert.json_columns import ColumnsDecoder, compile_columns_decoder, parse_payload
from conveyor.convert.json_decode import ValueDecoder, compile_decoder, decode_schemaless
from conveyor.convert.json_encode import ValueEncoder, compile_encoder, finish_json
from conveyor.convert.json_options import DecimalFormat, JsonOptions
from conveyor.convert.json_schema import connect_schema, json_schema_text
from conveyor.convert.json_typed_columns import TypedColumnsDecoder, compile_typed_columns_decoder
from conveyor.convert.lru import LruCache
from conveyor.data import DataError, Headers, Schema, SchemaAndValue, StructColumn
from conveyor.errors import ConfigError

SCHEMAS_ENABLE_CONFIG: Final = "schemas.enable"
SCHEMAS_CACHE_SIZE_CONFIG: Final = "schemas.cache.size"
DECIMAL_FORMAT_CONFIG: Final = "decimal.format"
REPLACE_NULL_WITH_DEFAULT_CONFIG: Final = "replace.null.with.default"
SCHEMA_CONTENT_CONFIG: Final = "schema.content"

_ENVELOPE_START: Final = '{"schema":'
_PAYLOAD_KEY: Final = ',"payload":'
_NOT_AN_ENVELOPE: Final = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional '
    "fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter "
    "configuration."
)
_PARSER: Final = json.JSONDecoder(parse_float=decimal.Decimal)
_LAST: Final = itemgetter(-1)
_BRACE: Final = {ord("}")}


def json_converter_config_def() -> ConfigDef:
    """The settings of Kafka's ``JsonConverterConfig``."""
    return (
        define_converter_type(ConfigDef())
        .define(
            SCHEMAS_ENABLE_CONFIG,
            ConfigType.BOOLEAN,
            default=True,
            importance=Importance.HIGH,
            documentation="Include schemas within each of the serialized values and keys.",
        )
        .define(
            SCHEMAS_CACHE_SIZE_CONFIG,
            ConfigType.INT,
            default=1000,
            validator=ConfigRange.at_least(0),
            importance=Importance.HIGH,
            documentation="Maximum number of schemas that can be cached.",
        )
        .define(
            DECIMAL_FORMAT_CONFIG,
            ConfigType.STRING,
            default=DecimalFormat.BASE64.value,
            validator=CaseInsensitiveValidString.in_(*(f.value for f in DecimalFormat)),
            importance=Importance.LOW,
            documentation="Whether decimals are written as base64 bytes (BASE64) or JSON numbers (NUMERIC).",
        )
        .define(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType.BOOLEAN,
            default=True,
            importance=Importance.LOW,
            documentation="Whether a null field with a default value is written and read as its default.",
        )
        .define(
            SCHEMA_CONTENT_CONFIG,
            ConfigType.STRING,
            default=None,
            importance=Importance.HIGH,
            documentation=(
                "When set, this is used as the schema for all messages, and the schemas within each of the "
                "message will be ignored. Otherwise, the schema will be included in the content of each "
                "message. This configuration applies only 'schemas.enable' is true, and it exclusively "
                "affects the sink connector."
            ),
        )
    )


@dataclass(frozen=True)
class _Encoding:
    prefix: str
    encode: ValueEncoder
    suffix: str


@dataclass(frozen=True)
class _Decoding:
    schema: Schema | None
    decode: ValueDecoder


@dataclass(frozen=True)
class _KnownEnvelope:
    """The exact text an envelope starts with up to its payload, and how to read what follows."""

    prefix: str
    decoding: _Decoding
    columns: ColumnsDecoder | None
    typed: TypedColumnsDecoder | None


class JsonConverter(ConfiguredConverter):
    """Kafka's ``org.apache.kafka.connect.json.JsonConverter``, also usable as a header converter."""

    def config(self) -> ConfigDef:
        return json_converter_config_def()

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self.schemas_enabled: bool = settings[SCHEMAS_ENABLE_CONFIG]
        self.options = JsonOptions(
            decimal_format=DecimalFormat(str(settings[DECIMAL_FORMAT_CONFIG]).upper()),
            replace_null_with_default=settings[REPLACE_NULL_WITH_DEFAULT_CONFIG],
        )
        cache_size: int = settings[SCHEMAS_CACHE_SIZE_CONFIG]
        self._encodings: LruCache[Schema | None, _Encoding] = LruCache(cache_size)
        self._decodings: LruCache[str, _Decoding] = LruCache(cache_size)
        self._known_envelope: _KnownEnvelope | None = None
        content = settings[SCHEMA_CONTENT_CONFIG]
        self._given: _Decoding | None = self._given_schema(content) if content is not None else None

    @property
    def reads_envelopes(self) -> bool:
        """Whether values read are envelopes: ``schemas.enable`` without a ``schema.content``."""
        return self.schemas_enabled and self._given is None

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if schema is None and value is None:
            return None
        encoding = self._encoding_for(schema)
        try:
            return _to_utf8(finish_json(encoding.prefix + encoding.encode(value) + encoding.suffix))
        except DataError as error:
            raise error.located(topic=topic) from error

    def from_connect_batch(
        self, topic: str, schema: Schema | None, values: Sequence[Any]
    ) -> list[bytes | None]:
        """Serialize values sharing one schema, compiling it once; a null value with no schema stays null."""
        encoding = self._encoding_for(schema)
        prefix, encode, suffix = encoding.prefix, encoding.encode, encoding.suffix
        try:
            if schema is None:
                return [
                    None if value is None else _to_utf8(finish_json(prefix + encode(value) + suffix))
                    for value in values
                ]
            return [_to_utf8(finish_json(prefix + encode(value) + suffix)) for value in values]
        except DataError as error:
            raise error.located(topic=topic) from error

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue(None, None)
        try:
            return self._decode(value)
        except DataError as error:
            raise error.located(topic=topic) from error

    def to_connect_batch(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        known = self._known_columns(values)
        if known is not None:
            schema, structs = known
            return [SchemaAndValue(schema, struct) for struct in structs]
        return self._one_by_one(topic, values)

    def _one_by_one(self, topic: str, values: Sequence[bytes | None]) -> list[SchemaAndValue]:
        decode = self._decode
        try:
            return [SchemaAndValue(None, None) if value is None else decode(value) for value in values]
        except DataError as error:
            raise error.located(topic=topic) from error

    def to_connect_columns(
        self, topic: str, values: Sequence[bytes | None]
    ) -> tuple[Sequence[Schema | None], Sequence[Any]]:
        known = self._known_columns(values)
        if known is not None:
            schema, structs = known
            return [schema] * len(structs), structs
        converted = self._one_by_one(topic, values)
        return [item.schema for item in converted], [item.value for item in converted]

    def _known_columns(self, values: Sequence[bytes | None]) -> tuple[Schema, StructColumn] | None:
        """A batch of envelopes that all start as the last one read, with a struct payload decoded column by
        column (see ``json_columns``); None when any value needs the record by record path. A batch whose
        first envelope is not the last one read (the first batch of a topic, a new schema) has it read
        first, so that the rest need not be decoded one by one to learn it."""
        known = self._known_envelope
        first = values[0] if len(values) > 2 and self.schemas_enabled and self._given is None else None
        if first is not None and (known is None or not first.startswith(known.prefix.encode("utf-8"))):
            try:
                self._decode(first)
            except DataError:
                return None
        return self._known_columns_of(values)

    def _known_columns_of(self, values: Sequence[bytes | None]) -> tuple[Schema, StructColumn] | None:
        known = self._known_envelope
        if known is None or known.columns is None or known.decoding.schema is None or len(values) < 2:
            return None
        prefix = known.prefix.encode("utf-8")
        envelopes = cast("Sequence[bytes]", values)  # a null or a bytearray raises TypeError
        try:
            if (
                not all(map(bytes.startswith, envelopes, repeat(prefix)))
                or set(map(_LAST, envelopes)) != _BRACE
            ):
                return None
            typed = None if known.typed is None else known.typed(envelopes, len(prefix))
            if typed is not None:
                return known.decoding.schema, typed
            nodes = list(map(parse_payload, map(itemgetter(slice(len(prefix), -1)), envelopes)))
        except (TypeError, ValueError):
            return None
        structs = known.columns(nodes)
        return None if structs is None else (known.decoding.schema, structs)

    def envelope_head(self, schema: Schema | None) -> bytes:
        """The bytes this converter writes before the payload of a value of ``schema``."""
        return _to_utf8(finish_json(self._encoding_for(schema).prefix))

    def json_schema(self, schema: Schema) -> str:
        """The envelope's ``schema`` object for ``schema`` as this converter writes it."""
        return json_schema_text(schema, self._encoder_for)

    def _encoder_for(self, schema: Schema) -> ValueEncoder:
        return compile_encoder(schema, self.options)

    def _encoding_for(self, schema: Schema | None) -> _Encoding:
        encoding = self._encodings.get(schema)
        if encoding is None:
            encode = compile_encoder(schema, self.options)
            if not self.schemas_enabled:
                encoding = _Encoding("", encode, "")
            else:
                schema_text = "null" if schema is None else self.json_schema(schema)
                encoding = _Encoding(_ENVELOPE_START + schema_text + _PAYLOAD_KEY, encode, "}")
            self._encodings.put(schema, encoding)
        return encoding

    def _decode(self, data: bytes) -> SchemaAndValue:
        text = _from_utf8(data)
        if not self.schemas_enabled:
            return SchemaAndValue(None, decode_schemaless(_parse(text)) if text.strip() else None)
        if self._given is not None:
            return SchemaAndValue(self._given.schema, self._given.decode(_parse(text)))
        known = self._known_envelope
        if known is not None and text.startswith(known.prefix):
            try:
                payload, end = _PARSER.raw_decode(text, len(known.prefix))
            except json.JSONDecodeError:
                pass
            else:
                if text[end:].strip() == "}":
                    return SchemaAndValue(known.decoding.schema, known.decoding.decode(payload))
        return self._decode_envelope(text)

    def _decode_envelope(self, text: str) -> SchemaAndValue:
        envelope = _parse(text)
        if not isinstance(envelope, dict) or envelope.keys() != {"schema", "payload"}:
            raise DataError(_NOT_AN_ENVELOPE)
        decoding = self._decoding_for(envelope["schema"], text)
        return SchemaAndValue(decoding.schema, decoding.decode(envelope["payload"]))

    def _decoding_for(self, schema_node: Any, text: str) -> _Decoding:
        key = _compact_json(schema_node)
        decoding = self._decodings.get(key) if key is not None else None
        if decoding is None:
            schema = connect_schema(schema_node, self._decode_default)
            decoding = _Decoding(schema, compile_decoder(schema, self.options))
            if key is not None:
                self._decodings.put(key, decoding)
        if key is not None:
            prefix = _ENVELOPE_START + key + _PAYLOAD_KEY
            if text.startswith(prefix):
                schema = decoding.schema
                self._known_envelope = _KnownEnvelope(
                    prefix,
                    decoding,
                    None if schema is None else compile_columns_decoder(schema, self.options),
                    None if schema is None else compile_typed_columns_decoder(schema, self.options),
                )
        return decoding

    def _given_schema(self, content: str) -> _Decoding:
        """The decoding of ``schema.content``, or a config error naming the key when it is no schema."""
        try:
            node = _PARSER.decode(content)
            schema = connect_schema(node, self._decode_default)
        except (json.JSONDecodeError, DataError) as error:
            raise ConfigError(
                f"Invalid value for configuration {SCHEMA_CONTENT_CONFIG}: it must be a Connect schema in "
                f'JsonConverter\'s envelope form, such as {{"type":"struct","fields":[...]}}: {error}'
            ) from error
        if schema is None:
            raise ConfigError(f"Invalid value for configuration {SCHEMA_CONTENT_CONFIG}: null is no schema")
        return _Decoding(schema, compile_decoder(schema, self.options))

    def _decode_default(self, schema: Schema, node: Any) -> Any:
        return compile_decoder(schema, self.options)(node)


def _compact_json(node: Any) -> str | None:
    """``node`` written compactly, or None when it holds numbers that would not read back identically."""
    try:
        return json.dumps(node, separators=(",", ":"), ensure_ascii=False)
    except TypeError:
        return None


def _parse(text: str) -> Any:
    try:
        return _PARSER.decode(text)
    except json.JSONDecodeError as error:
        raise DataError(
            f"Converting byte[] to Kafka Connect data failed due to serialization error: {error}"
        ) from error


def _from_utf8(data: bytes) -> str:
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as error:
        raise DataError(f"Converting byte[] to Kafka Connect data failed: invalid UTF-8: {error}") from error


def _to_utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise DataError(f"Converting Kafka Connect data to byte[] failed: {error}") from error
