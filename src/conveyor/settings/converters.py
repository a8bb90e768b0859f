"""The converters a connector config names, configured from its own settings or else the worker's.

One place builds them for the task loops, the Spark sink's query and the REST topic browser, so a
converter reads the same settings wherever it runs.
"""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.api import Converter, HeaderConverter
from conveyor.errors import ConfigError
from conveyor.plugins import PluginKind, load_plugin_class
from conveyor.settings.worker_config import WorkerConfig

PLUGIN_VERSION = "plugin.version"


def plugin_settings(
    connector_config: Mapping[str, str], worker_config: WorkerConfig, key: str
) -> tuple[str, dict[str, str]]:
    """The class and settings of a converter, from the connector's config or else the worker's."""
    if not connector_config.get(key):
        return worker_config.converter(key)
    prefix = key + "."
    settings = {k[len(prefix) :]: v for k, v in connector_config.items() if k.startswith(prefix)}
    settings.pop(PLUGIN_VERSION, None)
    return connector_config[key], settings


def plugin_version_of(connector_config: Mapping[str, str], key: str) -> str | None:
    """The ``<key>.plugin.version`` a connector config asks for, if any (KIP-891)."""
    return connector_config.get(f"{key}.{PLUGIN_VERSION}") or None


def build_converter(connector_config: Mapping[str, str], worker_config: WorkerConfig, key: str) -> Converter:
    class_name, settings = plugin_settings(connector_config, worker_config, key)
    version = plugin_version_of(connector_config, key)
    converter = load_plugin_class(class_name, PluginKind.CONVERTER, version)()
    if not isinstance(converter, Converter):
        raise ConfigError(f"{class_name} given for {key} is not a Converter")
    converter.configure(settings, key == "key.converter")
    return converter


def build_header_converter(
    connector_config: Mapping[str, str], worker_config: WorkerConfig
) -> HeaderConverter:
    class_name, settings = plugin_settings(connector_config, worker_config, "header.converter")
    version = plugin_version_of(connector_config, "header.converter")
    converter = load_plugin_class(class_name, PluginKind.HEADER_CONVERTER, version)()
    if not isinstance(converter, HeaderConverter):
        raise ConfigError(f"{class_name} given for header.converter is not a HeaderConverter")
    converter.configure(settings)
    return converter
