"""Keys the shipped source connectors share, defined once."""

from __future__ import annotations

from typing import Final

from conveyor.api import ConfigKey, ConfigType, Importance, NonEmptyString

TOPIC_CONFIG: Final = "topic"


def topic_key(documentation: str) -> ConfigKey:
    """The required, non-empty ``topic`` a source connector writes its records to."""
    return ConfigKey(
        TOPIC_CONFIG,
        ConfigType.STRING,
        validator=NonEmptyString(),
        importance=Importance.HIGH,
        documentation=documentation,
        display_name=TOPIC_CONFIG,
    )
