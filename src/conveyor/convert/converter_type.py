"""``converter.type``: whether a converter works on keys, values or headers (Kafka's ``ConverterType``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from conveyor.api import CaseInsensitiveValidString, ConfigDef, ConfigType, Importance

CONVERTER_TYPE_CONFIG: Final = "converter.type"
CONVERTER_TYPES: Final = ("key", "value", "header")


def define_converter_type(config_def: ConfigDef) -> ConfigDef:
    """Add ``converter.type`` (default ``value``) to ``config_def``."""
    return config_def.define(
        CONVERTER_TYPE_CONFIG,
        ConfigType.STRING,
        default="value",
        validator=CaseInsensitiveValidString.in_(*CONVERTER_TYPES),
        importance=Importance.LOW,
        documentation="How this converter will be used: for keys, values or headers.",
    )


def is_key_converter(parsed: Mapping[str, Any]) -> bool:
    return str(parsed.get(CONVERTER_TYPE_CONFIG, "value")).lower() == "key"
