"""The set-up shared by Kafka's converters: ``configure``, ``is_key``, and headers converted as data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, Converter, HeaderConverter
from conveyor.convert.converter_type import CONVERTER_TYPE_CONFIG, define_converter_type, is_key_converter
from conveyor.data import Schema, SchemaAndValue


class ConfiguredConverter(Converter, HeaderConverter):
    """A converter for keys, values and headers whose settings are :meth:`config` (with ``converter.type``).

    ``configure(configs, is_key)`` is Kafka's two-argument form, in which ``is_key`` overrides
    ``converter.type``; a header converter is configured with ``configs`` alone. A new instance is
    configured with the defaults. Header values are converted as keys and values are.
    """

    is_key: bool

    def __init__(self) -> None:
        self.configure({})

    def config(self) -> ConfigDef:
        return define_converter_type(ConfigDef())

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        settings = dict(configs)
        if is_key is not None:
            settings[CONVERTER_TYPE_CONFIG] = "key" if is_key else "value"
        parsed = self.config().parse(settings)
        self.is_key = is_key_converter(parsed)
        self.configure_settings(parsed)

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        """Take the parsed settings beyond ``converter.type``; there are none unless a subclass adds some."""

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, value)
