"""Plugin discovery and class resolution: what a ``connector.class`` or ``*.type`` name refers to.

A name resolves, in order, through the catalog of known plugins (Conveyor's built-ins under Kafka's
Java class names such as ``org.apache.kafka.connect.json.JsonConverter``, connectors shipped with
Conveyor, entry points of the groups ``conveyor.connectors``, ``conveyor.converters``,
``conveyor.transforms`` and ``conveyor.predicates``, and their simple-name aliases), then as a Python
path ``package.module:Class`` or ``package.module.Class`` inside a plugin package (see ``packages``);
any other path is refused before it is imported. Plugins in the worker's ``plugin.path`` directories
join the catalog once ``load_plugin_path`` has loaded them (see ``plugin_path``).
Importing this package also makes CLASS config values resolve the same way.

Example::

    load_plugin_class("org.apache.kafka.connect.transforms.Filter", PluginKind.TRANSFORMATION)
"""

from conveyor.api.config import use_class_resolver
from conveyor.plugins.catalog import PluginCatalog, PluginEntry
from conveyor.plugins.entry_points import ENTRY_POINT_GROUPS
from conveyor.plugins.errors import (
    InvalidPluginError,
    InvalidPluginVersionError,
    PluginNotFoundError,
    PluginVersionNotFoundError,
)
from conveyor.plugins.kinds import PluginKind, kinds_of
from conveyor.plugins.plugin_path import (
    LoadedPlugins,
    PluginLoadFailure,
    load_plugin_path,
    use_shipped_plugins,
)
from conveyor.plugins.resolver import UNDEFINED_VERSION, PluginDesc, PluginResolver, plugin_version

__all__ = [
    "ENTRY_POINT_GROUPS",
    "UNDEFINED_VERSION",
    "InvalidPluginError",
    "InvalidPluginVersionError",
    "LoadedPlugins",
    "PluginCatalog",
    "PluginDesc",
    "PluginEntry",
    "PluginKind",
    "PluginLoadFailure",
    "PluginNotFoundError",
    "PluginResolver",
    "PluginVersionNotFoundError",
    "import_plugin_class",
    "kinds_of",
    "list_plugins",
    "listed_name",
    "load_chain_plugin",
    "load_plugin_class",
    "load_plugin_path",
    "plugin_version",
    "plugin_versions",
    "refresh_plugins",
    "use_shipped_plugins",
]

_default_resolver = PluginResolver()


def load_plugin_class(name: str, kind: PluginKind | None = None, version: str | None = None) -> type:
    """The plugin class ``name`` refers to, in the highest installed version ``version`` accepts (a
    version or range as ``*.plugin.version`` takes; the highest installed without one); raises
    :class:`PluginNotFoundError` listing close names, :class:`PluginVersionNotFoundError` listing the
    installed versions."""
    return _default_resolver.load(name, kind, version)


def listed_name(cls: type) -> str:
    """The name a plugin class is listed under by ``GET /connector-plugins``."""
    return _default_resolver.listed_name(cls)


def plugin_versions(name: str) -> list[str]:
    """The installed versions of the plugin ``name`` names, lowest first."""
    return _default_resolver.versions(name)


def import_plugin_class(name: str) -> type:
    """The class at the dotted path ``name`` if it lies in a plugin package (config providers and REST
    extensions are named so); raises :class:`PluginNotFoundError`, importing nothing, otherwise."""
    return _default_resolver.import_class(name)


def load_chain_plugin(kind: str, class_name: str, version: str | None = None) -> type:
    """The resolver transform chains take: ``kind`` is ``"transformation"`` or ``"predicate"``."""
    return load_plugin_class(
        class_name, PluginKind.PREDICATE if kind == "predicate" else PluginKind.TRANSFORMATION, version
    )


def list_plugins(kind: PluginKind | None = None) -> list[PluginDesc]:
    """Every known plugin, optionally only of one kind (``GET /connector-plugins``)."""
    return _default_resolver.list(kind)


def refresh_plugins() -> None:
    """Discover plugins again (after installing a distribution, or adding a shipped connector)."""
    _default_resolver.refresh()


use_class_resolver(_default_resolver.resolve_class)
