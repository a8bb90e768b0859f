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


def converter_choice(
    connector_config: Mapping[str, str], worker_config: WorkerConfig, key: str
) -> tuple[str, str | None, dict[str, str]]:
    """The class, pinned version (``<key>.plugin.version``, KIP-891) and settings of a converter: the
    connector's own when it names one, else the worker's, each with its own version (Kafka's
    ``Worker.newConverter``: a connector's version pins only a converter the connector names)."""
    if connector_config.get(key):
        class_name, source = connector_config[key], connector_config
    else:
        class_name, source = worker_config.converter(key)[0], worker_config.props
    prefix = key + "."
    settings = {k[len(prefix) :]: v for k, v in source.items() if k.startswith(prefix)}
    version = settings.pop(PLUGIN_VERSION, None) or None
    return class_name, version, settings


def plugin_settings(
    connector_config: Mapping[str, str], worker_config: WorkerConfig, key: str
) -> tuple[str, dict[str, str]]:
    """The class and settings of a converter, from the connector's config or else the worker's."""
    class_name, _, settings = converter_choice(connector_config, worker_config, key)
    return class_name, settings


def build_converter(connector_config: Mapping[str, str], worker_config: WorkerConfig, key: str) -> Converter:
    class_name, version, settings = converter_choice(connector_config, worker_config, key)
    converter = load_plugin_class(class_name, PluginKind.CONVERTER, version)()
    if not isinstance(converter, Converter):
        raise ConfigError(f"{class_name} given for {key} is not a Converter")
    converter.configure(settings, key == "key.converter")
    return converter


def build_header_converter(
    connector_config: Mapping[str, str], worker_config: WorkerConfig
) -> HeaderConverter:
    class_name, version, settings = converter_choice(connector_config, worker_config, "header.converter")
    converter = load_plugin_class(class_name, PluginKind.HEADER_CONVERTER, version)()
    if not isinstance(converter, HeaderConverter):
        raise ConfigError(f"{class_name} given for header.converter is not a HeaderConverter")
    converter.configure(settings)
    return converter
