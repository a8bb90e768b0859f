"""RegexRouter: rename the topic with a regular expression and a replacement (Java ``$1`` syntax)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigError, ConfigType, Importance, LambdaValidator, Transformation
from conveyor.data import ConnectRecord
from conveyor.transforms.transform_config import ConfiguredPlugin

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


class RegexRouter(ConfiguredPlugin, Transformation[ConnectRecord]):
    """When the whole topic matches ``regex``, replace it with ``replacement``; other topics are unchanged."""

    CONFIG_DEF = (
        ConfigDef()
        .define(REGEX_CONFIG, ConfigType.STRING, validator=LambdaValidator(_validate_regex, "valid regex"),
            importance=Importance.HIGH, documentation="Regular expression to use for matching.")
        .define(REPLACEMENT_CONFIG, ConfigType.STRING, importance=Importance.HIGH,
            documentation="Replacement string.")
    )  # fmt: skip

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._regex = re.compile(settings[REGEX_CONFIG])
        self._replacement = python_replacement(settings[REPLACEMENT_CONFIG])

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        match = self._regex.fullmatch(record.topic)
        if match is None:
            return record
        return record.new_record(topic=match.expand(self._replacement))
