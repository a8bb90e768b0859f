"""The predicates Kafka ships: TopicNameMatches, HasHeaderKey and RecordIsTombstone."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from conveyor.api import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    LambdaValidator,
    NonEmptyString,
    Predicate,
)
from conveyor.data import ConnectRecord
from conveyor.transforms.transform_config import ConfiguredPlugin

PATTERN_CONFIG = "pattern"
NAME_CONFIG = "name"


def _validate_pattern(name: str, value: Any) -> None:
    if not value:
        raise ConfigError(name, value, "String must be non-empty")
    try:
        re.compile(value)
    except re.error as error:
        raise ConfigError(name, value, f"Invalid regex: {error}") from None


class TopicNameMatches(ConfiguredPlugin, Predicate[ConnectRecord]):
    """True for records whose whole topic name matches ``pattern``."""

    CONFIG_DEF = ConfigDef().define(
        PATTERN_CONFIG,
        ConfigType.STRING,
        validator=LambdaValidator(_validate_pattern, "A valid regex"),
        importance=Importance.MEDIUM,
        documentation="A Java regular expression for matching against the name of a record's topic.",
    )

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._pattern = re.compile(settings[PATTERN_CONFIG])

    def test(self, record: ConnectRecord) -> bool:
        return record.topic is not None and self._pattern.fullmatch(record.topic) is not None

    def __repr__(self) -> str:
        return f"TopicNameMatches{{pattern={self._pattern.pattern}}}"


class HasHeaderKey(ConfiguredPlugin, Predicate[ConnectRecord]):
    """True for records with at least one header named ``name``."""

    CONFIG_DEF = ConfigDef().define(
        NAME_CONFIG,
        ConfigType.STRING,
        validator=NonEmptyString(),
        importance=Importance.MEDIUM,
        documentation="The header name.",
    )

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._name: str = settings[NAME_CONFIG]

    def test(self, record: ConnectRecord) -> bool:
        return any(header.key == self._name for header in record.headers)

    def __repr__(self) -> str:
        return f"HasHeaderKey{{name='{self._name}'}}"


class RecordIsTombstone(Predicate[ConnectRecord]):
    """True for tombstones: records whose value is null."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def test(self, record: ConnectRecord) -> bool:
        return record.value is None

    def __repr__(self) -> str:
        return "RecordIsTombstone{}"
