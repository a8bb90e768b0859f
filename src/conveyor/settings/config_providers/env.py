"""``EnvVarConfigProvider`` (KIP-887): ``${env:VAR}`` (or ``${env::VAR}``) is an environment variable."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Set

from conveyor.api.config_provider import ConfigData, ConfigProvider
from conveyor.api.errors import ConfigError

ALLOWLIST_PATTERN_CONFIG = "allowlist.pattern"


class EnvVarConfigProvider(ConfigProvider):
    """Kafka's ``org.apache.kafka.common.config.provider.EnvVarConfigProvider``; ``allowlist.pattern``
    (a regular expression matching whole names, ``.*`` by default) limits which variables it serves."""

    def __init__(self, environment: Mapping[str, str] | None = None) -> None:
        self.environment = dict(os.environ if environment is None else environment)
        self.allowlist = re.compile(".*")

    def configure(self, configs: Mapping[str, str]) -> None:
        pattern = configs.get(ALLOWLIST_PATTERN_CONFIG)
        if pattern:
            try:
                self.allowlist = re.compile(pattern)
            except re.error as error:
                raise ConfigError(ALLOWLIST_PATTERN_CONFIG, pattern, str(error)) from error

    def get(self, path: str, keys: Set[str] | None = None) -> ConfigData:
        if path:
            raise ConfigError(f"Path is not supported for EnvVarConfigProvider, invalid value '{path}'")
        return ConfigData(
            {
                name: value
                for name, value in self.environment.items()
                if self.allowlist.fullmatch(name) and (keys is None or name in keys)
            }
        )
