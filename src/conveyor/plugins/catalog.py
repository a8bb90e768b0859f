"""The catalog of known plugins: every class Conveyor can load, and the names it answers to."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, packages_distributions
from importlib.metadata import version as distribution_version

import conveyor
from conveyor.api.config import ClassNotFound, import_dotted_class
from conveyor.plugins.builtins import (
    builtin_connector_aliases,
    builtin_connectors,
    builtin_plugins,
    is_builtin,
)
from conveyor.plugins.entry_points import entry_point_plugins
from conveyor.plugins.kinds import PluginKind, kinds_of
from conveyor.plugins.packages import discovered_plugin_packages
from conveyor.plugins.plugin_path import module_info, plugin_path_classes
from conveyor.plugins.versions import PluginVersion, VersionRequirement

UNDEFINED_VERSION = "undefined"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PluginEntry:
    """A loadable plugin class, the name it is listed under, and the kinds it serves as."""

    cls: type
    class_name: str
    kinds: frozenset[PluginKind]
    version: str = UNDEFINED_VERSION


class PluginCatalog:
    """Known plugins by every alias: listed name, dotted Python path, simple name, and entry point name.

    For connectors the simple name without its ``Connector`` suffix works too, as in Kafka. Classes
    listed under one name with different versions are versions of one plugin, all found by its aliases
    (KIP-891); an alias two differently named classes claim is ambiguous and left out, their full names
    still resolve. ``packages`` are the plugin packages (see ``packages``) a dotted path may be imported
    from.
    """

    def __init__(
        self, entries: Iterable[tuple[PluginEntry, Iterable[str]]], packages: Iterable[str] = ()
    ) -> None:
        self.packages = frozenset(packages)
        self._entries: list[PluginEntry] = []
        self._aliases: dict[str, list[PluginEntry]] = {}
        ambiguous: set[str] = set()
        for entry, extra_aliases in entries:
            if any(known.cls is entry.cls for known in self._entries):
                continue
            self._entries.append(entry)
            for alias in dict.fromkeys((*_aliases_of(entry), *extra_aliases)):
                claimed = self._aliases.setdefault(alias, [])
                if any(_conflict(other, entry) for other in claimed):
                    ambiguous.add(alias)
                claimed.append(entry)
        for alias in ambiguous:
            logger.warning("Plugin alias %r is ambiguous; use a full class name instead", alias)
            del self._aliases[alias]

    @classmethod
    def discover(cls) -> PluginCatalog:
        """Built-ins, built-in connectors, installed entry points and plugin.path plugins, as they are now."""
        return cls(_discovered_entries(), discovered_plugin_packages())

    def find(self, name: str, requirement: VersionRequirement | None = None) -> PluginEntry | None:
        """The highest version of the plugin ``name`` names that ``requirement`` accepts (any without one)."""
        accepted = [
            entry
            for entry in self.versions(name)
            if requirement is None or requirement.accepts(entry.version)
        ]
        return max(accepted, key=lambda entry: PluginVersion(entry.version), default=None)

    def versions(self, name: str) -> list[PluginEntry]:
        """Every installed version of the plugin ``name`` names."""
        return list(self._aliases.get(name, ()))

    def entries(self, kind: PluginKind | None = None) -> list[PluginEntry]:
        return [entry for entry in self._entries if kind is None or kind in entry.kinds]

    def aliases(self, kind: PluginKind | None = None) -> list[str]:
        return [
            alias
            for alias, found in self._aliases.items()
            if kind is None or any(kind in entry.kinds for entry in found)
        ]


def _conflict(known: PluginEntry, entry: PluginEntry) -> bool:
    """Whether two entries of one alias are different plugins, not two versions of one."""
    return known.class_name != entry.class_name or known.version == entry.version


def plugin_entry(cls: type, class_name: str | None = None) -> PluginEntry:
    """An entry for ``cls``, listed under ``class_name`` or its dotted Python path, with its version."""
    return PluginEntry(cls, class_name or dotted_path(cls), kinds_of(cls), plugin_version(cls))


def dotted_path(cls: type) -> str:
    """``module.Class``, the module named as it is listed (a second version's alias is not shown)."""
    return f"{listed_module(cls)}.{cls.__qualname__}"


def listed_module(cls: type) -> str:
    top, dot, rest = cls.__module__.partition(".")
    info = module_info(top)
    return f"{info.listed_as}{dot}{rest}" if info is not None else cls.__module__


def plugin_version(cls: type) -> str:
    """A plugin's version: its ``version()`` if it has one, else its distribution's (a plugin directory's
    or wheel's metadata, or the installed distribution's), Conveyor's for built-ins, else undefined."""
    version_method = getattr(cls, "version", None)
    if callable(version_method):
        try:
            return str(cls().version())
        except Exception:
            return UNDEFINED_VERSION
    if is_builtin(cls):
        return conveyor.__version__
    top = cls.__module__.partition(".")[0]
    info = module_info(top)
    if info is not None:
        return info.version or UNDEFINED_VERSION
    for distribution in packages_distributions().get(top, []):
        try:
            return distribution_version(distribution)
        except PackageNotFoundError:
            continue
    return UNDEFINED_VERSION


def _aliases_of(entry: PluginEntry) -> list[str]:
    simple_name = entry.cls.__qualname__
    listed = listed_module(entry.cls)
    aliases = [entry.class_name, dotted_path(entry.cls), f"{listed}:{simple_name}", simple_name]
    listed_simple_name = entry.class_name.rpartition(".")[2]
    aliases.append(listed_simple_name)
    if any(kind.is_connector for kind in entry.kinds):
        aliases.extend(name.removesuffix("Connector") for name in (simple_name, listed_simple_name))
    return list(dict.fromkeys(alias for alias in aliases if alias))


def _discovered_entries() -> Iterable[tuple[PluginEntry, Iterable[str]]]:
    for builtin in builtin_plugins():
        yield plugin_entry(builtin.cls, builtin.java_name), ()
    aliases = builtin_connector_aliases()
    for listed_name, path in builtin_connectors().items():
        try:
            yield (
                plugin_entry(import_dotted_class(path), listed_name),
                aliases.get(listed_name, ()),
            )
        except ClassNotFound as error:
            logger.warning("Built-in connector %s (%s) is unavailable: %s", listed_name, path, error)
    for plugin in entry_point_plugins():
        yield plugin_entry(plugin.cls), (plugin.name,)
    for cls in plugin_path_classes():
        yield plugin_entry(cls), ()
