"""Parsing a transformation's or predicate's settings, with errors that name the plugin and the key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigError


def parse_settings(owner: str, config_def: ConfigDef, configs: Mapping[str, Any]) -> dict[str, Any]:
    """Parse ``configs`` against ``config_def``; a bad or missing key raises ConfigError naming ``owner``."""
    try:
        return config_def.parse(configs)
    except ConfigError as error:
        raise settings_error(owner, error) from error


def settings_error(owner: str, error: ConfigError) -> ConfigError:
    """``error`` reworded so that it starts with the plugin it belongs to."""
    reworded = ConfigError(f"{owner}: {error}")
    reworded.name, reworded.value = error.name, error.value
    return reworded


def invalid_setting(owner: str, name: str, value: Any, reason: str) -> ConfigError:
    """A ConfigError for key ``name`` of plugin ``owner``."""
    return settings_error(owner, ConfigError(name, value, reason))


REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"
REPLACE_NULL_WITH_DEFAULT_DOC = (
    "Whether to replace fields that have a default value and that are null to the default value. "
    "When set to true, the default value is used, otherwise null is used."
)


def split_like_java(text: str, separator: str) -> list[str]:
    """``text.split(separator)`` as Java's ``String.split`` does it: trailing empty parts are dropped."""
    parts = text.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts
