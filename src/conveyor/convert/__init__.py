"""Converters: Connect data to the bytes kept in the log and back, for keys, values and headers.

``BUILTIN_CONVERTERS`` maps Kafka's simple class names onto Conveyor's converters; the plugin resolver
maps the fully qualified names (``org.apache.kafka.connect.json.JsonConverter``, ...) onto these keys.
"""

from typing import Final

from conveyor.convert.json_converter import JsonConverter, json_converter_config_def
from conveyor.convert.json_options import DecimalFormat, JsonOptions
from conveyor.convert.number_converters import (
    BooleanConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    ShortConverter,
)
from conveyor.convert.simple_header_converter import SimpleHeaderConverter
from conveyor.convert.string_converter import ByteArrayConverter, StringConverter

BUILTIN_CONVERTERS: Final[dict[str, type]] = {
    "JsonConverter": JsonConverter,
    "StringConverter": StringConverter,
    "ByteArrayConverter": ByteArrayConverter,
    "ShortConverter": ShortConverter,
    "IntegerConverter": IntegerConverter,
    "LongConverter": LongConverter,
    "FloatConverter": FloatConverter,
    "DoubleConverter": DoubleConverter,
    "BooleanConverter": BooleanConverter,
    "SimpleHeaderConverter": SimpleHeaderConverter,
}

__all__ = [
    "BUILTIN_CONVERTERS",
    "BooleanConverter",
    "ByteArrayConverter",
    "DecimalFormat",
    "DoubleConverter",
    "FloatConverter",
    "IntegerConverter",
    "JsonConverter",
    "JsonOptions",
    "LongConverter",
    "ShortConverter",
    "SimpleHeaderConverter",
    "StringConverter",
    "json_converter_config_def",
]
