"""Parsing a transformation's or predicate's settings, with errors that name the plugin and the key."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any, ClassVar

from conveyor.api import ConfigDef, ConfigError, ConfigType, Importance


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


def define_replace_null_with_default(config_def: ConfigDef) -> ConfigDef:
    """Add KIP-1040's ``replace.null.with.default`` (default true) to ``config_def``."""
    return config_def.define(
        REPLACE_NULL_WITH_DEFAULT_CONFIG,
        ConfigType.BOOLEAN,
        default=True,
        importance=Importance.MEDIUM,
        documentation=REPLACE_NULL_WITH_DEFAULT_DOC,
    )


class ConfiguredPlugin(abc.ABC):
    """Mixin for a transformation or predicate whose settings are ``CONFIG_DEF``, parsed by ``configure``.

    Subclasses take the parsed settings in :meth:`configure_settings`; errors name the plugin's class.
    """

    CONFIG_DEF: ClassVar[ConfigDef]

    @property
    def owner(self) -> str:
        """The name its configuration errors start with: the class name, e.g. ``CastValue``."""
        return type(self).__name__

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.configure_settings(parse_settings(self.owner, self.CONFIG_DEF, configs))

    def config(self) -> ConfigDef:
        return self.CONFIG_DEF

    @abc.abstractmethod
    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        """Take the parsed settings: every key of ``CONFIG_DEF``, with defaults filled in."""

    def settings_error(self, error: ConfigError) -> ConfigError:
        """``error`` reworded so that it names this plugin."""
        return settings_error(self.owner, error)

    def non_empty_list(self, settings: Mapping[str, Any], name: str) -> list[str]:
        """The list setting ``name``; an empty one is a ConfigError, as Kafka's ``NonEmptyListValidator``."""
        values: list[str] = settings[name]
        if not values:
            raise invalid_setting(self.owner, name, values, "Empty list")
        return values


def split_like_java(text: str, separator: str) -> list[str]:
    """``text.split(separator)`` as Java's ``String.split`` does it: trailing empty parts are dropped."""
    parts = text.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts
