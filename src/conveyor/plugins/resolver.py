"""Turning a plugin name from a config or a REST path into a class, and listing what is known."""

from __future__ import annotations

import builtins
import difflib
import threading
from dataclasses import dataclass

from conveyor.api.config import ClassNotFound, import_dotted_class
from conveyor.plugins.catalog import (
    UNDEFINED_VERSION,
    PluginCatalog,
    PluginEntry,
    plugin_entry,
    plugin_version,
)
from conveyor.plugins.errors import (
    InvalidPluginError,
    InvalidPluginVersionError,
    PluginNotFoundError,
    PluginVersionNotFoundError,
)
from conveyor.plugins.kinds import PluginKind
from conveyor.plugins.packages import in_plugin_package
from conveyor.plugins.versions import InvalidVersionRequirement, PluginVersion, version_requirement

__all__ = ["UNDEFINED_VERSION", "PluginDesc", "PluginResolver", "plugin_version"]

_KIND_LABELS = {
    None: "a plugin",
    PluginKind.SOURCE: "SourceConnector",
    PluginKind.SINK: "SinkConnector",
    PluginKind.CONVERTER: "Converter",
    PluginKind.HEADER_CONVERTER: "HeaderConverter",
    PluginKind.TRANSFORMATION: "Transformation",
    PluginKind.PREDICATE: "Predicate",
    PluginKind.CONFIG_PROVIDER: "ConfigProvider",
    PluginKind.REST_EXTENSION: "ConnectRestExtension",
}


@dataclass(frozen=True)
class PluginDesc:
    """One row of ``GET /connector-plugins``."""

    class_name: str
    type: PluginKind
    version: str = UNDEFINED_VERSION

    def to_json(self) -> dict[str, str]:
        """The REST form; ``version`` is left out when undefined, as Kafka does."""
        body = {"class": self.class_name, "type": self.type.value}
        if self.version != UNDEFINED_VERSION:
            body["version"] = self.version
        return body


class PluginResolver:
    """Resolves plugin names against a catalog discovered once (``refresh`` discovers again)."""

    def __init__(self, catalog: PluginCatalog | None = None) -> None:
        self._catalog = catalog
        self._lock = threading.Lock()

    @property
    def catalog(self) -> PluginCatalog:
        with self._lock:
            if self._catalog is None:
                self._catalog = PluginCatalog.discover()
            return self._catalog

    def refresh(self) -> None:
        """Forget the catalog, so that newly installed plugins are found."""
        with self._lock:
            self._catalog = None

    def load(self, name: str, kind: PluginKind | None = None, version: str | None = None) -> type:
        """The class ``name`` refers to, checked to be of ``kind`` when one is given, in the highest
        installed version ``version`` (a ``*.plugin.version`` value) accepts.

        Raises :class:`PluginVersionNotFoundError` listing the installed versions when none is accepted,
        and ``InvalidVersionRequirement`` for a value that is no version or range.
        """
        wanted = name.strip()
        entry = self._lookup(wanted, kind, version)
        if kind is not None and kind not in entry.kinds:
            raise InvalidPluginError(f"{wanted} is not a {_KIND_LABELS[kind]}; it is {_describe(entry)}")
        if not entry.kinds:
            raise InvalidPluginError(f"{wanted} is not a Conveyor plugin class")
        return entry.cls

    def resolve_class(self, name: str) -> type:
        """The class ``name`` refers to, plugin or not (how CLASS config values are resolved)."""
        return self._lookup(name.strip(), None).cls

    def list(self, kind: PluginKind | None = None) -> list[PluginDesc]:
        """Every known plugin (of ``kind``), sorted by listed name, once per kind it serves as."""
        descriptions = [
            PluginDesc(entry.class_name, entry_kind, entry.version)
            for entry in self.catalog.entries(kind)
            for entry_kind in sorted(entry.kinds, key=list(PluginKind).index)
            if kind is None or entry_kind is kind
        ]
        return sorted(descriptions, key=lambda d: (list(PluginKind).index(d.type), d.class_name))

    def import_class(self, name: str) -> type:
        """The class at the dotted path ``name``, imported only if it lies in a plugin package.

        Raises :class:`PluginNotFoundError` without importing anything when it does not.
        """
        wanted = name.strip()
        if not in_plugin_package(wanted, self.catalog.packages):
            raise PluginNotFoundError(_outside_plugin_packages(wanted), wanted, [])
        try:
            return import_dotted_class(wanted)
        except ClassNotFound:
            raise PluginNotFoundError(f"Class {wanted} could not be found", wanted, []) from None

    def listed_name(self, cls: type) -> str:
        """The name ``cls`` is listed under (Kafka's Java name for a built-in), or its dotted path."""
        found = next((entry for entry in self.catalog.entries() if entry.cls is cls), None)
        return found.class_name if found is not None else plugin_entry(cls).class_name

    def versions(self, name: str) -> builtins.list[str]:
        """The installed versions of the plugin ``name`` names, lowest first (none for an unknown name)."""
        return sorted({entry.version for entry in self.catalog.versions(name.strip())}, key=PluginVersion)

    def _lookup(self, name: str, kind: PluginKind | None, version: str | None = None) -> PluginEntry:
        catalog = self.catalog
        try:
            requirement = version_requirement(version)
        except InvalidVersionRequirement as error:
            raise InvalidPluginVersionError(f"Invalid version of {name}: {error}") from None
        known = catalog.find(name, requirement)
        if known is not None:
            return known
        installed = catalog.versions(name)
        if installed and requirement is not None:
            available = ", ".join(sorted({entry.version for entry in installed}, key=PluginVersion))
            raise PluginVersionNotFoundError(
                f"Plugin {name} is not installed in a version {requirement} accepts; "
                f"the versions installed are: {available}",
                name,
                sorted({entry.version for entry in installed}, key=PluginVersion),
            )
        reason = ""
        if "." in name or ":" in name:
            if in_plugin_package(name, catalog.packages):
                try:
                    return plugin_entry(import_dotted_class(name))
                except ClassNotFound:
                    pass
            else:
                reason = f"; {_outside_plugin_packages(name)}"
        close = difflib.get_close_matches(name, catalog.aliases(kind), n=5, cutoff=0.6)
        label = _KIND_LABELS[kind]
        message = f"Failed to find any class that implements {label} and which name matches {name}{reason}"
        if close:
            message += f"; the closest known names are: {', '.join(close)}"
        raise PluginNotFoundError(message, name, close)


def _outside_plugin_packages(name: str) -> str:
    return (
        f"{name} is not in a plugin package (a module of plugin.path or of an installed plugin "
        "distribution, other than a __main__ module), so it is not imported"
    )


def _describe(entry: PluginEntry) -> str:
    kinds = sorted(_KIND_LABELS[kind] for kind in entry.kinds)
    return "a " + " and a ".join(kinds) if kinds else "not a plugin"
