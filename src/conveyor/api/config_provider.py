"""Config providers: where `${provider:path:key}` variables in worker and connector configs get values.

A provider (Kafka's ``ConfigProvider``) is named in the worker's ``config.providers`` and built from
``config.providers.<name>.class``; ``configure`` receives its ``config.providers.<name>.param.*``
settings. Conveyor resolves a connector's variables each time it starts the connector or a task, and
never stores or shows the resolved values.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Set
from dataclasses import dataclass, field

from conveyor.api.config import ConfigDef


@dataclass(frozen=True)
class ConfigData:
    """Values a provider found under one path (Kafka's ``ConfigData``); ``ttl_ms`` is how long they hold."""

    data: Mapping[str, str] = field(default_factory=dict)
    ttl_ms: int | None = None


class ConfigProvider(abc.ABC):
    """Looks values up by path and key, for the variables ``${name:path:key}`` of a config."""

    def configure(self, configs: Mapping[str, str]) -> None:  # noqa: B027 - optional hook
        """Receive the provider's ``param.*`` settings (without the prefix)."""

    @abc.abstractmethod
    def get(self, path: str, keys: Set[str] | None = None) -> ConfigData:
        """The values under ``path``: only ``keys`` when given (missing ones left out), else all."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the provider holds."""

    def config(self) -> ConfigDef:
        """The ``param.*`` settings the provider accepts (``GET /connector-plugins/{p}/config``, KIP-1273)."""
        return ConfigDef()
