"""The catalog of known plugins: every class Conveyor can load, and the names it answers to."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from conveyor.api.config import ClassNotFound, import_dotted_class
from conveyor.plugins.builtins import BUILTIN_CONNECTOR_ALIASES, BUILTIN_CONNECTORS, builtin_plugins
from conveyor.plugins.entry_points import entry_point_plugins
from conveyor.plugins.kinds import PluginKind, kinds_of
from conveyor.plugins.packages import discovered_plugin_packages
from conveyor.plugins.plugin_path import plugin_path_classes

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PluginEntry:
    """A loadable plugin class, the name it is listed under, and the kinds it serves as."""

    cls: type
    class_name: str
    kinds: frozenset[PluginKind]


class PluginCatalog:
    """Known plugins by every alias: listed name, dotted Python path, simple name, and entry point name.

    For connectors the simple name without its ``Connector`` suffix works too, as in Kafka. An alias
    two different classes claim is ambiguous and left out; their full names still resolve. ``packages``
    are the plugin packages (see ``packages``) a dotted path may be imported from.
    """

    def __init__(
        self, entries: Iterable[tuple[PluginEntry, Iterable[str]]], packages: Iterable[str] = ()
    ) -> None:
        self.packages = frozenset(packages)
        self._entries: list[PluginEntry] = []
        self._aliases: dict[str, PluginEntry] = {}
        ambiguous: set[str] = set()
        for entry, extra_aliases in entries:
            if any(known.cls is entry.cls for known in self._entries):
                continue
            self._entries.append(entry)
            for alias in (*_aliases_of(entry), *extra_aliases):
                claimed = self._aliases.setdefault(alias, entry)
                if claimed.cls is not entry.cls:
                    ambiguous.add(alias)
        for alias in ambiguous:
            logger.warning("Plugin alias %r is ambiguous; use a full class name instead", alias)
            del self._aliases[alias]

    @classmethod
    def discover(cls) -> PluginCatalog:
        """Built-ins, built-in connectors, installed entry points and plugin.path plugins, as they are now."""
        return cls(_discovered_entries(), discovered_plugin_packages())

    def find(self, name: str) -> PluginEntry | None:
        return self._aliases.get(name)

    def entries(self, kind: PluginKind | None = None) -> list[PluginEntry]:
        return [entry for entry in self._entries if kind is None or kind in entry.kinds]

    def aliases(self, kind: PluginKind | None = None) -> list[str]:
        return [alias for alias, entry in self._aliases.items() if kind is None or kind in entry.kinds]


def plugin_entry(cls: type, class_name: str | None = None) -> PluginEntry:
    """An entry for ``cls``, listed under ``class_name`` or its dotted Python path."""
    return PluginEntry(cls, class_name or dotted_path(cls), kinds_of(cls))


def dotted_path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _aliases_of(entry: PluginEntry) -> list[str]:
    simple_name = entry.cls.__qualname__
    aliases = [entry.class_name, dotted_path(entry.cls), f"{entry.cls.__module__}:{simple_name}", simple_name]
    listed_simple_name = entry.class_name.rpartition(".")[2]
    aliases.append(listed_simple_name)
    if any(kind.is_connector for kind in entry.kinds):
        aliases.extend(name.removesuffix("Connector") for name in (simple_name, listed_simple_name))
    return list(dict.fromkeys(alias for alias in aliases if alias))


def _discovered_entries() -> Iterable[tuple[PluginEntry, Iterable[str]]]:
    for builtin in builtin_plugins():
        yield plugin_entry(builtin.cls, builtin.java_name), ()
    for listed_name, path in BUILTIN_CONNECTORS.items():
        try:
            yield (
                plugin_entry(import_dotted_class(path), listed_name),
                BUILTIN_CONNECTOR_ALIASES.get(listed_name, ()),
            )
        except ClassNotFound as error:
            logger.warning("Built-in connector %s (%s) is unavailable: %s", listed_name, path, error)
    for plugin in entry_point_plugins():
        yield plugin_entry(plugin.cls), (plugin.name,)
    for cls in plugin_path_classes():
        yield plugin_entry(cls), ()
