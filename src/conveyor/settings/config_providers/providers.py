"""The worker's configured providers, built from ``config.providers`` and its ``config.providers.*``."""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.api.config_provider import ConfigProvider
from conveyor.api.errors import ConfigError
from conveyor.log.api import Closeable
from conveyor.plugins import PluginNotFoundError, import_plugin_class
from conveyor.settings.config_providers.directory import DirectoryConfigProvider
from conveyor.settings.config_providers.env import EnvVarConfigProvider
from conveyor.settings.config_providers.file import FileConfigProvider
from conveyor.settings.config_providers.variables import reverse_transform, transform

CONFIG_PROVIDERS_CONFIG = "config.providers"

_KAFKA_PACKAGE = "org.apache.kafka.common.config.provider."
_BUILT_IN: tuple[type[ConfigProvider], ...] = (
    FileConfigProvider,
    DirectoryConfigProvider,
    EnvVarConfigProvider,
)
#: Kafka's class names and the bare class names of the providers Conveyor ships.
BUILT_IN_PROVIDERS: dict[str, type[ConfigProvider]] = {
    name: cls for cls in _BUILT_IN for name in (f"{_KAFKA_PACKAGE}{cls.__name__}", cls.__name__)
}


def provider_class(key: str, name: str) -> type[ConfigProvider]:
    """The class ``config.providers.<name>.class`` names: Kafka's name, a built-in's, or a dotted path in a
    plugin package (anything else is refused before it is imported)."""
    cls = BUILT_IN_PROVIDERS.get(name)
    if cls is None:
        try:
            cls = import_plugin_class(name)
        except PluginNotFoundError as error:
            raise ConfigError(key, name, str(error)) from None
    if not issubclass(cls, ConfigProvider):
        raise ConfigError(key, name, "Not a conveyor.api.ConfigProvider")
    return cls


class ConfigProviders(Closeable):
    """Named providers that resolve the variables of worker and connector configs."""

    def __init__(self, providers: Mapping[str, ConfigProvider]) -> None:
        self.providers = dict(providers)

    @classmethod
    def from_worker_props(cls, props: Mapping[str, str]) -> ConfigProviders:
        """Build and configure each provider ``config.providers`` names (Kafka's worker settings)."""
        names = [n.strip() for n in props.get(CONFIG_PROVIDERS_CONFIG, "").split(",") if n.strip()]
        providers: dict[str, ConfigProvider] = {}
        for name in names:
            class_key = f"{CONFIG_PROVIDERS_CONFIG}.{name}.class"
            class_name = props.get(class_key, "").strip()
            if not class_name:
                raise ConfigError(class_key, None, f"config provider '{name}' is listed but has no class")
            provider = provider_class(class_key, class_name)()
            prefix = f"{CONFIG_PROVIDERS_CONFIG}.{name}.param."
            provider.configure({k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)})
            providers[name] = provider
        return cls(providers)

    def transform(self, config: Mapping[str, str]) -> dict[str, str]:
        """``config`` with its variables resolved; the ``config.providers*`` keys themselves are kept."""
        kept = {k: v for k, v in config.items() if k.startswith(CONFIG_PROVIDERS_CONFIG)}
        resolved = transform({k: v for k, v in config.items() if k not in kept}, self.providers)
        return resolved | kept

    @staticmethod
    def reverse_transform(resolved: Mapping[str, str], raw: Mapping[str, str]) -> dict[str, str]:
        return reverse_transform(resolved, raw)

    def close(self) -> None:
        for provider in self.providers.values():
            provider.close()
