"""Config providers: Kafka's file, directory and environment providers and the worker's registry of them."""

from conveyor.runtime.config_providers.directory import DirectoryConfigProvider
from conveyor.runtime.config_providers.env import EnvVarConfigProvider
from conveyor.runtime.config_providers.file import FileConfigProvider
from conveyor.runtime.config_providers.providers import CONFIG_PROVIDERS_CONFIG, ConfigProviders
from conveyor.runtime.config_providers.variables import has_variables, reverse_transform, transform

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
