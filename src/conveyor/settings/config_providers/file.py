"""``FileConfigProvider``: ``${file:/path/to/secrets.properties:key}`` reads a key of a properties file."""

from __future__ import annotations

from collections.abc import Set
from pathlib import Path

from conveyor.api.config_provider import ConfigData
from conveyor.api.errors import ConfigError
from conveyor.settings.config_providers.allowed_paths import PathConfigProvider
from conveyor.settings.properties import read_properties


class FileConfigProvider(PathConfigProvider):
    """Kafka's ``org.apache.kafka.common.config.provider.FileConfigProvider``; with ``allowed.paths`` set,
    only files that really lie under those directories (see ``allowed_paths``) are read."""

    def get(self, path: str, keys: Set[str] | None = None) -> ConfigData:
        if not path:
            return ConfigData()
        try:
            text = self.allowed.read_text(Path(path))
        except OSError as error:
            raise ConfigError(f"Could not read properties from file {path}") from error
        if text is None:
            return ConfigData()
        properties = read_properties(text)
        return ConfigData({k: v for k, v in properties.items() if keys is None or k in keys})
