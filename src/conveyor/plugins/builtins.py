"""Where Conveyor's own plugins live, and the Java class names Kafka Connect users write for them.

Every registry is imported lazily: the connectors' because `plugins` sits below `connectors` in the
package layout, the converters' and transforms' so that a package that is missing or broken does not
stop the others from loading.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from conveyor.api.config import ClassNotFound, import_dotted_class

logger = logging.getLogger(__name__)

__all__ = [
    "BuiltinPlugin",
    "builtin_connector_aliases",
    "builtin_connectors",
    "builtin_plugins",
    "builtin_tasks",
    "is_builtin",
]

_CONNECTOR_REGISTRY = "conveyor.connectors.registry"

_JAVA_CONNECT = "org.apache.kafka.connect"
_JAVA_CONVERTER_PACKAGES = {
    "JsonConverter": f"{_JAVA_CONNECT}.json",
    "StringConverter": f"{_JAVA_CONNECT}.storage",
    "SimpleHeaderConverter": f"{_JAVA_CONNECT}.storage",
}
_JAVA_DEFAULT_CONVERTER_PACKAGE = f"{_JAVA_CONNECT}.converters"


@dataclass(frozen=True)
class _Registry:
    """One ``BUILTIN_*`` table of a Conveyor package and the Java package its names belong to."""

    module: str
    attribute: str
    java_package: str | None

    def java_name(self, key: str) -> str:
        if "." in key:
            return key
        package = self.java_package or _JAVA_CONVERTER_PACKAGES.get(key, _JAVA_DEFAULT_CONVERTER_PACKAGE)
        return f"{package}.{key}"


_REGISTRIES = (
    _Registry("conveyor.settings.config_providers.providers", "BUILT_IN_PROVIDERS", None),
    _Registry("conveyor.rest.extensions", "KAFKA_EXTENSION_NAMES", None),
    _Registry("conveyor.convert", "BUILTIN_CONVERTERS", None),
    _Registry("conveyor.transforms", "BUILTIN_TRANSFORMS", f"{_JAVA_CONNECT}.transforms"),
    _Registry("conveyor.transforms", "BUILTIN_PREDICATES", f"{_JAVA_CONNECT}.transforms.predicates"),
    _Registry("conveyor.transforms", "DEBEZIUM_TRANSFORMS", "io.debezium.transforms"),
)


@dataclass(frozen=True)
class BuiltinPlugin:
    """A plugin that ships with Conveyor, under the Java class name Kafka Connect users know it by."""

    java_name: str
    cls: type


def builtin_plugins() -> Iterator[BuiltinPlugin]:
    """Every built-in converter, transformation and predicate whose package can be imported."""
    for registry in _REGISTRIES:
        try:
            table = getattr(importlib.import_module(registry.module), registry.attribute)
        except (ImportError, AttributeError) as error:
            logger.warning("Built-in plugins of %s are unavailable: %s", registry.module, error)
            continue
        for key, value in table.items():
            if "." not in key and any(other.endswith(f".{key}") for other in table):
                continue
            try:
                cls = import_dotted_class(value) if isinstance(value, str) else value
            except ClassNotFound as error:
                logger.warning("Built-in plugin %s is unavailable: %s", key, error)
                continue
            yield BuiltinPlugin(registry.java_name(key), cls)


def _connector_table(attribute: str) -> dict[str, object]:
    return cast(dict[str, object], getattr(importlib.import_module(_CONNECTOR_REGISTRY), attribute))


def builtin_connectors() -> dict[str, str]:
    """The shipped connectors: listed class name (Kafka's Java name where there is one) to module:Class."""
    return cast(dict[str, str], _connector_table("BUILTIN_CONNECTORS"))


def builtin_connector_aliases() -> dict[str, tuple[str, ...]]:
    """Aliases of shipped connectors that cannot be derived from their listed names."""
    return cast(dict[str, tuple[str, ...]], _connector_table("BUILTIN_CONNECTOR_ALIASES"))


def builtin_tasks() -> dict[str, str]:
    """The shipped tasks' Java names to module:Class."""
    return cast(dict[str, str], _connector_table("BUILTIN_TASKS"))


def is_builtin(cls: type) -> bool:
    """Whether ``cls`` is part of Conveyor itself (and so carries Conveyor's version)."""
    return cls.__module__ == "conveyor" or cls.__module__.startswith("conveyor.")
