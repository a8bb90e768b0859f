"""Plugins that installed distributions register as entry points (``name = package.module:Class``)."""

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
