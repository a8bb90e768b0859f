"""``SimpleHeaderConverter``: header values as UTF-8 text, read back with inferred schemas (Kafka's)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, HeaderConverter
from conveyor.convert.header_values import text_to_value, value_to_text
from conveyor.data import STRING_SCHEMA, DataError, Schema, SchemaAndValue


class SimpleHeaderConverter(HeaderConverter):
    """Writes each header value as text and parses text back into the narrowest fitting type."""

    def config(self) -> ConfigDef:
        return ConfigDef()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Takes no settings."""

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        if value is None:
            return None
        return value_to_text(schema, value).encode("utf-8")

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue(None, None)
        try:
            text = bytes(value).decode("utf-8")
        except UnicodeDecodeError as error:
            raise DataError(f"Failed to deserialize value for header '{header_key}'", topic=topic) from error
        if not text:
            return SchemaAndValue(STRING_SCHEMA, text)
        return text_to_value(text)
