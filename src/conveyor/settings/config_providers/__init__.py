"""Config providers: Kafka's file, directory and environment providers and the worker's registry of them."""

from conveyor.settings.config_providers.directory import DirectoryConfigProvider
from conveyor.settings.config_providers.env import EnvVarConfigProvider
from conveyor.settings.config_providers.file import FileConfigProvider
from conveyor.settings.config_providers.providers import CONFIG_PROVIDERS_CONFIG, ConfigProviders
from conveyor.settings.config_providers.variables import has_variables, reverse_transform, transform

__all__ = [
    "CONFIG_PROVIDERS_CONFIG",
    "ConfigProviders",
    "DirectoryConfigProvider",
    "EnvVarConfigProvider",
    "FileConfigProvider",
    "has_variables",
    "reverse_transform",
    "transform",
]
