"""RegexRouter: rename the topic with a regular expression and a replacement (Java ``$1`` syntax)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from conveyor.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    LambdaValidator,
    Transformation,
)
from conveyor.data import ConnectRecord
from conveyor.transforms.transform_config import parse_settings

REGEX_CONFIG = "regex"
REPLACEMENT_CONFIG = "replacement"
_GROUP_REFERENCE = re.compile(r"\\(.)|\$(\d+)|\$\{(\w+)\}|\$", re.DOTALL)


def _validate_regex(name: str, value: Any) -> None:
    try:
        re.compile(value)
    except (re.error, TypeError) as error:
        raise ConfigError(name, value, f"Invalid regex: {error}") from None


def python_replacement(java_replacement: str) -> str:
    """Translate a Java ``Matcher`` replacement (``$1``, ``${name}``, ``\\$``) to Python's syntax."""

    def translate(match: re.Match[str]) -> str:
        escaped, number, name = match.groups()
        if escaped is not None:
            return escaped.replace("\\", "\\\\")
        if number is not None:
            return rf"\g<{number}>"
        if name is not None:
            return rf"\g<{name}>"
        raise ConfigError(REPLACEMENT_CONFIG, java_replacement, "Illegal group reference")

    return _GROUP_REFERENCE.sub(translate, java_replacement)


CONFIG_DEF = (
    ConfigDef()
    .define(
        REGEX_CONFIG,
        ConfigType.STRING,
        NO_DEFAULT,
        LambdaValidator(_validate_regex, "valid regex"),
        importance=Importance.HIGH,
        documentation="Regular expression to use for matching.",
    )
    .define(
        REPLACEMENT_CONFIG,
        ConfigType.STRING,
        NO_DEFAULT,
        importance=Importance.HIGH,
        documentation="Replacement string.",
    )
)


class RegexRouter(Transformation[ConnectRecord]):
    """When the whole topic matches ``regex``, replace it with ``replacement``; other topics are unchanged."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        settings = parse_settings(type(self).__name__, CONFIG_DEF, configs)
        self._regex = re.compile(settings[REGEX_CONFIG])
        self._replacement = python_replacement(settings[REPLACEMENT_CONFIG])

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def close(self) -> None:
        pass

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        match = self._regex.fullmatch(record.topic)
        if match is None:
            return record
        return record.new_record(topic=match.expand(self._replacement))
