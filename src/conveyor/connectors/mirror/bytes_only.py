"""Mirror connectors copy bytes: their keys, values and headers must pass through ByteArrayConverter."""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.convert import ByteArrayConverter
from conveyor.errors import ConfigError
from conveyor.plugins import PluginKind, load_plugin_class

CONVERTER_KEYS = (
    ("key.converter", PluginKind.CONVERTER),
    ("value.converter", PluginKind.CONVERTER),
    ("header.converter", PluginKind.HEADER_CONVERTER),
)
BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"


def require_byte_array_converters(props: Mapping[str, str]) -> None:
    """Refuse a config that would let the worker's converters reinterpret the replicated bytes."""
    for key, kind in CONVERTER_KEYS:
        name = props.get(key, "").strip()
        if not name or not issubclass(load_plugin_class(name, kind), ByteArrayConverter):
            raise ConfigError(
                f"{key} must be {BYTE_ARRAY_CONVERTER}: a mirror connector copies records byte for byte"
            )


def byte_array_converters() -> dict[str, str]:
    """The converter settings every mirror connector runs with."""
    return {key: BYTE_ARRAY_CONVERTER for key, _ in CONVERTER_KEYS}
