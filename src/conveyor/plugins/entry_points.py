"""Plugins that installed distributions register as entry points (``name = package.module:Class``).

A distribution declares itself a plugin distribution by registering entry points in Conveyor's groups:
the top-level package of each entry point is a plugin package, whose classes may also be named by
dotted path. A distribution whose plugins are named only by dotted path (or that ships config providers
or REST extensions) declares its packages in ``conveyor.plugin_packages`` (``name = package``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points

from conveyor.plugins.kinds import PluginKind, kinds_of

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUPS: dict[str, frozenset[PluginKind]] = {
    "conveyor.connectors": frozenset({PluginKind.SOURCE, PluginKind.SINK}),
    "conveyor.converters": frozenset({PluginKind.CONVERTER, PluginKind.HEADER_CONVERTER}),
    "conveyor.transforms": frozenset({PluginKind.TRANSFORMATION}),
    "conveyor.predicates": frozenset({PluginKind.PREDICATE}),
}

PLUGIN_PACKAGES_GROUP = "conveyor.plugin_packages"
"""The group that declares a distribution's packages plugin packages, without naming a plugin."""


@dataclass(frozen=True)
class EntryPointPlugin:
    """A class loaded from an entry point, with the entry point's name as an alias."""

    name: str
    cls: type


def entry_point_plugins() -> Iterator[EntryPointPlugin]:
    """Every registered plugin that loads and is of a kind its group allows; others are logged and skipped."""
    for group, allowed_kinds in ENTRY_POINT_GROUPS.items():
        for entry_point in entry_points(group=group):
            try:
                loaded = entry_point.load()
            except Exception as error:
                logger.warning(
                    "Skipping plugin %r of group %s: it failed to load: %s", entry_point.name, group, error
                )
                continue
            if not isinstance(loaded, type) or not kinds_of(loaded) & allowed_kinds:
                logger.warning(
                    "Skipping plugin %r of group %s: %r is not a plugin of that group's kinds",
                    entry_point.name,
                    group,
                    loaded,
                )
                continue
            yield EntryPointPlugin(entry_point.name, loaded)


def distribution_plugin_packages() -> frozenset[str]:
    """The top-level package of every entry point in Conveyor's groups, read without importing any."""
    return frozenset(
        entry_point.module.partition(".")[0]
        for group in (*ENTRY_POINT_GROUPS, PLUGIN_PACKAGES_GROUP)
        for entry_point in entry_points(group=group)
    )
